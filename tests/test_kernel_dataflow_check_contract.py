"""How check_mma turns the flow's incidents and the checker's findings into a verdict
(layoutalg/kernel/dataflow/check.py), on the harness's scalar GEMM (C = A B, one fma per k): a shared race
refutes, unless the kernel also synchronises through something the race check does not model (then unknown);
an unknown global store makes a wrong C unknown rather than refuted; a Trace without its launch is refused."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import SPECS, STORE, gemm

from layoutalg.errors import LayoutError
from layoutalg.kernel import check_mma, trace
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
