"""Shared memory's tags and the race check: every 2-byte unit remembers its tag, every byte its last writer.

Per CTA and unit: the tag.  Per CTA and byte: the last write (warp, its clock then, the instruction, the
pending cp.async group or -1); per reader warp the clock and instruction of its last read since that write.
A read whose last write is not ordered before it (another warp and no barrier between, or a
cp.async not yet waited for), and a write not ordered after the last write or after every read of
it, is a race (:mod:`.ordering` defines "ordered").  The race check is per byte because a data race needs
two accesses of the same byte (PTX ISA 8.x, 8.2 "Memory operations": the byte is the memory model's unit,
8.2.1 "Overlap"; 8.7.1 "Conflict and Data-races": conflicting accesses overlap): two warps storing the two
bytes of one unit (``st.shared.u8``) do not race; a 2-byte or wider access covers both bytes of each of its
units.  Races are collected, one per (kind, pair of instructions),
with a count (accesses of a unit, each counted once) and the first example.
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


BYTES_PER_UNIT_AND_WARP = 16  # r_clock + r_op, per byte
BYTES_PER_UNIT = 40  # tag; w_warp, w_clock, w_op, w_async per byte


class SharedTags:
    """Tags and race metadata of every traced CTA's shared memory (see the module doc)."""

    def __init__(self, n_ctas: int, warps_per_cta: int, size: int, clocks: Clocks) -> None:
        self.units = max(1, -(-size // 2))
        self.n_ctas = n_ctas
        self.wpc = warps_per_cta
        self.tag = np.full((n_ctas, self.units), tg.NONE, dtype=np.int64)
        shape = (n_ctas, 2 * self.units)  # the race metadata: per byte
        self.w_warp = np.full(shape, -1, dtype=np.int32)
        self.w_clock = np.zeros(shape, dtype=np.int32)
        self.w_op = np.full(shape, -1, dtype=np.int32)
        self.w_async = np.full(shape, -1, dtype=np.int32)
        self.r_clock = np.full((n_ctas, warps_per_cta, 2 * self.units), -1, dtype=np.int32)
        self.r_op = np.full((n_ctas, warps_per_cta, 2 * self.units), -1, dtype=np.int32)
        self.clocks = clocks
        self.races: dict[tuple[str, int, int], Race] = {}

    # ------------------------------------------------------------------ addressing
    def unit_index(self, addr: np.ndarray) -> np.ndarray:
        """Unit index of shared-window byte addresses (the unit holding each byte)."""
        return (np.asarray(addr, dtype=np.int64) - SMEM_BASE) >> 1

    @staticmethod
    def _bytes(cta: np.ndarray, warp: np.ndarray, unit: np.ndarray, byte: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(cta, warp, byte index, access) per byte the accesses touch: both bytes of each unit, or, for byte
        accesses, byte ``byte`` (0 low, 1 high) of it; ``access`` numbers the unit access each byte belongs to."""
        if byte is not None:
            return cta, warp, 2 * unit + byte, np.arange(unit.size)
        two = np.repeat(np.arange(unit.size), 2)
        return cta[two], warp[two], 2 * unit[two] + np.tile(np.arange(2), unit.size), two

    # ------------------------------------------------------------------ races
    def _race(self, kind: str, first: np.ndarray, second: int, cta: np.ndarray, w1: np.ndarray, w2: np.ndarray,
              byte: np.ndarray, where: np.ndarray, access: np.ndarray) -> None:
        hits = np.flatnonzero(where)
        if hits.size == 0:
            return
        f = first[hits]
        for op1 in np.unique(f):
            sel = hits[f == op1]
            key = (kind, int(op1), int(second))
            k = int(sel[0])
            race = self.races.get(key)
            n = int(np.unique(access[sel]).size)
            if race is None:
                self.races[key] = Race(kind, int(op1), second, int(cta[k]), int(w1[k]), int(w2[k]),
                                       int(byte[k]) + SMEM_BASE, n)
            else:
                race.count += n

    def read(self, op: int, cta: np.ndarray, warp: np.ndarray, unit: np.ndarray,
             byte: np.ndarray | None = None) -> np.ndarray:
        """Tags of the units read by (cta, warp) accesses; checks and records the reads (of byte ``byte`` of
        each unit for byte loads, else of both bytes)."""
        tags = self.tag[cta, unit]
        cta, warp, at, access = self._bytes(cta, warp, unit, byte)
        cl = self.clocks
        ww = self.w_warp[cta, at].astype(np.int64)
        wc = self.w_clock[cta, at]
        pending = self.w_async[cta, at] >= 0
        other = (ww >= 0) & (ww != warp)
        unordered = other & ~(cl.knows(cta, warp, ww) > wc)
        w_op = self.w_op[cta, at]
        self._race("read after write (no barrier between)", w_op, op, cta, ww, warp, at, unordered & ~pending,
                   access)
        self._race("read of a cp.async not yet waited for", w_op, op, cta, ww, warp, at, pending, access)
        self.r_clock[cta, warp, at] = cl.own(cta, warp)
        self.r_op[cta, warp, at] = op
        return tags

    def write(self, op: int, cta: np.ndarray, warp: np.ndarray, unit: np.ndarray, new: np.ndarray,
              group: np.ndarray | None = None, byte: np.ndarray | None = None) -> None:
        """Store tags ``new`` at the units; checks the write (of byte ``byte`` of each unit for byte stores,
        else of both bytes) against the last write of each byte and the reads since."""
        self._same_step_tags(op, cta, unit, new)
        self.tag[cta, unit] = new
        cta, warp, at, access = self._bytes(cta, warp, unit, byte)
        group = None if group is None else group[access]
        cl = self.clocks
        ww = self.w_warp[cta, at].astype(np.int64)
        wc = self.w_clock[cta, at]
        pending = self.w_async[cta, at] >= 0
        other = (ww >= 0) & (ww != warp)
        unordered = other & ~(cl.knows(cta, warp, ww) > wc)
        w_op = self.w_op[cta, at]
        self._race("write after write (no barrier between)", w_op, op, cta, ww, warp, at, unordered & ~pending,
                   access)
        self._race("write over a cp.async not yet waited for", w_op, op, cta, ww, warp, at, pending, access)
        rc = self.r_clock[cta, :, at]  # (k, wpc)
        readers = np.arange(self.wpc)[None, :]
        knows = cl.vc[cta, warp][:, :]  # (k, wpc): the writer's knowledge of each reader
        war = (rc >= 0) & (readers != warp[:, None]) & ~(knows > rc)
        if war.any():
            k_idx, r_idx = np.nonzero(war)
            self._race("write after read (no barrier between)", self.r_op[cta[k_idx], r_idx, at[k_idx]], op,
                       cta[k_idx], r_idx, warp[k_idx], at[k_idx], np.ones(k_idx.size, dtype=bool),
                       access[k_idx] * self.wpc + r_idx)
        self._same_step_race(op, cta, warp, at, access)
        self.w_warp[cta, at] = warp
        self.w_clock[cta, at] = cl.own(cta, warp)
        self.w_op[cta, at] = op
        self.w_async[cta, at] = -1 if group is None else group
        self.r_clock[cta, :, at] = -1

    def _same_step_race(self, op: int, cta: np.ndarray, warp: np.ndarray, byte: np.ndarray,
                        access: np.ndarray) -> None:
        """Several lanes writing one byte in one step: lanes of other warps race."""
        a, b = _same_key(cta * np.int64(2 * self.units) + byte)
        cross = warp[a] != warp[b]
        if cross.any():
            self._race("write after write (no barrier between)", np.full(a.size, op), op, cta[a], warp[a], warp[b],
                       byte[a], cross, access[a])

    def _same_step_tags(self, op: int, cta: np.ndarray, unit: np.ndarray, new: np.ndarray) -> None:
        """Several lanes writing one unit in one step: lanes with different tags leave the unit OPAQUE (the
        hardware keeps one of the values, unspecified which)."""
        a, b = _same_key(cta * np.int64(self.units) + unit)
        differ = new[a] != new[b]
        if differ.any():
            bad = np.concatenate([a[differ], b[differ]])
            new[bad] = tg.opaque(op, tg.W_CONFLICT)

    def complete_async(self, cta: int, warp: int, writes: list[tuple[int, np.ndarray]]) -> None:
        """cp.async writes of (cta, warp) completed by a wait: they become the warp's writes now."""
        own = self.clocks.vc[cta, warp, warp]
        for group, units in writes:
            units = (2 * units[:, None] + np.arange(2)[None, :]).reshape(-1)  # the units' bytes
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


def _same_key(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (a, b) of neighbouring entries with equal ``key`` (in stable key order)."""
    if key.size < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.argsort(key, kind="stable")
    k = key[order]
    same = k[1:] == k[:-1]
    return order[:-1][same], order[1:][same]


def sample_units(addr: np.ndarray, nbytes: int) -> np.ndarray:
    """(k, nbytes // 2) unit offsets of ``nbytes``-byte accesses at 2-byte aligned ``addr``."""
    return (np.asarray(addr, dtype=np.int64)[:, None] - SMEM_BASE) // 2 + np.arange(max(1, nbytes // 2))[None, :]


__all__ = ["SharedTags", "Race", "sample_units"]
_ = Any
