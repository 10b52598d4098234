"""Control and miscellaneous instructions of the tracer (control.py) against the PTX ISA 8.x: branches and
their refusals, trap, bar.red, instructions whose result is unknowable, wmma.load/store on shared memory,
isspacep, mapa, calls, dp4a/dp2a (the dot-product formulas written here with Python ints)."""

from __future__ import annotations

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from kernel_interp_harness import REGS, lanes, launch, refusal

from layoutalg.kernel.records import Recorder

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, phases=[Phase.generate])  # no shrinking: a failure reports at once
SMEM = ".shared .align 16 .b8 tile[1024];"


# ----------------------------------------------------------------- branches, trap, calls
def test_branch_to_a_name_that_is_no_label_is_refused_naming_the_line():
    err, line = refusal("bra.uni NOWHERE;", "NOWHERE")
    assert err.line == line and "is not a label of this function" in str(err)


def test_indirect_branch_brx_is_refused_naming_the_line():
    err, line = refusal("L0:\nbrx.idx %r30, L0;", "brx.idx")
    assert err.line == line and "indirect branches" in str(err)


def test_trap_aborts_only_when_executed():
    err, line = refusal("setp.eq.u32 %p1, %r30, 3;\n@%p1 trap;", "trap", inputs=[[t] for t in range(32)])
    assert err.line == line and "trap executed" in str(err)
    m = launch("setp.eq.u32 %p1, %r30, 99;\n@%p1 trap;\nmov.u32 %r1, 5;", [[t] for t in range(32)])
    assert lanes(m, "%r1") == [5] * 32


def test_indirect_call_is_refused_as_indirect_even_with_a_prototype_and_vprintf_is_no_effect():
    decls = ".extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);"
    body = ("{\n.param .b64 p0;\n.param .b64 p1;\n.param .b32 r0;\n"
            "call.uni (r0), vprintf, (p0, p1);\n}\nmov.u32 %r1, 7;")
    m = launch(body, decls=decls)
    assert lanes(m, "%r1") == [7] * 32
    proto = "prot: .callprototype (.param .b32 _) _ (.param .b64 _);"
    ind = "{\n.param .b64 p0;\n.param .b32 r0;\n" + proto + "\ncall.uni (r0), %rd1, (p0), prot;\n}"
    err, line = refusal(ind, "call.uni")
    assert err.line == line and "indirect calls are not supported" in str(err)


# ----------------------------------------------------------------- results the trace cannot know
def test_bar_red_and_getctarank_leave_their_destinations_unknown_but_other_registers_known():
    m = launch("mov.u32 %r2, 9;\nsetp.ne.u32 %p1, %r30, 0;\nbar.red.popc.u32 %r1, 0, %p1;\n"
               "mov.u64 %rd1, tile;\ngetctarank.shared::cluster.u32 %r3, %rd1;\nsust.b.1d.b32.trap [%rd2, {%r2}], {%r2};",
               [[t] for t in range(32)], decls=SMEM)
    assert lanes(m, "%r1") == [None] * 32
    assert lanes(m, "%r3") == [None] * 32
    assert lanes(m, "%r2") == [9] * 32


# ----------------------------------------------------------------- wmma on shared memory
WMMA_A = "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;"
WMMA_D = "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%rd1], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, 16;"


def test_wmma_load_from_shared_is_recorded_keeps_memory_and_gives_unknown_fragments():
    rec = Recorder()
    body = ("mov.u32 %r20, tile;\ncvt.u64.u32 %rd1, %r20;\nmov.u32 %r21, 77;\nst.shared.u32 [tile+512], %r21;\n"
            + WMMA_A + "\nld.shared.u32 %r22, [tile+512];")
    m = launch(body, recorder=rec, decls=SMEM)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r8") == [None] * 32
    assert lanes(m, "%r22") == [77] * 32  # a load leaves shared memory as it was
    base = lanes(m, "%r20")[0]
    wmma = [r for r in rec.accesses if r.kind == "wmma"]
    assert len(wmma) == 1 and wmma[0].opcode.startswith("wmma.load")
    assert wmma[0].smem.tolist() == [[base] * 32]


