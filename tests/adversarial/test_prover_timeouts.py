"""Red team for time limits: ``timeout=`` bounds a whole claim, every engine and fallback in it, or is refused.

A timeout is a positive number of seconds or ``float('inf')`` (no limit); zero, negative, NaN, a bool or a
non-number is a ``LayoutError``.  A claim never runs much past its timeout -- not when z3 gives up and auto
enumerates millions of points in Python integers, not when a claim is made of several problems
(``bijective_onto``, a bank proof) or cross-checked -- and running out of time is "unknown", never "proved".
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from layoutalg.banks.proof import conflict_free, symbolic_access
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError
from layoutalg.prove import bijective_onto, equivalent, forall, in_bounds, injective, param, settings, var
from layoutalg.prove.budget import Deadline
from layoutalg.prove.problem import Outcome

SLACK = 1.5  # seconds a loaded CI machine may add (one block of points, process scheduling)
BAD = (-1, 0, -0.0, float("nan"), float("-inf"), True, "1", [1])


def _slow_z3(problem: Any, deadline: Deadline | None = None) -> Outcome:
    """Stands in for z3 on a claim it cannot decide: uses the whole time it is given."""
    assert deadline is not None
    time.sleep(min(deadline.left(), 30.0))
    return Outcome("unknown", note="z3: timeout")


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_bad_timeouts_are_layout_errors_in_every_claim(bad: Any) -> None:
    x = var("x", 8)
    calls = [
        lambda: forall(x < 8, [x], timeout=bad),
        lambda: injective(x * 2, [x], timeout=bad),
        lambda: equivalent(Layout(8), Layout(8), timeout=bad),
        lambda: bijective_onto(Layout(8), 8, timeout=bad),
        lambda: conflict_free(Layout((32, 32), (32, 1)), "ld.shared.b32", "f32", timeout=bad),
    ]
    for call in calls:
        with pytest.raises(LayoutError, match="timeout"):
            call()
    with settings(timeout=bad), pytest.raises(LayoutError, match="timeout"):
        forall(x < 8, [x])


def test_an_infinite_timeout_means_no_limit() -> None:
    x = var("x", 1 << 20)
    assert forall(x < (1 << 20), [x], timeout=float("inf"), method="z3").proved
    assert injective(Layout((64, 64), (1, 64)), timeout=math.inf).proved
    assert bijective_onto(Layout((8, 8), (8, 1)), 64, timeout=float("inf")).proved
    with settings(timeout=float("inf")):
        assert equivalent(Layout((4, 8), (1, 4)), Layout(32)).proved
    acc = symbolic_access("ld.shared.b32", lambda lane, i: (lane, i), i=4)
    assert conflict_free(Layout((32, 4), (1, 32)), acc, "f32", timeout=float("inf")).proved


def test_auto_enumeration_after_z3_gives_up_stops_at_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """4 million points with values past int64 take many seconds to enumerate; timeout=0.5 stops them."""
    from layoutalg.prove import engine_z3

    monkeypatch.setattr(engine_z3, "decide", lambda p, deadline=None: Outcome("unknown", note="z3: gave up"))
    x, y = var("x", 1 << 11), var("y", 1 << 11)
    start = time.monotonic()
    r = forall(((x * 2654435761) ^ (y * 40503)) * (1 << 70) != 12345, [x, y], timeout=0.5)
    elapsed = time.monotonic() - start
    assert r.status == "unknown", r  # true, but not all points were evaluated: never "proved"
    assert any("time limit" in n for n in r.notes), r.notes
    assert elapsed < 0.5 + SLACK, elapsed


def test_a_hard_claim_for_z3_with_an_enumeration_fallback_is_bounded() -> None:
    """Hash-like arithmetic past int64 over 2**22 points: z3 struggles, enumeration would take seconds."""
    x, y = var("x", 1 << 11), var("y", 1 << 11)
    h = ((x * 2654435761) ^ (y * 40503) ^ (x * y)) % ((1 << 40) + 15)
    start = time.monotonic()
    r = forall(h * (1 << 25) != 987654321 * (1 << 25), [x, y], timeout=1)
    assert time.monotonic() - start < 1 + SLACK
    assert r.status in ("proved", "unknown"), r  # the claim is true (987654321 is not a value of h)


def test_one_deadline_covers_every_part_of_a_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    """bijective_onto is two problems (in bounds, injective), each handed to z3: together they take the timeout."""
    from layoutalg.prove import engine_z3

    monkeypatch.setattr(engine_z3, "decide", _slow_z3)
    f = Layout((1 << 12, 1 << 12), ((1 << 12) + 1, 1))  # 2**24 points: too many to enumerate; not GF(2)-linear
    start = time.monotonic()
    r = bijective_onto(f, 1 << 24, timeout=0.6)
    assert r.status == "unknown"
    assert time.monotonic() - start < 0.6 + SLACK / 2


def test_cross_check_stays_within_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.prove import engine_z3

    monkeypatch.setattr(engine_z3, "decide", _slow_z3)
    x = var("x", 1 << 10)
    start = time.monotonic()
    r = forall(x * 3 < 3 << 10, [x], method="enum", cross_check=True, timeout=0.6)
    assert r.proved  # enumeration decided it; the cross-check by z3 ran out of time and says so
    assert any("cross-check" in n for n in r.notes), r.notes
    assert time.monotonic() - start < 0.6 + SLACK / 2


def test_a_bank_proof_stays_within_its_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutalg.prove import engine_z3

    monkeypatch.setattr(engine_z3, "decide", _slow_z3)
    k = param("k", 1 << 20)
    acc = symbolic_access("ld.shared.b32", lambda lane, i: (lane * 3 % 32, (k * 7 + i) % 32), i=2)
    start = time.monotonic()
    r = conflict_free(Layout((32, 32), (33, 1)), acc, "f32", method="z3", timeout=0.6)
    assert r.status == "unknown", r
    assert time.monotonic() - start < 0.6 + SLACK / 2


def test_an_enumeration_that_runs_out_of_time_is_unknown_not_proved() -> None:
    x = var("x", 1 << 22)
    with settings(enum_limit=1 << 22):
        r = in_bounds(lambda x: (x * (1 << 70)) // (1 << 70), 1 << 22, {"x": x}, method="enum", timeout=0.2)
    assert r.status == "unknown" and not r
