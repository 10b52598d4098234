"""check_mma on mma whose A and B fragments hold the k index in another order than the PTX fragments'
(layoutalg/kernel/dataflow/k_order.py).

An mma computes D[i, j] = C[i, j] + sum_c Afrag[i, c] * Bfrag[c, j] over its k positions c (PTX ISA, "Matrix
Multiply-Accumulate Operation using mma Instruction").  Listing A's registers {a2, a3, a0, a1} and B's {b1, b0}
in an m16n8k16 (PTX ISA "Matrix Fragments for mma.m16n8k16": a0, a1 hold k = 2t, 2t + 1, a2, a3 k = 2t + 8,
2t + 9; b0 k = 2t, 2t + 1, b1 k = 2t + 8, 2t + 9) moves k and k + 8 in both: every product A(m, k) B(k, n) still
lands in C(m, n) once, so C is A B, though neither fragment is the PTX one.  Moving A's alone multiplies A(m, k + 8)
by B(k, n); repeating a0, a1 for a2, a3 (and b0 for b1) accumulates k = 0..7 twice and k = 8..15 never.  The end-to-
end check (the default) must prove the first and refute the others naming the lane, register and element;
``check_mma_fragments`` (a claim about the fragments) refutes all of them."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import re
from typing import Any

import numpy as np
import pytest
from dataflow_synth import MmaCase, mma_kernel
from oracles.ptx_fragments import fragment

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.dataflow import check_mma_fragments, k_order
from layoutalg.kernel.ptx import parse_module

SYNTH = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}
SWAP_A, SWAP_B = [2, 3, 0, 1], [1, 0]


def operands(line: str) -> list[list[str]]:
    return [[x.strip() for x in g.split(",")] for g in re.findall(r"\{([^}]*)\}", line)]


def reorder(text: str, per_mma: Any) -> str:
    """Every mma line's A and B register lists replaced by ``per_mma(i, a, b) -> (a', b')`` (i: the mma's index in
    the text, a and b lists of every mma's registers, for moves between mma)."""
    lines = text.split("\n")
    at = [i for i, ln in enumerate(lines) if "mma.sync" in ln]
    regs = [operands(lines[i]) for i in at]
    a_all, b_all = [r[1] for r in regs], [r[2] for r in regs]
    for j, i in enumerate(at):
        a, b = per_mma(j, a_all, b_all)
        d, a0, b0, c = regs[j]
        lines[i] = lines[i].replace("{" + ", ".join(a0) + "}", "{" + ", ".join(a) + "}", 1)
        lines[i] = lines[i].replace("{" + ", ".join(b0) + "}", "{" + ", ".join(b) + "}", 1)
        assert operands(lines[i])[1:3] == [list(a), list(b)]
    return "\n".join(lines)


def same(pa: list[int], pb: list[int]) -> Any:
    return lambda j, a, b: ([a[j][x] for x in pa], [b[j][x] for x in pb])


def synth(text: str, exact: bool = False) -> Any:
    return (check_mma_fragments if exact else check_mma)(trace(parse_module(text), block=32), **SYNTH)


BASE = mma_kernel(MmaCase())


def late_first_mma(text: str) -> str:
    """The first mma moved down to just before the second (both k steps' registers are loaded by then)."""
    lines = text.split("\n")
    first, second = (i for i, ln in enumerate(lines) if "mma.sync" in ln)
    mma = lines.pop(first)
    lines.insert(second - 1, mma)
    return "\n".join(lines)


def test_k_halves_swapped_in_both_a_and_b_is_proved_for_c_and_refuted_as_fragments() -> None:
    text = reorder(BASE, same(SWAP_A, SWAP_B))
    r = synth(text)
    assert r.verdict == "proved", r.reason
    assert r.checker.k_permuted == 2 and "2 of them with the k in one order other than the PTX one" in r.claim
    strict = synth(text, exact=True)
    assert strict.verdict == "refuted" and strict.counterexample["kind"] == "operand"
    assert strict.counterexample["operand"] == "A"
    assert synth(BASE).checker.k_permuted == 0


def test_k_halves_swapped_in_a_only_is_refuted_at_the_b_element_as_order_needs() -> None:
    # A's a2, a3 listed first: k position 0 of lane 0 holds A(0, 8) (PTX: a2 = A(g, 2t + 8)), while b0 of lane 0 is
    # B(0, 0): the product A(0, 8) * B(0, 0) belongs to no C element; given A's order b0 must be B(8, 0)
    text = reorder(BASE, same(SWAP_A, [0, 1]))
    r = synth(text)
    cex = r.counterexample
    first = next(ln for ln in text.split("\n") if "mma.sync" in ln)
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["lane"], cex["element"]) == ("operand", "B", 0, 0)
    assert cex["register"] == operands(first)[2][0] and cex["held"] == "B(0, 0)"
    assert cex["expected"].startswith("B(8, 0) (A's fragment holds k = 8 at k position 0")


