"""The one dtype table: every spelling users type, every library's own dtype objects, one table for the package.

Widths are judged against each library's own statement of them (numpy ``itemsize``, CuTe DSL ``width``,
Triton ``primitive_bitwidth``), never against layoutalg.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from layoutalg.core.dtypes import DTYPES, dtype, dtype_bits, ptx_name
from layoutalg.errors import LayoutError

PACKAGE = Path(__file__).resolve().parent.parent / "layoutalg"

SPELLINGS = {
    "f16": ["f16", "fp16", "float16", "half", "torch.float16", "cutlass.Float16", "cutlass::half_t", "half_t",
            "np.float16", "F16", "  Float16 "],
    "bf16": ["bf16", "bfloat16", "torch.bfloat16", "cutlass.BFloat16", "cutlass::bfloat16_t", "BF16", "nv_bfloat16"],
    "e4m3": ["e4m3", "float8_e4m3fn", "torch.float8_e4m3fn", "cutlass.Float8E4M3FN", "cutlass::float_e4m3_t",
             "fp8e4nv", "tl.float8e4nv", "triton.language.float8e4nv", "e4m3fn", "fp8_e4m3fn", "F8E4M3FN"],
    "e5m2": ["e5m2", "float8_e5m2", "torch.float8_e5m2", "cutlass.Float8E5M2", "float_e5m2_t", "fp8e5", "tl.float8e5",
             "fp8e5m2"],
    "tf32": ["tf32", "cutlass::tfloat32_t", "cutlass.TFloat32", "tfloat32_t"],
    "f32": ["f32", "fp32", "float32", "float", "torch.float32", "cutlass.Float32"],
    "f64": ["f64", "fp64", "float64", "double", "torch.float64"],
    "s8": ["s8", "i8", "int8", "int8_t", "torch.int8", "cutlass.Int8"],
    "u8": ["u8", "uint8", "uint8_t", "torch.uint8", "cutlass.Uint8", "unsigned char"],
    "s32": ["s32", "i32", "int32", "int32_t", "torch.int32", "cutlass.Int32", "int"],
    "u32": ["u32", "uint32", "uint32_t", "unsigned"],
    "s4": ["s4", "int4b_t", "cutlass::int4b_t", "cutlass.Int4"],
    "e2m1": ["e2m1", "float4_e2m1fn", "cutlass.Float4E2M1FN"],
}
BITS = {"f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "s32": 32,
        "u32": 32, "s4": 4, "e2m1": 4}


@pytest.mark.parametrize("canonical", sorted(SPELLINGS))
def test_every_spelling_names_its_type(canonical: str) -> None:
    for spelling in SPELLINGS[canonical]:
        assert ptx_name(spelling) == canonical, spelling
        assert dtype_bits(spelling) == BITS[canonical], spelling


def test_numpy_dtypes_read_with_numpys_width() -> None:
    np = pytest.importorskip("numpy")
    for name in ("float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                 "uint64"):
        assert dtype_bits(np.dtype(name)) == 8 * np.dtype(name).itemsize, name
        assert dtype_bits(getattr(np, name)) == 8 * np.dtype(name).itemsize, name


def test_cute_dsl_numeric_classes_read_with_their_width() -> None:
    cutlass = pytest.importorskip("cutlass")
    names = ["Float16", "BFloat16", "Float32", "Float64", "TFloat32", "Float8E4M3FN", "Float8E5M2", "Float8E8M0FNU",
             "Float6E2M3FN", "Float6E3M2FN", "Float4E2M1FN", "Int4", "Int8", "Int16", "Int32", "Int64", "Uint8",
             "Uint16", "Uint32", "Uint64"]
    for name in names:
        cls = getattr(cutlass, name)
        assert dtype_bits(cls) == cls.width, name


def test_triton_dtypes_read_with_their_bitwidth() -> None:
    tl = pytest.importorskip("triton.language")
    for t in (tl.float16, tl.bfloat16, tl.float8e4nv, tl.float8e5, tl.float32, tl.float64, tl.int8, tl.int16,
              tl.int32, tl.int64, tl.uint8, tl.uint16, tl.uint32, tl.uint64):
        assert dtype_bits(t) == t.primitive_bitwidth, str(t)


@pytest.mark.parametrize("other_format", ["float8_e4m3fnuz", "float8_e5m2fnuz", "fp8e4b15", "Float8E4M3", "bool"])
def test_other_formats_are_not_taken_for_ptx_ones(other_format: str) -> None:
    with pytest.raises(LayoutError):
        dtype(other_format)


def test_unknown_names_list_the_nearest_valid_names() -> None:
    with pytest.raises(LayoutError, match="unknown dtype 'half16'") as info:
        dtype("half16")
    assert "half" in str(info.value) and "f16" in str(info.value)
    with pytest.raises(LayoutError, match="bfloat16"):
        dtype("bfloat61")
    for bad in (None, True, 3.5, object(), float):
        with pytest.raises(LayoutError):
            dtype(bad)


def test_width_only_fp8_serves_widths_but_not_instructions() -> None:
    assert dtype_bits("fp8") == 8
    with pytest.raises(LayoutError, match="e4m3 or e5m2"):
        ptx_name("fp8")


def test_table_has_no_duplicate_names_and_bits_are_positive() -> None:
    names = [d.name for d in DTYPES]
    assert len(set(names)) == len(names)
    assert all(d.bits > 0 for d in DTYPES)


def _facts() -> dict[str, set[object]]:
    """Every spelling (as written) -> what a private table would map it to: bits, bytes, CuTe or PTX name."""
    facts: dict[str, set[object]] = {}
    for d in DTYPES:
        for spelling in (d.name, *d.aliases):
            facts.setdefault(spelling, set()).update({d.bits, d.bits // 8, d.cute})
        facts.setdefault(d.cute, set()).add(d.name)
    return facts


def test_no_other_module_maps_dtype_names() -> None:
    """One table: no dict literal elsewhere in the package maps two or more dtype names to a width or spelling."""
    facts = _facts()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "dtypes.py" and path.parent.name == "core":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Dict):
                continue
            hits = sum(1 for key, value in zip(node.keys, node.values)
                       if isinstance(key, ast.Constant) and isinstance(value, ast.Constant)
                       and not isinstance(value.value, bool) and value.value in facts.get(key.value, ()))
            if hits >= 2:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not offenders, f"dtype names mapped outside layoutalg/core/dtypes.py: {offenders}"


def test_the_package_reads_dtypes_through_the_table() -> None:
    from layoutalg import atoms, parse
    from layoutalg.banks.access import element_bytes

    assert element_bytes("torch.float16") == 2 and element_bytes("cutlass.Float64") == 8
    assert atoms.mma("m16n8k16", a="half", c="float32") is atoms.mma("m16n8k16", a="f16", c="f32")
    assert atoms.catalog.wgmma(64, a="torch.bfloat16") is atoms.catalog.wgmma(64, a="bf16")
    assert parse("Layout_K_SW128_Atom<cutlass::bfloat16_t>") == parse("Layout_K_SW128_Atom<torch.bfloat16>")
    with pytest.raises(LayoutError, match="nearest"):
        atoms.mma("m16n8k16", a="hlaf")