def test_a_wmma_load_of_an_f16_a_fragment_records_32_bytes_per_lane():
    # PTX ISA "Matrix Fragments for WMMA": an m16n16k16 .f16 a fragment is eight .f16x2 registers per thread,
    # 8 x 4 = 32 bytes (16 halves: more than the lane's share of the matrix, 16 x 16 halves over 32 lanes;
    # every form: test_kernel_interp_wmma_fragments.py)
    rec = Recorder()
    launch("mov.u32 %r20, tile;\ncvt.u64.u32 %rd1, %r20;\n" + WMMA_A, recorder=rec, decls=SMEM)
    assert [r.access_bytes for r in rec.accesses if r.kind == "wmma"] == [32]


def test_a_wmma_load_into_a_bare_register_is_refused_naming_the_line():
    # ptxas 13.0: "Vector expected for argument 0"; traced, the register would keep its old known value
    bare = "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 %r1, [%rd1], 16;"
    err, line = refusal("mov.u32 %r1, 3;\nmov.u32 %r20, tile;\ncvt.u64.u32 %rd1, %r20;\n" + bare, "wmma.load",
                        decls=SMEM)
    assert err.line == line and "needs a vector destination" in str(err)


def test_wmma_store_to_shared_makes_shared_memory_unknown():
    rec = Recorder()
    body = ("mov.u32 %r20, tile;\ncvt.u64.u32 %rd1, %r20;\nmov.u32 %r21, 77;\nst.shared.u32 [tile+512], %r21;\n"
            + WMMA_D + "\nld.shared.u32 %r22, [tile+512];")
    m = launch(body, recorder=rec, decls=SMEM)
    assert lanes(m, "%r22") == [None] * 32
    assert [r.kind for r in rec.accesses if r.kind == "wmma"] == ["wmma"]


def test_wmma_load_from_global_is_not_a_shared_access():
    rec = Recorder()
    m = launch(WMMA_A.replace(".shared", ".global") + "\nmov.u32 %r9, 1;", recorder=rec)
    assert not [r for r in rec.accesses if r.kind == "wmma"]
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r9") == [1] * 32


def test_wmma_mma_results_are_unknown_also_in_divergent_code():
    mma = ("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
           "{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, "
           "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};")
    m = launch("mov.u32 %r1, 3;\n" + mma, active=[t % 2 == 0 for t in range(32)])
    assert lanes(m, "%r1") == [None] * 32


def test_mma_results_are_unknown_when_the_whole_warp_executes():
    mma = ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1, %r2, %r3, %r4}, {%r10, %r11, %r12, %r13}, "
           "{%r14, %r15}, {%r1, %r2, %r3, %r4};")
    m = launch("mov.u32 %r1, 3;\nmov.u32 %r2, 0;\n" + mma)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32


# ----------------------------------------------------------------- isspacep, mapa
def test_isspacep_tells_the_window_of_generic_addresses():
    body = ("mov.u64 %rd1, tile;\ncvta.shared.u64 %rd2, %rd1;\n"  # a generic shared address
            "ld.param.u64 %rd3, [buf];\n"  # a global buffer pointer
            "isspacep.shared %p1, %rd2;\nisspacep.global %p2, %rd2;\nisspacep.shared %p3, %rd3;\n"
            "isspacep.global %p4, %rd3;\nisspacep.local %p5, %rd2;\nisspacep.shared::cta %p6, %rd2;\n"
            "isspacep.const %p7, %rd3;\nisspacep.param %p8, %rd2;")
    m = launch_with_buffer(body)
    for reg, want in (("%p1", 1), ("%p2", 0), ("%p3", 0), ("%p4", 1), ("%p5", 0), ("%p6", 1), ("%p7", 1),
                      ("%p8", 0)):
        assert lanes(m, reg) == [want] * 32, reg


