"""What the launch did to global memory: which 2-byte units it stored to, and which thread loaded each
unit (to see a load of memory another thread stores).  Bitmaps per buffer, grown as offsets appear."""

from __future__ import annotations

from typing import Any

import numpy as np


class GlobalWrites:
    """Which 2-byte units of each global buffer this launch has stored to (a growing bitmap per buffer),
    and which thread loaded each unit (0 none, -1 several, else 1 + the launch-wide thread id)."""

    def __init__(self) -> None:
        self.maps: dict[int, np.ndarray] = {}
        self.loaders: dict[int, np.ndarray] = {}

    def note_loads(self, buf: np.ndarray, off: np.ndarray, thread: np.ndarray) -> None:
        for b in np.unique(buf):
            if b < 0:
                continue
            sel = buf == b
            u, who = off[sel] >> 1, thread[sel] + 1
            keep = u >= 0
            u, who = u[keep], who[keep]
            if u.size == 0:
                continue
            cur = _grown(self.loaders.get(int(b)), int(u.max()) + 1, np.int64)
            old = cur[u]
            cur[u] = np.where((old == 0) | (old == who), who, -1)
            dup_first, dup_other = _collisions(u, who)
            cur[dup_first] = np.where(dup_other, -1, cur[dup_first])
            self.loaders[int(b)] = cur

    def loaded_by_others(self, buf: np.ndarray, off: np.ndarray, thread: np.ndarray) -> bool:
        for b, loaders in self.loaders.items():
            sel = buf == b
            if sel.any():
                u = off[sel] >> 1
                inside = (u >= 0) & (u < loaders.size)
                who = loaders[np.where(inside, u, 0)]
                if (inside & (who != 0) & (who != thread[sel] + 1)).any():
                    return True
        return False

    def add(self, buf: np.ndarray, off: np.ndarray) -> None:
        for b in np.unique(buf):
            if b < 0:
                continue
            u = off[buf == b] >> 1
            u = u[u >= 0]
            if u.size == 0:
                continue
            cur = self.maps.get(int(b), np.zeros(0, dtype=bool))
            top = int(u.max()) + 1
            if top > cur.size:
                grown = np.zeros(max(top, 2 * cur.size), dtype=bool)
                grown[:cur.size] = cur
                cur = grown
            cur[u] = True
            self.maps[int(b)] = cur

    def hit(self, buf: np.ndarray, off: np.ndarray) -> np.ndarray:
        out = np.zeros(buf.shape, dtype=bool)
        for b, bitmap in self.maps.items():
            sel = buf == b
            if sel.any():
                u = off[sel] >> 1
                inside = (u >= 0) & (u < bitmap.size)
                out[sel] = inside & bitmap[np.where(inside, u, 0)]
        return out


def _grown(arr: np.ndarray | None, top: int, dtype: Any) -> np.ndarray:
    cur = np.zeros(0, dtype=dtype) if arr is None else arr
    if top > cur.size:
        grown = np.zeros(max(top, 2 * cur.size), dtype=dtype)
        grown[:cur.size] = cur
        cur = grown
    return cur


def _collisions(u: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Units loaded by several threads within one instruction: (unit, True) for each such unit."""
    order = np.lexsort((who, u))
    us, ws = u[order], who[order]
    same_unit = us[1:] == us[:-1]
    other = same_unit & (ws[1:] != ws[:-1])
    return us[1:][other], np.ones(int(other.sum()), dtype=bool)
