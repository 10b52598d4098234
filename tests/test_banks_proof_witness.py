"""The lane pair a cp.async refutation names, against a brute-force reading of the documented witness rule.

Each lane's shared and global byte offsets are drawn at random (a rank-2 coordinate ``(s, g)`` with the shared
layout reading only ``s`` and the global layout only ``g``), with few distinct values so collisions are common.
For ``.cg`` the named pair must be the first pair (by lane) writing one shared 128-byte row from two global
lines, or, when there is none, the first pair of one (line, row) group whose 32-byte sectors shift differently;
no pair is named when neither exists.  For ``.ca`` the first lane is one that waits for the most lanes of its
phase (lanes sharing its global or its shared bank group) and the second one it waits for.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pytest

from layoutalg.banks.access import Access
from layoutalg.banks.proof import conflict_free
from layoutalg.core.layout import Layout

SLOTS = 4096  # slots of the access width: rows up to 64 KiB, so row and line numbers reach past 15


def _instance(rng: random.Random, nbytes: int, rows_fed_by_one_line: bool = False) -> tuple[list[int], list[int]]:
    """Lane slots (units of ``nbytes``) on each side, drawn from a few 128-byte rows so that lanes collide;
    ``rows_fed_by_one_line``: every shared row takes its data from one global line (only sector shifts differ)."""
    per_row = 128 // nbytes
    top = SLOTS // per_row
    smem_rows = rng.sample(range(top), rng.choice([1, 2, 4]))
    glob_rows = rng.sample(range(top), rng.choice([1, 2, 4]))
    line_of = {r: rng.randrange(top) for r in smem_rows}
    s, g = [], []
    for _ in range(32):
        row = rng.choice(smem_rows)
        line = line_of[row] if rows_fed_by_one_line else rng.choice(glob_rows)
        s.append(row * per_row + rng.randrange(per_row))
        g.append(line * per_row + rng.randrange(per_row))
    return s, g


def _prove(kind: str, nbytes: int, s: list[int], g: list[int]) -> tuple[Any, list[int], list[int]]:
    v = nbytes // 4  # 4-byte elements
    smem = Layout((SLOTS, SLOTS), (v, 0))
    glob = Layout((SLOTS, SLOTS), (0, v))
    ins = "cp.async.cg.shared.global" if kind == "cg" else f"cp.async.ca.shared.global, {nbytes}"
    access = Access(ins, np.array([[a, b] for a, b in zip(s, g)]))
    start = time.perf_counter()
    res = conflict_free(smem, access, "f32", global_layout=glob)
    assert 0 <= res.seconds <= time.perf_counter() - start  # the proof's own duration
    return res, [nbytes * x for x in s], [nbytes * x for x in g]


def _cg_expected(sa: list[int], ga: list[int]) -> tuple[int, int] | None:
    pairs = [(a, b) for a in range(32) for b in range(a + 1, 32)]
    for a, b in pairs:
        if sa[a] // 128 == sa[b] // 128 and ga[a] // 128 != ga[b] // 128:
            return a, b
    for a, b in pairs:
        if (sa[a] // 128, ga[a] // 128) == (sa[b] // 128, ga[b] // 128) and \
                (sa[a] // 32 - ga[a] // 32) % 4 != (sa[b] // 32 - ga[b] // 32) % 4:
            return a, b
    return None


@pytest.mark.parametrize("seed", range(4))
def test_a_cg_refutation_names_the_first_pair_of_the_documented_kinds(seed: int) -> None:
    rng = random.Random(seed)
    named_kinds = set()
    for trial in range(40):
        s, g = _instance(rng, 16, rows_fed_by_one_line=trial % 2 == 1)
        res, sa, ga = _prove("cg", 16, s, g)
        if not res.refuted:
            continue
        cex = res.counterexample
        expected = _cg_expected(sa, ga)
        if expected is None:
            assert "lane" not in cex
            continue
        assert (cex["lane"], cex["lane_b"]) == expected
        assert (cex["address"], cex["global_address"]) == (sa[expected[0]], ga[expected[0]])
        assert (cex["address_b"], cex["global_address_b"]) == (sa[expected[1]], ga[expected[1]])
        assert cex["global_lines"] == len({x // 128 for x in ga}) and cex["smem_rows"] == len({x // 128 for x in sa})
        assert cex["groups"] == len({(x // 128, y // 128) for x, y in zip(sa, ga)})
        a, b = expected
        first_kind = sa[a] // 128 == sa[b] // 128 and ga[a] // 128 != ga[b] // 128
        named_kinds.add(first_kind)
        explanation = res.explanation
        assert f"e.g. lanes {a} (row {s[a]}, col {g[a]}, shared byte {sa[a]}, global byte {ga[a]}) and {b} (row " \
               f"{s[b]}, col {g[b]}, shared byte {sa[b]}, global byte {ga[b]})" in explanation
    assert named_kinds == {True, False}  # the draws name pairs of both kinds


def _ca_expected(sa: list[int], ga: list[int], w: int) -> tuple[int, set[int], str]:
    per = {4: 32, 8: 16, 16: 8}[w]
    groups = 128 // w
    best: tuple[int, int] = (0, -1)
    for a in range(32):
        phase = [b for b in range(32) if b // per == a // per and b != a]
        waits = {b for b in phase if ga[b] // w % groups == ga[a] // w % groups} | \
                {b for b in phase if sa[b] // w % groups == sa[a] // w % groups}
        if len(waits) > best[0]:
            best = (len(waits), a)
    a = best[1]
    phase = [b for b in range(32) if b // per == a // per and b != a]
    same_global = [b for b in phase if ga[b] // w % groups == ga[a] // w % groups]
    same_shared = [b for b in phase if sa[b] // w % groups == sa[a] // w % groups]
    return a, {(same_global or same_shared)[0]}, ("global" if same_global else "shared")


@pytest.mark.parametrize("nbytes", [4, 8, 16])
def test_a_ca_refutation_names_a_lane_waiting_longest_and_one_it_waits_for(nbytes: int) -> None:
    rng = random.Random(nbytes)
    refuted = 0
    for _ in range(30):
        s, g = _instance(rng, nbytes)
        res, sa, ga = _prove("ca", nbytes, s, g)
        if not res.refuted:
            continue
        refuted += 1
        cex = res.counterexample
        lane, partners, side = _ca_expected(sa, ga, nbytes)
        assert cex["lane"] == lane and cex["lane_b"] in partners
        assert (cex["address"], cex["global_address"]) == (sa[lane], ga[lane])
        assert res.explanation.endswith(f"share a {side} bank in one phase (lane {lane} waits for "
                                                    f"{sum(1 for _ in _waiters(sa, ga, nbytes, lane))} lanes)")
    assert refuted >= 10


def _waiters(sa: list[int], ga: list[int], w: int, a: int) -> list[int]:
    per, groups = {4: 32, 8: 16, 16: 8}[w], 128 // w
    return [b for b in range(32) if b // per == a // per and b != a
            and (ga[b] // w % groups == ga[a] // w % groups or sa[b] // w % groups == sa[a] // w % groups)]
