"""Every (m, n, k) product counted once: per mma tile while every product so far came in aligned tiles of
one shape, else per element (a dense counter up to ``MAX_COUNTERS`` products, sorted keys beyond, checked at
the end); a second count refutes.  Switching from tiles to elements carries the tile counts over (as dense
counts, or as every counted tile's products among the sorted keys)."""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow.checker_base import CheckerBase

MAX_COUNTERS = 1 << 27


class ProductCounts(CheckerBase):
    def _count_tiles(self, op: Any, m0: np.ndarray, n0: np.ndarray, k0: np.ndarray, shape: tuple[int, int, int]) -> None:
        mt, nt, kt = shape
        self.products += int(m0.size)
        aligned = ((m0 % mt == 0) & (n0 % nt == 0) & (k0 % kt == 0) & (m0 >= 0) & (n0 >= 0) & (k0 >= 0)).all()
        if aligned and self.tile_shape in (None, shape) and self.elem_counts is None and not self.elem_keys:
            if self.tile_counts is None:
                self.tile_shape = shape
                dims = (-(-self.M // mt), -(-self.N // nt), -(-self.K // kt))
                self.tile_counts = np.zeros(dims, dtype=np.uint16)
            inside = (m0 < self.M) & (n0 < self.N) & (k0 < self.K)
            idx = (m0[inside] // mt, n0[inside] // nt, k0[inside] // kt)
            np.add.at(self.tile_counts, idx, 1)
            dup = self.tile_counts[idx] > 1
            if dup.any():
                j = int(np.flatnonzero(dup)[0])
                self._duplicate(op, int(idx[0][j]) * mt, int(idx[1][j]) * nt, int(idx[2][j]) * kt)
            return
        mm, nn, kk = np.meshgrid(np.arange(mt), np.arange(nt), np.arange(kt), indexing="ij")
        self._count_elements(op, (m0[:, None] + mm.reshape(-1)[None]).reshape(-1),
                             (n0[:, None] + nn.reshape(-1)[None]).reshape(-1),
                             (k0[:, None] + kk.reshape(-1)[None]).reshape(-1), counted=True)

    def _count_elements(self, op: Any, mm: np.ndarray, nn: np.ndarray, kk: np.ndarray, counted: bool = False,
                        inside: bool = False) -> None:
        """Count (m, n, k) products; ``inside``: the caller knows every coordinate lies in the problem."""
        if not counted:
            self.products += int(mm.size)
        keys = (mm * self.N + nn) * self.K + kk
        if not inside:
            keys = keys[(mm >= 0) & (mm < self.M) & (nn >= 0) & (nn < self.N) & (kk >= 0) & (kk < self.K)]
        if self.tile_counts is not None and self.elem_counts is None:
            self._tiles_to_elements()
        total = self.M * self.N * self.K
        if total <= MAX_COUNTERS:
            if self.elem_counts is None:
                self.elem_counts = np.zeros(total, dtype=np.uint8)
            counts = self.elem_counts
            ordered = np.sort(keys)
            if (ordered[1:] == ordered[:-1]).any():
                np.add.at(counts, keys, 1)  # a key twice in one step: count each
            else:
                counts[keys] += 1
            dup = counts[keys] > 1
        else:
            self.elem_keys.append(keys)
            dup = np.zeros(keys.size, dtype=bool)
        if dup.any():
            key = int(keys[np.flatnonzero(dup)[0]])
            self._duplicate(op, key // (self.N * self.K), (key // self.K) % self.N, key % self.K)

    def _tiles_to_elements(self) -> None:
        """The tile counts as per-element counts: dense up to ``MAX_COUNTERS`` products, else each counted
        tile's products (inside the problem) as sorted keys, once per count."""
        assert self.tile_counts is not None and self.tile_shape is not None
        mt, nt, kt = self.tile_shape
        if self.M * self.N * self.K <= MAX_COUNTERS:
            full = np.repeat(np.repeat(np.repeat(self.tile_counts, mt, 0), nt, 1), kt, 2)[:self.M, :self.N, :self.K]
            self.elem_counts = np.ascontiguousarray(full).astype(np.uint8).reshape(-1)
        else:
            tiles = np.flatnonzero(self.tile_counts)
            tiles = np.repeat(tiles, self.tile_counts.reshape(-1)[tiles])
            ti, tj, tk = np.unravel_index(tiles, self.tile_counts.shape)
            mm, nn, kk = (x.reshape(-1) for x in np.meshgrid(np.arange(mt), np.arange(nt), np.arange(kt), indexing="ij"))
            m, n, k = ((t[:, None] * w + x[None]).reshape(-1) for t, w, x in ((ti, mt, mm), (tj, nt, nn), (tk, kt, kk)))
            inside = (m < self.M) & (n < self.N) & (k < self.K)
            self.elem_keys.append(((m * self.N + n) * self.K + k)[inside])
        self.tile_counts = None

    def _duplicate(self, op: Any, mm: int, nn: int, kk: int) -> None:
        self._find("refuted", "duplicate", op.index, f"PTX line {op.ins.line}: the product A({mm}, {kk}) * "
                   f"B({kk}, {nn}) is accumulated a second time (into C({mm}, {nn}))", line=op.ins.line,
                   opcode=op.ins.opcode, element=[mm, nn, kk])