def test_isspacep_local_is_true_for_a_generic_local_address_and_unknown_for_unknown_ones():
    body = ("mov.u64 %rd1, stack;\ncvta.local.u64 %rd2, %rd1;\nisspacep.local %p1, %rd2;\n"
            "isspacep.shared %p2, %rd2;\nld.global.u64 %rd3, [%rd14];\nisspacep.shared %p3, %rd3;")
    m = launch(body, regs=REGS + "\n.local .align 8 .b8 stack[16];")
    assert lanes(m, "%p1") == [1] * 32
    assert lanes(m, "%p2") == [0] * 32
    assert lanes(m, "%p3") == [None] * 32


def test_isspacep_without_a_state_space_is_refused():
    err, line = refusal("isspacep.u64 %p1, %rd1;", "isspacep")
    assert err.line == line and "needs a state space" in str(err)


def test_mapa_to_rank_zero_is_the_address_itself_and_other_ranks_are_refused():
    m = launch("mov.u32 %r1, tile;\nmapa.shared::cluster.u32 %r2, %r1, 0;\nmov.u64 %rd1, tile;\n"
               "mapa.shared::cluster.u64 %rd2, %rd1, 0;\nmapa.u64 %rd3, %rd1, 0;", decls=SMEM)
    assert lanes(m, "%r2") == lanes(m, "%r1")
    assert lanes(m, "%rd2") == lanes(m, "%r1") == lanes(m, "%rd3")
    err, line = refusal("mov.u32 %r1, tile;\nmapa.shared::cluster.u32 %r2, %r1, 1;", "mapa", decls=SMEM)
    assert err.line == line and "another CTA of a cluster" in str(err)
    err, line = refusal("mov.u32 %r1, tile;\nand.b32 %r3, %r30, 0;\nmapa.shared::cluster.u32 %r2, %r1, %r3;",
                        "mapa", decls=SMEM, inputs=[[0]] * 31 + [[1]])
    assert err.line == line
    err, line = refusal("mov.u32 %r1, tile;\nld.global.u32 %r3, [%rd14];\nmapa.shared::cluster.u32 %r2, %r1, %r3;",
                        "mapa", decls=SMEM)
    assert err.line == line


