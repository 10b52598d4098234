"""Happens-before among the warps of a CTA: vector clocks advanced by barriers, cp.async groups.

The model (PTX ISA 8.x, "Memory Consistency Model" and "Parallel Synchronization"), per CTA:

* a warp's accesses are ordered among themselves (program order; the lanes of a warp are taken to
  run in step, so ``bar.warp.sync`` is not required between them -- an assumption the report states);
* ``bar.sync``/``barrier.sync``/``bar.red`` (and ``bar.arrive`` as the releasing side) order every
  access of an arriving warp before the barrier completes before every access of a released warp
  after it.  Vector clocks: warp ``w`` holds ``vc[w][x]`` = the latest clock value of warp ``x`` it
  is ordered after; arriving increments the own entry and folds the clock into the barrier; a
  release joins the barrier's clock into each released warp.  An access stamped ``(x, c)`` is
  ordered before warp ``w``'s next access iff ``x == w`` or ``vc[w][x] > c``;
* ``cp.async``: its shared-memory write belongs to the issuing warp's open group; the write is
  *pending* until the warp's ``cp.async.wait_group N`` (groups older than the N newest committed)
  or ``wait_all`` completes it, and then counts as that warp's write at the wait.  Reading or
  overwriting a pending write is a race even within the warp.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Clocks:
    """Vector clocks and cp.async groups of every warp of a traced batch (see the module doc)."""

    def __init__(self, n_ctas: int, warps_per_cta: int) -> None:
        self.n_ctas = n_ctas
        self.wpc = warps_per_cta
        self.vc = np.zeros((n_ctas, warps_per_cta, warps_per_cta), dtype=np.int64)
        self.pending: dict[tuple[int, int], np.ndarray] = {}  # (cta, barrier id) -> joined clock
        self.committed = np.zeros((n_ctas, warps_per_cta), dtype=np.int64)  # groups committed per warp
        # (cta, warp) -> list of (group, flat unit indices of that write) not yet completed
        self.async_writes: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}

    def own(self, cta: np.ndarray, warp: np.ndarray) -> np.ndarray:
        return self.vc[cta, warp, warp]

    def knows(self, cta: np.ndarray, reader: np.ndarray, writer: np.ndarray) -> np.ndarray:
        """``vc[cta][reader][writer]`` (writer -1 gives -1)."""
        safe = np.where(writer < 0, 0, writer)
        return np.where(writer < 0, -1, self.vc[cta, reader, safe])

    def arrive(self, ctas: np.ndarray, warps: np.ndarray, barrier: int) -> None:
        """Warps (cta, warp pairs) arrive at ``barrier``: release their clocks into it."""
        self.vc[ctas, warps, warps] += 1
        for c in np.unique(ctas):
            rows = self.vc[c, warps[ctas == c]]
            key = (int(c), barrier)
            joined = rows.max(axis=0)
            old = self.pending.get(key)
            self.pending[key] = joined if old is None else np.maximum(old, joined)

    def release(self, ctas: np.ndarray, warps: np.ndarray, barrier: int) -> None:
        """The barrier completed for these warps: each joins the barrier's clock; the barrier resets."""
        for c in np.unique(ctas):
            key = (int(c), barrier)
            joined = self.pending.pop(key, None)
            if joined is None:
                continue
            ws = warps[ctas == c]
            self.vc[c, ws] = np.maximum(self.vc[c, ws], joined[None, :])

    def drop(self, ctas: np.ndarray, barrier: int) -> None:
        """The barrier's phase completed without ordering anyone (a timing-dependent phase): it resets."""
        for c in np.unique(ctas):
            self.pending.pop((int(c), barrier), None)

    def group_of(self, cta: np.ndarray, warp: np.ndarray) -> np.ndarray:
        """The open (not yet committed) cp.async group of each warp: its number of committed groups."""
        return self.committed[cta, warp]

    def note_async(self, cta: int, warp: int, group: int, flat_units: np.ndarray) -> None:
        self.async_writes.setdefault((cta, warp), []).append((group, flat_units))

    def commit(self, ctas: np.ndarray, warps: np.ndarray) -> None:
        self.committed[ctas, warps] += 1

    def completed(self, cta: int, warp: int, keep: int | None) -> list[tuple[int, np.ndarray]]:
        """Writes of (cta, warp) that ``wait_group keep`` (None: ``wait_all``) completes; they leave the list."""
        writes = self.async_writes.get((cta, warp))
        if not writes:
            return []
        limit = np.iinfo(np.int64).max if keep is None else int(self.committed[cta, warp]) - keep
        done = [w for w in writes if w[0] < limit]
        if done:
            self.async_writes[(cta, warp)] = [w for w in writes if w[0] >= limit]
        return done


def warps_of(lanes: np.ndarray, geom: Any) -> tuple[np.ndarray, np.ndarray]:
    """(cta index, warp in CTA) of every warp with a lane in ``lanes`` (threads axis)."""
    rows = np.flatnonzero(lanes.reshape(-1, 32).any(axis=1))
    return rows // geom.warps_per_cta, rows % geom.warps_per_cta
