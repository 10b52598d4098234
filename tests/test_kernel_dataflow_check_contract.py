"""How check_mma turns the flow's incidents and the checker's findings into a verdict
(layoutalg/kernel/dataflow/check.py), on the harness's scalar GEMM (C = A B, one fma per k): a shared race
refutes, unless the kernel also synchronises through something the race check does not model (then unknown);
an unknown global store makes a wrong C unknown rather than refuted; a Trace without its launch is refused."""

from __future__ import annotations

import time

import pytest
from dataflow_synth import MmaCase, mma_kernel
from kernel_dataflow_contract_harness import SPECS, STORE, gemm

from layoutalg.errors import LayoutError
from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.dataflow.checker_base import Finding
from layoutalg.kernel.ptx import parse_module


def check(text: str, block: int = 32):
    return check_mma(trace(parse_module(text), block=block), **SPECS)


def line_of(text: str, ins: str) -> int:
    return [i + 1 for i, x in enumerate(text.split("\n")) if x.strip() == ins][0]


# warp 1 writes a shared word warp 0 then reads with no barrier between
SH_W1 = ("mov.u32 %r30, sm;", "st.shared.u32 [%r30], %r1;")
SH_W0 = ("mov.u32 %r30, sm;", "ld.shared.u32 %r31, [%r30];")


def with_shared(text: str) -> str:
    return text.replace(".reg .b64 %rd<64>;", ".reg .b64 %rd<64>;\n.shared .align 16 .b8 sm[64];")


def with_cluster_barrier(text: str) -> str:
    """Every thread passes a cluster barrier (which the race check does not model) before the warps split."""
    return text.replace("@%p1 bra W1;", "barrier.cluster.arrive;\nbarrier.cluster.wait;\n@%p1 bra W1;")


def test_check_mma_refuses_what_is_not_a_trace() -> None:
    with pytest.raises(LayoutError, match="check_mma needs a Trace made by layoutalg.kernel.trace"):
        check_mma(object(), **SPECS)


def test_the_proved_claim_states_the_problem_and_the_specs() -> None:
    r = check(gemm())
    assert r.verdict == "proved" and r.reason == ""
    assert "4x8x2 problem" in r.claim and "64 scalar A x B fma products" in r.claim
    assert "32 of 32 C elements checked" in r.claim and r.claim.startswith("every CTA of the launch")
    assert r.report().split("\n")[:2] == ["mma check: proved", f"  claim: {r.claim}"] and str(r) == r.report()


def test_a_shared_race_refutes_and_names_both_instructions() -> None:
    text = with_shared(gemm(tail=SH_W0, warp1=SH_W1))
    r = check(text, block=64)
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "race"
    w, rd = line_of(text, "st.shared.u32 [%r30], %r1;"), line_of(text, "ld.shared.u32 %r31, [%r30];")
    # whichever warp the trace ran first: the pair is the store of warp 1 and the load of warp 0
    ends = sorted([(cex["first"]["line"], cex["first"]["opcode"], cex["first"]["warp"]),
                   (cex["second"]["line"], cex["second"]["opcode"], cex["second"]["warp"])])
    assert ends == sorted([(w, "st.shared.u32", 1), (rd, "ld.shared.u32", 0)])
    assert cex["race"] in ("read after write (no barrier between)", "write after read (no barrier between)")
    (l1, o1, w1), (l2, o2, w2) = (cex["first"]["line"], cex["first"]["opcode"], cex["first"]["warp"]), \
        (cex["second"]["line"], cex["second"]["opcode"], cex["second"]["warp"])
    assert r.reason.startswith(f"{cex['race']}: PTX line {l1} ({o1}, warp {w1}) and PTX line {l2} ({o2}, warp {w2}) "
                               f"touch shared byte {cex['shared_address']} of CTA (0, 0, 0) with nothing ordering")
    assert "    kind: race" in r.report() and "message" not in r.report()


def test_a_shared_race_beside_an_unmodelled_synchronisation_is_unknown() -> None:
    text = with_cluster_barrier(with_shared(gemm(tail=SH_W0, warp1=SH_W1)))
    r = check(text, block=64)
    assert r.verdict == "unknown" and r.counterexample["kind"] == "race"
    assert r.reason.endswith(f"but the kernel also synchronises through barrier.cluster.arrive (PTX line "
                             f"{line_of(text, 'barrier.cluster.arrive;')}), which the race check does not model")


def test_a_global_race_beside_an_unmodelled_synchronisation_is_not_refuted() -> None:
    w1 = ("mul.wide.u32 %rd20, %r2, 4;", "add.s64 %rd21, %rd1, %rd20;", "ld.global.f32 %f50, [%rd21];",
          "st.global.f32 [%rd5], %f50;")
    assert check(gemm(warp1=w1), block=64).counterexample["kind"] == "global race"
    r = check(with_cluster_barrier(gemm(warp1=w1)), block=64)
    assert r.verdict != "refuted" or r.counterexample["kind"] != "global race"


def test_an_unknown_global_store_makes_a_wrong_c_unknown() -> None:
    unk = ("ld.global.u32 %r40, [%rd1];", "and.b32 %r41, %r40, 4;", "cvt.u64.u32 %rd40, %r41;",
           "add.s64 %rd41, %rd3, %rd40;", "st.global.u32 [%rd41], 0;")
    r = check(gemm(k_products=(0,), tail=unk))  # one product only: C is wrong
    assert r.verdict == "unknown" and "a global store to an address unknown at trace time (it could hit C)" in r.reason
    r = check(gemm(k_products=(0,)))
    assert r.verdict == "refuted"