def test_a_k_order_b_does_not_share_is_refuted_in_every_lane_order() -> None:
    # B's halves swapped with A in PTX order: judged against the PTX order (A fits it), as before
    r = synth(reorder(BASE, same([0, 1, 2, 3], SWAP_B)))
    cex = r.counterexample
    assert r.verdict == "refuted" and (cex["operand"], cex["held"]) == ("B", "B(8, 0)")
    assert cex["expected"].startswith("B(0, 0)")


def test_a_k_half_repeated_in_a_and_b_is_refuted_naming_the_repeated_element() -> None:
    # {a0, a1, a0, a1} and {b0, b0}: k = 0..7 at two k positions of every row; lane 0's a4 (in the third register)
    # repeats A(0, 0), held at k position 0 as a0
    text = reorder(BASE, same([0, 1, 0, 1], [0, 0]))
    r = synth(text)
    cex = r.counterexample
    first = next(ln for ln in text.split("\n") if "mma.sync" in ln)
    assert r.verdict == "refuted" and (cex["kind"], cex["operand"], cex["lane"], cex["element"]) == ("operand", "A", 0, 4)
    assert cex["register"] == operands(first)[1][2] and cex["held"] == "A(0, 0)"
    assert "k = 0 would be accumulated twice" in r.reason


