"""Shared-memory wavefronts of one warp's ``cp.async`` (``.cg``: 16 bytes; ``.ca``: 4, 8 or 16 bytes per lane).

A cp.async writes shared memory when its global data arrives, so its cost is
not the ``st.shared`` phase rule: it depends on where each lane's bytes come
from as well as where they go.  ``None`` marks an inactive lane in both rules.

``cp.async.cg`` (L1 bypass; :func:`cg_wavefronts`).  The rule reproduces every
one of the 227 ``cp.async.cg`` patterns measured on an H200 (``tests/data``),
which it was fitted to, and all 341 of a holdout round predicted before
measuring (``tests/data/h200_cp_async_cg_round6.json``: realistic tile copies
with row-major, padded and swizzled destinations, sector permutations,
duplicate destinations and random patterns).

1. Lanes that write the same shared byte address: only the lowest lane counts.
2. The rest are grouped by (global 128-byte line, shared 128-byte row).
3. In a group, a lane moves a 16-byte chunk from global sector
   ``gs = (g % 128) // 32`` (half ``gh = g // 16 % 2``) to shared sector
   ``ss = (s % 128) // 32`` (half ``sh = s // 16 % 2``).  Each sector pair
   ``(gs, ss)`` is an *edge* carrying the set of half pairs ``(gh, sh)`` it
   moves, split into its straight part (``gh == sh``) and crossed part.
4. Edges are bucketed by that exact half-pair set; a bucket costs the fewest
   sector maps ``ss = gs + c`` or ``ss = c - gs`` (mod 4: the eight symmetries
   of the four sectors, every XOR among them) that together cover its edges.
5. The wavefronts are the sum over all buckets of all groups.

A fully coalesced copy (a lane per consecutive 16 bytes, global and shared
rows aligned alike) costs one wavefront per 128-byte row: 4 for a warp.

``cp.async.ca`` (through L1; :func:`ca_wavefronts`), ``w`` = 4, 8 or 16 bytes:

1. Phases as for ``st.shared`` of ``w`` bytes: one phase of 32 lanes for 4
   bytes, two of 16 lanes for 8, four of 8 lanes for 16.
2. In a phase, lane ``i`` *waits for* lane ``j`` when their global words share
   a bank or their shared words share a bank (bank = 4-byte word mod 32, on
   the global side of the source address as on the shared side; identical
   addresses count too: two lanes reading one global word, or writing one
   shared word, still wait for each other).
3. A phase costs 1 + the largest number of lanes any one lane waits for (the
   largest ``|G(i) | S(i)|``, ``G(i)`` / ``S(i)`` the lanes sharing a global /
   shared bank with lane ``i``, itself included); the total is the sum.

So a lane that shares its global bank with ``a`` lanes and its shared bank
with ``b`` others costs ``1 + a + b``, even though a perfect schedule would
need only ``1 + max(a, b)``: the hardware serialises each lane behind all of
them.  Fitted to the 326 ``cp.async.ca`` measurements of
``tests/data/h200_smem_wavefronts_more.json`` (rounds 1-2, H200): 326 exact
(the plain bank-conflict bound ``max(|G(i)|, |S(i)|)`` matches 308, the 18
random patterns where one lane meets conflicts on both sides tell them apart);
the 15 ``cp.async.ca`` patterns of each ``gpu-check`` recording (H100, H200)
agree as well.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from itertools import combinations
from typing import Sequence

#: The eight maps of the four 32-byte sectors of a 128-byte line onto themselves: ss = gs + c, ss = c - gs (mod 4).
SECTOR_MAPS: tuple[frozenset[tuple[int, int]], ...] = tuple(
    frozenset((g, (sign * g + c) % 4) for g in range(4)) for sign in (1, -1) for c in range(4)
)

Edge = tuple[int, int]


@lru_cache(maxsize=4096)
def fewest_sector_maps(edges: frozenset[Edge]) -> int:
    """The fewest of :data:`SECTOR_MAPS` whose union covers ``edges`` (each edge lies on two of them)."""
    useful = sorted({m & edges for m in SECTOR_MAPS if m & edges}, key=len, reverse=True)
    for k in range(1, len(edges) + 1):
        for combo in combinations(useful, k):
            if frozenset().union(*combo) >= edges:
                return k
    return len(edges)  # unreachable: every edge lies on a map


def cg_wavefronts(lane_smem: Sequence[int | None], lane_global: Sequence[int | None]) -> int:
    """Wavefronts of one ``cp.async.cg`` (16 B per lane); ``None`` marks an inactive lane.

    ``lane_smem[i]`` / ``lane_global[i]``: lane i's shared / global byte offsets
    (16-byte aligned; shared from a 1024-byte-aligned base, global from a
    128-byte-aligned one).
    """
    source_of: dict[int, int] = {}
    for s, g in zip(lane_smem, lane_global):
        if s is not None and g is not None:
            source_of.setdefault(s, g)  # the lowest lane wins a shared address
    groups: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for s, g in source_of.items():
        groups[(g // 128, s // 128)].append((g % 128, s % 128))
    total = 0
    for moves in groups.values():
        halves_of: dict[Edge, set[tuple[int, int]]] = defaultdict(set)
        for g, s in moves:
            halves_of[(g // 32, s // 32)].add((g // 16 % 2, s // 16 % 2))
        buckets: dict[frozenset[tuple[int, int]], set[Edge]] = defaultdict(set)
        for edge, halves in halves_of.items():
            straight = frozenset(h for h in halves if h[0] == h[1])
            crossed = frozenset(halves) - straight
            for part in (straight, crossed):
                if part:
                    buckets[part].add(edge)
        total += sum(fewest_sector_maps(frozenset(edges)) for edges in buckets.values())
    return total


def ca_phase_lanes(access_bytes: int) -> int:
    """Lanes per phase of a ``cp.async.ca`` of ``access_bytes`` (4: 32, 8: 16, 16: 8), as ``st.shared``."""
    return 32 if access_bytes <= 4 else 128 // access_bytes


def ca_wavefronts(lane_smem: Sequence[int | None], lane_global: Sequence[int | None], access_bytes: int) -> int:
    """Wavefronts of one ``cp.async.ca`` of ``access_bytes`` (4, 8, 16) per lane; ``None`` marks an inactive lane.

    ``lane_smem[i]`` / ``lane_global[i]``: lane i's shared / global byte offsets, each a multiple of
    ``access_bytes`` (shared from a 1024-byte-aligned base, global from a 128-byte-aligned one).  An aligned
    ``w``-byte access covers the ``w / 4`` banks of one bank group ``(address // w) % (128 // w)``, so two
    lanes share a bank exactly when their groups are equal.
    """
    per = ca_phase_lanes(access_bytes)
    groups = 128 // max(4, access_bytes)
    total = 0
    for start in range(0, 32, per):
        lanes = [(s // access_bytes % groups, g // access_bytes % groups)
                 for s, g in zip(lane_smem[start:start + per], lane_global[start:start + per])
                 if s is not None and g is not None]
        total += max((sum(1 for sb, gb in lanes if sb == s_bank or gb == g_bank) for s_bank, g_bank in lanes),
                     default=0)
    return total
