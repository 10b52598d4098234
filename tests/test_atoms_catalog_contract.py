"""The atom catalog's entry points (layoutalg.atoms.catalog): defaults that name the documented PTX forms,
lookups by CuTe name, PTX text and smem atom name, and a typed refusal naming the argument for bad input."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.copy import TypedCopyAtom
from layoutalg.errors import InstructionError


def test_the_8_bit_form_defaults_are_the_single_plain_b8_matrix() -> None:
    assert catalog.ldmatrix_b8().ptx == "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8"
    assert catalog.ldmatrix_b8() == catalog.ldmatrix_b8("m16n16", 1, "b8")
    assert catalog.stmatrix_b8().ptx == "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8"
    assert catalog.stmatrix_b8(4).ptx == "stmatrix.sync.aligned.m16n8.x4.trans.shared.b8"


def test_matrix_copy_defaults_are_one_plain_matrix_and_bits_bind_the_atom() -> None:
    assert catalog.ldmatrix().ptx == "ldmatrix.sync.aligned.m8n8.x1.shared.b16"
    assert catalog.stmatrix().ptx == "stmatrix.sync.aligned.m8n8.x1.shared.b16"
    bound = catalog.stmatrix(4, True, bits=16)
    assert isinstance(bound, TypedCopyAtom) and bound.atom is catalog.stmatrix(4, True) and bound.bits == 16
    assert catalog.ldmatrix(2, 1) is catalog.ldmatrix(2, True)  # 0 / 1 read as booleans


@pytest.mark.parametrize("kind", ["ldmatrix", "stmatrix"])
@pytest.mark.parametrize("trans", [2, "yes", None, 1.0])
def test_a_trans_that_is_not_a_boolean_is_refused(kind: str, trans: object) -> None:
    with pytest.raises(InstructionError, match=f"{kind}: trans must be True or False"):
        getattr(catalog, kind)(1, trans)


@pytest.mark.parametrize("num", [0, 3, 8, -1])
def test_a_matrix_count_other_than_1_2_4_is_refused(num: int) -> None:
    with pytest.raises(InstructionError, match=rf"ldmatrix: num \(matrices, .x1/.x2/.x4\) must be 1, 2 or 4, got {num}"):
        catalog.ldmatrix(num)


@pytest.mark.parametrize("bits", [4, 12, 256, 0])
def test_a_per_thread_width_other_than_8_to_128_is_refused(bits: int) -> None:
    with pytest.raises(InstructionError, match=f"st.shared moves 8, 16, 32, 64 or 128 bits per thread, got {bits}"):
        catalog.st_shared(bits)


def test_an_smem_atom_by_name_needs_its_element_width() -> None:
    with pytest.raises(InstructionError, match=r"is a shared-memory layout atom: give the element width, "
                                               r"get\('Layout_K_SW128_Atom', bits=16\)"):
        catalog.get("Layout_K_SW128_Atom")
    atom = catalog.get("Layout_K_SW128_Atom", bits=16)
    assert atom.shape == (8, 64)  # eight 128-byte rows of 16-bit elements


def test_bits_bind_a_copy_atom_and_are_refused_for_an_mma_atom() -> None:
    assert catalog.get("SM75_U32x4_LDSM_N", bits=16) == catalog.ldmatrix(4, bits=16)
    with pytest.raises(InstructionError, match="is an MMA atom: its element types are fixed, bits= does not apply"):
        catalog.get("SM80_16x8x16_F32F16F16F32_TN", bits=16)


def test_an_unknown_name_suggests_close_ones() -> None:
    with pytest.raises(InstructionError, match="unknown atom 'SM75_U32x4_LDSM_M'; did you mean SM75_U32x4_LDSM_N"):
        catalog.get("SM75_U32x4_LDSM_M")
    with pytest.raises(InstructionError, match="atom name must be a str, got 5"):
        catalog.get(5)  # type: ignore[arg-type]


@pytest.mark.parametrize("saturate", [1, "yes", None])
def test_a_wgmma_saturate_that_is_not_a_bool_is_refused(saturate: object) -> None:
    with pytest.raises(InstructionError, match="wgmma saturate must be True or False"):
        catalog.wgmma(64, a="s8", c="s32", saturate=saturate)  # type: ignore[arg-type]


def test_wgmma_is_memoised_per_argument_tuple() -> None:
    assert catalog.wgmma(64) is catalog.wgmma(64, a="f16", c="f32", a_source="smem")
    assert catalog.wgmma(64, a_source="reg") is not catalog.wgmma(64)
    assert catalog.wgmma(64, a="s8", c="s32", saturate=True).saturate


@pytest.mark.parametrize("kwargs, match", [
    (dict(shape=16), "mma: shape must be a PTX name"), (dict(a=None), "mma: a must be an element type"),
    (dict(c=32), "mma: c must be an element type"), (dict(layout=None), "mma: layout must be a PTX name"),
    (dict(a="f17"), "mma: a: "), (dict(arch=7.5), "mma arch must be an int"),
])
def test_mma_refuses_an_argument_by_name(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = dict(shape="m16n8k16", a="f16") | kwargs
    with pytest.raises(InstructionError, match=match):
        catalog.mma(**args)  # type: ignore[arg-type]


def test_mma_picks_the_newest_generation_unless_arch_is_given() -> None:
    assert catalog.mma("m16n8k8", a="f16").arch == 80 and catalog.mma("m16n8k8", a="f16", arch=75).arch == 75
    with pytest.raises(InstructionError, match=r"no mma.sync m16n8k8 with a=f16, b=f16, c=f32, layout row.col, arch sm70"):
        catalog.mma("m16n8k8", a="f16", arch=70)


def test_wgmma_accepts_a_str_argument_that_cannot_key_the_memo() -> None:
    class UnhashableText(str):
        __hash__ = None  # type: ignore[assignment]

    atom = catalog.wgmma(64, a_source=UnhashableText("reg"))
    assert atom == catalog.wgmma(64, a_source="reg") and atom.name == "SM90_64x64x16_F32F16F16_RS"


@pytest.mark.parametrize("name", ["foo>", "UniversalCopy<uint32_t<uint32_t>>", "A<B<C>>", "<>"])
def test_a_name_with_stray_angle_brackets_is_an_unknown_atom(name: str) -> None:
    with pytest.raises(InstructionError, match="unknown atom"):
        catalog.get(name)


def test_an_unknown_name_suggests_the_three_closest_names_closest_first() -> None:
    with pytest.raises(InstructionError) as caught:
        catalog.get("SM75_U32x4_LDSM_M")  # one letter off SM75_U32x4_LDSM_N; x1/x2/U16x8 ... are further
    suggested = str(caught.value).split("did you mean ", 1)[1].rstrip("?").split(" or ")
    assert len(suggested) == 3 and suggested[0] == "SM75_U32x4_LDSM_N"
    assert all(catalog.get(s).name == s for s in suggested)


def test_the_ptx_string_of_an_sm100_8_bit_atom_gives_that_cute_atom_not_the_bare_form() -> None:
    from layoutalg.atoms.ldmatrix_b8 import B8_COPY_ATOMS

    for atom in B8_COPY_ATOMS:
        assert catalog.get(atom.ptx) is catalog.get(atom.name) is atom
    form = catalog.get("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32")  # a PTX form CuTe has no atom for
    assert (form.kind, form.shape, form.num, form.src_fmt) == ("ldmatrix", "m16n16", 2, "b6x16_p32")


def test_an_mma_refusal_lists_only_the_forms_of_the_asked_shape() -> None:
    with pytest.raises(InstructionError) as caught:
        catalog.mma("m16n8k8", a="f16", arch=70)
    listed = str(caught.value).split("; with that shape: ", 1)[1].split(", ")
    assert "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32" in listed
    assert all(form.startswith("mma.sync.aligned.m16n8k8.") for form in listed)
    with pytest.raises(InstructionError) as caught:
        catalog.mma("m9n9k9", a="f16")  # no mma.sync has this shape: no list
    assert "with that shape" not in str(caught.value)


def test_cp_async_defaults_to_the_16_byte_cache_all_levels_copy() -> None:
    assert catalog.cp_async().ptx == "cp.async.ca.shared.global [dst], [src], 16"
    assert catalog.cp_async(cache="cg") is catalog.cp_async(16, "cg")


@pytest.mark.parametrize("cache", ["cx", "CA", 5, None])
def test_a_cp_async_cache_hint_other_than_ca_or_cg_is_refused_by_name(cache: object) -> None:
    with pytest.raises(InstructionError, match="^cache must be 'ca' or 'cg', got "):
        catalog.cp_async(16, cache)  # type: ignore[arg-type]


def test_every_copy_atom_is_found_by_its_ptx_string_spaces_and_all() -> None:
    """cp.async's PTX text holds spaces (``cp.async.ca.shared.global [dst], [src], 16``): the exact string
    is looked up before the C++-spelling normalisation, which drops spaces."""
    spaced = [atom for atom in catalog.ALL_COPY_ATOMS if " " in atom.ptx]
    assert len(spaced) >= 4  # the four cp.async forms at least
    for atom in catalog.ALL_COPY_ATOMS:
        assert catalog.get(atom.ptx).ptx == atom.ptx
        assert catalog.get(atom.name).name == atom.name


def test_cute_wrappers_name_their_operation() -> None:
    from layoutalg.atoms import catalog as cat

    ldsm = cat.get("SM75_U16x8_LDSM_T")
    assert cat.get("cute::Copy_Atom<cute::SM75_U16x8_LDSM_T, cutlass::half_t>") == ldsm.bind(16)
    assert cat.get("Copy_Atom<Copy_Traits<SM75_U32x4_LDSM_N>, float>") == cat.get("SM75_U32x4_LDSM_N").bind(32)
    mma = cat.get("SM80_16x8x16_F32F16F16F32_TN")
    assert cat.get("MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>") is mma
    assert cat.get("MMA_Atom<MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>>") is mma


def test_mma_takes_its_element_types_as_any_dtype_object_as_every_dtype_argument_does() -> None:
    np = pytest.importorskip("numpy")
    from layoutalg.atoms import catalog as cat

    assert cat.mma("m16n8k16", a=np.float16, c=np.float32) is cat.mma("m16n8k16", a="f16", c="f32")
    with pytest.raises(InstructionError, match="mma: a must be an element type such as 'f16', got 5"):
        cat.mma("m16n8k16", a=5)  # type: ignore[arg-type]
