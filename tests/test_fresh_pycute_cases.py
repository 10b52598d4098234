"""Fresh random cases of PyCuTe's operations (``tools/fresh_pycute_cases.py``), judged by the operations'
brute-force definitions as the recorded ones are; and F2 right inverses of non-power-of-two layouts."""

from __future__ import annotations

import os
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import layoutalg as la
from tests.oracles import pycute_parity as judge

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import fresh_pycute_cases as fresh  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None,
                    derandomize=True)


def test_fresh_random_cases_of_each_operation_meet_its_definition_or_are_refused():
    r = random.Random(2026)
    for op, gen in fresh.GENERATORS.items():
        checked = 0
        for _ in range(20):
            src = gen(r)
            status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
            assert status in ("match", "refused"), f"{src}: {status} {note}"
            if status == "refused" and op == "composition":
                assert not fresh.composition_answer_exists(src), f"{src}: refused, yet a layout has it ({note})"
            checked += status == "match"
        assert checked >= 8, op  # most inputs have an answer


def test_fresh_cases_of_the_shape_tiler_and_prefix_operations_are_checked_or_refused_only_without_an_answer():
    """greatest_common_domain, the shape lattice, product_each, prefix_product, tiler_to_layout, tile_to_shape and
    nested coalesce_z: every answer meets its brute-force definition (none unchecked), every refusal has no answer
    by brute force."""
    r = random.Random(2027)
    for op, exists in fresh.ANSWER_EXISTS.items():
        if op == "composition":
            continue
        for _ in range(25):
            src = fresh.GENERATORS[op](r)
            status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
            assert (status, note) == ("match", "checked") or status == "refused" and not exists(src), \
                f"{src}: {status} {note}"


def test_pycute_coalesce_and_coalesce_z_with_a_none_profile_are_the_layout_itself():
    """PyCuTe's ``coalesce(A, None)`` and ``coalesce_z(A, None)`` are no-ops (the default profile is 1, the whole
    layout)."""
    from tests.oracles.pycute_names import evaluate

    assert evaluate("coalesce_z(Layout((2, (1, 6)), (1, (6, 2))), None)") == la.Layout((2, (1, 6)), (1, (6, 2)))
    assert evaluate("coalesce_z(Layout((2, (1, 6)), (1, (6, 2))))") == la.Layout(12, 1)
    assert evaluate("coalesce(Layout((2, (1, 6)), (1, (6, 2))), None)") == la.Layout((2, (1, 6)), (1, (6, 2)))
    assert evaluate("coalesce(Layout((2, (1, 6)), (1, (6, 2))))") == la.Layout(12, 1)


def test_pycute_coalesce_and_coalesce_z_promote_a_tuple_by_tiler_to_layout():
    """PyCuTe's algebra reads an int or tuple argument as ``tiler_to_layout`` of it: ``coalesce_z((4, 2))`` is
    ``(4,2):(E(0),E(1))`` (the basis strides do not merge), not the compact ``8:1``."""
    from tests.oracles.pycute_names import evaluate

    basis = la.stride_layout((4, 2), (la.E(0), la.E(1)))
    assert evaluate("coalesce_z((4, 2))") == basis
    assert evaluate("coalesce((4, 2))") == basis
    assert evaluate("coalesce_z(6)") == la.Layout(6, 1)


def test_fresh_cases_of_recast_layouts_complements_divides_and_products_meet_their_definitions():
    """recast (ratios p/q too), make_layout_like, make_ordered_layout, complement with a cotarget, logical divide
    and product, blocked and raked products: each answer meets its brute-force definition, and each refusal is
    of an input where brute force finds no answer (the ops' ``ANSWER_EXISTS`` checks)."""
    r = random.Random(2027)
    for op in ("recast", "make_layout_like", "make_ordered_layout", "complement_cotarget", "logical_divide",
               "logical_product", "blocked_product", "raked_product"):
        checked = 0
        for _ in range(24):
            src = fresh.GENERATORS[op](r)
            status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
            assert status in ("match", "refused"), f"{src}: {status} {note}"
            assert note != "unchecked", src
            if status == "refused" and op in fresh.ANSWER_EXISTS:
                assert not fresh.ANSWER_EXISTS[op](src), f"{src}: refused, yet an answer exists ({note})"
            checked += status == "match"
        assert checked >= 8, op


