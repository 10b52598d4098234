"""GPU architectures as data: shared-memory capacity and which instruction families exist.

One table, used by the bank model (capacity checks), the CLI's ``--arch`` and the
kernel tracer.  Sources: CUDA C++ Programming Guide, "Technical Specifications per
Compute Capability" (shared memory per SM and the opt-in maximum per block), and the
PTX ISA's "Target ISA notes" of each instruction (``ldmatrix`` sm_75, ``cp.async``
sm_80, ``stmatrix`` sm_90, ``wgmma`` sm_90a, the ``.b8`` ``ldmatrix`` forms sm_100a /
sm_120a families).

* ``smem_per_sm_bytes``: the unified L1/shared carve-out's largest shared part.
* ``smem_per_block_bytes``: ``cudaDevAttrMaxSharedMemoryPerBlockOptin`` (the SM's
  capacity less the 1 KiB the system reserves per block).

Every address a model accepts must end within ``smem_per_block_bytes``.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError

KIB = 1024


@dataclass(frozen=True)
class Arch:
    """One compute capability: its name (``sm_90``), capacities and instruction families."""

    name: str
    compute_capability: tuple[int, int]
    smem_per_sm_bytes: int
    smem_per_block_bytes: int
    instruction_families: frozenset[str]

    def supports(self, family: str) -> bool:
        """Whether the instruction family (``ldmatrix``, ``stmatrix``, ``cp.async``, ...) exists here."""
        return family in self.instruction_families


_SM75 = frozenset({"ld.shared", "st.shared", "atom.shared", "red.shared", "ldmatrix", "movmatrix", "mma"})
_SM80 = _SM75 | {"cp.async"}
_SM90 = _SM80 | {"stmatrix", "wgmma", "cp.async.bulk"}
_SM100 = (_SM90 - {"wgmma"}) | {"ldmatrix.b8", "tcgen05"}  # wgmma is sm_90a only: "a" features do not carry over
_SM120 = (_SM90 - {"wgmma"}) | {"ldmatrix.b8"}

ARCHES: dict[str, Arch] = {
    arch.name: arch
    for arch in (
        Arch("sm_80", (8, 0), 164 * KIB, 163 * KIB, _SM80),
        Arch("sm_86", (8, 6), 100 * KIB, 99 * KIB, _SM80),
        Arch("sm_89", (8, 9), 100 * KIB, 99 * KIB, _SM80),
        Arch("sm_90", (9, 0), 228 * KIB, 227 * KIB, _SM90),
        Arch("sm_100", (10, 0), 228 * KIB, 227 * KIB, _SM100),
        Arch("sm_120", (12, 0), 100 * KIB, 99 * KIB, _SM120),
    )
}

DEFAULT_ARCH = "sm_90"


def get_arch(name: str | Arch | None = None) -> Arch:
    """The :class:`Arch` for ``name`` (``sm_90``, ``sm90``, ``SM_90a``, ``90``, ``9.0``); ``None`` gives sm_90.

    Raises :class:`LayoutError` naming the valid choices for anything else.
    """
    if isinstance(name, Arch):
        return name
    if name is None:
        return ARCHES[DEFAULT_ARCH]
    if not isinstance(name, str):
        raise LayoutError(f"arch must be a string such as 'sm_90', got {type(name).__name__}")
    key = name.strip().lower()
    if key.startswith("sm") and key[2:3].isdigit():  # sm90, sm100a (CUTLASS's Sm90 lower-cased): sm_90
        key = "sm_" + key[2:]
    if key.endswith(("a", "f")):  # sm_90a, 100a, 12.0f: the family of the base architecture
        key = key[:-1]
    if key.replace(".", "").isdigit():
        key = "sm_" + key.replace(".", "")
    if key in ARCHES:
        return ARCHES[key]
    raise LayoutError(f"unknown arch {describe(name)}; expected one of {', '.join(ARCHES)}")
