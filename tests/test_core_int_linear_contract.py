"""Contract of `layoutalg.core.int_linear`: a RowSpace says when its equations fix their unknowns at a value that is
not all integers (no integer solution can follow), judged against sympy's exact rational solve."""

from __future__ import annotations

import random

import sympy

from layoutalg.core.int_linear import RowSpace, solve_integer


def test_equations_fixing_an_unknown_at_a_half_fix_a_fraction() -> None:
    space = RowSpace(2)
    assert space.add([2, 0], 1, 1)  # 2x = 1 on the first unknown alone
    assert space.fixes_a_fraction(1)  # x = 1/2
    assert not space.fixes_a_fraction(2)  # y is not fixed yet
    assert space.add([1, 1], 3, 2)
    assert space.fixes_a_fraction(2)  # x = 1/2, y = 5/2


def test_equations_fixing_integers_or_leaving_an_unknown_free_fix_no_fraction() -> None:
    space = RowSpace(2)
    assert space.add([2, 0], 4, 1)
    assert not space.fixes_a_fraction(1)  # x = 2
    assert space.add([3, 3], 3, 2)
    assert not space.fixes_a_fraction(2)  # x = 2, y = -1


def test_fixes_a_fraction_iff_the_unique_rational_solution_is_not_all_integers() -> None:
    rng = random.Random(17)
    seen = {True: 0, False: 0}
    for _ in range(300):
        active = rng.randint(1, 3)
        space, rows, rhs = RowSpace(4), [], []
        for _ in range(rng.randint(1, 4)):
            row = [rng.randint(-4, 4) for _ in range(active)] + [0] * (4 - active)
            b = rng.randint(-6, 6)
            if not space.add(row, b, active):
                break  # inconsistent: fixes_a_fraction is only asked of consistent equations
            rows.append(row[:active])
            rhs.append(b)
        else:
            matrix = sympy.Matrix(rows)
            unique = matrix.rank() == active
            expected = unique and any(not v.is_integer for v in matrix.solve_least_squares(sympy.Matrix(rhs)))
            assert space.fixes_a_fraction(active) == expected, (rows, rhs)
            seen[expected] += 1
    assert min(seen.values()) >= 20  # both answers exercised


def test_solve_integer_sets_an_unknown_no_equation_fixes_to_0() -> None:
    assert solve_integer([], [], 3) == [0, 0, 0]
    assert solve_integer([[2, 0, 0]], [6], 3) == [3, 0, 0]
    assert solve_integer([[2, 0, 0], [4, 0, 0]], [6, 12], 3) == [3, 0, 0]  # a dependent second row


def _box_solution(rows: list[list[int]], rhs: list[int], width: int, bound: int) -> bool:
    """Whether some integer x in [-bound, bound]^width solves every equation (brute force)."""
    import itertools

    return any(
        all(sum(r * v for r, v in zip(row, x)) == b for row, b in zip(rows, rhs))
        for x in itertools.product(range(-bound, bound + 1), repeat=width)
    )


def test_integer_solution_solves_every_equation_and_is_none_only_when_brute_force_finds_none() -> None:
    """Both routes: a kept unique rational solution (asked for by fixes_a_fraction) and the Hermite elimination
    on the used columns, the unknowns no equation uses set to 0; judged on every equation added, dependent ones
    included, and against a brute-force search of a box for any integer solution."""
    rng = random.Random(29)
    seen = {"unique": 0, "hermite": 0, "none": 0}
    for trial in range(800):
        active = rng.randint(1, 3)
        space, rows, rhs = RowSpace(5), [], []
        for _ in range(rng.randint(1, 4)):
            row = [rng.randint(-3, 3) for _ in range(active)] + [0] * (5 - active)
            b = rng.randint(-5, 5)
            if not space.add(row, b, active):
                break
            rows.append(row)
            rhs.append(b)
        else:
            unique = sympy.Matrix([r[:active] for r in rows]).rank() == active
            if trial % 2:
                space.fixes_a_fraction(active)  # keeps the rational solution where it is unique
            found = space.integer_solution()
            if found is None:
                seen["none"] += 1
                assert not _box_solution([r[:active] for r in rows], rhs, active, 8), (rows, rhs)
            else:
                seen["unique" if unique and trial % 2 else "hermite"] += 1
                assert len(found) == 5 and found[active:] == [0] * (5 - active)
                assert all(sum(r * v for r, v in zip(row, found)) == b for row, b in zip(rows, rhs)), (rows, rhs)
    assert min(seen.values()) >= 20, seen


def test_integer_solution_takes_free_unknowns_nonzero_where_setting_them_to_0_gives_a_fraction() -> None:
    """``2x + 3y == 1``: with the free unknown ``y`` at 0, ``x`` would be 1/2; an integer solution still exists
    (``x = 2, y = -1``) and must be found.  ``2x + 4y == 1`` has none (the left side is even)."""
    space = RowSpace(3)
    assert space.add([2, 3, 0], 1, 2)
    found = space.integer_solution()
    assert found is not None and 2 * found[0] + 3 * found[1] == 1 and found[2] == 0
    odd = RowSpace(3)
    assert odd.add([2, 4, 0], 1, 2)
    assert odd.integer_solution() is None


def test_integer_solution_with_free_unknowns_at_0_solves_the_equations_it_was_given() -> None:
    """The echelon's back substitution (free unknowns 0) must satisfy the original equations, dependent ones
    included: ``x1 + x2 == 3``, ``x2 == 1``, ``2 x1 + 3 x2 == 7`` (the third depends on the first two)."""
    space = RowSpace(4)
    for row, b in (([0, 1, 1, 0], 3), ([0, 0, 1, 0], 1), ([0, 2, 3, 0], 7)):
        assert space.add(row, b, 3)
    assert space.integer_solution() == [0, 2, 1, 0]


def test_integer_solution_sets_every_non_pivot_unknown_to_0_where_that_gives_integers() -> None:
    """The documented choice among many integer solutions: with each unknown after an equation's pivot (its first
    unknown left once the earlier pivots are eliminated) at 0, the pivots are solved one by one, by hand here:
    ``-x0 + x1 == -3`` gives ``x0 = 3``; ``2x0 - 2x1 == 2`` gives ``x0 = 1``; ``x0 + x1 + x2 == 6`` with
    ``x1 + 2x2 == 4`` gives ``x1 = 4, x0 = 2``.  Each system has other integer solutions (``x1`` free)."""
    cases = [([([-1, 1, 0, 0], -3)], [3, 0, 0, 0]),
             ([([2, -2, 0, 0], 2)], [1, 0, 0, 0]),
             ([([1, 1, 1, 0], 6), ([0, 1, 2, 0], 4)], [2, 4, 0, 0])]
    for equations, expected in cases:
        space = RowSpace(4)
        for row, b in equations:
            assert space.add(row, b, 3)
        assert all(sum(r * v for r, v in zip(row, expected)) == b for row, b in equations)  # the hand values solve it
        assert space.integer_solution() == expected, equations