# ----------------------------------------------------------------- dp4a / dp2a (ISA formulas)
def ext(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def dp4a_ref(a: int, b: int, c: int, sa: bool, sb: bool) -> int:
    acc = ext(c, 32, sa or sb)
    for i in range(4):
        acc += ext(a >> (8 * i), 8, sa) * ext(b >> (8 * i), 8, sb)
    return acc & 0xFFFFFFFF


def dp2a_ref(a: int, b: int, c: int, sa: bool, sb: bool, hi: bool) -> int:
    acc = ext(c, 32, sa or sb)
    sel = 2 if hi else 0
    for i in range(2):
        acc += ext(a >> (16 * i), 16, sa) * ext(b >> (8 * (sel + i)), 8, sb)
    return acc & 0xFFFFFFFF


U32 = st.integers(0, 2**32 - 1)


@SETTINGS
@given(U32, U32, U32, st.booleans(), st.booleans())
def test_dp4a_and_dp2a_follow_the_isa(a, b, c, sa, sb):
    ta, tb = ("s32" if sa else "u32"), ("s32" if sb else "u32")
    m = launch(f"dp4a.{ta}.{tb} %r1, %r30, %r31, %r32;\ndp2a.lo.{ta}.{tb} %r2, %r30, %r31, %r32;\n"
               f"dp2a.hi.{ta}.{tb} %r3, %r30, %r31, %r32;", [[a, b, c]], threads=1)
    assert lanes(m, "%r1") == [dp4a_ref(a, b, c, sa, sb)]
    assert lanes(m, "%r2") == [dp2a_ref(a, b, c, sa, sb, False)]
    assert lanes(m, "%r3") == [dp2a_ref(a, b, c, sa, sb, True)]


def test_dp4a_with_one_type_is_refused():
    err, line = refusal("dp4a.u32 %r1, %r30, %r31, %r32;", "dp4a")
    assert err.line == line and "dp4a needs .atype.btype" in str(err)


# ----------------------------------------------------------------- helpers
def launch_with_buffer(body: str):  # type: ignore[no-untyped-def]
    """launch() of a kernel that also takes a global buffer pointer ``buf`` (after the input table)."""
    import kernel_interp_harness as h

    from layoutalg.kernel.interp.geometry import Geometry
    from layoutalg.kernel.interp.program import build_image, run
    from layoutalg.kernel.interp.spaces import buffer_base
    from layoutalg.kernel.ptx.parser import parse_module

    text = h.ptx_text(body, 32, SMEM).replace(f"tab[{32 * h.ROW}])", f"tab[{32 * h.ROW}], .param .u64 buf)")
    module = parse_module(text)
    fn = module.entries["k"]
    table = b"".join((0).to_bytes(16, "little") + (1).to_bytes(4, "little") for _ in range(32))
    params = table + buffer_base(0).to_bytes(8, "little")
    image = build_image(module, fn, params, {"tab": 0, "buf": len(table)}, 1, 0)
    return run(image, Geometry((1, 1, 1), (32, 1, 1), [(0, 0, 0)]), Recorder(), 10_000)


def test_call_to_a_func_body_is_refused_naming_the_callee():
    decls = ".func (.param .b32 r) helper (.param .b64 a)\n{\nret;\n}"
    body = "{\n.param .b64 p0;\n.param .b32 r0;\ncall.uni (r0), helper, (p0);\n}"
    err, line = refusal(body, "call.uni", decls=decls)
    assert err.line == line and "call to .func helper" in str(err)


def test_wmma_at_an_odd_shared_address_is_refused_as_misaligned():
    err, line = refusal("mov.u32 %r20, tile;\nadd.u32 %r20, %r20, 1;\ncvt.u64.u32 %rd1, %r20;\n" + WMMA_A,
                        "wmma.load", decls=SMEM)
    assert err.line == line and "misaligned shared-memory address" in str(err)


# ----------------------------------------------------------------- sample survivors (kern20b)
def test_bar_sync_with_only_a_barrier_id_waits_for_the_whole_cta():
    body = ("mov.u64 %rd1, tile;\nsetp.eq.u32 %p1, %r39, 5;\n@%p1 st.shared.u32 [%rd1], %r30;\n"
            "bar.sync 0;\nld.shared.u32 %r1, [%rd1];")
    m = launch(body, [[100 + t] for t in range(64)], decls=SMEM)
    assert lanes(m, "%r1") == [105] * 64


def test_mma_in_divergent_code_leaves_the_inactive_threads_registers_as_they_were():
    mma = ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, "
           "{%r14, %r15}, {%r30, %r31, %r32, %r33};")
    m = launch(mma, [[200 + t] for t in range(32)], active=[t % 2 == 0 for t in range(32)])
    assert lanes(m, "%r30") == [None if t % 2 == 0 else 200 + t for t in range(32)]


def test_isspacep_windows_are_half_open_at_both_ends():
    from layoutalg.kernel.interp.spaces import SHARED_WINDOW, WINDOW_SPAN

    body = (f"mov.u64 %rd1, {SHARED_WINDOW - 1};\nmov.u64 %rd2, {SHARED_WINDOW};\n"
            f"mov.u64 %rd3, {SHARED_WINDOW + WINDOW_SPAN - 1};\nmov.u64 %rd4, {SHARED_WINDOW + WINDOW_SPAN};\n"
            "isspacep.global %p1, %rd1;\nisspacep.global %p2, %rd2;\nisspacep.shared %p3, %rd2;\n"
            "isspacep.shared %p4, %rd3;\nisspacep.shared %p5, %rd4;")
    m = launch(body)
    for reg, want in (("%p1", 1), ("%p2", 0), ("%p3", 1), ("%p4", 1), ("%p5", 0)):
        assert lanes(m, reg) == [want] * 32, reg


def test_wmma_load_under_an_unknown_guard_keeps_shared_memory_known():
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1], 41;\nld.global.u32 %r20, [%rd14];\n"
            "setp.ne.u32 %p1, %r20, 0;\n@%p1 " + WMMA_A + "\nld.shared.u32 %r9, [%rd1];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r9") == [41] * 32
    assert lanes(m, "%r1") == [None] * 32


