"""Shared-memory wavefronts of one warp-wide instruction, as Hopper (sm_90) counts them.

The rules below were found by measurement on an H200 with Nsight Compute
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``, one warp, one
instruction per launch): the 142 cases of the calibration file plus the
patterns in ``tests/data/h200_smem_wavefronts_more.json`` (taken by
``tools/measure_banks.py``, five rounds; round 4 was a holdout of 582 patterns
predicted before measuring: 581 exact, the miss led to the ``i ^ 2`` pairing of
rule 2, which round 5 pinned).  Every one is reproduced exactly.

1. **Words.** Shared memory is 32 banks of 4-byte words; word ``k`` (bytes
   ``4k .. 4k+3``) lives in bank ``k mod 32``.  A lane accessing ``w`` bytes at
   byte ``a`` touches the words ``a//4 .. (a+w-1)//4`` (one word for 1, 2 and
   4 bytes: two ``u8`` lanes reading different bytes of one word share it).
2. **Phases.** The warp's lanes are split into phases served one after another:

   * ``ld``/``st`` of 1, 2 or 4 bytes: one phase of all 32 lanes;
   * 8 bytes: two phases of 16 lanes (0-15, 16-31); 16 bytes: four phases of 8
     lanes -- except for **loads** where every lane ``i`` holds the same address
     as lane ``i ^ 1`` (pairs ``(2k, 2k+1)``), or every lane ``i`` the same as
     lane ``i ^ 2`` (``(4k, 4k+2)`` and ``(4k+1, 4k+3)``): then the phases are
     twice as large (one phase of 32 lanes for 8 bytes, two of 16 for 16 bytes).
     The test is warp-wide: ``i ^ 3``, ``i ^ 4`` and mixtures (some lane quads
     paired by ``i ^ 1``, others by ``i ^ 2``) keep the normal phases.  Stores
     never merge.
   * ``ldmatrix``/``stmatrix``: one phase per 8x8 matrix, lanes ``8i .. 8i+7``
     each giving one 16-byte row; lanes of absent matrices are ignored.
3. **Cost of a phase** = the largest number of *distinct* words any one bank
   must deliver (identical words are served once, loads and stores alike).
4. **wavefronts** = the sum over the phases.
5. **Partial warps** (``None`` for an inactive lane): the same rules with the inactive lanes simply
   absent (they request no word; a phase without an active lane costs nothing), and rule 2's pairing
   judged on the active lanes only: a pair ``(i, i ^ x)`` with an inactive lane is ignored, whatever
   address the inactive lane's register holds.  Measured in round 8 (``tools/banks_round8.py``, masked
   probe kernels whose inactive lanes still compute their address): of four readings, only this one
   fits all 162 pairing patterns (one partner off with its stale address equal to the other's or not,
   both off, every odd lane off, random masks) and the 136 of round 8b, predicted before measuring (no
   active partner pair at all: the phases double whatever the addresses; ``i ^ 1``/``i ^ 2`` quad
   mixtures; stores): 417 partial warps in all.  The strict reading (an active lane's partner must be
   active) missed 114 of them, judging the pairing on every lane's register 88, "a partial warp never
   pairs" 171.

6. **Atomics** (``atom``/``red`` on shared memory, the forms ptxas compiles to one ``ATOMS``,
   :data:`~layoutalg.banks.instruction.ATOMIC_FORMS`): the phases of a store of the same width
   (32 lanes for 4 bytes, two half-warps for 8), and a phase costs one *pass* per lane its
   busiest bank serves: lanes updating one word are served one after another, unlike loads and
   stores (``lanes per bank``, each lane of a 64-bit atomic in both its banks).  A ``cas`` pass
   costs two wavefronts.  ``red.shared.add.u32, 1`` (``ATOMS.POPC.INC``: the warp's increments of
   one word merged) costs what a store to the same words costs (rule 3).  Measured in round 9
   (``tools/banks_round9.py``, 288 patterns measured twice on an H200): add, exch, min, inc, red by a
   lane value and exch.b64 fit "lanes per bank" on all 32 patterns each, cas.b32/.b64 twice that on
   all 64, the merged increment "distinct words per bank" on all 32.  Nsight's atom bank-conflict
   counter counts extra *passes*: wavefronts - phases, and for cas (wavefronts - 2 x phases) / 2.

The *ideal* count is the sum over phases of ``ceil(distinct words / 32)``
(the same phases, no two distinct words sharing a bank); ``excess`` =
wavefronts - ideal, which equals Nsight's ``l1tex__data_bank_conflicts_*``
counter on every measured case.

Which measurements pin each rule (case name -> measured wavefronts; "cal:" = calibration file, the rest
from ``tests/data/h200_smem_wavefronts_more.json``; ``PINNING`` below lists them and the tests replay them):

* rule 1, word granularity of 8/16-bit accesses: "ld1 all bytes of word 0" -> 1, "ld1 words in bank0
  different rows, byte i%4" -> 8, "st1 2 lanes per word different bytes, 2 rows" -> 2 (stores merge too);
* rule 2, phases: "cal: ld.v4 broadcast" -> 2 and "cal: ld.v4 quarter broadcast" -> 2 (pairs equal: two
  16-lane phases), "ld16 lane0 alone at row1, rest broadcast row0" -> 5 (four 8-lane phases, no merging
  across them), "r2 ld16 pairs equal, q0 4 rows bg0, q1 4 rows bg1" -> 8 (16-lane phases, not 4 x 4),
  "cal: ld.v2 pairs same" -> 1 and "ld8 0-7 same A,8-15 same B(bank-equal),16-31 same A" -> 2 (one 32-lane
  phase), "ld8 halves identical 128B" -> 2 (lanes i and i+16 equal is not enough), "r2 ld8 pairs equal
  except pair 15" -> 2 (all pairs, or none), "r3 ld8 adjacent pairs, rows, two bank groups" -> 16 (adjacent
  halves of one 16-byte block do not count as equal), "r5 ld16 lanes i,i^2 equal, contiguous" -> 2 and
  "r5 ld8 lanes i,i^2 equal, contiguous" -> 1 (``i ^ 2`` pairing merges too; found by the round-4 holdout,
  where "r4 tile ld.shared.v4.b32 tile 8bit cols=32B pad=0 Sw<2,2,3> base=1744 #135" -> 2 was predicted 4),
  "r5 ld8 lanes i,i^3 equal, contiguous" -> 2, "r4 ld8 dup across phases: lane i and i+4 equal" -> 8 and
  "r5 ld8 quads alternate i^1 / i^2 equality, contiguous" -> 2 (no other partner, no per-quad mixture),
  "r5 st8 lanes i,i^2 equal, 2 rows per bank group" -> 16 (its load twin "r5 ld8 lanes i,i^2 equal, 2 rows per
  bank group" -> 8), "st8 pairs of lanes same, contiguous" -> 2 and
  "st16 all same" -> 4 (stores never merge), "ldmatrix.x4 all rows same address" -> 4 (one phase per matrix);
* rule 3, distinct words: "cal: ld.b32 broadcast" -> 1, "ldmatrix.x1 2 rows equal rest column" -> 7.

``cp.async`` follows different rules, because its shared-memory writes depend
on where the data comes from as well as where it goes: :mod:`layoutalg.banks.cp_async`
(pass ``global_byte_addresses``).  ``.cg`` (16 bytes): groups of (global line,
shared row); all 227 measurements it was fitted to and all 341 of round 6, a
holdout predicted before measuring (``tests/data/h200_cp_async_cg_round6.json``;
predictions committed in 6a72834).  ``.ca`` (4, 8, 16 bytes): ``st.shared``
phases in which a lane waits for every lane sharing its global or its shared
bank; all 326 measurements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from layoutalg.atoms.arch import Arch
from layoutalg.banks.cp_async import ca_wavefronts, cg_wavefronts
from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.banks.limits import arch_of, check_address_end, require_instruction
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import InstructionError

PINNING = (
    ("ld1 all bytes of word 0", 1), ("ld1 words in bank0 different rows, byte i%4", 8),
    ("st1 2 lanes per word different bytes, 2 rows", 2), ("cal: ld.v4 broadcast", 2),
    ("cal: ld.v4 quarter broadcast", 2), ("ld16 lane0 alone at row1, rest broadcast row0", 5),
    ("r2 ld16 pairs equal, q0 4 rows bg0, q1 4 rows bg1", 8), ("cal: ld.v2 pairs same", 1),
    ("ld8 0-7 same A,8-15 same B(bank-equal),16-31 same A", 2), ("ld8 halves identical 128B", 2),
    ("r2 ld8 pairs equal except pair 15", 2), ("r3 ld8 adjacent pairs, rows, two bank groups", 16),
    ("st8 pairs of lanes same, contiguous", 2), ("st16 all same", 4), ("ldmatrix.x4 all rows same address", 4),
    ("cal: ld.b32 broadcast", 1), ("ldmatrix.x1 2 rows equal rest column", 7),
    ("r5 ld16 lanes i,i^2 equal, contiguous", 2), ("r5 ld8 lanes i,i^2 equal, contiguous", 1),
    ("r4 tile ld.shared.v4.b32 tile 8bit cols=32B pad=0 Sw<2,2,3> base=1744 #135", 2),
    ("r5 ld8 lanes i,i^3 equal, contiguous", 2), ("r4 ld8 dup across phases: lane i and i+4 equal", 8),
    ("r5 ld8 quads alternate i^1 / i^2 equality, contiguous", 2),
    ("r5 st8 lanes i,i^2 equal, 2 rows per bank group", 16), ("r5 ld8 lanes i,i^2 equal, 2 rows per bank group", 8),
)
"""(measurement name, wavefronts) that pin the rules of the module doc."""

NUM_BANKS = 32
BANK_BYTES = 4
ATOMIC_CAS_WAVEFRONTS = 2
"""Wavefronts one pass of an ``atom.shared.cas`` costs (rule 6: compare and swap values both travel)."""
PAIRING_XORS = (1, 2)
"""Lane partners ``i ^ x`` whose equal addresses double the phases of 64/128-bit loads (rule 2)."""


# ---------------------------------------------------------------- validation
def _as_offsets(values: Any, what: str) -> list[Any]:
    try:
        return list(values)
    except TypeError:
        raise InstructionError(f"{what} must be a sequence of 32 byte offsets, got {type(values).__name__}") from None


def _check_global(ins: Instruction, global_byte_addresses: Any) -> tuple[Any, ...]:
    """32 validated global byte offsets for a cp.async (aligned to its copy size, non-negative; None: inactive)."""
    if global_byte_addresses is None:
        raise InstructionError(
            f"instruction {describe(ins.text)}: a cp.async's shared-memory cost depends on where each lane's data comes "
            "from; pass global_byte_addresses (lane i's source offset, from a 128-byte-aligned base)")
    offsets = _as_offsets(global_byte_addresses, "global_byte_addresses")
    if len(offsets) != 32:
        raise InstructionError(f"global_byte_addresses: needs 32 lane offsets, got {len(offsets)}")
    out: list[Any] = []
    for lane, value in enumerate(offsets):
        if value is None:
            out.append(None)
            continue
        g = _byte_offset(value, f"global_byte_addresses[{lane}]")
        if g % ins.access_bytes:
            raise InstructionError(f"global_byte_addresses[{lane}] = {g} is not a multiple of {ins.access_bytes} "
                                   f"({ins.canonical} copies {ins.access_bytes}-byte chunks)")
        out.append(g)
    return tuple(out)


def _byte_offset(value: Any, name: str) -> int:
    """``value`` as a non-negative int byte offset (InstructionError naming ``name`` otherwise)."""
    try:
        offset = as_int(value, name, InstructionError)
    except InstructionError:
        raise InstructionError(f"{name} must be an int byte offset, got {describe(value)}") from None
    if offset < 0:
        raise InstructionError(f"{name} = {offset} is negative")
    return offset


def _check_addresses(ins: Instruction, lane_byte_addresses: Any, arch: Arch | None = None) -> tuple[Any, ...]:
    """32 validated byte offsets (ignored lanes of ldmatrix/stmatrix .x1/.x2 become 0; None: an inactive lane).

    ``arch`` (default sm_90) must have the instruction, and every access must end within its shared memory.
    """
    arch = arch_of(arch)
    require_instruction(ins, arch)
    addrs = _as_offsets(lane_byte_addresses, "lane_byte_addresses")
    active = len(ins.active_lanes)
    if len(addrs) != 32 and not (ins.matrices and len(addrs) == active):
        allowed = "32" if not ins.matrices or active == 32 else f"32 (or {active}, the lanes .x{ins.matrices} reads)"
        raise InstructionError(f"lane_byte_addresses: {ins.canonical} needs {allowed} lane addresses, "
                               f"got {len(addrs)}")
    out: list[Any] = []
    for lane, a in enumerate(addrs):
        if lane >= active:
            out.append(0)
            continue
        if a is None:
            out.append(None)
            continue
        a = _byte_offset(a, f"lane_byte_addresses[{lane}]")
        check_address_end(a + ins.access_bytes, f"lane_byte_addresses[{lane}] = {a} ({ins.access_bytes} bytes)", arch)
        if a % ins.access_bytes:
            what = "matrix row address" if ins.matrices else f"{ins.access_bytes}-byte access"
            raise InstructionError(f"lane_byte_addresses[{lane}] = {a} is a misaligned {what} of {ins.canonical} "
                                   f"(must be a multiple of {ins.access_bytes})")
        out.append(a)
    out += [0] * (32 - len(out))
    return tuple(out)


# ------------------------------------------------------------------- phases
def phases(ins: Instruction, addrs: Sequence[int | None]) -> list[range]:
    """The lane groups served one after another (rules 2 and 5 of the module doc)."""
    if ins.matrices:
        return [range(8 * m, 8 * m + 8) for m in range(ins.matrices)]
    w = ins.access_bytes
    if w <= BANK_BYTES:
        return [range(32)]
    per = 128 // w
    if ins.kind == "ld" and lanes_pair_up(addrs) and any(a is not None for a in addrs):
        per *= 2
    return [range(p, p + per) for p in range(0, 32, per)]


def lanes_pair_up(addrs: Sequence[int | None]) -> bool:
    """True when every lane ``i`` holds the address of lane ``i ^ 1``, or every lane that of lane ``i ^ 2``.

    This is what doubles the phases of 64/128-bit loads (rule 2); ``i ^ 3``, ``i ^ 4`` and mixtures (some
    lane quads paired one way, some the other) do not.  A pair with an inactive lane (None) is ignored
    (rule 5, measured).
    """
    return any(all(addrs[i] == addrs[i ^ step] or None in (addrs[i], addrs[i ^ step]) for i in range(32))
               for step in PAIRING_XORS)


def lane_words(ins: Instruction, address: int) -> range:
    """The 4-byte word indices one lane touches."""
    first = address // BANK_BYTES
    return range(first, (address + ins.access_bytes - 1) // BANK_BYTES + 1)


# ------------------------------------------------------------------- report
@dataclass(frozen=True)
class BankUse:
    """One bank within one phase: the distinct words it must deliver and, per word, the lanes wanting it."""

    bank: int
    words: tuple[int, ...]
    lanes: tuple[tuple[int, ...], ...]
    per_lane: bool = False  # an atomic's bank: every lane is a pass of its own (rule 6)

    @property
    def ways(self) -> int:
        """The passes the bank needs: its distinct words (its lanes, for an atomic)."""
        return sum(len(ls) for ls in self.lanes) if self.per_lane else len(self.words)


@dataclass(frozen=True)
class PhaseReport:
    """One phase: its lanes, its cost, its ideal, and every bank asked for more than one distinct word."""

    lanes: tuple[int, ...]
    wavefronts: int
    ideal: int
    conflicts: tuple[BankUse, ...]


@dataclass(frozen=True)
class BankReport:
    """The whole instruction: ``wavefronts``, ``ideal``, ``excess`` and the per-phase detail."""

    instruction: str
    lane_byte_addresses: tuple[int | None, ...]  # None: an inactive lane
    wavefronts: int
    ideal: int
    phases: tuple[PhaseReport, ...]
    notes: tuple[str, ...] = ()  # cp.async: what the cost comes from (global side included)

    @property
    def excess(self) -> int:
        """wavefronts - ideal: the cost of bank conflicts (Nsight's bank-conflict counter)."""
        return self.wavefronts - self.ideal

    @property
    def conflict_free(self) -> bool:
        return self.excess == 0

    def __str__(self) -> str:
        lines = [f"{self.instruction}: {self.wavefronts} wavefronts, ideal {self.ideal}, excess {self.excess}"]
        lines += [f"  {note}" for note in self.notes]
        for k, ph in enumerate(self.phases):
            lanes = f"lanes {ph.lanes[0]}-{ph.lanes[-1]}"
            lines.append(f"  phase {k} ({lanes}): {ph.wavefronts} wavefronts (ideal {ph.ideal})")
            for use in ph.conflicts:
                detail = "; ".join(f"word {w} (byte {w * BANK_BYTES}) <- lanes {list(ls)}"
                                   for w, ls in zip(use.words, use.lanes))
                lines.append(f"    bank {use.bank}: {use.ways}-way: {detail}")
        return "\n".join(lines)


def _phase_report(ins: Instruction, addrs: Sequence[int | None], lanes: range) -> PhaseReport:
    per_bank: dict[int, dict[int, list[int]]] = {}
    for lane in lanes:
        a = addrs[lane]
        if a is None:
            continue
        for word in lane_words(ins, a):
            per_bank.setdefault(word % NUM_BANKS, {}).setdefault(word, []).append(lane)
    if ins.is_atomic and not ins.merged_increment:
        return _atomic_phase_report(ins, per_bank, lanes)
    cost = max((len(ws) for ws in per_bank.values()), default=0)
    distinct = sum(len(ws) for ws in per_bank.values())
    ideal = -(-distinct // NUM_BANKS)
    conflicts = tuple(
        BankUse(bank, tuple(sorted(ws)), tuple(tuple(ws[w]) for w in sorted(ws)))
        for bank, ws in sorted(per_bank.items()) if len(ws) > 1)
    return PhaseReport(tuple(lanes), cost, ideal, conflicts)


def _atomic_phase_report(ins: Instruction, per_bank: dict[int, dict[int, list[int]]], lanes: range) -> PhaseReport:
    """Rule 6: one pass per lane a bank serves (lanes of one word included), two wavefronts a pass for cas."""
    per_pass = ATOMIC_CAS_WAVEFRONTS if ins.atomic == "cas" else 1
    uses = [BankUse(bank, tuple(sorted(ws)), tuple(tuple(ws[w]) for w in sorted(ws)), per_lane=True)
            for bank, ws in sorted(per_bank.items())]
    passes = max((use.ways for use in uses), default=0)
    conflicts = tuple(use for use in uses if use.ways > 1)
    return PhaseReport(tuple(lanes), passes * per_pass, per_pass if passes else 0, conflicts)


def report(instruction: str, lane_byte_addresses: Any, global_byte_addresses: Any = None, *,
           arch: Any = None) -> BankReport:
    """Wavefronts, ideal, excess and per-phase, per-bank detail of one warp-wide instruction.

    A ``cp.async`` is costed by :mod:`layoutalg.banks.cp_async` (see :mod:`.cp_async_report` for its report).
    ``arch`` (``"sm_80"`` ... ``"sm_120"``, default sm_90) sets the shared-memory capacity and instruction set.
    """
    ins = parse_instruction(instruction)
    addrs = _check_addresses(ins, lane_byte_addresses, arch_of(arch))
    if ins.kind == "cp.async":
        from layoutalg.banks.cp_async_report import cp_async_report

        return cp_async_report(ins, addrs, _check_global(ins, global_byte_addresses))
    reps = tuple(_phase_report(ins, addrs, lanes) for lanes in phases(ins, addrs))
    return BankReport(ins.canonical, addrs, sum(r.wavefronts for r in reps), sum(r.ideal for r in reps), reps)


def wavefronts(instruction: str, lane_byte_addresses: Any, global_byte_addresses: Any = None, *,
               arch: Any = None) -> int:
    """Shared-memory wavefronts one warp executing ``instruction`` costs (see the module doc for the rules).

    ``lane_byte_addresses[i]`` is lane ``i``'s byte offset into shared memory (for ldmatrix/stmatrix: the row
    address lane ``i`` supplies; lanes the instruction ignores may hold anything, or be left out), or None for
    a lane that does not execute (rule 5).
    ``global_byte_addresses[i]`` (``cp.async`` only, where it is required) is lane ``i``'s source offset
    from a 128-byte-aligned global base.  ``arch`` (default sm_90) sets the shared-memory capacity and which
    instructions exist (:mod:`layoutalg.banks.limits`).
    """
    ins = parse_instruction(instruction)
    addrs = _check_addresses(ins, lane_byte_addresses, arch_of(arch))
    if ins.kind == "cp.async":
        sources = _check_global(ins, global_byte_addresses)
        return cg_wavefronts(addrs, sources) if ins.cache == "cg" else ca_wavefronts(addrs, sources, ins.access_bytes)
    if None in addrs or ins.is_atomic:
        return report(instruction, addrs, arch=arch).wavefronts
    total = 0
    for lanes in phases(ins, addrs):
        per_bank: dict[int, set[int]] = {}
        for lane in lanes:
            for word in lane_words(ins, addrs[lane]):
                per_bank.setdefault(word % NUM_BANKS, set()).add(word)
        total += max((len(s) for s in per_bank.values()), default=0)
    return total


def conflict_counter(instruction: str, excess: int) -> int:
    """Nsight's bank-conflict counter for ``excess`` wavefronts of ``instruction``: the excess itself, except for an
    atomic ``cas``, whose counter counts extra passes of two wavefronts each (rule 6, measured in round 9)."""
    ins = parse_instruction(instruction)
    return excess // ATOMIC_CAS_WAVEFRONTS if ins.is_atomic and ins.atomic == "cas" else excess


def ideal_wavefronts(instruction: str, lane_byte_addresses: Any, global_byte_addresses: Any = None, *,
                     arch: Any = None) -> int:
    """The count with the same phases and no bank conflict: sum of ceil(distinct words / 32)."""
    return report(instruction, lane_byte_addresses, global_byte_addresses, arch=arch).ideal


def excess_wavefronts(instruction: str, lane_byte_addresses: Any, global_byte_addresses: Any = None, *,
                      arch: Any = None) -> int:
    """wavefronts - ideal."""
    return report(instruction, lane_byte_addresses, global_byte_addresses, arch=arch).excess
