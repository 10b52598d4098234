"""How instructions move tags when nothing specific models them (layoutalg/kernel/dataflow/rules.py): the
registers an instruction reads (every register operand but a destination-only operand 0: vector items, an
address's base, a negated predicate, both halves of a predicate pair), and the default rule: results are
untagged when no source is tagged, OPAQUE naming the instruction (why: unmodelled) in the lanes whose sources
are tagged -- never a guess -- and the flow records that it did not follow the data there."""

from __future__ import annotations

from kernel_dataflow_contract_harness import kernel, lane_units, run

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.rules import RULES, default_rule, reg_names, rule, source_names
from layoutalg.kernel.interp.decode import Op
from layoutalg.kernel.ptx import parse_module
from layoutalg.kernel.ptx.nodes import Addr, Imm, Not, PredPair, Reg, Sym, Vec
from layoutalg.kernel.source import select_entry

UNMODELLED = ("opaque", tg.W_UNMODELLED)


def last_instructions(lines: list[str]):
    fn = select_entry(parse_module(kernel(lines)), None)
    return fn.body[-1 - len(lines):-1]


def test_reg_names_reads_every_kind_of_register_operand() -> None:
    assert reg_names(Reg("%r1")) == ["%r1"]
    assert reg_names(Not(Reg("%p2"))) == ["%p2"]
    assert reg_names(Vec((Reg("%r1"), Imm(3), Reg("%r2")))) == ["%r1", "%r2"]
    assert reg_names(Addr(Reg("%rd4"), 8)) == ["%rd4"]
    assert reg_names(Addr(Sym("sm"), 0)) == [] and reg_names(Addr(None, 16)) == []
    assert reg_names(PredPair(Reg("%p1"), Reg("%p2"))) == ["%p1", "%p2"]
    assert reg_names(Imm(5)) == []


def test_source_names_skip_a_destination_but_read_a_store_address_and_a_guard_free_pair() -> None:
    st, setp, andp = last_instructions(["st.global.v2.u32 [%rd5+8], {%r2, %r3};", "setp.lt.u32 %p1|%p2, %r1, %r9;",
                                        "and.pred %p3, %p1, !%p2;"])
    assert source_names(st, Op(0, st)) == ["%rd5", "%r2", "%r3"]  # no destination: operand 0 is read
    assert source_names(setp, Op(1, setp, dests=["%p1", "%p2"])) == ["%r1", "%r9"]
    assert source_names(andp, Op(2, andp, dests=["%p3"])) == ["%p1", "%p2"]
    # operand 0 partly read: the registers of it that are not destinations are sources
    vec_dest = Op(3, st, dests=["%r2"])
    st_vec = last_instructions(["mov.b64 {%r2, %r3}, %rd9;"])[0]
    assert source_names(st_vec, vec_dest) == ["%rd9", "%r3"]


def test_an_unmodelled_instruction_on_loaded_data_is_opaque_in_the_tagged_lanes_only() -> None:
    body = ["setp.lt.u32 %p1, %r1, 16;", "mov.u32 %r2, 0;", "@%p1 ld.global.u32 %r2, [%rd4];",
            "popc.b32 %r5, %r2;", "st.global.u32 [%rd5], %r5;"]
    got = lane_units(body)
    assert all(got[t] == [UNMODELLED, UNMODELLED] for t in range(16))
    assert all(got[t] == ["none", "none"] for t in range(16, 32))
    _, fr = run(body)
    popc = [i for i, ins in enumerate(fr.fn.body) if ins.opcode == "popc.b32"]
    assert fr.unfollowed == {popc[0]: "its sources carry tagged data"}


def test_an_unmodelled_instruction_on_untagged_data_is_untagged_and_followed() -> None:
    body = ["ld.global.u32 %r5, [%rd4];", "popc.b32 %r5, %r1;", "st.global.u32 [%rd5], %r5;"]
    assert lane_units(body) == [["none", "none"]] * 32
    assert run(body)[1].unfollowed == {}


def test_an_unmodelled_instruction_under_a_branch_writes_only_its_threads() -> None:
    body = ["ld.global.u32 %r5, [%rd4];", "mov.u32 %r2, %r5;", "setp.ge.u32 %p1, %r1, 8;", "@%p1 bra SKIP;",
            "popc.b32 %r5, %r1;", "SKIP:", "st.global.u32 [%rd5], %r5;"]
    got = lane_units(body)
    assert all(got[t] == ["none", "none"] for t in range(8))  # overwritten by an untagged result
    assert all(got[t] == [("A", 16 * t), ("A", 16 * t + 2)] for t in range(8, 32))  # kept the loaded word


def test_a_rule_runs_before_the_instruction_so_it_sees_the_address_register_before_it_is_overwritten() -> None:
    got = lane_units(["ld.global.u64 %rd4, [%rd4];", "st.global.u64 [%rd5], %rd4;"], units=4)
    assert all(got[t] == [("A", 16 * t + 2 * u) for u in range(4)] for t in range(32))


def test_an_instruction_without_destinations_gets_no_default_rule() -> None:
    bar = last_instructions(["membar.gl;"])[0]
    assert default_rule(bar, None, Op(0, bar)) is None  # type: ignore[arg-type]


def test_rule_registers_one_builder_under_every_root_it_names() -> None:
    def builder(ins, ctx, op):  # pragma: no cover - never built
        return None
    try:
        assert rule("zzroot1", "zzroot2")(builder) is builder
        assert RULES["zzroot1"] is builder and RULES["zzroot2"] is builder
    finally:
        RULES.pop("zzroot1", None)
        RULES.pop("zzroot2", None)



def test_instructions_the_machine_skips_still_run_their_tag_rules() -> None:
    """cp.async.commit_group / wait_group change no register or memory value (the machine skips them), but
    their rules complete the copy: the read after the wait sees the copied words and no race."""
    body = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;", "cp.async.cg.shared.global [%r11], [%rd4], 16;",
            "cp.async.commit_group;", "cp.async.wait_group 0;", "ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r11];",
            "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"]
    assert lane_units(body, units=8) == [[("A", 16 * t + 2 * u) for u in range(8)] for t in range(32)]
    assert run(body)[1].races == []