@pytest.mark.parametrize("src", [
    "recast(Layout(8, 3), Fraction(3, 2))", "recast(Layout(4, 1), Fraction(3, 2))",
    "complement(Layout((4, 2), (1, 6)), 13)", "logical_divide(Layout((4, 3), (4, 1)), Layout((6, 4), (1, 6)))",
], ids=str)
def test_the_defects_the_fresh_cases_found_stay_fixed(src):
    """recast by p/q is PyCuTe's leaf rule (was upcast-then-downcast: 8:3 -> 16:1); PyCuTe's complement(A, T) is the
    weak one (was CuTe C++'s covering one, which refuses (4,2):(1,6) for 13); a divide whose tile cannot refine
    B's nested shape is refused (was read as one mode, (4,6) for B's (6,4))."""
    status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
    if src.startswith("logical_divide"):
        assert status == "refused" and not fresh.ANSWER_EXISTS["logical_divide"](src), note
    else:
        assert (status, note) == ("match", "checked")


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, 4, 5, 6, 8]), st.integers(0, 3), st.integers(0, 2)),
                min_size=1, max_size=3),
       st.lists(st.tuples(st.sampled_from([1, 2, 3, 4, 6]), st.sampled_from([0, 1, 2, 3, 4, 5, 6, 8, 16])),
                min_size=1, max_size=2),
       st.sampled_from(["E", "F2", "int"]))
def test_composition_answers_exactly_when_a_layout_of_bs_shape_has_the_function(a_modes, b_modes, kind):
    """Basis, F2 and int strides for A, an int B: the answer is A(B(i)) on every index, and a refusal only where
    brute force finds no layout whose shape refines B's with that function (the fresh cases' judge)."""
    def stride(scale, axis):
        return {"E": f"{scale}*E({axis})", "F2": f"F2({scale + 4 * axis})", "int": str(scale + 5 * axis)}[kind]

    a = f"Layout(({', '.join(str(s) for s, _, _ in a_modes)},), ({', '.join(stride(d, x) for _, d, x in a_modes)},))"
    b = f"Layout(({', '.join(str(s) for s, _ in b_modes)},), ({', '.join(str(d) for _, d in b_modes)},))"
    src = f"composition({a}, {b})"
    status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
    assert status in ("match", "refused"), f"{src}: {status} {note}"
    if status == "refused":
        assert not fresh.composition_answer_exists(src), f"{src}: refused, yet a layout has it ({note})"


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 31)), min_size=1, max_size=3))
def test_an_f2_layout_always_has_a_right_inverse(modes):
    a = la.stride_layout(tuple(s for s, _ in modes), tuple(la.F2(d) for _, d in modes))
    r = la.right_inverse(a)
    n = r.size()
    for v in range(n):
        assert int(a(int(r(v)))) == v


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from([2, 3, 4, 6, 8]), st.integers(0, 31)), min_size=1, max_size=3))
def test_f2_nullspace_lists_exactly_the_zeros_or_is_refused_only_when_no_layout_lists_them(modes):
    src = f"nullspace(Layout(({', '.join(str(s) for s, _ in modes)},), ({', '.join(f'F2({d})' for _, d in modes)},)))"
    status, note = judge.classify({"file": "fresh", "line": 0, "kind": "call", "src": src})
    assert status in ("match", "refused"), f"{src}: {status} {note}"
    if status == "refused":
        assert not fresh.ANSWER_EXISTS["nullspace"](src), f"{src}: refused, yet a layout lists the zeros ({note})"


def test_pycute_operations_promote_an_int_or_tuple_first_argument_by_tiler_to_layout():
    """Every PyCuTe operation whose algebra.py reads an int or a tuple ``A`` as ``tiler_to_layout(A)`` does so in the
    adapter, before a mode is taken: ``right_inverse((4, 2))`` inverts ``(4,2):(E(0),E(1))`` (it was refused),
    ``complement((4, 2))`` is its per-axis complement (it was that of the compact ``8:1``), and
    ``composition[1]((4, 2), 2)`` composes mode 1 of the promoted layout (it gave a tuple)."""
    from tests.oracles.pycute_names import PROMOTES_FIRST, evaluate

    assert {"right_inverse", "left_inverse", "complement", "nullspace", "composition", "logical_divide",
            "zipped_divide", "logical_product", "blocked_product", "raked_product", "coalesce",
            "coalesce_z"} <= PROMOTES_FIRST
    basis = la.stride_layout((4, 2), (la.E(0), la.E(1)))
    assert evaluate("right_inverse((4, 2))") == la.right_inverse(basis)
    assert evaluate("left_inverse((4, 2))") == la.left_inverse(basis)
    # PyCuTe's _complement of (4,2):(E(0),E(1)): each axis's rest mode starts past A's extent there
    assert evaluate("complement((4, 2))") == la.stride_layout((1, 1), (la.ScaledBasis(4, (0,)), la.ScaledBasis(2, (1,))))
    assert evaluate("composition[1]((4, 2), 2)") == basis
    assert evaluate("coalesce[1]((4, (2, 3)))") == la.stride_layout(
        (4, (2, 3)), (la.E(0), (la.ScaledBasis(1, (1, 0)), la.ScaledBasis(1, (1, 1)))))
    assert evaluate("nullspace((4, 2))") == la.Layout(1, 0)
