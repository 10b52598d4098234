"""Happens-before among the warps of a CTA (layoutalg/kernel/dataflow/ordering.py), against vector-clock
semantics written out here: an access of warp x stamped with x's own clock c is ordered before warp w's next
access iff x == w or w's clock entry for x is above c; arriving at a barrier ticks the arriving warp's clock
and folds it into that barrier (per CTA, per barrier id); completing the barrier joins the folded clock into
the released warps and resets it.  cp.async writes belong to the warp's open group (= groups committed so
far) and ``wait_group N`` completes every group but the N newest committed."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np

from layoutalg.kernel.dataflow.ordering import Clocks, warps_of

A = np.asarray


def stamp(c: Clocks, cta: int, warp: int) -> int:
    return int(c.own(A([cta]), A([warp]))[0])


def ordered(c: Clocks, cta: int, writer: int, at: int, reader: int) -> bool:
    """Is the access of ``writer`` stamped ``at`` ordered before ``reader``'s next access?"""
    return writer == reader or int(c.knows(A([cta]), A([reader]), A([writer]))[0]) > at


def test_no_warp_knows_another_before_any_barrier_and_an_absent_writer_is_minus_one() -> None:
    c = Clocks(2, 3)
    assert not ordered(c, 0, 0, stamp(c, 0, 0), 1)
    assert ordered(c, 0, 2, stamp(c, 0, 2), 2)  # program order within a warp
    assert c.knows(A([0, 1]), A([1, 2]), A([-1, 0])).tolist() == [-1, 0]
    assert Clocks(1, 1).knows(A([0]), A([0]), A([-1])).tolist() == [-1]  # also with one warp per CTA


def test_a_barrier_orders_what_arrived_before_it_before_the_released_warps() -> None:
    c = Clocks(1, 3)
    before = stamp(c, 0, 0)
    c.arrive(A([0]), A([0]), 0)
    after = stamp(c, 0, 0)  # warp 0's accesses after arriving
    assert after == before + 1
    c.release(A([0, 0]), A([1, 2]), 0)
    assert ordered(c, 0, 0, before, 1) and ordered(c, 0, 0, before, 2)
    assert not ordered(c, 0, 0, after, 1)  # a later access of the arriving warp is not ordered
    assert not ordered(c, 0, 1, stamp(c, 0, 1), 2)  # warp 1 did not arrive: nothing of it is ordered


def test_a_barrier_releases_only_its_own_id_its_own_cta_and_resets_after_completing() -> None:
    c = Clocks(2, 2)
    s0 = stamp(c, 0, 0)
    c.arrive(A([0]), A([0]), 3)
    c.release(A([0]), A([1]), 4)  # another barrier id: nothing to join
    assert not ordered(c, 0, 0, s0, 1)
    c.release(A([1]), A([1]), 3)  # the same id in another CTA
    assert not ordered(c, 1, 0, s0, 1) and not ordered(c, 0, 0, s0, 1)
    c.release(A([0]), A([1]), 3)
    assert ordered(c, 0, 0, s0, 1)
    s1 = stamp(c, 0, 0)
    c.release(A([0]), A([1]), 3)  # the barrier was reset: a second release brings nothing new
    assert not ordered(c, 0, 0, s1, 1)


def test_arrivals_in_several_steps_and_several_ctas_are_all_folded() -> None:
    c = Clocks(2, 4)
    s = {(k, w): stamp(c, k, w) for k in range(2) for w in range(4)}
    c.arrive(A([0, 1]), A([0, 2]), 1)  # cta 0 warp 0 and cta 1 warp 2
    c.arrive(A([0, 0]), A([1, 1]), 1)  # (a warp listed twice ticks once per listing)
    c.release(A([0, 0, 1]), A([3, 2, 3]), 1)
    assert ordered(c, 0, 0, s[(0, 0)], 3) and ordered(c, 0, 1, s[(0, 1)], 3) and ordered(c, 0, 0, s[(0, 0)], 2)
    assert ordered(c, 1, 2, s[(1, 2)], 3) and not ordered(c, 1, 0, s[(1, 0)], 3)
    assert not ordered(c, 0, 2, s[(0, 2)], 3)


