"""Shared memory's tags and the race check: every 2-byte unit remembers its tag and its last writer.

Per CTA and unit: the tag; the last write (warp, its clock then, the instruction, the pending
cp.async group or -1); per reader warp the clock and instruction of its last read since that write.
A read whose last write is not ordered before it (another warp and no barrier between, or a
cp.async not yet waited for), and a write not ordered after the last write or after every read of
it, is a race (:mod:`.ordering` defines "ordered").  Races are collected, one per (kind, pair of
instructions), with a count and the first example.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.ordering import Clocks
from layoutalg.kernel.interp.spaces import SMEM_BASE


@dataclass
class Race:
    """Two accesses of one shared-memory location that nothing orders (see the module doc)."""

    kind: str  # "read after write", "write after read", "write after write", "read of a pending cp.async", ...
    first: int  # op index of the earlier access
    second: int  # op index of the later access
    cta: int
    first_warp: int
    second_warp: int
    address: int  # shared-window byte address
    count: int = 1


BYTES_PER_UNIT_AND_WARP = 8  # r_clock + r_op
BYTES_PER_UNIT = 24  # tag, w_warp, w_clock, w_op, w_async


class SharedTags:
    """Tags and race metadata of every traced CTA's shared memory (see the module doc)."""

    def __init__(self, n_ctas: int, warps_per_cta: int, size: int, clocks: Clocks) -> None:
        self.units = max(1, -(-size // 2))
        self.n_ctas = n_ctas
        self.wpc = warps_per_cta
        shape = (n_ctas, self.units)
        self.tag = np.full(shape, tg.NONE, dtype=np.int64)
        self.w_warp = np.full(shape, -1, dtype=np.int32)
        self.w_clock = np.zeros(shape, dtype=np.int32)
        self.w_op = np.full(shape, -1, dtype=np.int32)
        self.w_async = np.full(shape, -1, dtype=np.int32)
        self.r_clock = np.full((n_ctas, warps_per_cta, self.units), -1, dtype=np.int32)
        self.r_op = np.full((n_ctas, warps_per_cta, self.units), -1, dtype=np.int32)
        self.clocks = clocks
        self.races: dict[tuple[str, int, int], Race] = {}

    # ------------------------------------------------------------------ addressing
    def unit_index(self, addr: np.ndarray) -> np.ndarray:
        """Unit index of shared-window byte addresses (the unit holding each byte)."""
        return (np.asarray(addr, dtype=np.int64) - SMEM_BASE) >> 1

    # ------------------------------------------------------------------ races
    def _race(self, kind: str, first: np.ndarray, second: int, cta: np.ndarray, w1: np.ndarray, w2: np.ndarray,
              unit: np.ndarray, where: np.ndarray) -> None:
        hits = np.flatnonzero(where)
        if hits.size == 0:
            return
        f = first[hits]
        for op1 in np.unique(f):
            sel = hits[f == op1]
            key = (kind, int(op1), int(second))
            k = int(sel[0])
            race = self.races.get(key)
            if race is None:
                self.races[key] = Race(kind, int(op1), second, int(cta[k]), int(w1[k]), int(w2[k]),
                                       int(unit[k]) * 2 + SMEM_BASE, int(sel.size))
            else:
                race.count += int(sel.size)

    def read(self, op: int, cta: np.ndarray, warp: np.ndarray, unit: np.ndarray) -> np.ndarray:
        """Tags of the units read by (cta, warp) accesses; checks and records the reads."""
        cl = self.clocks
        ww = self.w_warp[cta, unit].astype(np.int64)
        wc = self.w_clock[cta, unit]
        pending = self.w_async[cta, unit] >= 0
        other = (ww >= 0) & (ww != warp)
        unordered = other & ~(cl.knows(cta, warp, ww) > wc)
        w_op = self.w_op[cta, unit]
        self._race("read after write (no barrier between)", w_op, op, cta, ww, warp, unit, unordered & ~pending)
        self._race("read of a cp.async not yet waited for", w_op, op, cta, ww, warp, unit, pending)
        self.r_clock[cta, warp, unit] = cl.own(cta, warp)
        self.r_op[cta, warp, unit] = op
        return self.tag[cta, unit]

    def write(self, op: int, cta: np.ndarray, warp: np.ndarray, unit: np.ndarray, new: np.ndarray,
              group: np.ndarray | None = None) -> None:
        """Store tags ``new`` at the units; checks the write against the last write and the reads since."""
        cl = self.clocks
        ww = self.w_warp[cta, unit].astype(np.int64)
        wc = self.w_clock[cta, unit]
        pending = self.w_async[cta, unit] >= 0
        other = (ww >= 0) & (ww != warp)
        unordered = other & ~(cl.knows(cta, warp, ww) > wc)
        w_op = self.w_op[cta, unit]
        self._race("write after write (no barrier between)", w_op, op, cta, ww, warp, unit, unordered & ~pending)
        self._race("write over a cp.async not yet waited for", w_op, op, cta, ww, warp, unit, pending)
        rc = self.r_clock[cta, :, unit]  # (k, wpc)
        readers = np.arange(self.wpc)[None, :]
        knows = cl.vc[cta, warp][:, :]  # (k, wpc): the writer's knowledge of each reader
        war = (rc >= 0) & (readers != warp[:, None]) & ~(knows > rc)
        if war.any():
            k_idx, r_idx = np.nonzero(war)
            self._race("write after read (no barrier between)", self.r_op[cta[k_idx], r_idx, unit[k_idx]], op,
                       cta[k_idx], r_idx, warp[k_idx], unit[k_idx], np.ones(k_idx.size, dtype=bool))
        self._same_step(op, cta, warp, unit, new)
        self.tag[cta, unit] = new
        self.w_warp[cta, unit] = warp
        self.w_clock[cta, unit] = cl.own(cta, warp)
        self.w_op[cta, unit] = op
        self.w_async[cta, unit] = -1 if group is None else group
        self.r_clock[cta, :, unit] = -1

    def _same_step(self, op: int, cta: np.ndarray, warp: np.ndarray, unit: np.ndarray, new: np.ndarray) -> None:
        """Several lanes writing one unit in one step: other warps race; one warp's lanes with different
        tags leave the unit OPAQUE (the hardware keeps one of the values, unspecified which)."""
        if unit.size < 2:
            return
        key = cta * np.int64(self.units) + unit
        order = np.argsort(key, kind="stable")
        k = key[order]
        same = k[1:] == k[:-1]
        if not same.any():
            return
        a, b = order[:-1][same], order[1:][same]
        cross = warp[a] != warp[b]
        if cross.any():
            self._race("write after write (no barrier between)", np.full(a.size, op), op, cta[a], warp[a], warp[b],
                       unit[a], cross)
        differ = new[a] != new[b]
        if differ.any():
            bad = np.concatenate([a[differ], b[differ]])
            new[bad] = tg.opaque(op, tg.W_CONFLICT)

    def complete_async(self, cta: int, warp: int, writes: list[tuple[int, np.ndarray]]) -> None:
        """cp.async writes of (cta, warp) completed by a wait: they become the warp's writes now."""
        own = self.clocks.vc[cta, warp, warp]
        for group, units in writes:
            still = (self.w_warp[cta, units] == warp) & (self.w_async[cta, units] == group)
            u = units[still]
            self.w_async[cta, u] = -1
            self.w_clock[cta, u] = own

    def forget(self, op: int, ctas: np.ndarray, why: int) -> None:
        """Every unit of these CTAs becomes OPAQUE (an unmodelled write could have touched any)."""
        for c in np.unique(ctas):
            self.tag[c] = tg.opaque(op, why)

    def race_list(self) -> list[Race]:
        """The races in the order the interpretation met them (the first is the first to happen)."""
        return list(self.races.values())


def sample_units(addr: np.ndarray, nbytes: int) -> np.ndarray:
    """(k, nbytes // 2) unit offsets of ``nbytes``-byte accesses at 2-byte aligned ``addr``."""
    return (np.asarray(addr, dtype=np.int64)[:, None] - SMEM_BASE) // 2 + np.arange(max(1, nbytes // 2))[None, :]


__all__ = ["SharedTags", "Race", "sample_units"]
_ = Any
