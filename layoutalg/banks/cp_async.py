"""Shared-memory wavefronts of one warp's ``cp.async.cg.shared.global`` (16 bytes per lane).

A cp.async writes shared memory when its global data arrives, so its cost is
not the ``st.shared`` phase rule: it depends on where each lane's 16 bytes come
from as well as where they go.  The rule below reproduces every one of the
227 ``cp.async.cg`` patterns measured on an H200 (``tests/data``), which it was
fitted to, and all 341 of a holdout round predicted before measuring
(``tests/data/h200_cp_async_cg_round6.json``: realistic tile copies with
row-major, padded and swizzled destinations, sector permutations, duplicate
destinations and random patterns).  The five patterns of the ``gpu-check``
suite agree on an H100 as well.

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
