"""What the launch did to global memory: which 2-byte units it stored to, and which thread loaded each
unit (to see a load of memory another thread stores).  Paged tables per buffer (:mod:`.paged`): memory
follows the units touched, not the largest offset."""

from __future__ import annotations

import numpy as np

from layoutalg.kernel.dataflow.paged import PagedArray


class GlobalWrites:
    """Which 2-byte units of each global buffer this launch has stored to (a paged bitmap per buffer),
    and which thread loaded each unit (0 none, -1 several, else 1 + the launch-wide thread id)."""

    def __init__(self) -> None:
        self.maps: dict[int, PagedArray] = {}
        self.loaders: dict[int, PagedArray] = {}

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
            cur = self.loaders.setdefault(int(b), PagedArray(0))
            old = cur[u]
            cur[u] = np.where((old == 0) | (old == who), who, -1)
            dup_first, dup_other = _collisions(u, who)
            cur[dup_first] = np.where(dup_other, -1, cur[dup_first])

    def loaded_by_others(self, buf: np.ndarray, off: np.ndarray, thread: np.ndarray) -> bool:
        for b, loaders in self.loaders.items():
            sel = buf == b
            if sel.any():
                u = off[sel] >> 1
                inside = u >= 0
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
            self.maps.setdefault(int(b), PagedArray(False, dtype=bool))[u] = True

    def hit(self, buf: np.ndarray, off: np.ndarray) -> np.ndarray:
        out = np.zeros(buf.shape, dtype=bool)
        for b, bitmap in self.maps.items():
            sel = buf == b
            if sel.any():
                u = off[sel] >> 1
                inside = u >= 0
                out[sel] = inside & bitmap[np.where(inside, u, 0)]
        return out


def _collisions(u: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Units loaded by several threads within one instruction: (unit, True) for each such unit."""
    order = np.lexsort((who, u))
    us, ws = u[order], who[order]
    same_unit = us[1:] == us[:-1]
    other = same_unit & (ws[1:] != ws[:-1])
    return us[1:][other], np.ones(int(other.sum()), dtype=bool)
