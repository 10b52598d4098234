"""Cost every recorded warp execution with the bank model and total it per PTX instruction.

For each :class:`~layoutalg.kernel.records.AccessRecord`:

* ``ld``/``st``/``ldmatrix``/``stmatrix`` warps whose used lanes are all active go to
  :func:`layoutalg.banks.wavefronts_many` (the vectorised model, identical to ``wavefronts``);
* partial warps of 1-4 byte ``ld``/``st`` are costed with each inactive lane given the address of
  an active one, which adds no word -- the hypothesis that inactive lanes request nothing
  (:mod:`.counters` lists it); other partial warps are handed to ``layoutalg.banks.wavefronts``
  with ``None`` for inactive lanes, and listed as unmodelled with its reason if it refuses;
* ``cp.async`` warps go to ``layoutalg.banks.report`` with their global sources (buffer ``k``'s
  offsets are shifted by ``(k+1) * 2**44`` so lines of different buffers never merge, then by a
  multiple of 128 so the smallest is below 128 -- the model depends only on line equality and
  offsets mod 128);
* anything the model refuses (``cp.async.ca`` today, atomics, wmma) is listed as unmodelled with
  the model's own reason; its executions still count in the instruction counters.

Identical address patterns are costed once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import layoutalg.banks as banks
from layoutalg.errors import InstructionError, LayoutError
from layoutalg.kernel.records import AccessRecord


@dataclass
class WarpCosts:
    """Per warp of a record: modelled (bool), wavefronts, ideal; reasons for the unmodelled ones."""

    modelled: np.ndarray
    wavefronts: np.ndarray
    ideal: np.ndarray
    reasons: dict[str, int] = field(default_factory=dict)


def _used_lanes(rec: AccessRecord) -> np.ndarray:
    if rec.kind in ("ldmatrix", "stmatrix"):
        count = int(rec.model_text.split(".x")[1][0])
        return np.arange(32) < 8 * count
    return np.ones(32, dtype=bool)


DEDUPE_ABOVE = 256


def _dedupe_cost(text: str, addrs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(addrs) <= DEDUPE_ABOVE:
        wf, ideal = banks.wavefronts_many(text, addrs)
        return np.asarray(wf), np.asarray(ideal)
    uniq, inverse = np.unique(addrs, axis=0, return_inverse=True)
    wf, ideal = banks.wavefronts_many(text, uniq)
    inverse = inverse.reshape(-1)
    return np.asarray(wf)[inverse], np.asarray(ideal)[inverse]


def _fill_inactive(addrs: np.ndarray, active: np.ndarray) -> np.ndarray:
    first = np.argmax(active, axis=1)
    fill = addrs[np.arange(len(addrs)), first][:, None]
    return np.where(active, addrs, fill)


def _refusal(text: str, row: list[Any], global_row: list[Any] | None) -> str | None:
    try:
        banks.report(text, row, global_byte_addresses=global_row)
    except LayoutError as exc:
        return str(exc)
    return None


def cost_record(rec: AccessRecord) -> WarpCosts:
    w = rec.executions
    out = WarpCosts(np.zeros(w, dtype=bool), np.zeros(w, dtype=np.int64), np.zeros(w, dtype=np.int64))
    used = _used_lanes(rec)
    active = rec.active
    full = (active | ~used).all(axis=1)
    if rec.kind == "cp.async":
        _cost_cp_async(rec, full, out)
        return out
    if rec.kind not in ("ld", "st", "ldmatrix", "stmatrix"):
        reason = _refusal(rec.model_text, [int(x) for x in rec.smem[0]], None) or \
            f"{rec.kind} on shared memory is not modelled"
        out.reasons[reason] = w
        return out
    narrow = rec.kind in ("ld", "st") and rec.access_bytes <= 4
    costable = full | narrow
    if costable.any():
        rows = np.flatnonzero(costable)
        addrs = rec.smem[rows]
        if narrow:
            addrs = _fill_inactive(addrs, active[rows])
        try:
            wf, ideal = _dedupe_cost(rec.model_text, addrs)
            out.modelled[rows] = True
            out.wavefronts[rows] = wf
            out.ideal[rows] = ideal
        except InstructionError as exc:
            out.reasons[str(exc)] = len(rows)
    partial = np.flatnonzero(~costable)
    for r in partial:
        row = [int(a) if act else None for a, act in zip(rec.smem[r], active[r])]
        try:
            rep = banks.report(rec.model_text, row)
            out.modelled[r] = True
            out.wavefronts[r], out.ideal[r] = rep.wavefronts, rep.ideal
        except LayoutError as exc:
            n_act = int(active[r].sum())
            key = (f"partial warp ({n_act} of 32 lanes active) of a {rec.access_bytes}-byte {rec.kind}: "
                   f"the bank model takes no inactive lanes here ({exc})")
            out.reasons[key] = out.reasons.get(key, 0) + 1
    return out


_INSTRUCTION_REFUSALS: dict[str, str] = {}


def _instruction_refusal(text: str) -> str | None:
    """The model's refusal of the instruction itself (whatever the addresses), cached per mnemonic."""
    if text not in _INSTRUCTION_REFUSALS:
        try:
            banks.report(text, [16 * i for i in range(32)], global_byte_addresses=[16 * i for i in range(32)])
            _INSTRUCTION_REFUSALS[text] = ""
        except LayoutError as exc:
            _INSTRUCTION_REFUSALS[text] = str(exc)
    return _INSTRUCTION_REFUSALS[text] or None


