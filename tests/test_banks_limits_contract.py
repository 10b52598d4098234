"""Architecture limits of the bank model: shared-memory capacity per block and which instruction families exist.

Capacities are ``cudaDevAttrMaxSharedMemoryPerBlockOptin`` (CUDA C++ Programming Guide, technical specifications:
227 KiB on sm_90, 163 KiB on sm_80, 99 KiB on sm_86/89/120); families from the PTX ISA target notes (``cp.async``
since sm_80, ``stmatrix`` since sm_90).
"""

from __future__ import annotations

import numpy as np
import pytest

from layoutalg.atoms.arch import get_arch
from layoutalg.banks import wavefronts_many
from layoutalg.banks.access import tile_access
from layoutalg.banks.instruction import parse_instruction
from layoutalg.banks.limits import (
    capacity_text,
    check_address_end,
    check_sweep_size,
    first_arch_with,
    require_instruction,
)
from layoutalg.errors import InstructionError, LayoutError

KIB = 1024


def test_first_arch_with_a_family_is_the_oldest_that_has_it() -> None:
    assert first_arch_with("ld.shared") == "sm_80"
    assert first_arch_with("cp.async") == "sm_80"
    assert first_arch_with("stmatrix") == "sm_90"
    assert first_arch_with("tcgen05") == "sm_100"
    assert first_arch_with("no.such.family") is None


def test_an_instruction_missing_on_an_arch_is_refused_naming_the_first_arch_with_it() -> None:
    stsm = parse_instruction("stmatrix.x4")
    with pytest.raises(InstructionError, match=r"stmatrix does not exist on sm_86; it needs sm_90 or later"):
        require_instruction(stsm, get_arch("sm_86"))
    require_instruction(stsm, get_arch("sm_90"))  # exists there: no error
    require_instruction(parse_instruction("cp.async.cg"), get_arch("sm_80"))
    addrs = 16 * np.arange(32, dtype=np.int64)[None, :]
    with pytest.raises(InstructionError, match="it needs sm_90 or later"):
        wavefronts_many("stmatrix.x4", addrs, arch="sm_80")
    assert int(wavefronts_many("stmatrix.x4", addrs, arch="sm_90")[0][0]) == 4


@pytest.mark.parametrize("arch, kib", [("sm_80", 163), ("sm_86", 99), ("sm_90", 227), ("sm_120", 99)])
def test_an_access_may_end_exactly_at_the_block_capacity_and_not_one_byte_past(arch: str, kib: int) -> None:
    target = get_arch(arch)
    cap = kib * KIB
    assert capacity_text(target) == f"{cap} bytes ({kib} KiB) of shared memory a block may use on {arch}"
    check_address_end(cap, "the last word", target)
    with pytest.raises(InstructionError, match=f"the last word: ends at byte {cap + 1}, past the {cap} bytes"):
        check_address_end(cap + 1, "the last word", target)
    # through the public model: a lane's 4 bytes ending at the capacity are fine, 4 bytes later they are not
    last = np.full((1, 32), cap - 4, dtype=np.int64)
    assert int(wavefronts_many("ld.shared.b32", last, arch=arch)[0][0]) == 1
    with pytest.raises(InstructionError, match=f"ends at byte {cap + 4}"):
        wavefronts_many("ld.shared.b32", last + 4, arch=arch)


def test_a_sweep_is_refused_by_its_size_before_anything_is_built() -> None:
    sm90 = get_arch("sm_90")
    cap = 227 * KIB
    check_sweep_size(cap // 4, 4, sm90, "a tile")  # exactly the capacity fits
    with pytest.raises(LayoutError, match=rf"a tile has {cap // 4 + 1} elements \({cap + 4} bytes of 4-byte elements\)"
                                          rf", more than the {cap} bytes"):
        check_sweep_size(cap // 4 + 1, 4, sm90, "a tile")
    with pytest.raises(LayoutError, match=r"a big tile has 1099511627776 = 2\^40 elements"):
        check_sweep_size(1 << 40, 2, sm90, "a big tile")
    with pytest.raises(LayoutError, match=r"two elements has 2 = 2\^1 elements"):
        check_sweep_size(2, cap, sm90, "two elements")
    with pytest.raises(LayoutError) as info:  # a size that is not a power of two gets no power spelling
        check_sweep_size(3 << 20, 2, sm90, "a tile")
    assert "2^" not in str(info.value)
    with pytest.raises(LayoutError) as info:  # one element too wide: 1 is 2^0 but is not spelled so
        check_sweep_size(1, cap + 1, sm90, "one element")
    assert "has 1 elements (" in str(info.value)
    # through tile_access: a 256x256 fp32 tile (256 KiB) fits no arch's block; 128x128 fp32 (64 KiB) fits sm_90
    with pytest.raises(LayoutError, match=r"65536 = 2\^16 elements"):
        tile_access("ld.shared.b32", (256, 256), "f32")
    assert tile_access("ld.shared.b32", (128, 128), "f32").count == 128 * 128 // 32
    with pytest.raises(LayoutError, match="on sm_86"):
        tile_access("ld.shared.b32", (128, 256), "f32", arch="sm_86")
