"""Suggested swizzles for the worst instructions of a trace (where one is cheaply derivable).

For each of the :data:`TOP` instructions with the most excess wavefronts (ld/st/ldmatrix/stmatrix,
full warps), every XOR swizzle ``Swizzle<B, M, S>`` on *byte* addresses with ``B <= 5``, ``M + S + B <= 12``,
``log2(access bytes) <= M <= 6`` and ``S >= B`` (so it permutes addresses within aligned blocks
and keeps every access aligned) is applied to all the instruction's recorded addresses and costed
with the bank model; the cheapest one that reaches the ideal is suggested, in CuTe's element terms
when the element size is known.  The same swizzle must be applied to every access of that buffer
(the writes too): the suggestion says so; it is a starting point, checked only for this instruction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import layoutalg.banks as banks

TOP = 3
MAX_ROWS = 4096


def _swizzle(a: np.ndarray, b: int, m: int, s: int) -> np.ndarray:
    mask = ((1 << b) - 1) << (m + s)
    return a ^ ((a & mask) >> s)


def best_swizzle(text: str, rows: np.ndarray, access_bytes: int) -> tuple[int, int, int, int] | None:
    """(B, M, S, wavefronts) of a byte swizzle reaching the ideal (fewest bits B, least S, then least M), or None:
    none reaches it, or the rows already cost their ideal (no swizzle is needed, so none is suggested)."""
    unswizzled, ideal = banks.wavefronts_many(text, rows)
    target = int(np.asarray(ideal).sum())
    if int(np.asarray(unswizzled).sum()) == target:
        return None
    lo = max(2, int(access_bytes).bit_length() - 1)
    best: tuple[int, int, int, int] | None = None
    for b in (1, 2, 3, 4, 5):
        for m in range(lo, 7):
            for s in range(b, 13 - m - b):
                wf, _ = banks.wavefronts_many(text, _swizzle(rows, b, m, s))
                total = int(np.asarray(wf).sum())
                if total == target and (best is None or (b, s) < (best[0], best[2])):
                    best = (b, m, s, total)
        if best is not None:
            return best
    return None


def annotate_suggestions(trace: Any) -> None:
    """Attach ``suggestion`` to the worst instructions (from the first MAX_ROWS full warps of their access records)."""
    worst = sorted((s for s in trace.instructions if s.excess > 0 and s.kind in ("ld", "st", "ldmatrix", "stmatrix")),
                   key=lambda s: -s.excess)[:TOP]
    for stats in worst:
        recs = [r for r in trace.accesses if r.index == stats.index]
        if not recs:
            continue
        rows = np.concatenate([r.smem[r.active.all(axis=1)] for r in recs])[:MAX_ROWS]
        if not len(rows):
            continue
        found = best_swizzle(stats.model_text, rows, recs[0].access_bytes)
        if found is None:
            continue
        b, m, s, _ = found
        stats.suggested_swizzle = (b, m, s)
        elem = 2 if stats.kind in ("ldmatrix", "stmatrix") else recs[0].access_bytes
        elem_m = m - (elem.bit_length() - 1)  # >= 0: best_swizzle's M is at least log2(access bytes) and 2
        stats.suggestion = (f"XOR-swizzle the buffer's byte offsets with Swizzle<{b},{m},{s}>; Swizzle<{b},{elem_m},{s}> "
                            f"on {elem}-byte elements (apply it to every "
                            f"access of this buffer, writes included): this instruction then costs its ideal "
                            f"{stats.ideal} wavefronts instead of {stats.wavefronts}")
