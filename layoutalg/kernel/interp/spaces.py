"""Address spaces of a traced launch: where global buffers, shared, local and param memory live.

**Generic addresses.**  Every pointer is an exact 64-bit number, so any address
arithmetic a kernel does (adds, multiplies, masks for alignment) is traced exactly:

* global buffer ``k`` (a ``buf`` kernel argument, or a module ``.global``/``.const``
  variable) starts at ``(k + 1) << 44``; an address decodes to ``(k, offset)`` for
  offsets in ``[-2**43, 2**43)``.  The base is 2**44-aligned, so a kernel that tests a
  pointer's alignment sees an aligned buffer (CUDA's allocations are 256-byte aligned;
  no realistic kernel tests more); the bank model needs only offsets mod 128.
* the shared window starts at :data:`SHARED_WINDOW` (``cvta.shared`` adds it,
  ``cvta.to.shared`` subtracts it); local and param windows follow it.

**Shared memory** addresses start at :data:`SMEM_BASE` = 1024: on sm_80/sm_90 the system
reserves the first 1 KiB of every CTA's shared memory (``cudaDevAttrReservedSharedMemoryPerBlock``),
and the bank-model probe read its dynamic shared-memory base back as 1024.  Static
``.shared`` variables the kernel uses follow in declaration order, each aligned to its
``.align``; the dynamic array (an ``.extern .shared`` array of no size) follows them, aligned
to ``max(16, its .align)``.  A sized ``.extern .shared`` variable is a static one: ptxas
(whole-program) warns "ignoring extern qualifier" and counts it in the static shared memory.
This placement is an assumption about ptxas (it matters only modulo 128 bytes for banks);
``Trace.shared_layout`` reports it so it can be checked against the SASS.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from layoutalg.errors import KernelError

GLOBAL_SHIFT = 44
GLOBAL_HALF = 1 << (GLOBAL_SHIFT - 1)
SHARED_WINDOW = 1 << 62
LOCAL_WINDOW = SHARED_WINDOW + (1 << 40)
PARAM_WINDOW = SHARED_WINDOW + (2 << 40)
WINDOW_SPAN = 1 << 32
SMEM_BASE = 1024
MAX_BUFFERS = 1 << 16


def buffer_base(k: int) -> int:
    return (k + 1) << GLOBAL_SHIFT


def decode_global(addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(buffer id, byte offset) of generic global addresses; buffer -1 where an address is in no buffer."""
    a = addr.astype(np.int64)
    k = ((a + GLOBAL_HALF) >> GLOBAL_SHIFT) - 1
    offset = a - ((k + 1) << GLOBAL_SHIFT)
    bad = (k < 0) | (k >= MAX_BUFFERS) | (addr >= np.uint64(SHARED_WINDOW))
    return np.where(bad, -1, k), np.where(bad, a, offset)


def classify_generic(addr: np.ndarray) -> np.ndarray:
    """Per address: 0 global, 1 shared, 2 local, 3 param (PTX generic addressing, ISA "Generic Addressing")."""
    out = np.zeros(addr.shape, dtype=np.int8)
    for code, base in ((1, SHARED_WINDOW), (2, LOCAL_WINDOW), (3, PARAM_WINDOW)):
        inside = (addr >= np.uint64(base)) & (addr < np.uint64(base + WINDOW_SPAN))
        out[inside] = code
    return out


@dataclass
class SharedLayout:
    """Where each shared variable lives (addresses in the shared window) and the window's extent."""

    addresses: dict[str, int] = field(default_factory=dict)
    static_end: int = SMEM_BASE
    dynamic_base: int = SMEM_BASE
    end: int = SMEM_BASE

    @property
    def size(self) -> int:
        return self.end - SMEM_BASE


_SHIFT = {2: 1, 4: 2, 8: 3}