# ----------------------------------------------------------------- survivors (kernel_full sweep, control.py)
def test_getctarank_makes_its_destination_unknown_and_leaves_its_address_operand_known():
    m = launch("mov.u32 %r3, 5;\nmov.u64 %rd1, tile;\ngetctarank.shared::cluster.u32 %r3, %rd1;", decls=SMEM)
    assert lanes(m, "%r3") == [None] * 32  # a value known before the instruction is overwritten
    assert None not in lanes(m, "%rd1")


def test_wmma_load_overwrites_known_fragment_registers_with_unknown_values():
    body = ("mov.u32 %r20, tile;\ncvt.u64.u32 %rd1, %r20;\n"
            + "".join(f"mov.u32 %r{k}, {k};\n" for k in range(1, 9)) + WMMA_A)
    m = launch(body, decls=SMEM)
    for k in range(1, 9):
        assert lanes(m, f"%r{k}") == [None] * 32, k
    assert None not in lanes(m, "%rd1")


UNKNOWN_GUARD = "ld.global.u32 %r20, [%rd14];\nsetp.ne.u32 %p1, %r20, 0;\n"


def test_wmma_store_to_shared_under_an_unknown_guard_makes_shared_memory_unknown():
    """Whether the store happens is data-dependent, so what shared memory holds afterwards is unknown."""
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1], 41;\n" + UNKNOWN_GUARD + "@%p1 " + WMMA_D
            + "\nld.shared.u32 %r9, [%rd1];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r9") == [None] * 32


def test_wmma_on_shared_under_an_unknown_guard_is_reported_data_dependent_but_on_global_is_not():
    rec = Recorder()
    launch("mov.u64 %rd1, tile;\n" + UNKNOWN_GUARD + "@%p1 " + WMMA_A, decls=SMEM, recorder=rec)
    scopes = [inc.scope for inc in rec.data_dependent.values() if inc.opcode.startswith("wmma")]
    assert scopes == ["execution"]
    rec = Recorder()
    launch("mov.u64 %rd1, tile;\n" + UNKNOWN_GUARD + "@%p1 " + WMMA_A.replace(".shared", ".global"),
           decls=SMEM, recorder=rec)
    assert not [inc for inc in rec.data_dependent.values() if inc.opcode.startswith("wmma")]


def test_wmma_on_shared_predicated_off_for_a_whole_warp_is_counted_but_on_global_is_not():
    guard = "setp.ge.u32 %p1, %r39, 32;\n"  # false on every lane of warp 0
    rec = Recorder()
    launch("mov.u64 %rd1, tile;\n" + guard + "@%p1 " + WMMA_A, threads=64, decls=SMEM, recorder=rec)
    assert list(rec.predicated_off.values()) == [1]
    rec = Recorder()
    launch("mov.u64 %rd1, tile;\n" + guard + "@%p1 " + WMMA_A.replace(".shared", ".global"), threads=64,
           decls=SMEM, recorder=rec)
    assert rec.predicated_off == {}


def test_wmma_at_an_unknown_shared_address_forgets_shared_memory_on_store_only():
    """An unknown address: a store may have written anywhere in the CTA's shared memory, a load has not."""
    before = "mov.u64 %rd2, tile;\nst.shared.u32 [%rd2], 41;\nld.global.u64 %rd1, [%rd14];\n"
    m = launch(before + WMMA_A + "\nld.shared.u32 %r9, [%rd2];", decls=SMEM)
    assert lanes(m, "%r9") == [41] * 32
    m = launch(before + WMMA_D + "\nld.shared.u32 %r9, [%rd2];", decls=SMEM)
    assert lanes(m, "%r9") == [None] * 32


def test_wmma_at_the_last_byte_of_shared_memory_is_refused_as_outside_it():
    err, line = refusal("mov.u32 %r20, tile;\nadd.u32 %r20, %r20, 1023;\ncvt.u64.u32 %rd1, %r20;\n" + WMMA_A,
                        "wmma.load", decls=SMEM)
    assert err.line == line and "outside the CTA's shared memory" in str(err)


