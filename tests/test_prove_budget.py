"""The prover's time limits (``layoutalg.prove.budget``): one deadline bounds a whole claim.

Behaviour protected: a deadline's time left, its share for a first attempt, its expiry, its form as
z3's 32-bit millisecond ``timeout`` parameter, and how nested limits combine.
"""

from __future__ import annotations

import math
import time

import pytest

from layoutalg.errors import ProofError
from layoutalg.prove import budget


def test_no_deadline_is_unlimited_never_expires_and_gives_z3_no_timeout():
    assert budget.UNLIMITED.unlimited is True
    assert budget.UNLIMITED.left() == math.inf
    assert budget.UNLIMITED.expired() is False
    assert budget.UNLIMITED.z3_ms() is None
    assert budget.UNLIMITED.share(0.5) == budget.UNLIMITED
    budget.UNLIMITED.check("never raises")


def test_a_finite_deadline_is_not_unlimited_and_counts_down():
    deadline = budget.Deadline.after(100.0)
    assert deadline.unlimited is False
    assert 99.0 < deadline.left() <= 100.0
    assert not deadline.expired()


def test_a_share_of_a_deadline_lies_that_fraction_of_the_way_from_now():
    deadline = budget.Deadline.after(100.0)
    half = deadline.share(0.5)
    assert 49.0 < half.left() <= 50.0
    assert 9.0 < deadline.share(0.1).left() <= 10.0


def test_a_past_deadline_has_nothing_left_is_expired_and_check_raises_with_the_progress():
    past = budget.Deadline(time.monotonic() - 5.0)
    assert past.left() == 0.0
    assert past.expired()
    with pytest.raises(budget.DeadlineExceededError, match=r"time limit \(block 3 of 8\)"):
        past.check("block 3 of 8")
    assert past.z3_ms() == 1  # z3's timeout 0 would mean "no limit": the least it is given is 1 ms


def test_z3_gets_the_time_left_in_milliseconds_and_no_limit_beyond_its_32_bit_range():
    ten = budget.Deadline.after(10.0).z3_ms()
    assert ten is not None and 9000 <= ten <= 10000
    assert budget.Deadline.after(0.25).z3_ms() in range(200, 251)
    assert budget.Deadline.after(5.0e6).z3_ms() is None  # 5e9 ms does not fit z3's unsigned 32-bit parameter
    near = budget.Deadline.after(4.0e6).z3_ms()  # 4e9 ms does
    assert near is not None and 3_999_000_000 <= near < budget.Z3_MAX_MS


def test_nested_limits_take_the_earlier_deadline_and_restore_the_outer_one():
    assert budget.current() == budget.UNLIMITED
    with budget.limit(100.0) as outer:
        assert budget.current() == outer
        with budget.limit(1000.0) as inner_longer:
            assert inner_longer == outer
        with budget.limit(1.0) as inner_shorter:
            assert inner_shorter.left() <= 1.0 and budget.current() == inner_shorter
        assert budget.current() == outer
        with budget.limit(math.inf) as unlimited_inside:
            assert unlimited_inside == outer
    assert budget.current() == budget.UNLIMITED
    with budget.limit(math.inf) as none:
        assert none.unlimited


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, True, "1", None])
def test_a_timeout_that_is_not_a_positive_number_is_refused_with_its_name(bad):
    with pytest.raises(ProofError, match="claim_timeout must be a positive number"):
        budget.validate_timeout(bad, "claim_timeout")
    with pytest.raises(ProofError, match="timeout must be a positive number"), budget.limit(bad):
        pass


def test_a_valid_timeout_is_its_value_in_seconds():
    assert budget.validate_timeout(2) == 2.0 and budget.validate_timeout(math.inf) == math.inf


def test_z3_gets_milliseconds_just_under_its_32_bit_limit_and_no_limit_just_over():
    # 100 s either side of 2**32 - 1 ms (about 49.7 days): far beyond the time the test itself takes
    under = budget.Deadline.after(budget.Z3_MAX_MS / 1000 - 100).z3_ms()
    assert under is not None and budget.Z3_MAX_MS - 101_000 <= under <= budget.Z3_MAX_MS - 99_000
    assert budget.Deadline.after(budget.Z3_MAX_MS / 1000 + 100).z3_ms() is None