def test_k_spread_over_two_mma_in_the_same_order_in_a_and_b_is_proved() -> None:
    # mma 0 takes k = 0..7 and 16..23, mma 1 k = 8..15 and 24..31: no mma holds an aligned k tile, every k once
    def spread(j: int, a: list[list[str]], b: list[list[str]]) -> tuple[list[str], list[str]]:
        lo, hi = (0, 1), (2, 3)
        half = lo if j == 0 else hi
        return [a[0][x] for x in half] + [a[1][x] for x in half], [b[0][half[0] // 2], b[1][half[0] // 2]]

    r = synth(reorder(late_first_mma(BASE), spread))
    assert r.verdict == "proved", r.reason
    assert r.checker.k_permuted == 2


def test_one_k_half_in_both_mma_is_a_product_accumulated_twice() -> None:
    # mma 0 takes k = 0..7 and 16..23 (consistent in A and B), mma 1 its own k = 16..31: k = 16..23 twice, 8..15 never
    def twice(j: int, a: list[list[str]], b: list[list[str]]) -> tuple[list[str], list[str]]:
        if j == 1:
            return a[1], b[1]
        return [a[0][0], a[0][1], a[1][0], a[1][1]], [b[0][0], b[1][0]]

    r = synth(reorder(late_first_mma(BASE), twice))
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    m, n, k = r.counterexample["element"]
    assert 16 <= k < 24


def test_units_swapped_inside_every_a_and_b_register_is_proved() -> None:
    # prmt 0x1032 swaps the two halves of a register: k = 2t and 2t + 1 change places in A and in B alike
    lines = BASE.split("\n")
    out = []
    fresh = iter(range(1030, 1100))
    for ln in lines:
        if "mma.sync" in ln:
            d, a, b, c = operands(ln)
            new_a: list[str] = []
            new_b: list[str] = []
            for src, dst in ((a, new_a), (b, new_b)):
                for reg in src:
                    x = f"%r{next(fresh)}"
                    out.append(f"  prmt.b32 {x}, {reg}, 0, 0x1032;")
                    dst.append(x)
            ln = ln.replace("{" + ", ".join(a) + "}", "{" + ", ".join(new_a) + "}")
            ln = ln.replace("{" + ", ".join(b) + "}", "{" + ", ".join(new_b) + "}")
        out.append(ln)
    text = "\n".join(out).replace(".reg .b32 %r<1024>;", ".reg .b32 %r<1100>;")
    assert synth(text).verdict == "proved"
    assert synth(text, exact=True).verdict == "refuted"
    # the same with B's registers left as they are: refuted
    lines = text.split("\n")
    b_regs = {r for ln in lines if "mma.sync" in ln for r in operands(ln)[2]}
    only_a = "\n".join(ln.replace("0x1032", "0x3210") if ln.strip().startswith("prmt.b32") and
                       ln.split()[1].rstrip(",") in b_regs else ln for ln in lines)
    r = synth(only_a)
    assert r.verdict == "refuted" and (r.counterexample["operand"], r.counterexample["held"]) == ("B", "B(0, 0)")
    assert r.counterexample["expected"].startswith("B(1, 0)")


HUNT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kernels_fresh", "hunt")
MANIFEST = json.load(open(os.path.join(HUNT, "hunt.json")))


def hunt(name: str, text: str) -> Any:
    e = MANIFEST[name]
    t = trace(parse_module(text), kernel=name, grid=e["grid"], block=e["block"],
              dynamic_smem=e.get("dynamic_smem", 0), args={int(k): v for k, v in e["args"].items()})
    specs = dict(s.split("=", 1) for s in e["check_mma"])
    return check_mma(t, a=specs["A"], b=specs["B"], c=specs["C"])


@pytest.mark.parametrize("name", ["h1_f16_tn_sw333_cp3", "h4_tf32_tn_ldsm_sw333_cp3"])
def test_a_real_gemm_with_k_halves_swapped_in_every_mma(name: str) -> None:
    # swizzled cp.async tiles through ldmatrix (f16 m16n8k16; tf32 m16n8k8, whose a2, a3 and b1 hold k = t + 4):
    # consistent in A and B over the whole grid, proved; A's alone, refuted at a B element
    with gzip.open(os.path.join(HUNT, name + ".ptx.gz"), "rt") as fh:
        text = fh.read()
    both = hunt(name, reorder(text, same(SWAP_A, SWAP_B)))
    assert both.verdict == "proved", both.reason
    assert both.checker.k_permuted == both.checker.mma_executions and "every CTA" in both.claim
    a_only = hunt(name, reorder(text, same(SWAP_A, [0, 1])))
    cex = a_only.counterexample
    assert a_only.verdict == "refuted" and (cex["kind"], cex["operand"]) == ("operand", "B")
    half = 8 if "f16" in name else 4
    held_k = int(cex["held"][2:].split(",")[0])
    assert cex["expected"].startswith(f"B({held_k + half}, ") or cex["expected"].startswith(f"B({held_k - half}, ")


# ------------------------------------------------------------------ k_order on hand-made fragments
def _table(kt: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """A 2 x kt A fragment over 1 lane: element i at (i // kt, i % kt)."""
    i = np.arange(2 * kt)[None]
    return i // kt, i % kt


def test_a_order_reads_one_k_per_position_and_refuses_two() -> None:
    fr, fc = _table()
    ok, zero = np.ones((1, 4), bool), np.zeros((1, 4), bool)
    r = 5 + fr
    m0, kappa = k_order.a_order(r, np.array([[7, 3, 7, 3]]), ok, zero, fr, fc, 2, 16)  # type: ignore[misc]
    assert m0 == 5 and kappa.tolist() == [7, 3]
    got = k_order.a_order(r, np.array([[7, 3, 3, 7]]), ok, zero, fr, fc, 2, 16)
    assert isinstance(got, k_order.Mismatch) and (got.lane, got.element) == (0, 2)
    got = k_order.a_order(r, np.array([[7, 7, 7, 7]]), ok, zero, fr, fc, 2, 16)
    assert isinstance(got, k_order.Mismatch) and "twice" in got.why
    assert k_order.a_order(r, np.array([[7, 3, 7, 3]]), ok & [[1, 1, 1, 0]], zero, fr, fc, 2, 16) is None


def test_a_zero_is_allowed_only_in_a_row_past_the_matrix_and_b_follows_a_zero_column() -> None:
    fr, fc = _table()
    ok = np.array([[1, 1, 0, 0]], bool)
    zero = ~ok
    got = k_order.a_order(14 + fr, np.array([[9, 2, 0, 0]]), ok, zero, fr, fc, 2, 15)  # row 15 is past M = 15
    assert isinstance(got, tuple) and got[1].tolist() == [9, 2]
    got = k_order.a_order(14 + fr, np.array([[9, 2, 0, 0]]), ok, zero, fr, fc, 2, 16)  # row 15 is inside M = 16
    assert isinstance(got, k_order.Mismatch) and got.element == 2
    # B, 2 x 1 over k positions: position 1 has no k (A only zeros there): B must be a known zero
    bfr, bfc = np.array([[0, 1]]), np.array([[0, 0]])
    kappa = np.array([4, k_order.NO_K])
    n0, miss = k_order.b_against(np.array([[4, 0]]), np.array([[3, 0]]), np.array([[1, 0]], bool),
                                 np.array([[0, 1]], bool), bfr, bfc, kappa, 8)
    assert (n0, miss) == (3, None)
    n0, miss = k_order.b_against(np.array([[4, 5]]), np.array([[3, 3]]), np.array([[1, 1]], bool),
                                 np.array([[0, 0]], bool), bfr, bfc, kappa, 8)
    assert miss is not None and (miss.element, miss.need) == (1, "0")


# ------------------------------------------------------------------ every register order, judged by an oracle
FA16 = fragment((16, 8, 16), 16, "A", 16)
FB16 = fragment((16, 8, 16), 16, "B", 16)


def c_is_ab(sa: list[int], sb: list[int], swap_a: list[bool], swap_b: list[bool]) -> bool:
    """Whether an m16n8k16 whose A registers are listed as ``a[sa[p]]`` (halves exchanged where ``swap_a[p]``)
    and B's as ``b[sb[p]]`` computes C = A B on its tile: per (i, j), the products sum_c Afrag[i, c] Bfrag[c, j]
    must be A(i, k) B(k, j) for every k once (PTX ISA fragment formulas, tests/oracles/ptx_fragments.py)."""
    held: dict[str, dict[tuple[int, int], tuple[int, int]]] = {"A": {}, "B": {}}
    for role, frag, order, swap, n in (("A", FA16, sa, swap_a, 8), ("B", FB16, sb, swap_b, 4)):
        for lane in range(32):
            for e in range(n):
                src = 2 * order[e // 2] + ((e % 2) ^ int(swap[e // 2]))
                held[role][frag.coord(lane, e)] = frag.coord(lane, src)
    for i in range(16):
        for j in range(8):
            got = sorted((held["A"][(i, c)], held["B"][(c, j)]) for c in range(16))
            if got != sorted(((i, k), (k, j)) for k in range(16)):
                return False
    return True


def variant(sa: list[int], sb: list[int], swap_a: list[bool], swap_b: list[bool]) -> str:
    out: list[str] = []
    fresh = iter(range(1030, 1100))
    for ln in BASE.split("\n"):
        if "mma.sync" in ln:
            _d, a, b, _c = operands(ln)
            lists = []
            for regs, order, swap in ((a, sa, swap_a), (b, sb, swap_b)):
                new = []
                for p, src in enumerate(order):
                    reg = regs[src]
                    if swap[p]:
                        x = f"%r{next(fresh)}"
                        out.append(f"  prmt.b32 {x}, {reg}, 0, 0x1032;")
                        reg = x
                    new.append(reg)
                lists.append(new)
            ln = ln.replace("{" + ", ".join(a) + "}", "{" + ", ".join(lists[0]) + "}")
            ln = ln.replace("{" + ", ".join(b) + "}", "{" + ", ".join(lists[1]) + "}")
        out.append(ln)
    return "\n".join(out).replace(".reg .b32 %r<1024>;", ".reg .b32 %r<1100>;")


ORDERS = [(list(sa), list(sb), [False] * 4, [False] * 2) for sa in itertools.permutations(range(4))
          for sb in itertools.permutations(range(2))]
_rng = random.Random(2026)
ORDERS += [(_rng.sample(range(4), 4), _rng.sample(range(2), 2), [_rng.random() < 0.5 for _ in range(4)],
            [_rng.random() < 0.5 for _ in range(2)]) for _ in range(8)]
ORDERS += [([2, 3, 0, 1], [1, 0], [True] * 4, [True] * 2), ([0, 1, 2, 3], [0, 1], [True, True, False, False],
                                                            [True, False])]


@pytest.mark.parametrize("sa, sb, swap_a, swap_b", ORDERS)
def test_every_register_order_is_proved_exactly_when_c_is_a_b(sa: list[int], sb: list[int], swap_a: list[bool],
                                                              swap_b: list[bool]) -> None:
    # both mma of the synthetic kernel take the same order; proved iff the oracle says C = A B; the fragment
    # claim only for the PTX order itself
    t = trace(parse_module(variant(sa, sb, swap_a, swap_b)), block=32)
    r = check_mma(t, **SYNTH)
    truth = c_is_ab(sa, sb, swap_a, swap_b)
    assert r.verdict == ("proved" if truth else "refuted"), r.reason
    if not truth:
        assert (r.counterexample or {}).get("kind") in ("operand", "duplicate")
    ptx = sa == [0, 1, 2, 3] and sb == [0, 1] and not any(swap_a + swap_b)
    assert check_mma_fragments(t, **SYNTH).verdict == ("proved" if ptx else "refuted")