BYTE_EDGES = [0xFF000000, 0x80000000, 0x7F000000, 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFFFFFFFF, 0x80808080,
              0x7F7F7F7F, 0x01020304]


def test_dp4a_and_dp2a_use_every_byte_and_half_of_their_operands():
    """Edge operands with the top byte (dp4a's fourth product, dp2a's .hi bytes) set, each signedness."""
    for sa in (False, True):
        for sb in (False, True):
            ta, tb = ("s32" if sa else "u32"), ("s32" if sb else "u32")
            inputs = [[a, b, 0x80000001] for a in BYTE_EDGES for b in BYTE_EDGES]
            m = launch(f"dp4a.{ta}.{tb} %r1, %r30, %r31, %r32;\ndp2a.lo.{ta}.{tb} %r2, %r30, %r31, %r32;\n"
                       f"dp2a.hi.{ta}.{tb} %r3, %r30, %r31, %r32;", inputs)
            assert lanes(m, "%r1") == [dp4a_ref(a, b, c, sa, sb) for a, b, c in inputs]
            assert lanes(m, "%r2") == [dp2a_ref(a, b, c, sa, sb, False) for a, b, c in inputs]
            assert lanes(m, "%r3") == [dp2a_ref(a, b, c, sa, sb, True) for a, b, c in inputs]


def test_dp4a_and_dp2a_read_immediate_operands_as_32_bit_values():
    """A PTX immediate -1 of a .u32/.s32 operand is 0xFFFFFFFF: only its four bytes (two halves) take part."""
    m = launch("dp4a.u32.u32 %r1, -1, -1, 0;\ndp4a.s32.s32 %r2, -1, -1, 0;\n"
               "dp2a.lo.u32.u32 %r3, -1, -1, 0;\ndp2a.hi.s32.s32 %r4, -1, -1, 0;", threads=1)
    ones = 0xFFFFFFFF
    assert lanes(m, "%r1") == [dp4a_ref(ones, ones, 0, False, False)] == [4 * 255 * 255]
    assert lanes(m, "%r2") == [dp4a_ref(ones, ones, 0, True, True)] == [4]
    assert lanes(m, "%r3") == [dp2a_ref(ones, ones, 0, False, False, False)] == [2 * 65535 * 255]
    assert lanes(m, "%r4") == [dp2a_ref(ones, ones, 0, True, True, True)] == [2]


# ------------------------------------------- wmma on shared memory: the whole matrix must be inside it
# (shape, element type) pairs of the PTX ISA's wmma.load/wmma.store forms, with the fragments each allows
WMMA_FORMS = [("m16n16k16", "f16", "abcd"), ("m32n8k16", "bf16", "ab"), ("m8n32k16", "f32", "cd"),
              ("m16n16k8", "tf32", "ab"), ("m8n8k4", "f64", "abcd"), ("m16n16k16", "s8", "ab"),
              ("m8n8k32", "s4", "ab"), ("m8n8k128", "b1", "ab"), ("m8n8k32", "s32", "cd")]
BIG_SMEM_BYTES = 16384


