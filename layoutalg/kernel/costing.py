"""Cost every recorded warp execution with the bank model and total it per PTX instruction.

For each :class:`~layoutalg.kernel.records.AccessRecord`, per warp:

* ``ld``/``st``/``ldmatrix``/``stmatrix``/``cp.async`` go to :func:`layoutalg.banks.wavefronts_many`
  with the warp's active lanes (a partial warp is costed by the phase rule with its inactive lanes
  absent, :mod:`layoutalg.banks.vector`), all records of one mnemonic in one vectorised call;
  ``cp.async`` with its global sources (buffer ``k``'s offsets shifted by ``(k+1) * 2**44`` so lines
  of different buffers never merge, then by a multiple of 128 so the smallest is below 128 -- the
  model depends only on line equality and offsets mod 128);
* a warp that executed with an unknown address or source (``rec.dropped``) is counted as an
  execution with a data-dependent cost: never costed from its known lanes;
* what the model does not cover is listed as unmodelled with the reason: atomics, wmma, a
  ``cp.async`` whose source is partly zero-filled
  (``src-size`` below the copy size); its executions still count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import layoutalg.banks as banks
from layoutalg.errors import LayoutError
from layoutalg.kernel.records import AccessRecord

MODELLED_KINDS = ("ld", "st", "ldmatrix", "stmatrix", "cp.async", "atom", "red")
ZERO_FILL_REASON = ("cp.async with src-size below its copy size (zero-filled bytes): the bank model was measured "
                    "on copies that read every byte")


@dataclass
class WarpCosts:
    """Per warp of a record: modelled (bool), wavefronts, ideal; reasons for the unmodelled ones; how many
    warps executed with a data-dependent cost."""

    modelled: np.ndarray
    wavefronts: np.ndarray
    ideal: np.ndarray
    reasons: dict[str, int] = field(default_factory=dict)
    data_dependent: int = 0

    @classmethod
    def empty(cls, warps: int) -> "WarpCosts":
        return cls(np.zeros(warps, dtype=bool), np.zeros(warps, dtype=np.int64), np.zeros(warps, dtype=np.int64))

    def refuse(self, rows: np.ndarray, reason: str) -> None:
        """Mark ``rows`` (bool per warp, not yet refused) unmodelled for ``reason``."""
        n = int(rows.sum())
        if n:
            self.reasons[reason] = self.reasons.get(reason, 0) + n


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


def _global_lines(buffer: np.ndarray, offset: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Global sources (buffer, offset) as offsets that keep line equality and offsets mod 128 (module doc)."""
    g = (buffer + 1) * (1 << 44) + offset
    low_line = np.where(active, g, np.int64(1 << 62)).min(axis=1, keepdims=True) // 128 * 128
    return np.where(active, g - low_line, 0)


def _eligible(rec: AccessRecord, costs: WarpCosts) -> np.ndarray | None:
    """The warps to cost (bool per warp, None: all of them); the others are data-dependent or refused with a
    reason."""
    if (rec.dropped is None and rec.src_size is None and rec.kind in MODELLED_KINDS and not rec.generic
            and not rec.refusal and not _instruction_refusal(rec.model_text) and rec.active.all()):
        return None  # the common case: whole warps of a modelled instruction
    ok: np.ndarray = np.asarray(rec.active.any(axis=1))
    if rec.dropped is not None:
        costs.data_dependent = int(rec.dropped.sum())
        ok &= ~rec.dropped
    if rec.kind not in MODELLED_KINDS:
        costs.refuse(ok, _instruction_refusal(rec.model_text) or f"{rec.kind} on shared memory is not modelled")
        return np.zeros_like(ok)
    refused = rec.refusal or _instruction_refusal(rec.model_text)
    if refused:
        costs.refuse(ok, refused)
        return np.zeros_like(ok)
    if rec.kind == "cp.async" and rec.src_size is not None:
        short: np.ndarray = ok & ((rec.src_size < rec.access_bytes) & rec.active).any(axis=1)
        costs.refuse(short, ZERO_FILL_REASON)
        ok &= ~short
    return ok


Chosen = slice | np.ndarray  # the warps of a record to cost: all (a slice) or their indices


def _cost_group(text: str, parts: list[tuple[AccessRecord, Chosen]]) -> tuple[np.ndarray, np.ndarray]:
    """(wavefronts, ideal) of the chosen warps of every record of one mnemonic, in one vectorised call."""
    def cat(arrays: list[np.ndarray]) -> np.ndarray:
        return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)

    smem = cat([rec.smem[rows] for rec, rows in parts])
    active = cat([rec.active[rows] for rec, rows in parts])
    glob = None
    if parts[0][0].kind == "cp.async":
        buf = cat([rec.global_buffer[rows] for rec, rows in parts])  # type: ignore[index]
        off = cat([rec.global_offset[rows] for rec, rows in parts])  # type: ignore[index]
        glob = _global_lines(buf, off, active)
    full = bool(active.all())
    wf, ideal = banks.wavefronts_many(text, smem, global_addresses=glob, active=None if full else active)
    return np.asarray(wf), np.asarray(ideal)


def cost_records(records: list[AccessRecord]) -> list[WarpCosts]:
    """The :class:`WarpCosts` of every record; the costable warps of each mnemonic are costed together."""
    out = [WarpCosts.empty(rec.executions) for rec in records]
    groups: dict[str, list[int]] = {}
    chosen: list[Chosen] = []
    for k, rec in enumerate(records):
        ok = _eligible(rec, out[k])
        if ok is None:
            chosen.append(slice(None))
        else:
            chosen.append(np.flatnonzero(ok))
            if not ok.any():
                continue
        groups.setdefault(rec.model_text, []).append(k)
    for text, ks in groups.items():
        try:
            wf, ideal = _cost_group(text, [(records[k], chosen[k]) for k in ks])
        except LayoutError:  # cost each record alone, so the refusal lands where it belongs
            for k in ks:
                try:
                    wf_k, ideal_k = _cost_group(text, [(records[k], chosen[k])])
                except LayoutError as exc:
                    out[k].refuse(np.ones(records[k].executions, dtype=bool)[chosen[k]], str(exc))
                    continue
                _fill(out[k], chosen[k], wf_k, ideal_k)
            continue
        at = 0
        for k in ks:
            rows = chosen[k]
            n = records[k].executions if isinstance(rows, slice) else len(rows)
            _fill(out[k], chosen[k], wf[at: at + n], ideal[at: at + n])
            at += n
    return out


def _fill(costs: WarpCosts, rows: Chosen, wf: np.ndarray, ideal: np.ndarray) -> None:
    costs.modelled[rows] = True
    costs.wavefronts[rows] = wf
    costs.ideal[rows] = ideal


def cost_record(rec: AccessRecord) -> WarpCosts:
    """The :class:`WarpCosts` of one record (:func:`cost_records` of it alone)."""
    return cost_records([rec])[0]
