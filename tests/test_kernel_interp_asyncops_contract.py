"""Atomics, cp.async and the ops outside the LSU pipe (asyncops.py) against the PTX ISA 8.x.

atom/red on shared memory: with distinct addresses per lane, every lane's read-modify-write is exact
(ISA "atom": ``d = *a; *a = op(*a, b[, c])``; cas stores c where the old value equals b); the written
memory and the returned old values are checked against Python ints.  Several lanes on one address (an
order the trace cannot know), global atomics and unmodelled operations give unknown results.
cp.async: the src-size / ignore-src forms copy zeros for the bytes not read from global memory (ISA
"cp.async"), global bytes are unknown; malformed forms are refused naming the line.
"""

from __future__ import annotations

from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from kernel_interp_harness import lanes, launch, refusal

from layoutalg.kernel.records import Recorder

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, phases=[Phase.generate])
SMEM = ".shared .align 16 .b8 tile[1024];"
U32 = st.integers(0, 2**32 - 1)
# every thread: %rd1 = its own word of tile (4 * tid), %r20 = the old word (stored first)
SETUP = ("mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 2;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\n"
         "cvt.u64.u32 %rd1, %r37;\nst.shared.u32 [%rd1], %r30;\n")


def s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def atom_ref(op: str, t: str, old: int, b: int, c: int) -> int:
    if op == "add":
        return (old + b) & 0xFFFFFFFF
    if op in ("min", "max"):
        key = s32 if t == "s32" else (lambda v: v)
        pick = min if op == "min" else max
        return pick(old, b, key=key) & 0xFFFFFFFF
    if op == "and":
        return old & b
    if op == "or":
        return old | b
    if op == "xor":
        return old ^ b
    if op == "exch":
        return b
    return c if old == b else old  # cas


OPS = [("add", "u32"), ("min", "u32"), ("max", "u32"), ("min", "s32"), ("max", "s32"), ("and", "b32"),
       ("or", "b32"), ("xor", "b32"), ("exch", "b32"), ("cas", "b32")]


@SETTINGS
@given(st.lists(st.tuples(U32, U32, U32), min_size=32, max_size=32), st.booleans())
def test_shared_atomics_at_distinct_addresses_are_exact(rows, equal_for_cas):
    inputs = [[a, a if equal_for_cas and t % 2 else b, c] for t, (a, b, c) in enumerate(rows)]
    for op, t in OPS:
        srcs = "%r31, %r32" if op == "cas" else "%r31"
        m = launch(SETUP + f"atom.shared.{op}.{t} %r1, [%rd1], {srcs};\nld.shared.u32 %r2, [%rd1];\n"
                   f"red.shared.{op if op != 'cas' else 'add'}.{t} [%rd1], %r31;\nld.shared.u32 %r3, [%rd1];",
                   inputs, decls=SMEM)
        new = [atom_ref(op, t, a, b, c) for a, b, c in inputs]
        assert lanes(m, "%r1") == [a for a, _, _ in inputs], op
        assert lanes(m, "%r2") == new, (op, t)
        red_op = op if op != "cas" else "add"
        assert lanes(m, "%r3") == [atom_ref(red_op, t, v, b, 0) for v, (_, b, _) in zip(new, inputs)], (op, t)


