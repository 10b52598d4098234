"""GPU architectures as data (layoutalg.atoms.arch) against the CUDA C++ Programming Guide's "Technical
Specifications per Compute Capability" (shared memory per SM; the per-block opt-in maximum is that less the
1 KiB the system reserves) and the PTX ISA's target notes (ldmatrix sm_75, cp.async sm_80, stmatrix sm_90,
wgmma sm_90a only -- an "a" feature is not carried to later generations --, the .b8 ldmatrix forms and
tcgen05 the sm_100a / sm_120a families)."""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.atoms.arch import ARCHES, DEFAULT_ARCH, Arch, get_arch
from layoutalg.errors import LayoutError

KIB = 1024
#: name -> (compute capability, shared memory per SM in KiB)
GUIDE = {"sm_80": ((8, 0), 164), "sm_86": ((8, 6), 100), "sm_89": ((8, 9), 100),
         "sm_90": ((9, 0), 228), "sm_100": ((10, 0), 228), "sm_120": ((12, 0), 100)}
#: instruction family -> the archs (of the table) whose PTX targets have it
FAMILIES = {
    "ld.shared": set(GUIDE), "ldmatrix": set(GUIDE), "movmatrix": set(GUIDE), "mma": set(GUIDE),
    "cp.async": set(GUIDE),
    "stmatrix": {"sm_90", "sm_100", "sm_120"}, "cp.async.bulk": {"sm_90", "sm_100", "sm_120"},
    "wgmma": {"sm_90"},
    "ldmatrix.b8": {"sm_100", "sm_120"}, "tcgen05": {"sm_100"},
}


def test_the_table_holds_the_guides_capacities_and_compute_capabilities() -> None:
    assert set(ARCHES) == set(GUIDE)
    for name, (cc, per_sm_kib) in GUIDE.items():
        arch = ARCHES[name]
        assert (arch.name, arch.compute_capability) == (name, cc)
        assert arch.smem_per_sm_bytes == per_sm_kib * KIB
        assert arch.smem_per_block_bytes == (per_sm_kib - 1) * KIB  # 1 KiB reserved per block


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_instruction_family_exists_exactly_on_the_archs_the_ptx_isa_names(family: str) -> None:
    assert {name for name, arch in ARCHES.items() if arch.supports(family)} == FAMILIES[family]


def test_wgmma_is_an_sm_90a_feature_that_later_generations_do_not_have() -> None:
    assert get_arch("sm_90a").supports("wgmma")
    assert not get_arch("sm_100a").supports("wgmma") and not get_arch("sm_120a").supports("wgmma")


def test_unknown_families_are_supported_nowhere() -> None:
    assert not any(arch.supports(f) for arch in ARCHES.values() for f in ("ldmatrix.b4", "", "LDMATRIX"))


@pytest.mark.parametrize("spelling, name", [
    (None, DEFAULT_ARCH), ("sm_90", "sm_90"), ("sm_90a", "sm_90"), ("SM_90A", "sm_90"), (" sm_86 ", "sm_86"),
    ("90", "sm_90"), ("9.0", "sm_90"), ("8.9", "sm_89"), ("sm_100f", "sm_100"), ("100", "sm_100"),
    ("12.0", "sm_120"), ("sm_120a", "sm_120"), ("80", "sm_80"), ("100a", "sm_100"), ("90a", "sm_90"),
    ("12.0f", "sm_120"), ("sm90", "sm_90"), ("SM90a", "sm_90"), ("Sm80", "sm_80"), ("sm100f", "sm_100"),
])
def test_get_arch_reads_the_usual_spellings(spelling: str | None, name: str) -> None:
    assert get_arch(spelling) is ARCHES[name]


def test_the_default_arch_is_sm_90_and_an_arch_passes_through() -> None:
    assert DEFAULT_ARCH == "sm_90" and get_arch() is ARCHES["sm_90"]
    custom = Arch("sm_xx", (1, 0), 2 * KIB, KIB, frozenset({"ld.shared"}))
    assert get_arch(custom) is custom


@pytest.mark.parametrize("spelling", ["sm_70", "sm_90b", "sm_9", "sm_900", "9", "a", "", "sm_90aa", "compute_90"])
def test_an_unknown_arch_is_refused_naming_the_choices(spelling: str) -> None:
    with pytest.raises(LayoutError, match="unknown arch .*; expected one of sm_80, sm_86, sm_89, sm_90, sm_100, sm_120"):
        get_arch(spelling)


@pytest.mark.parametrize("value, kind", [(90, "int"), (9.0, "float"), (("sm_90",), "tuple")])
def test_an_arch_that_is_not_a_string_is_refused_naming_its_type(value: object, kind: str) -> None:
    with pytest.raises(LayoutError, match=f"arch must be a string such as 'sm_90', got {kind}$"):
        get_arch(value)  # type: ignore[arg-type]


def test_an_arch_is_an_immutable_value() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ARCHES["sm_90"].smem_per_sm_bytes = 0  # type: ignore[misc]
    assert hash(ARCHES["sm_90"]) == hash(get_arch("sm_90"))
