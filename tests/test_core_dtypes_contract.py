"""Contract of the dtype table (``layoutalg.core.dtypes``): every canonical name's width from the PTX ISA
("Fundamental types", "Alternate floating point data formats") and CUTLASS ``numeric_types.h``, whole bytes,
CuTe spellings, width arguments given as ints, and the table's values being immutable."""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.core.dtypes import DTYPES, DType, cute_name, dtype, dtype_bits, names, ptx_name
from layoutalg.errors import LayoutError

# Widths stated by the PTX ISA / CUTLASS, written here independently of the table.
PTX_BITS = {
    "f64": 64, "f32": 32, "tf32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "ue8m0": 8, "e3m2": 6,
    "e2m3": 6, "e2m1": 4, "fp8": 8, "s64": 64, "u64": 64, "s32": 32, "u32": 32, "s16": 16, "u16": 16, "s8": 8,
    "u8": 8, "s4": 4, "u4": 4, "b1": 1, "b8": 8, "b16": 16, "b32": 32, "b64": 64, "b128": 128,
}


def test_every_canonical_name_has_its_ptx_width() -> None:
    assert sorted(names()) == sorted(PTX_BITS)
    for name, bits in PTX_BITS.items():
        assert dtype_bits(name) == bits, name
        assert dtype(name).bits == bits, name


def test_names_lists_the_canonical_names_in_table_order() -> None:
    assert names() == [d.name for d in DTYPES]
    assert names()[0] == "f64" and "bf16" in names()


@pytest.mark.parametrize("spelling,bits", [
    ("torch.float16", 16), ("cutlass.Float16", 16), ("half", 16), ("__half", 16), ("__nv_bfloat16", 16),
    ("cutlass.BFloat16", 16), ("torch.float8_e4m3fn", 8), ("fp8_e4m3", 8), ("__nv_fp8_e4m3", 8),
    ("torch.float8_e5m2", 8), ("f8e5m2", 8), ("float8_e8m0fnu", 8), ("fp6_e3m2", 6), ("float6_e2m3fn", 6),
    ("fp4", 4), ("tfloat32", 32), ("fp32_tf32", 32), ("long long", 64), ("cutlass.Int64", 64), ("uint64", 64),
    ("short", 16), ("cutlass.Uint16", 16), ("signed char", 8), ("int4", 4), ("uint4b_t", 4), ("bin", 1),
    ("cutlass::uint1b_t", 1), ("cute::uint128_t", 128), ("std::int32_t", 32),
])
def test_aliases_read_with_their_formats_width(spelling: str, bits: int) -> None:
    assert dtype_bits(spelling) == bits


@pytest.mark.parametrize("name,whole_bytes", [("f64", 8), ("f32", 4), ("bf16", 2), ("e4m3", 1), ("e2m1", 0),
                                              ("e3m2", 0), ("b1", 0), ("b128", 16), ("u16", 2)])
def test_bytes_counts_whole_bytes_and_is_zero_below_a_byte(name: str, whole_bytes: int) -> None:
    assert dtype(name).bytes == whole_bytes


def test_a_dtype_prints_as_its_canonical_name() -> None:
    assert str(dtype("torch.bfloat16")) == "bf16"
    assert f"{dtype('cutlass::half_t')}" == "f16"


def test_a_dtype_value_reads_as_itself() -> None:
    d = dtype("f16")
    assert dtype(d) is d
    assert dtype_bits(d) == 16 and ptx_name(d) == "f16"


def test_dtypes_are_immutable_and_usable_as_keys() -> None:
    d = dtype("bf16")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.bits = 8  # type: ignore[misc]
    assert {d: 1}[dtype("bfloat16")] == 1
    assert isinstance(d, DType)


@pytest.mark.parametrize("width", [1, 6, 16, 256])
def test_a_positive_int_is_a_width_in_bits(width: int) -> None:
    assert dtype_bits(width) == width


@pytest.mark.parametrize("width", [0, -8])
def test_a_non_positive_width_is_refused_naming_it(width: int) -> None:
    with pytest.raises(LayoutError, match=f"must be positive, got {width}"):
        dtype_bits(width)


@pytest.mark.parametrize("spelling,cute", [("f16", "F16"), ("torch.bfloat16", "BF16"), ("float8_e4m3fn", "E4M3"),
                                           ("int8", "S8"), ("uint32", "U32"), ("tfloat32_t", "TF32"),
                                           ("b1", "U1"), ("double", "F64")])
def test_cute_name_is_cutes_atom_spelling(spelling: str, cute: str) -> None:
    assert cute_name(spelling) == cute


def test_cute_name_refuses_the_width_only_fp8() -> None:
    with pytest.raises(LayoutError, match="e4m3 or e5m2"):
        cute_name("fp8")


class _HostileStr:
    def __str__(self) -> str:
        raise RuntimeError("a foreign __str__ failed")

    __repr__ = __str__


class _HostileName:
    @property
    def name(self) -> str:
        raise ZeroDivisionError("a foreign .name failed")


@pytest.mark.parametrize("obj", [_HostileStr(), _HostileName()])
def test_an_object_whose_own_name_or_str_fails_is_refused_as_a_layout_error(obj: object) -> None:
    with pytest.raises(LayoutError, match="is not an element type"):
        dtype(obj)
    with pytest.raises(LayoutError):
        dtype_bits(obj)


def test_library_prefixed_names_read_as_the_bare_name() -> None:
    assert dtype("torch.float16") is dtype("float16") is dtype("f16")
    assert dtype("cutlass.cute.Float32") is dtype("f32")
    assert dtype("cute.cutlass.Float16") is dtype("cute::cutlass::half_t") is dtype("f16")  # dropped in any order


class _StrOnly:  # a foreign dtype object that only says its name through str()
    def __str__(self) -> str:
        return "bfloat16"


class _NumericName:  # a .name that is not a string does not name the dtype; str() does
    name = 5

    def __str__(self) -> str:
        return "float32"


def test_an_object_naming_its_dtype_only_by_str_reads_as_that_dtype() -> None:
    assert dtype(_StrOnly()) is dtype("bf16")
    assert dtype(_NumericName()) is dtype("f32")


@pytest.mark.parametrize("obj", [object(), None, True], ids=["default repr", "None", "bool"])
def test_an_object_that_names_nothing_is_refused_as_not_an_element_type(obj: object) -> None:
    with pytest.raises(LayoutError, match="is not an element type"):
        dtype(obj)


def test_an_unknown_name_lists_up_to_four_nearest_names_closest_first() -> None:
    with pytest.raises(LayoutError, match="unknown dtype 'e4m4'; nearest: ") as err:
        dtype("e4m4")  # six spellings are close (e4m3, e5m2, e3m2, e8m0, fp8_e4m3, ...): four are listed
    nearest = str(err.value).split("nearest: ")[1].split(";")[0].split(", ")
    assert len(nearest) == 4 and nearest[0] == "e4m3"
    assert all(dtype(name) for name in nearest)  # each is a name dtype() accepts