def test_atomics_through_generic_addresses_reach_shared_memory_and_global_lanes_are_unknown():
    body = (SETUP + "cvta.shared.u64 %rd2, %rd1;\nld.param.u64 %rd3, [buf0];\n"
            "and.b32 %r5, %r39, 1;\nsetp.eq.u32 %p1, %r5, 0;\nselp.b64 %rd4, %rd2, %rd3, %p1;\n"
            "atom.add.u32 %r1, [%rd4], 5;\nld.shared.u32 %r2, [%rd1];")
    m = launch(body, [[10 * t] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [10 * t if t % 2 == 0 else None for t in range(32)]
    assert lanes(m, "%r2") == [10 * t + 5 if t % 2 == 0 else 10 * t for t in range(32)]


def test_atomics_of_several_lanes_on_one_word_or_unmodelled_ops_are_unknown():
    body = ("mov.u32 %r37, tile;\ncvt.u64.u32 %rd1, %r37;\nst.shared.u32 [%rd1], 7;\n"
            "atom.shared.add.u32 %r1, [%rd1], 1;\nld.shared.u32 %r2, [%rd1];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32
    m = launch(SETUP + "atom.shared.inc.u32 %r1, [%rd1], 100;\nld.shared.u32 %r2, [%rd1];",
               [[t] for t in range(32)], decls=SMEM)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32


def test_global_atomics_leave_the_result_unknown_and_shared_memory_alone():
    m = launch(SETUP + "ld.param.u64 %rd3, [buf0];\natom.global.add.u32 %r1, [%rd3], 1;\n"
               "red.global.add.u32 [%rd3], 1;\nld.shared.u32 %r2, [%rd1];", [[t] for t in range(32)],
               decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [None] * 32
    assert lanes(m, "%r2") == list(range(32))


def test_vector_atomics_are_refused_naming_the_line():
    err, line = refusal("mov.u64 %rd1, 0;\natom.global.v2.f32.add {%r1, %r2}, [%rd1], {%r3, %r4};", "atom.global")
    assert err.line == line and "vector atomics" in str(err)


def test_red_async_is_listed_outside_the_lsu_and_forgets_the_ctas_shared_memory():
    rec = Recorder()
    body = (SETUP + "mov.u32 %r5, 0;\nred.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 "
            "[%r37], %r5, [%r37];\nld.shared.u32 %r2, [%rd1];")
    m = launch(body, [[t] for t in range(32)], decls=SMEM, recorder=rec)
    assert lanes(m, "%r2") == [None] * 32
    (inc,) = rec.not_lsu.values()
    assert inc.opcode.startswith("red.async") and inc.count == 1


# ----------------------------------------------------------------- cp.async
CP = ("ld.param.u64 %rd3, [buf0];\nmul.wide.u32 %rd5, %r39, 16;\nadd.u64 %rd3, %rd3, %rd5;\n"
      "mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 4;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\n"
      "cvt.u64.u32 %rd1, %r37;\nst.shared.v4.u32 [%rd1], {%r30, %r30, %r30, %r30};\n")


def test_cp_async_src_size_zero_fills_the_tail_and_leaves_read_bytes_unknown():
    m = launch(CP + "cp.async.ca.shared.global [%rd1], [%rd3], 8, %r31;\ncp.async.wait_all;\n"
               "ld.shared.u32 %r1, [%rd1];\nld.shared.u32 %r2, [%rd1+4];\nld.shared.u32 %r3, [%rd1+8];",
               [[0xABCDEF01, [0, 4, 8][t % 3]] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [0 if t % 3 == 0 else None for t in range(32)]
    assert lanes(m, "%r2") == [None if t % 3 == 2 else 0 for t in range(32)]
    assert lanes(m, "%r3") == [0xABCDEF01] * 32  # past cp-size: untouched


def test_cp_async_ignore_src_copies_zeros_where_the_predicate_is_true():
    m = launch(CP + "and.b32 %r5, %r39, 1;\nsetp.eq.u32 %p1, %r5, 1;\n"
               "cp.async.cg.shared.global [%rd1], [%rd3], 16, %p1;\ncp.async.commit_group;\n"
               "cp.async.wait_group 0;\nld.shared.u32 %r1, [%rd1+12];",
               [[5] for _ in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [0 if t % 2 else None for t in range(32)]


def test_cp_async_with_cache_hint_reads_src_size_not_the_policy():
    m = launch(CP + "mov.u64 %rd6, 0;\n"
               "cp.async.ca.shared.global.L2::cache_hint [%rd1], [%rd3], 8, 4, %rd6;\nld.shared.u32 %r1, [%rd1];\n"
               "ld.shared.u32 %r2, [%rd1+4];\ncp.async.ca.shared.global.L2::cache_hint [%rd1+8], [%rd3], 4, %rd6;\n"
               "ld.shared.u32 %r3, [%rd1+8];", [[5] for _ in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [None] * 32
    assert lanes(m, "%r2") == [0] * 32
    assert lanes(m, "%r3") == [None] * 32


def test_cp_async_with_an_unknown_source_or_src_size_is_recorded_data_dependent():
    rec = Recorder()
    m = launch(CP + "ld.global.u64 %rd7, [%rd3];\nld.global.u32 %r7, [%rd3];\n"
               "cp.async.ca.shared.global [%rd1], [%rd7], 4;\ncp.async.ca.shared.global [%rd1+4], [%rd3], 4, %r7;\n"
               "ld.shared.u32 %r1, [%rd1+12];", [[5] for _ in range(32)], decls=SMEM, buffers=1, recorder=rec)
    found = sorted((inc.reason.split(" unknown")[0], inc.count, inc.lanes) for inc in rec.data_dependent.values())
    assert found == [("cp.async global source address", 1, 32), ("cp.async src-size", 1, 32)]  # warps, lanes
    assert lanes(m, "%r1") == [None] * 32  # the CTA's shared memory is forgotten


def test_malformed_cp_forms_are_refused_naming_the_line():
    cases = [("cp.async.shared.global [%rd1], [%rd3], 4;", "needs .ca or .cg"),
             ("cp.async.ca.shared.global [%rd1], [%rd3], %r1;", "immediate cp-size"),
             ("cp.async.cg.shared.global [%rd1], [%rd3], 8;", "cp-size 8"),
             ("cp.async.ca.shared.global [%rd1], [%rd3], 2;", "cp-size 2"),
             ("cp.reduce.shared.global [%rd1], [%rd3], 4;", "unknown cp instruction")]
    for text, words in cases:
        err, line = refusal(text, text.split(" ")[0])
        assert err.line == line and words in str(err), text


def test_vector_reductions_are_refused_naming_the_line():
    err, line = refusal("mov.u64 %rd1, 0;\nred.global.add.v4.f32 [%rd1], {%r1, %r2, %r3, %r4};", "red.global")
    assert err.line == line and "vector atomics" in str(err)


def test_mbarrier_waits_report_completion_and_arrive_states_are_unknown():
    rec = Recorder()
    body = ("mov.u32 %r37, tile;\nmbarrier.init.shared.b64 [%r37], 32;\n"
            "mbarrier.arrive.shared.b64 %rd2, [%r37];\nmbarrier.try_wait.shared.b64 %p1, [%r37], %rd2;\n"
            "mbarrier.test_wait.shared.b64 %p2, [%r37], %rd2;")
    m = launch(body, decls=SMEM, recorder=rec)
    assert lanes(m, "%rd2") == [None] * 32
    assert lanes(m, "%p1") == [1] * 32 and lanes(m, "%p2") == [1] * 32
    assert {inc.opcode.split(".")[1] for inc in rec.not_lsu.values()} == {"init", "arrive", "try_wait", "test_wait"}


def test_a_bulk_copy_into_shared_memory_forgets_the_ctas_shared_memory():
    body = (SETUP + "ld.param.u64 %rd3, [buf0];\n"
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r37], [%rd3], 16, [%r37];\n"
            "ld.shared.u32 %r2, [%rd1];")
    m = launch(body, [[t] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r2") == [None] * 32
    body = (SETUP + "ld.param.u64 %rd3, [buf0];\ncp.async.bulk.global.shared::cta.bulk_group [%rd3], [%r37], 16;\n"
            "ld.shared.u32 %r2, [%rd1];")
    m = launch(body, [[t] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r2") == list(range(32))


def test_a_64_bit_shared_atomic_adds_across_all_eight_bytes():
    body = ("mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 3;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\n"
            "cvt.u64.u32 %rd1, %r37;\nst.shared.u64 [%rd1], 0xFFFFFFFFFFFFFFFF;\n"
            "atom.shared.add.u64 %rd2, [%rd1], 2;\nld.shared.u64 %rd6, [%rd1];\nld.shared.u32 %r2, [%rd1+8];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%rd2") == [2**64 - 1] * 32
    assert lanes(m, "%rd6") == [1] * 32


# ----------------------------------------------------------------- addresses unknown at trace time
UNKNOWN_PTR = "ld.param.u64 %rd3, [buf0];\nld.global.u64 %rd4, [%rd3];\n"  # %rd4: loaded, unknown to the trace


def test_a_generic_atomic_with_an_unknown_address_may_write_shared_memory():
    # a generic address loaded from global memory may lie in the shared window (ISA "Generic Addressing"):
    # whether the atomic writes shared memory is data-dependent, as for a generic st
    rec = Recorder()
    m = launch(SETUP + UNKNOWN_PTR + "atom.add.u32 %r1, [%rd4], 5;\nld.shared.u32 %r2, [%rd1];",
               [[t] for t in range(32)], decls=SMEM, buffers=1, recorder=rec)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32
    (inc,) = rec.data_dependent.values()
    assert (inc.opcode, inc.scope, inc.count, inc.lanes) == ("atom.add.u32", "execution", 1, 32)


def test_a_shared_atomic_with_an_unknown_address_forgets_the_ctas_shared_memory():
    rec = Recorder()
    m = launch(SETUP + UNKNOWN_PTR + "cvt.u32.u64 %r5, %rd4;\nred.shared.add.u32 [%r5], 5;\nld.shared.u32 %r2, [%rd1];",
               [[t] for t in range(32)], decls=SMEM, buffers=1, recorder=rec)
    assert lanes(m, "%r2") == [None] * 32
    (inc,) = rec.data_dependent.values()
    assert (inc.opcode, inc.scope, inc.count, inc.lanes) == ("red.shared.add.u32", "address", 1, 32)


def test_shared_atomic_records_say_whether_the_address_was_generic():
    rec = Recorder()
    launch(SETUP + "cvta.shared.u64 %rd2, %rd1;\natom.add.u32 %r1, [%rd2], 1;\natom.shared.add.u32 %r2, [%rd1], 1;",
           [[t] for t in range(32)], decls=SMEM, recorder=rec)
    atoms = [(r.opcode, r.generic) for r in rec.accesses if r.opcode.startswith("atom")]
    assert atoms == [("atom.add.u32", True), ("atom.shared.add.u32", False)]


def test_a_generic_reduction_on_global_addresses_leaves_shared_memory_alone():
    m = launch(SETUP + "ld.param.u64 %rd3, [buf0];\nred.add.u32 [%rd3], 1;\nld.shared.u32 %r2, [%rd1];",
               [[t] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r2") == list(range(32))


def test_a_predicated_off_lane_keeps_its_generic_atomics_destination():
    body = (SETUP + "mov.u32 %r1, 77;\nld.param.u64 %rd3, [buf0];\nsetp.lt.u32 %p1, %r39, 16;\n"
            "@%p1 atom.add.u32 %r1, [%rd3], 5;")
    m = launch(body, [[t] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [None] * 16 + [77] * 16  # global results are unknown; lanes 16.. did not run


def test_an_atomic_on_a_word_of_unknown_value_stores_an_unknown_value():
    body = ("mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 2;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\n"
            "atom.shared.add.u32 %r1, [%r37], 5;\nld.shared.u32 %r2, [%r37];\n"  # never written: unknown
            + UNKNOWN_PTR + "cvt.u32.u64 %r6, %rd4;\nst.shared.u32 [%r37+128], 9;\n"
            "atom.shared.add.u32 %r3, [%r37+128], %r6;\nld.shared.u32 %r4, [%r37+128];")
    m = launch(body, decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [None] * 32 and lanes(m, "%r2") == [None] * 32
    assert lanes(m, "%r3") == [9] * 32 and lanes(m, "%r4") == [None] * 32


def test_shared_atomics_of_two_ctas_on_the_same_offset_are_exact():
    # each CTA has its own shared memory: the same offset in two CTAs is two words
    from kernel_interp_harness import ptx_text

    from layoutalg.kernel.interp.geometry import Geometry
    from layoutalg.kernel.interp.program import build_image, run
    from layoutalg.kernel.ptx.parser import parse_module

    body = ("mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 2;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\n"
            "mov.u32 %r36, %ctaid.x;\nadd.u32 %r35, %r39, %r36;\nst.shared.u32 [%r37], %r35;\n"
            "atom.shared.add.u32 %r1, [%r37], 100;\nld.shared.u32 %r2, [%r37];")
    module = parse_module(ptx_text(body, 32, SMEM))
    table = b"".join((0).to_bytes(4, "little") * 4 + (1).to_bytes(4, "little") for _ in range(32))
    image = build_image(module, module.entries["k"], table, {"tab": 0}, 0, 0)
    m = run(image, Geometry((2, 1, 1), (32, 1, 1), [(0, 0, 0), (1, 0, 0)]), Recorder(), 100_000)
    assert lanes(m, "%r1") == [t + c for c in range(2) for t in range(32)]
    assert lanes(m, "%r2") == [t + c + 100 for c in range(2) for t in range(32)]


def test_vector_atomics_are_refused_by_either_sign_of_a_vector():
    for text in ("red.global.add.v2.f32 [%rd1], %r3;", "red.global.add.f32 [%rd1], {%r3, %r4};"):
        err, line = refusal("mov.u64 %rd1, 0;\n" + text, "red.global")
        assert err.line == line and "vector atomics" in str(err), text


# ----------------------------------------------------------------- cp.async, more forms
def test_cp_async_data_dependence_counts_warps_and_lanes_of_two_warps():
    rec = Recorder()
    launch(CP + "ld.global.u64 %rd7, [%rd3];\nld.global.u32 %r7, [%rd3];\n"
           "cp.async.ca.shared.global [%rd1], [%rd7], 4;\ncp.async.ca.shared.global [%rd1+4], [%rd3], 4, %r7;",
           [[5] for _ in range(64)], decls=".shared .align 16 .b8 tile[2048];", buffers=1, recorder=rec)
    found = sorted((inc.reason.split(" unknown")[0], inc.count, inc.lanes) for inc in rec.data_dependent.values())
    assert found == [("cp.async global source address", 2, 64), ("cp.async src-size", 2, 64)]


def test_cp_async_from_an_unknown_source_leaves_its_zero_tail_unknown_too():
    m = launch(CP + "ld.global.u64 %rd7, [%rd3];\ncp.async.ca.shared.global [%rd1], [%rd7], 8, 4;\n"
               "ld.shared.u32 %r1, [%rd1+4];", [[5] for _ in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [None] * 32


def test_cp_async_with_an_undefined_src_size_register_is_data_dependent():
    rec = Recorder()
    m = launch(CP + "cp.async.ca.shared.global [%rd1], [%rd3], 8, %r9;\nld.shared.u32 %r1, [%rd1+4];",
               [[5] for _ in range(32)], decls=SMEM, buffers=1, recorder=rec)
    assert lanes(m, "%r1") == [None] * 32
    assert [inc.reason.split(" unknown")[0] for inc in rec.data_dependent.values()] == ["cp.async src-size"]


def test_cp_async_lanes_predicated_off_write_no_zero_tail():
    body = (CP + "ld.global.u32 %r7, [%rd3];\nsetp.lt.u32 %p1, %r39, 16;\nselp.b32 %r8, %r7, 4, %p1;\n"
            "setp.ne.u32 %p2, %r39, 20;\n@%p2 cp.async.ca.shared.global [%rd1], [%rd3], 8, %r8;\n"
            "ld.shared.u32 %r1, [%rd1+4];")
    m = launch(body, [[5] for _ in range(32)], decls=SMEM, buffers=1)
    # lane 0..15: src-size unknown, so the CTA's shared memory is unknown; lane 20 did not run: no zeros
    got = lanes(m, "%r1")
    assert got[20] is None and got[:16] == [None] * 16


def test_cp_async_ignore_src_copies_zeros_into_every_byte():
    m = launch(CP + "setp.eq.u32 %p1, %r39, %r39;\ncp.async.ca.shared.global [%rd1], [%rd3], 16, %p1;\n"
               "ld.shared.u32 %r1, [%rd1];\nld.shared.u32 %r2, [%rd1+12];", [[5] for _ in range(32)],
               decls=SMEM, buffers=1)
    assert lanes(m, "%r1") == [0] * 32 and lanes(m, "%r2") == [0] * 32


# ----------------------------------------------------------------- outside the LSU pipe, guarded
GUARD = "ld.param.u64 %rd3, [buf0];\nld.global.u32 %r9, [%rd3];\nsetp.eq.u32 %p3, %r9, 0;\n"  # %p3 unknown


def test_a_red_async_under_an_unknown_guard_forgets_the_ctas_shared_memory():
    body = (SETUP + GUARD + "mov.u32 %r5, 0;\n@%p3 red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes"
            ".add.u32 [%r37], %r5, [%r37];\nld.shared.u32 %r2, [%rd1];")
    m = launch(body, [[t] for t in range(32)], decls=SMEM, buffers=1)
    assert lanes(m, "%r2") == [None] * 32


def test_an_mbarrier_wait_under_an_unknown_guard_leaves_its_predicate_unknown():
    body = ("mov.u32 %r37, tile;\nmbarrier.init.shared.b64 [%r37], 32;\nmov.u64 %rd2, 0;\nsetp.eq.u32 %p1, 1, 1;\n"
            + GUARD + "@%p3 mbarrier.try_wait.shared.b64 %p1, [%r37], %rd2;")
    m = launch(body, decls=SMEM, buffers=1)
    assert lanes(m, "%p1") == [None] * 32


def test_wgmma_results_are_unknown_and_its_descriptors_unchanged():
    body = ("mov.b32 %r1, 0;\nmov.b32 %r2, 0;\nmov.b32 %r3, 0;\nmov.b32 %r4, 0;\nmov.b64 %rd1, 7;\nmov.b64 %rd2, 9;\n"
            "wgmma.fence.sync.aligned;\n"
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1, %r2, %r3, %r4}, %rd1, %rd2, 1, 1, 1, 0, 0;\n"
            "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;")
    m = launch(body, threads=128)
    for r in ("%r1", "%r2", "%r3", "%r4"):
        assert lanes(m, r) == [None] * 128, r
    assert lanes(m, "%rd1") == [7] * 128 and lanes(m, "%rd2") == [9] * 128


# ----------------------------------------------------------------- cp.async, partial warps and unknown operands
def test_cp_async_under_a_guard_changes_only_the_bytes_of_its_executing_lanes():
    # odd lanes copy: 4 global bytes (unknown) at +0, 8 zero bytes (src-size 0) at +8; even lanes keep the stored 7
    m = launch(CP + "and.b32 %r5, %r39, 1;\nsetp.eq.u32 %p1, %r5, 1;\n@%p1 cp.async.ca.shared.global [%rd1], [%rd3], 4;\n"
               "@%p1 cp.async.ca.shared.global [%rd1+8], [%rd3], 8, 0;\nld.shared.u32 %r1, [%rd1];\n"
               "ld.shared.u32 %r2, [%rd1+8];\nld.shared.u32 %r3, [%rd1+4];", [[7] for _ in range(32)], decls=SMEM,
               buffers=1)
    assert lanes(m, "%r1") == [None if t % 2 else 7 for t in range(32)]
    assert lanes(m, "%r2") == [0 if t % 2 else 7 for t in range(32)]
    assert lanes(m, "%r3") == [7] * 32  # between the two copies: untouched


def test_cp_async_to_an_unknown_shared_address_forgets_the_ctas_shared_memory():
    rec = Recorder()
    m = launch(CP + "ld.global.u32 %r7, [%rd3];\ncvt.u64.u32 %rd7, %r7;\ncp.async.ca.shared.global [%rd7], [%rd3], 4;\n"
               "ld.shared.u32 %r1, [%rd1];", [[7] for _ in range(32)], decls=SMEM, buffers=1, recorder=rec)
    assert lanes(m, "%r1") == [None] * 32  # the copy may have landed on any lane's word
    found = [(inc.reason.split(" depends")[0], inc.count, inc.lanes) for inc in rec.data_dependent.values()]
    assert found == [("cp.async destination address", 1, 32)]


def test_cp_async_from_a_never_written_source_register_is_data_dependent():
    rec = Recorder()
    m = launch(CP + "cp.async.ca.shared.global [%rd1], [%rd9], 4;\nld.shared.u32 %r1, [%rd1+4];",
               [[7] for _ in range(32)], decls=SMEM, buffers=1, recorder=rec)
    found = [(inc.reason.split(" unknown")[0], inc.count, inc.lanes) for inc in rec.data_dependent.values()]
    assert found == [("cp.async global source address", 1, 32)]
    assert lanes(m, "%r1") == [None] * 32  # the CTA's shared memory is forgotten


def test_cp_async_under_an_unknown_guard_is_recorded_data_dependent():
    rec = Recorder()
    m = launch(CP + "ld.global.u32 %r9, [%rd3];\nsetp.eq.u32 %p3, %r9, 0;\n@%p3 cp.async.ca.shared.global [%rd1], [%rd3], 4;\n"
               "ld.shared.u32 %r1, [%rd1+4];", [[7] for _ in range(32)], decls=SMEM, buffers=1, recorder=rec)
    found = [(inc.reason.split(" unknown")[0], inc.count, inc.lanes) for inc in rec.data_dependent.values()]
    assert found == [("guard predicate", 1, 32)]
    assert lanes(m, "%r1") == [None] * 32


def test_cp_async_without_a_cp_size_operand_is_refused_naming_the_line():
    err, line = refusal("cp.async.ca.shared.global [%rd1], [%rd3];", "cp.async")
    assert err.line == line and "immediate cp-size" in str(err)
