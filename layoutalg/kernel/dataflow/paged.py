"""A fill-initialised array indexed by non-negative ints whose pages are allocated on first write, so that
the memory follows the entries written rather than the largest index: the data-flow state of C (per unit
and per byte) and of the global buffers (who loaded, what was stored), whose extents come from the matrix
(a 8192 x 8192 f32 C held 384 bytes per element, 25 GiB, before any store; a kernel whose tiles sit far
into A grew a loader table to the largest offset read)."""

from __future__ import annotations

from typing import Any

import numpy as np

PAGE_BITS = 12


class PagedArray:
    """``fill`` everywhere until written; rows of ``width`` values (scalars when ``width`` is None).

    Reading and writing take an index array of any shape (or one int), as numpy fancy indexing does;
    a write with a repeated index keeps the last value, as numpy's does."""

    def __init__(self, fill: Any, dtype: Any = np.int64, width: int | None = None) -> None:
        self.fill = fill
        self.dtype = dtype
        self.row: tuple[int, ...] = () if width is None else (width,)
        self.pages: dict[int, int] = {}  # page number -> its slot in ``data``
        self.data = np.full((0, *self.row), fill, dtype=dtype)

    def _positions(self, idx: Any, create: bool) -> tuple[np.ndarray, tuple[int, ...]]:
        """(flat positions in ``data``, -1 where the page is absent and not created; the index's shape)."""
        arr = np.asarray(idx, dtype=np.int64)
        flat = arr.reshape(-1)
        if flat.size and flat.min() < 0:
            raise IndexError(f"negative index {int(flat.min())} into a paged array")
        page = flat >> PAGE_BITS
        top = int(page.max()) + 1 if flat.size else 0
        if top <= max(1 << 20, 4 * flat.size):  # a page table over 0..top (no sort)
            s = self._table(top)[page]
            if create and (s < 0).any():
                for p in np.unique(page[s < 0]).tolist():
                    self.pages[p] = len(self.pages)
                self._grow(len(self.pages))
                s = self._table(top)[page]
        else:
            pages, inv = np.unique(page, return_inverse=True)
            slots = np.empty(pages.size, dtype=np.int64)
            for i, p in enumerate(pages.tolist()):
                if p not in self.pages and create:
                    self.pages[p] = len(self.pages)
                    self._grow(len(self.pages))
                slots[i] = self.pages.get(p, -1)
            s = slots[inv.reshape(-1)]
        pos = np.where(s < 0, -1, (s << PAGE_BITS) + (flat & ((1 << PAGE_BITS) - 1)))
        return pos, arr.shape

    def _table(self, top: int) -> np.ndarray:
        """Slot of every page number below ``top`` (-1: absent)."""
        table = np.full(top, -1, dtype=np.int64)
        if self.pages:
            keys = np.fromiter(self.pages.keys(), dtype=np.int64, count=len(self.pages))
            vals = np.fromiter(self.pages.values(), dtype=np.int64, count=len(self.pages))
            below = keys < top
            table[keys[below]] = vals[below]
        return table

    def _grow(self, n_pages: int) -> None:
        have = self.data.shape[0] >> PAGE_BITS
        if n_pages <= have:
            return
        grown = np.full((max(n_pages, 2 * have) << PAGE_BITS, *self.row), self.fill, dtype=self.dtype)
        grown[:self.data.shape[0]] = self.data
        self.data = grown

    def __getitem__(self, idx: Any) -> np.ndarray:
        pos, shape = self._positions(idx, create=False)
        out = np.full((pos.size, *self.row), self.fill, dtype=self.dtype)
        have = pos >= 0
        out[have] = self.data[pos[have]]
        return out.reshape((*shape, *self.row))

    def __setitem__(self, idx: Any, values: Any) -> None:
        pos, shape = self._positions(idx, create=True)
        vals = np.broadcast_to(np.asarray(values, dtype=self.dtype), (*shape, *self.row))
        self.data[pos] = vals.reshape(pos.size, *self.row)

    def written_pages(self) -> np.ndarray:
        """Every entry of the allocated pages (the others hold ``fill``)."""
        return self.data[:len(self.pages) << PAGE_BITS]
