"""Every (m, n, k) product counted once (layoutalg/kernel/dataflow/products.py): a product accumulated a second
time refutes, naming the instruction and the element (m, n, k) -- whether the two come from one instruction
in two lanes, from two instructions, from two mma tiles, or in a problem too big for a dense counter (more
than 2**27 products: sorted keys instead).  Scalar products: the harness's GEMM (lane l computes C(l / 8, l % 8));
mma tiles: the generated m16n8k16 kernel of tests/dataflow_synth.py."""

from __future__ import annotations

from dataflow_synth import MmaCase, mma_kernel
from kernel_dataflow_contract_harness import SPECS, gemm

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

FMA0 = "fma.rn.f32 %f30, %f10, %f20, %f0;"


def check(text: str, **specs: str):
    return check_mma(trace(parse_module(text), block=32), **{**SPECS, **specs})


def line_of(text: str, ins: str) -> int:
    return [i + 1 for i, x in enumerate(text.split("\n")) if x.strip() == ins][0]


def test_the_same_k_product_twice_in_a_chain_is_a_duplicate_at_the_second_instruction() -> None:
    text = gemm(k_products=(0, 0))
    r = check(text)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    assert r.counterexample["element"] == [0, 0, 0]
    assert r.counterexample["line"] == line_of(text, "fma.rn.f32 %f31, %f11, %f21, %f30;")
    assert r.reason.endswith("the product A(0, 0) * B(0, 0) is accumulated a second time (into C(0, 0))")


def test_two_lanes_of_one_instruction_computing_the_same_product_are_a_duplicate() -> None:
    text = gemm().replace("shr.u32 %r3, %r2, 3;", "mov.u32 %r3, 0;")  # every lane's row m is 0
    r = check(text)
    assert r.counterexample["kind"] == "duplicate" and r.counterexample["element"] == [0, 0, 0]
    assert r.counterexample["line"] == line_of(text, FMA0)


def test_products_of_distinct_lanes_and_k_are_each_counted_once() -> None:
    r = check(gemm(k_products=(1, 0)))  # the k order does not matter
    assert r.verdict == "proved" and "each (m, n, k) of the 4x8x2 problem is accumulated once" in r.claim


def deep(text: str) -> str:
    """The GEMM with A's rows 65535 elements apart: A(m, k) at 65535 m + k (K = 65535 in the specs)."""
    for k in (0, 1):
        text = text.replace(f"mad.lo.u32 %r10, %r3, 2, {k};", f"mad.lo.u32 %r10, %r3, 65535, {k};")
    return text


# 512 x 8 x 65535 = 268 431 360 products > 2**27: no dense counter
BIG = {"a": "pA@(512,65535):(65535,1)", "b": "pB@(65535,8):(8,1)", "c": "pC@(512,8):(8,1)"}


def test_a_duplicate_in_a_problem_too_big_for_a_dense_counter_is_still_found() -> None:
    r = check(deep(gemm(k_products=(0, 0))), **BIG)
    assert r.counterexample["kind"] == "duplicate" and r.counterexample["element"] == [0, 0, 0]
    assert r.reason == "the product A(0, 0) * B(0, 0) is accumulated more than once"
    assert check(deep(gemm(k_products=(1, 0))), **BIG).counterexample["kind"] == "store"  # (K = 65535 not reached)


MMA_SPECS = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}


def test_an_mma_tile_accumulated_twice_is_a_duplicate_at_its_origin() -> None:
    lines = mma_kernel(MmaCase()).split("\n")
    first = [i for i, x in enumerate(lines) if "mma.sync" in x][0]
    again = lines[first].replace("{%f0, %f1, %f2, %f3};", "{%f4, %f5, %f6, %f7};")  # the same tile into its own result
    text = "\n".join(lines[:first + 1] + [again] + lines[first + 1:])
    assert check_mma(trace(parse_module("\n".join(lines)), block=32), **MMA_SPECS).verdict == "proved"
    r = check_mma(trace(parse_module(text), block=32), **MMA_SPECS)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    assert r.counterexample["element"] == [0, 0, 0] and r.counterexample["line"] == first + 2