def align_up(x: int, a: int) -> int:
    return -(-x // a) * a


class ByteStore:
    """Bytes plus a per-byte "known" mask, one row per owner (a CTA for shared memory, a thread for local).

    Row ``r`` covers addresses ``[base, base + size)``.  Fresh memory is unknown (shared and local memory
    are not initialised at launch).
    """

    def __init__(self, rows: int, base: int, size: int) -> None:
        self.base = base
        self.size = size
        stride = align_up(max(size, 1), 16)  # rows start 16-byte aligned, so aligned reads can use word views
        self.data = np.zeros((rows, stride), dtype=np.uint8)
        self.known = np.zeros((rows, stride), dtype=bool)
        self._flat = self.data.reshape(-1)
        self._flat_known = self.known.reshape(-1)
        self._words = {w: self._flat.view(f"<u{w}") for w in (2, 4, 8)}
        self._known_words = {w: self._flat_known.view(f"<u{w}") for w in (2, 4, 8)}
        self.writes = 0  # calls that changed or may have changed bytes (write, forget, forget_rows)

    def _start(self, rows: np.ndarray, addr: np.ndarray) -> np.ndarray:
        return rows.astype(np.int64) * self.data.shape[1] + (addr.astype(np.int64) - self.base)

    def _index(self, rows: np.ndarray, addr: np.ndarray, width: int) -> np.ndarray:
        flat = rows.astype(np.int64) * self.data.shape[1] + (addr.astype(np.int64) - self.base)
        return flat[:, None] + np.arange(width, dtype=np.int64)

    def read(self, rows: np.ndarray, addr: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
        """(uint64 little-endian values, known) of ``width`` (1..8) bytes at ``addr`` of each row."""
        if width in (2, 4, 8):
            start = self._start(rows, addr)
            if not (start & (width - 1)).any():  # aligned: read whole words (the common case)
                word = start >> _SHIFT[width]
                all_known = np.uint64(int.from_bytes(b"\x01" * width, "little"))
                return (self._words[width][word].astype(np.uint64),
                        self._known_words[width][word].astype(np.uint64) == all_known)
        idx = self._index(rows, addr, width)
        raw = self.data.reshape(-1)[idx]
        known = self.known.reshape(-1)[idx].all(axis=1)
        if width in (1, 2, 4, 8):
            return raw.view(f"<u{width}").reshape(-1).astype(np.uint64), known
        padded = np.zeros((len(addr), 8), dtype=np.uint8)
        padded[:, :width] = raw
        return padded.view("<u8").reshape(-1).astype(np.uint64), known

    def write(self, rows: np.ndarray, addr: np.ndarray, width: int, values: np.ndarray, known: np.ndarray) -> None:
        """Store ``width`` bytes of ``values`` (uint64; or a (n, width) uint8 array) at ``addr``;
        ``known`` per value (n,) or per byte (n, width)."""
        self.writes += 1
        kn = np.asarray(known)
        if width in (2, 4, 8) and values.ndim == 1 and kn.ndim <= 1:
            start = self._start(rows, addr)
            if not (start & (width - 1)).any():
                word = start >> _SHIFT[width]
                self._words[width][word] = values
                ones = int.from_bytes(b"\x01" * width, "little")
                self._known_words[width][word] = np.where(np.broadcast_to(kn, word.shape), ones, 0)
                return
        idx = self._index(rows, addr, width)
        if values.ndim == 2:
            raw = values
        else:
            raw = np.ascontiguousarray(values.astype("<u8")).view(np.uint8).reshape(-1, 8)[:, :width]
        self.data.reshape(-1)[idx] = raw
        self.known.reshape(-1)[idx] = kn if kn.ndim == 2 else np.broadcast_to(kn[:, None], idx.shape)

    def forget_rows(self, rows: np.ndarray) -> None:
        """Everything in these rows becomes unknown (a store to an unknown address could have hit any byte)."""
        self.writes += 1
        self.known[np.unique(rows)] = False

    def forget(self, rows: np.ndarray, addr: np.ndarray, width: int) -> None:
        self.writes += 1
        if width in (4, 8, 16):
            start = self._start(rows, addr)
            if not (start & (width - 1)).any():  # aligned: clear whole 8- or 4-byte words
                unit = min(width, 8)
                word = start >> _SHIFT[unit]
                for k in range(width // unit):
                    self._known_words[unit][word + k] = 0
                return
        self.known.reshape(-1)[self._index(rows, addr, width)] = False

    def read_words(self, start: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
        """(values, known) of aligned ``width``-byte words at flat byte offsets ``start`` (see :meth:`_start`)."""
        word = start >> _SHIFT[width]
        all_known = np.uint64(int.from_bytes(b"\x01" * width, "little"))
        return (self._words[width][word].astype(np.uint64),
                self._known_words[width][word].astype(np.uint64) == all_known)

    def in_bounds(self, addr: np.ndarray, width: int) -> np.ndarray:
        a = addr.astype(np.int64)
        return (a >= self.base) & (a + width <= self.base + self.size)


def check_buffer_count(n: int) -> None:
    if n >= MAX_BUFFERS:
        raise KernelError(f"{n} global buffers; the tracer supports at most {MAX_BUFFERS - 1}")