def test_no_products_through_an_unfollowed_instruction_says_where_the_flow_stopped() -> None:
    text = gemm(k_products=(), store="ld.global.f32 %f5, [%rd1];\natom.global.add.f32 %f6, [%rd3], %f5;\n" + STORE)
    r = check(text)
    assert r.verdict == "unknown" and "no mma and no A x B fma" in r.reason
    assert "the data flow is not followed through PTX line" in r.reason


def test_a_branch_on_loaded_data_makes_the_check_unknown_naming_the_branch() -> None:
    text = gemm(tail=("ld.global.u32 %r40, [%rd7];", "setp.eq.u32 %p2, %r40, 0;", "@%p2 bra END;"))
    r = check(text)
    assert r.verdict == "unknown" and r.counterexample is None
    assert r.reason.startswith(f"PTX line {line_of(text, '@%p2 bra END;')} (bra): branch predicate depends on a value "
                               "unknown at trace time")


def test_a_duplicate_product_is_reported_before_a_shared_race() -> None:
    # the product A(m, 0) * B(0, n) is accumulated twice, and warp 1 writes a shared word warp 0 reads unordered
    r = check(with_shared(gemm(k_products=(0, 0, 1), tail=SH_W0, warp1=SH_W1)), block=64)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "duplicate"
    assert r.flow.races and r.reason == r.counterexample["message"]


def test_a_shared_race_is_reported_before_a_global_race() -> None:
    # warp 1 also stores into C (a global race with warp 0's stores), after the unordered shared write
    w1 = ("mul.wide.u32 %rd20, %r2, 4;", "add.s64 %rd21, %rd1, %rd20;", "ld.global.f32 %f50, [%rd21];",
          "st.global.f32 [%rd5], %f50;")
    r = check(with_shared(gemm(tail=SH_W0, warp1=SH_W1 + w1)), block=64)
    assert any(f.kind == "global race" and f.verdict == "refuted" for f in r.findings)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "race"


def test_the_result_dict_gives_seconds_to_the_millisecond_and_at_most_20_findings() -> None:
    r = check(gemm())
    r.seconds = 1.23456
    r.findings = [Finding("refuted", "store", f"finding {i}", {"i": i}) for i in range(25)]
    d = r.as_dict()
    assert d["seconds"] == 1.235
    assert [f["message"] for f in d["findings"]] == [f"finding {i}" for i in range(20)]
    assert d["findings"][0] == {"verdict": "refuted", "kind": "store", "message": "finding 0", "i": 0}


def test_the_result_times_the_check_itself() -> None:
    t0 = time.perf_counter()
    r = check(gemm())
    elapsed = time.perf_counter() - t0
    assert 0 < r.seconds <= elapsed


SYNTH = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}
C1_NOT_ZERO = ("mov.f32 %f1, 0f00000000;", "mov.f32 %f1, 0f3F800001;")  # the first mma's c1 starts as 1.0000001


def check_synth(text: str):
    return check_mma(trace(parse_module(text), block=32), **SYNTH)


def findings_of(r) -> list[tuple[str, str]]:
    return [(f.verdict, f.kind) for f in r.findings if f.verdict == "refuted"]


def test_a_wrong_operand_is_reported_before_a_wrong_accumulator_found_earlier() -> None:
    # tests/dataflow_synth.py's two chained m16n8k16 mma: the first one's C input is not zero, the second one's
    # A element 0 of lane 0 is moved by one column
    r = check_synth(mma_kernel(MmaCase(mutations=[("A", 1, 0, 0, 1)])).replace(*C1_NOT_ZERO))
    assert findings_of(r) == [("refuted", "accumulator"), ("refuted", "operand")]
    assert r.verdict == "refuted" and r.counterexample["kind"] == "operand"


def test_a_scalar_fma_of_mismatched_k_is_reported_before_a_wrong_accumulator_found_earlier() -> None:
    # after the mma: A(0, 0) * B(1, 0) (f16, B row 1 at byte 16), k 0 against k 1
    fma = ("  .reg .b16 %q<4>;\n  ld.global.b16 %q0, [%rd1];\n  ld.global.b16 %q1, [%rd2+16];\n  mov.b16 %q2, 0;\n"
           "  fma.rn.f16 %q3, %q0, %q1, %q2;\n  ret;")
    r = check_synth(mma_kernel(MmaCase()).replace(*C1_NOT_ZERO).replace("  ret;", fma))
    assert findings_of(r) == [("refuted", "accumulator"), ("refuted", "fma")]
    assert r.verdict == "refuted" and r.counterexample["kind"] == "fma"
    assert "multiplies A(0, 0) by B(1, 0)" in r.reason


def test_a_wrong_accumulator_is_reported_before_a_duplicate_product_found_earlier() -> None:
    # a scalar fma A(0, 0) * B(0, 0) before the mma, whose first tile counts that product again; the second mma
    # reads its accumulators 1 and 2 swapped
    fma = ("  ld.param.u64 %rd3, [pC];\n  .reg .b16 %q<4>;\n  ld.global.b16 %q0, [%rd1];\n  ld.global.b16 %q1, [%rd2];\n"
           "  mov.b16 %q2, 0;\n  fma.rn.f16 %q3, %q0, %q1, %q2;")
    r = check_synth(mma_kernel(MmaCase(mutations=[("chain", 1, 2)])).replace("  ld.param.u64 %rd3, [pC];", fma))
    assert findings_of(r)[0] == ("refuted", "duplicate") and ("refuted", "accumulator") in findings_of(r)
    assert r.verdict == "refuted" and r.counterexample["kind"] == "accumulator"
