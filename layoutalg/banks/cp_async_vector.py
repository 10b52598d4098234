"""The cp.async rules of :mod:`layoutalg.banks.cp_async`, vectorised with numpy over many instructions.

``cp_async_many(ins, smem, glob, active)`` takes int arrays of shape ``(N, 32)``
(shared and global byte offsets, validated by the caller) and an optional
``(N, 32)`` bool mask of active lanes, and returns ``(wavefronts, ideal)``,
two int arrays of shape ``(N,)``, equal lane for lane to
:func:`~layoutalg.banks.cp_async.cg_wavefronts` /
:func:`~layoutalg.banks.cp_async.ca_wavefronts` (a hypothesis test checks it).

* ``.cg``: the (global line, shared row) groups, their edges' half-pair sets and
  the buckets are built with sorts and ``bitwise_or.at`` over all instructions
  at once; a bucket's cost, the fewest sector maps covering its edges, is one
  lookup in a 65,536-entry table (every set of edges between the four global and
  the four shared sectors, as a 16-bit mask).
* ``.ca``: per (instruction, phase, bank group) the lanes on it as a bit mask
  (one ``bincount`` per side, weights ``2 ** lane``); lane ``i``'s ``G(i) | S(i)``
  is the OR of its two masks, its size a popcount.
* ideal: ``.cg`` the distinct 16-byte destinations / 8, rounded up; ``.ca`` one
  wavefront per phase with an active lane.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from layoutalg.banks.cp_async import SECTOR_MAPS, ca_phase_lanes
from layoutalg.banks.instruction import Instruction


@lru_cache(maxsize=1)
def sector_cover_table() -> Any:
    """``table[mask]``: the fewest :data:`SECTOR_MAPS` covering the edges of ``mask`` (bit ``4 * gs + ss``)."""
    import numpy as np

    maps = [sum(1 << (4 * g + s) for g, s in m) for m in SECTOR_MAPS]
    exact = np.full(1 << 16, 99, dtype=np.int64)  # fewest maps whose union is exactly the mask
    for subset in range(1 << len(maps)):
        union = 0
        for k, m in enumerate(maps):
            if subset >> k & 1:
                union |= m
        exact[union] = min(int(exact[union]), bin(subset).count("1"))
    masks = np.arange(1 << 16)
    for bit in range(16):  # superset minimum: a mask is covered by any union containing it
        without = masks[(masks >> bit & 1) == 0]
        exact[without] = np.minimum(exact[without], exact[without | (1 << bit)])
    return exact


def _ideal_cg(smem: Any, active: Any) -> Any:
    import numpy as np

    srt = np.sort(np.where(active, smem // 16, -1), axis=1)
    distinct = ((srt[:, 1:] != srt[:, :-1]) & (srt[:, 1:] >= 0)).sum(axis=1) + (srt[:, 0] >= 0)
    return -(-distinct // 8)


def _packed(high: Any, low: Any) -> Any:
    """One sortable int64 key per element for the pair (high, low) of non-negative int arrays: (high << b) | low
    where it fits in 62 bits, else the rank of the pair (a lexsort)."""
    import numpy as np

    bits = int(low.max()).bit_length() if low.size else 0
    if (int(high.max()).bit_length() if high.size else 0) + bits <= 62:
        return (high << bits) | low
    order = np.lexsort((low, high))
    change = np.ones(order.size, dtype=bool)
    change[1:] = (high[order][1:] != high[order][:-1]) | (low[order][1:] != low[order][:-1])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.cumsum(change) - 1
    return rank


def _cg_many(smem: Any, glob: Any, active: Any) -> Any:
    import numpy as np

    n = smem.shape[0]
    live = np.flatnonzero(active.ravel())
    inst, s, g = live // 32, smem.ravel()[live], glob.ravel()[live]
    if live.size == 0:
        return np.zeros(n, dtype=np.int64)
    # 1. the lowest active lane of each (instruction, shared address): a stable sort keeps lane order
    key = _packed(inst, s)
    order = np.argsort(key, kind="stable")
    first = np.ones(order.size, dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    kept = order[first]
    inst, s, g = inst[kept], s[kept], g[kept]
    # 2. groups (instruction, shared row, global line)
    key = _packed(_packed(inst, s // 128), g // 128)
    order = np.argsort(key, kind="stable")
    key, inst, s, g = key[order], inst[order], s[order], g[order]
    new = np.ones(inst.size, dtype=bool)
    new[1:] = key[1:] != key[:-1]
    group = np.cumsum(new) - 1
    ngroups = int(group[-1]) + 1
    group_inst = inst[new]
    # 3. half-pair set of every edge (gs, ss) of every group: bit 2 * gh + sh
    edge = (g % 128) // 32 * 4 + (s % 128) // 32
    half = (g // 16 % 2) * 2 + s // 16 % 2
    halves = np.zeros(ngroups * 16, dtype=np.int64)
    np.bitwise_or.at(halves, group * 16 + edge, 1 << half)
    slot = np.flatnonzero(halves)
    # 4. buckets (group, straight or crossed half-pair set) -> their edges as a 16-bit mask
    edges = np.zeros(ngroups * 16, dtype=np.int64)
    for part_bits in (0b1001, 0b0110):  # straight pairs (0,0),(1,1); crossed (0,1),(1,0)
        part = halves[slot] & part_bits
        on = part != 0
        np.bitwise_or.at(edges, slot[on] // 16 * 16 + part[on], 1 << (slot[on] % 16))
    bucket = np.flatnonzero(edges)
    cost = sector_cover_table()[edges[bucket]]
    return np.bincount(group_inst[bucket // 16], weights=cost, minlength=n).astype(np.int64)


@lru_cache(maxsize=1)
def _popcount16() -> Any:
    import numpy as np

    table = np.zeros(1 << 16, dtype=np.int64)
    for bit in range(16):
        table[1 << bit:1 << (bit + 1)] = table[:1 << bit] + 1
    return table


def _ca_many(ins: Instruction, smem: Any, glob: Any, active: Any) -> tuple[Any, Any]:
    import numpy as np

    n = smem.shape[0]
    w = ins.access_bytes
    per = ca_phase_lanes(w)
    groups = 128 // max(4, w)
    phases = 32 // per
    lane_bit = np.where(active, 1 << (np.arange(32, dtype=np.int64) % per), 0).ravel().astype(np.float64)
    base = np.repeat(np.arange(n * phases, dtype=np.int64) * groups, per).reshape(n, 32)
    g_key, s_key = (base + glob // w % groups).ravel(), (base + smem // w % groups).ravel()
    # per (instruction, phase, bank group): the lanes on it, as a bit mask (a sum of distinct powers of two)
    on_g = np.bincount(g_key, weights=lane_bit, minlength=n * phases * groups).astype(np.int64)
    on_s = np.bincount(s_key, weights=lane_bit, minlength=n * phases * groups).astype(np.int64)
    waits = on_g[g_key] | on_s[s_key]  # G(i) | S(i), lane i itself included
    table = _popcount16()
    size = (table[waits & 0xFFFF] + table[waits >> 16]) * active.ravel()
    wf = size.reshape(n, phases, per).max(axis=2).sum(axis=1)
    ideal = active.reshape(n, phases, per).any(axis=2).sum(axis=1)
    return wf.astype(np.int64), ideal.astype(np.int64)


def cp_async_many(ins: Instruction, smem: Any, glob: Any, active: Any = None) -> tuple[Any, Any]:
    """(wavefronts, ideal) of ``N`` cp.async instructions: ``smem``, ``glob`` int64 ``(N, 32)``; ``active`` bool."""
    import numpy as np

    if active is None:
        active = np.ones(smem.shape, dtype=bool)
    if smem.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if ins.cache == "cg":
        return _cg_many(smem, glob, active), _ideal_cg(smem, active)
    return _ca_many(ins, smem, glob, active)
