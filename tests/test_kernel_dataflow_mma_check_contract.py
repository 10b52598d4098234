"""Origin keys of the mma check (layoutalg/kernel/dataflow/mma_check.py): ``pack_origin`` folds a (row origin,
column origin) pair, each within +-2**30, into one int64 and ``unpack_origin`` gives the pair back exactly;
distinct pairs give distinct keys."""

from __future__ import annotations

import itertools

import numpy as np

from layoutalg.kernel.dataflow.mma_check import pack_origin, unpack_origin

EDGES = [-(2**30), -(2**30) + 1, -65537, -2, -1, 0, 1, 2, 7, 65535, 65536, 2**31 // 2 - 1]


def test_origin_keys_round_trip_at_the_edges_of_their_range() -> None:
    pairs = list(itertools.product(EDGES, EDGES))
    o0 = np.array([p[0] for p in pairs], dtype=np.int64)
    o1 = np.array([p[1] for p in pairs], dtype=np.int64)
    keys = pack_origin(o0, o1)
    r0, r1 = unpack_origin(keys)
    assert r0.tolist() == o0.tolist() and r1.tolist() == o1.tolist()
    assert len(set(keys.tolist())) == len(pairs)


def test_origin_keys_are_ordered_by_row_then_column() -> None:
    keys = pack_origin(np.array([0, 0, 1, -1]), np.array([0, 5, -3, 2**30 - 1])).tolist()
    assert keys[3] < keys[0] < keys[1] < keys[2]
    assert unpack_origin(pack_origin(3, -4)) == (3, -4)