def brute_force_span_bytes(shape: str, fragment: str, layout: str, bits: int, stride: int | None) -> int:
    """One past the last byte of the matrix: every element's bit offset enumerated (PTX ISA 9.7.14.4.2)."""
    m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[fragment]
    line_length = cols if layout == "row" else rows
    step = line_length if stride is None else stride
    last_bit = max(((r * step + c) if layout == "row" else (c * step + r)) * bits + bits
                   for r in range(rows) for c in range(cols))
    return -(-last_bit // 8)


@settings(max_examples=40, deadline=None, phases=[Phase.generate])
@given(form=st.sampled_from(WMMA_FORMS), pick=st.integers(0, 3), layout=st.sampled_from(["row", "col"]),
       extra_stride=st.one_of(st.none(), st.integers(0, 24)), stride_in_register=st.booleans())
def test_a_wmma_fragment_reaching_past_shared_memory_is_refused_and_one_ending_at_its_end_is_not(
        form: tuple[str, str, str], pick: int, layout: str, extra_stride: int | None,
        stride_in_register: bool) -> None:
    shape, etype, fragments = form
    fragment = fragments[pick % len(fragments)]
    bits = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "f64": 64, "s8": 8, "s4": 4, "b1": 1, "s32": 32}[etype]
    m, n, k = (int(x) for x in shape[1:].replace("n", " ").replace("k", " ").split())
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[fragment]
    line_length = cols if layout == "row" else rows
    stride = None if extra_stride is None else line_length + extra_stride
    span = brute_force_span_bytes(shape, fragment, layout, bits, stride)
    verb = "load" if fragment in "abc" else "store"
    regs = "{%r1, %r2}"
    memory = f"[%rd1]{'' if stride is None else ', %r30' if stride_in_register else f', {stride}'}"
    operands = f"{regs}, {memory}" if verb == "load" else f"{memory.split(', ')[0]}, {regs}" + (
        memory[len("[%rd1]"):])
    wmma = f"wmma.{verb}.{fragment}.sync.aligned.{layout}.{shape}.shared.{etype} {operands};"
    decls = f".shared .align 16 .b8 big[{BIG_SMEM_BYTES}];"

    def body(offset: int) -> str:
        return (f"mov.u32 %r20, big;\nadd.u32 %r20, %r20, {offset};\ncvt.u64.u32 %rd1, %r20;\n"
                f"mov.u32 %r30, {stride or 0};\n" + wmma)

    fits = BIG_SMEM_BYTES - span - (BIG_SMEM_BYTES - span) % 2  # the last 2-byte-aligned base that fits
    launch(body(fits), decls=decls)
    error, _ = refusal(body(fits + 2), "wmma", decls=decls)
    assert "outside the CTA's shared memory" in str(error)


@pytest.mark.parametrize("form", ["wmma.load.a.sync.aligned.row.shared.f16", "wmma.load.a.sync.aligned.row.m16n16k16.shared",
                                  "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16.f32"])
def test_a_wmma_load_without_one_shape_and_one_element_type_is_refused_naming_what_it_needs(form: str) -> None:
    error, line = refusal(f"mov.u64 %rd1, 0;\n{form} {{%r1, %r2}}, [%rd1];", "wmma")
    assert error.line == line and "one shape (.mMnNkK) and one element type" in str(error)


def test_a_wmma_stride_unknown_at_trace_time_counts_as_packed_lines_and_inactive_lanes_strides_are_ignored():
    # m16n16k16 row f16 A: 16 lines of 16 halves; packed (stride 16) it spans 512 bytes (PTX ISA 9.7.14.4.2)
    span = brute_force_span_bytes("m16n16k16", "a", "row", 16, None)
    assert span == 512
    decls = f".shared .align 16 .b8 big[{BIG_SMEM_BYTES}];"
    wmma = "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2}, [%rd1], %r30;"

    def body(offset: int, stride: str) -> str:
        return (f"mov.u32 %r20, big;\nadd.u32 %r20, %r20, {offset};\ncvt.u64.u32 %rd1, %r20;\n" + stride + wmma)

    unknown = "ld.param.u64 %rd2, [buf0];\nld.global.u32 %r30, [%rd2];\n"  # global memory: unknown at trace time
    launch(body(BIG_SMEM_BYTES - span, unknown), decls=decls, buffers=1)
    error, _ = refusal(body(BIG_SMEM_BYTES - span + 2, unknown), "wmma", decls=decls, buffers=1)
    assert "outside the CTA's shared memory" in str(error)
    # lanes 1..31 branch past the wmma holding a stride of 64 halves; lane 0's packed stride 16 fits
    inputs = [[16]] + [[64]] * 31
    active = [True] + [False] * 31
    launch(body(BIG_SMEM_BYTES - span, ""), inputs=inputs, active=active, decls=decls)
    error, _ = refusal(body(BIG_SMEM_BYTES - span + 2, ""), "wmma", inputs=inputs, active=active, decls=decls)
    assert "outside the CTA's shared memory" in str(error)
