"""What an architecture allows the bank model: shared-memory capacity and the instruction set.

Both come from the one table :mod:`layoutalg.atoms.arch` (CUDA C++ Programming Guide, "Technical
Specifications per Compute Capability"; PTX ISA target notes of each instruction):

* every byte an instruction touches must lie below ``smem_per_block_bytes`` of the arch (the
  most one block can be given: 227 KiB on sm_90/sm_100, 163 KiB on sm_80, 99 KiB on sm_86/89/120);
* the instruction's family must exist there (``stmatrix`` needs sm_90, ``cp.async`` sm_80).

Sizes are checked *before* anything is materialised: a sweep of a tile touches one address per
element, so a tile of more elements than shared memory holds bytes is refused with its size.

The wavefront rules themselves were measured on sm_90 (H200, H100); other arches use the same rules,
which is an assumption (their bank count and word size are the same, their phase rules are unmeasured).
"""

from __future__ import annotations

from typing import Any

from layoutalg.atoms.arch import Arch, get_arch
from layoutalg.banks.instruction import Instruction
from layoutalg.errors import InstructionError, LayoutError

_FAMILY = {"ld": "ld.shared", "st": "st.shared", "ldmatrix": "ldmatrix", "stmatrix": "stmatrix",
           "cp.async": "cp.async", "atom": "atom.shared", "red": "red.shared"}


def arch_of(arch: Any) -> Arch:
    """The :class:`Arch` for ``arch`` (a name such as ``"sm_90"``, an Arch, or None for sm_90)."""
    return get_arch(arch)


def first_arch_with(family: str) -> str | None:
    from layoutalg.atoms.arch import ARCHES

    for name, candidate in sorted(ARCHES.items(), key=lambda kv: kv[1].compute_capability):
        if candidate.supports(family):
            return name
    return None


def require_instruction(ins: Instruction, arch: Arch) -> None:
    """InstructionError unless ``ins``'s family exists on ``arch`` (naming the first arch that has it)."""
    family = _FAMILY.get(ins.kind, ins.kind)
    if not arch.supports(family):
        first = first_arch_with(family)
        since = f"; it needs {first} or later" if first else ""
        raise InstructionError(f"{ins.canonical}: {family} does not exist on {arch.name}{since}")


def capacity_text(arch: Arch) -> str:
    cap = arch.smem_per_block_bytes
    return f"{cap} bytes ({cap // 1024} KiB) of shared memory a block may use on {arch.name}"


def check_address_end(end: int, what: str, arch: Arch) -> None:
    """InstructionError when an access ending at byte ``end`` (exclusive) runs past the arch's capacity."""
    if end > arch.smem_per_block_bytes:
        raise InstructionError(f"{what}: ends at byte {end}, past the {capacity_text(arch)}")


def check_sweep_size(elements: int, element_bytes: int, arch: Arch, what: str) -> None:
    """LayoutError when a sweep of ``elements`` elements of ``element_bytes`` bytes cannot fit in shared memory.

    Called before any coordinate or address is built, so a tile of 2**40 elements is refused at once.
    """
    nbytes = elements * element_bytes
    if nbytes > arch.smem_per_block_bytes:
        power = f" = 2^{elements.bit_length() - 1}" if elements > 1 and elements & (elements - 1) == 0 else ""
        raise LayoutError(f"{what} has {elements}{power} elements ({nbytes} bytes of {element_bytes}-byte "
                          f"elements), more than the {capacity_text(arch)}")