def cost_records(records: list[AccessRecord]) -> list[WarpCosts]:
    """:func:`cost_record` of every record, with the full warps of each ld/st/ldmatrix/stmatrix mnemonic
    costed in one vectorised call (the same numbers, fewer calls)."""
    out: list[WarpCosts | None] = [None] * len(records)
    groups: dict[str, list[int]] = {}
    for k, rec in enumerate(records):
        if rec.kind in ("ld", "st", "ldmatrix", "stmatrix") and bool((rec.active | ~_used_lanes(rec)).all()):
            groups.setdefault(rec.model_text, []).append(k)
        else:
            out[k] = cost_record(rec)
    for text, ks in groups.items():
        addrs = np.concatenate([records[k].smem for k in ks])
        try:
            wf, ideal = _dedupe_cost(text, addrs)
        except InstructionError:
            for k in ks:
                out[k] = cost_record(records[k])
            continue
        at = 0
        for k in ks:
            w = records[k].executions
            out[k] = WarpCosts(np.ones(w, dtype=bool), wf[at: at + w], ideal[at: at + w])
            at += w
    return [c for c in out if c is not None]


def _cost_cp_async(rec: AccessRecord, full: np.ndarray, out: WarpCosts) -> None:
    assert rec.global_buffer is not None and rec.global_offset is not None
    refused = _instruction_refusal(rec.model_text)
    if refused:
        out.reasons[refused] = rec.executions
        return
    g = (rec.global_buffer + 1) * (1 << 44) + rec.global_offset
    active = rec.active
    big = np.int64(1 << 62)
    low_line = np.where(active, g, big).min(axis=1, keepdims=True) // 128 * 128
    g = np.where(active, g - low_line, 0)
    s = np.where(active, rec.smem, 0)
    key = np.concatenate([s, g, active.astype(np.int64)], axis=1)
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    cache: list[tuple[bool, int, int, str]] = []
    for u in uniq:
        act = u[64:].astype(bool)
        srow = [int(x) if a else None for x, a in zip(u[:32], act)]
        grow = [int(x) if a else None for x, a in zip(u[32:64], act)]
        if act.all():
            srow_i, grow_i = [int(x) for x in u[:32]], [int(x) for x in u[32:64]]
            try:
                rep = banks.report(rec.model_text, srow_i, global_byte_addresses=grow_i)
                cache.append((True, rep.wavefronts, rep.ideal, ""))
            except LayoutError as exc:
                cache.append((False, 0, 0, str(exc)))
            continue
        try:
            rep = banks.report(rec.model_text, srow, global_byte_addresses=grow)
            cache.append((True, rep.wavefronts, rep.ideal, ""))
        except LayoutError as exc:
            cache.append((False, 0, 0, f"partial warp ({int(act.sum())} of 32 lanes active): the bank model "
                                       f"takes no inactive lanes here ({exc})"))
    for r, k in enumerate(inverse):
        ok, wf, ideal, reason = cache[k]
        if ok:
            out.modelled[r] = True
            out.wavefronts[r], out.ideal[r] = wf, ideal
        else:
            out.reasons[reason] = out.reasons.get(reason, 0) + 1
