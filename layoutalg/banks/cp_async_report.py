"""The per-instruction report of a ``cp.async``: its count, ideal and what the cost comes from.

* ``.cg``: no phases; one note per (global line, shared row) group of the rule
  (:func:`~layoutalg.banks.cp_async.cg_wavefronts`), with the lanes it holds
  and its own count (the groups' counts add up to the total); ideal = distinct
  16-byte destinations / 8, rounded up.
* ``.ca``: the ``st.shared`` phases, each with its count, ideal 1, and every
  shared bank two lanes of the phase write (``conflicts``, distinct words and
  the lanes wanting each, identical words included since they wait too); the
  notes name, per phase that costs more than 1, the lane that waits longest
  and for whom (the lanes sharing its global bank, then its shared bank).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from layoutalg.banks.cp_async import ca_phase_lanes, ca_wavefronts, cg_wavefronts
from layoutalg.banks.instruction import Instruction
from layoutalg.banks.model import BANK_BYTES, NUM_BANKS, BankReport, BankUse, PhaseReport, lane_words


def _cg_report(ins: Instruction, smem: tuple[int, ...], glob: tuple[int, ...]) -> BankReport:
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    seen: set[int] = set()
    for lane, (s, g) in enumerate(zip(smem, glob)):
        if s not in seen:  # the lowest lane wins a shared address (rule 1)
            seen.add(s)
            groups[(g // 128, s // 128)].append(lane)
    notes = []
    for (line, row), lanes in sorted(groups.items()):
        count = cg_wavefronts([smem[k] for k in lanes], [glob[k] for k in lanes])
        notes.append(f"global line {line} (bytes {128 * line}-{128 * line + 127}) -> shared row {row} "
                     f"(bytes {128 * row}-{128 * row + 127}): lanes {lanes}: {count} wavefront{'s' * (count != 1)}")
    ideal = -(-len(seen) // 8)
    return BankReport(ins.canonical, smem, cg_wavefronts(smem, glob), ideal, (), tuple(notes))


def _bank_of(address: int, width: int) -> int:
    return address // BANK_BYTES % NUM_BANKS if width <= BANK_BYTES else address // width % (128 // width) * (width // 4)


def _ca_phase(ins: Instruction, smem: Sequence[int], glob: Sequence[int], lanes: range) -> tuple[PhaseReport, str]:
    w = ins.access_bytes
    per_bank: dict[int, dict[int, list[int]]] = {}
    for lane in lanes:
        for word in lane_words(ins, smem[lane]):
            per_bank.setdefault(word % NUM_BANKS, {}).setdefault(word, []).append(lane)
    conflicts = tuple(BankUse(bank, tuple(sorted(ws)), tuple(tuple(ws[x]) for x in sorted(ws)))
                      for bank, ws in sorted(per_bank.items()) if sum(len(v) for v in ws.values()) > 1)
    cost = ca_wavefronts([smem[k] for k in lanes], [glob[k] for k in lanes], w)
    note = ""
    if cost > 1:
        def waits(lane: int) -> tuple[list[int], list[int]]:
            gb, sb = _bank_of(glob[lane], w), _bank_of(smem[lane], w)
            on_global = [k for k in lanes if k != lane and _bank_of(glob[k], w) == gb]
            on_shared = [k for k in lanes if k != lane and _bank_of(smem[k], w) == sb and k not in on_global]
            return on_global, on_shared
        worst = max(lanes, key=lambda k: len(waits(k)[0]) + len(waits(k)[1]))
        on_global, on_shared = waits(worst)
        note = (f"lanes {lanes[0]}-{lanes[-1]}: lane {worst} waits for {len(on_global) + len(on_shared)} lanes: "
                f"global bank {_bank_of(glob[worst], w)} (source byte {glob[worst]}) is also read by lanes "
                f"{on_global}, shared bank {_bank_of(smem[worst], w)} (byte {smem[worst]}) also written by lanes "
                f"{on_shared}")
    return PhaseReport(tuple(lanes), cost, 1, conflicts), note


def cp_async_report(ins: Instruction, smem: tuple[int, ...], glob: tuple[int, ...]) -> BankReport:
    """The report of one validated ``cp.async`` (32 shared and 32 global byte offsets)."""
    if ins.cache == "cg":
        return _cg_report(ins, smem, glob)
    per = ca_phase_lanes(ins.access_bytes)
    phases, notes = [], []
    for start in range(0, 32, per):
        phase, note = _ca_phase(ins, smem, glob, range(start, start + per))
        phases.append(phase)
        if note:
            notes.append(note)
    return BankReport(ins.canonical, smem, sum(p.wavefronts for p in phases), len(phases), tuple(phases),
                      tuple(notes))
