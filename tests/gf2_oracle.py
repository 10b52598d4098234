"""GF(2) arithmetic written out for tests, independent of the library's own (``clmul``, ``F2Stride``)."""

from __future__ import annotations


def xor_fold(a: int, b: int) -> int:
    """Carry-less product of ``a`` and ``b``: the XOR of ``a << j`` over the set bits ``j`` of ``b``."""
    out = 0
    for j in range(b.bit_length()):
        if (b >> j) & 1:
            out ^= a << j
    return out
