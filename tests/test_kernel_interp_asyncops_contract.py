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