def test_knowledge_is_transitive_through_two_barriers() -> None:
    c = Clocks(1, 3)
    s0 = stamp(c, 0, 0)
    c.arrive(A([0]), A([0]), 0)
    c.release(A([0]), A([1]), 0)
    c.arrive(A([0]), A([1]), 5)
    c.release(A([0]), A([2]), 5)
    assert ordered(c, 0, 0, s0, 2)  # 0 -> 1 -> 2


def reference_run(n_ctas: int, wpc: int, steps: list) -> np.ndarray:
    """The vector clocks of the module doc, with Python lists."""
    vc = [[[0] * wpc for _ in range(wpc)] for _ in range(n_ctas)]
    bar: dict = {}
    for kind, pairs, b in steps:
        if kind == "arrive":
            for k, w in pairs:
                vc[k][w][w] += 1
            for k in {k for k, _ in pairs}:
                rows = [vc[k][w] for kk, w in pairs if kk == k]
                old = bar.get((k, b), [0] * wpc)
                bar[(k, b)] = [max([o] + [r[x] for r in rows]) for x, o in enumerate(old)]
        else:
            for k in {k for k, _ in pairs}:
                joined = bar.pop((k, b), None)
                if joined is not None:
                    for kk, w in pairs:
                        if kk == k:
                            vc[k][w] = [max(a, j) for a, j in zip(vc[k][w], joined)]
    return np.asarray(vc)


def test_random_barrier_schedules_match_the_written_out_vector_clocks() -> None:
    rng = random.Random(11)
    for _ in range(30):
        c = Clocks(2, 4)
        steps = []
        for _ in range(12):
            pairs = sorted({(rng.randrange(2), rng.randrange(4)) for _ in range(rng.randrange(1, 5))})
            steps.append((rng.choice(["arrive", "release"]), pairs, rng.randrange(2)))
        for kind, pairs, b in steps:
            getattr(c, kind)(A([k for k, _ in pairs]), A([w for _, w in pairs]), b)
        assert np.array_equal(c.vc, reference_run(2, 4, steps))


def test_cp_async_groups_complete_all_but_the_newest_n_committed() -> None:
    c = Clocks(1, 2)
    assert c.completed(0, 0, 0) == [] and c.completed(0, 0, None) == []
    for g in range(3):  # writes in groups 0, 1, 2 (each committed), then one in the open group 3
        assert int(c.group_of(A([0]), A([0]))[0]) == g
        c.note_async(0, 0, g, A([10 * g]))
        c.commit(A([0]), A([0]))
    c.note_async(0, 0, 3, A([30]))
    assert int(c.group_of(A([0]), A([1]))[0]) == 0  # the other warp's groups are its own
    assert c.completed(0, 1, 0) == []
    done = c.completed(0, 0, 2)  # 3 committed, keep the 2 newest: group 0 completes
    assert [(g, u.tolist()) for g, u in done] == [(0, [0])]
    assert c.completed(0, 0, 2) == []  # completed writes leave the list
    assert [g for g, _ in c.completed(0, 0, 0)] == [1, 2]  # the open group 3 is not committed
    assert [(g, u.tolist()) for g, u in c.completed(0, 0, None)] == [(3, [30])]  # wait_all: every write


def test_warps_of_names_the_cta_and_warp_of_every_warp_with_a_lane() -> None:
    geom = SimpleNamespace(warps_per_cta=3)
    lanes = np.zeros(6 * 32, dtype=bool)
    lanes[[5, 3 * 32 + 31, 5 * 32, 5 * 32 + 1]] = True  # warps 0, 3, 5 of the flat thread axis
    cta, warp = warps_of(lanes, geom)
    assert cta.tolist() == [0, 1, 1] and warp.tolist() == [0, 0, 2]
