"""ldmatrix/stmatrix forms the tracer models (matrixops.py): only .m8n8 with .b16 elements, exactly one of
.x1/.x2/.x4, and as many registers as matrices (PTX ISA 8.x "ldmatrix", "stmatrix"); anything else is
refused naming the line."""

from __future__ import annotations

from kernel_interp_harness import refusal

SMEM = ".shared .align 16 .b8 tile[1024];"


def test_unsupported_ldmatrix_and_stmatrix_forms_are_refused_naming_the_line():
    cases = [("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1}, [tile];", "m8n8 .b16 shape"),
             ("ldmatrix.sync.aligned.m8n8.shared.b16 {%r1}, [tile];", "exactly one of .x1 .x2 .x4"),
             ("ldmatrix.sync.aligned.m8n8.x1.x2.shared.b16 {%r1}, [tile];", "exactly one of .x1 .x2 .x4"),
             ("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [tile];", "needs 2 destination registers"),
             ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 %r1, [tile];", "needs 4 destination registers"),
             ("stmatrix.sync.aligned.m8n8.x4.shared.b16 [tile], {%r1, %r2};", "needs 4 source registers"),
             ("stmatrix.sync.aligned.m8n8.x1.shared.b8 [tile], {%r1};", "m8n8 .b16 shape")]
    for text, words in cases:
        err, line = refusal(text, text, decls=SMEM)
        assert err.line == line and words in str(err), text


def test_ldmatrix_x4_gives_each_lane_its_row_words_and_a_warp_with_unknown_row_addresses_unknown():
    """ISA ldmatrix (.m8n8 .b16, no .trans): matrix j's row r address comes from lane 8j + r; lane t receives
    elements 2(t%4), 2(t%4)+1 of row t/4, i.e. 32-bit word t%4 of that 16-byte row.  Warp 1's row addresses
    are unknown: its fragments are unknown, warp 0's stay exact."""
    from kernel_interp_harness import lanes, launch

    body = ("mov.u32 %r39, %tid.x;\nshl.b32 %r5, %r39, 4;\nmov.u32 %r6, tile;\nadd.u32 %r7, %r6, %r5;\n"
            "st.shared.v4.u32 [%r7], {%r30, %r31, %r32, %r33};\nbar.sync 0;\n"
            "mul.lo.u32 %r8, %r39, 7;\nadd.u32 %r8, %r8, 3;\nand.b32 %r8, %r8, 63;\nshl.b32 %r8, %r8, 4;\n"
            "add.u32 %r8, %r8, %r6;\nld.global.u32 %r9, [%rd14];\nsetp.ge.u32 %p1, %r39, 32;\n"
            "@%p1 add.u32 %r8, %r8, %r9;\n"
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r8];")
    words = [[(t * 2654435761 + 97 * w) % (1 << 32) for w in range(4)] for t in range(64)]
    m = launch(body, words, decls=SMEM)

    def row(lane: int) -> int:
        return (lane * 7 + 3) % 64

    for j, reg in enumerate(["%r1", "%r2", "%r3", "%r4"]):
        got = lanes(m, reg)
        assert got[:32] == [words[row(8 * j + t // 4)][t % 4] for t in range(32)], reg
        assert got[32:] == [None] * 32, reg


def test_stmatrix_by_a_warp_with_unknown_row_addresses_makes_the_ctas_shared_memory_unknown():
    from kernel_interp_harness import lanes, launch

    body = ("mov.u32 %r39, %tid.x;\nmov.u32 %r6, tile;\nst.shared.u32 [%r6+1020], 41;\nbar.sync 0;\n"
            "and.b32 %r5, %r39, 7;\nshl.b32 %r5, %r5, 4;\nadd.u32 %r8, %r6, %r5;\n"
            "ld.global.u32 %r9, [%rd14];\nsetp.ge.u32 %p1, %r39, 32;\n@%p1 add.u32 %r8, %r8, %r9;\n"
            "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r8], {%r30};\nbar.sync 0;\nld.shared.u32 %r1, [%r6+1020];")
    m = launch(body, [[t] for t in range(64)], decls=SMEM)
    assert lanes(m, "%r1") == [None] * 64
    m = launch(body.replace("ld.global.u32 %r9, [%rd14];", "mov.u32 %r9, 0;"), [[t] for t in range(64)],
               decls=SMEM)
    assert lanes(m, "%r1") == [41] * 64  # known rows elsewhere leave the word alone


def test_an_ldmatrix_warp_with_an_unknown_row_address_is_recorded_data_dependent_not_costed():
    from kernel_interp_harness import launch

    from layoutalg.kernel.records import Recorder

    body = ("mov.u32 %r39, %tid.x;\nand.b32 %r5, %r39, 31;\nshl.b32 %r5, %r5, 4;\nmov.u32 %r6, tile;\n"
            "add.u32 %r8, %r6, %r5;\nld.global.u32 %r9, [%rd14];\nsetp.eq.u32 %p1, %r39, 40;\n"
            "@%p1 add.u32 %r8, %r8, %r9;\nldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r8];")
    rec = Recorder()
    launch(body, [[0] for _ in range(64)], decls=SMEM, recorder=rec)
    (r,) = [r for r in rec.accesses if r.kind == "ldmatrix"]
    assert r.warps.tolist() == [0, 1]
    assert r.active.sum(axis=1).tolist() == [32, 0]  # warp 1 (one unknown row address) is not costed
    assert r.dropped is not None and r.dropped.tolist() == [False, True]


def test_stmatrix_trans_lanes_storing_equal_halves_to_one_address_leave_it_known():
    """.trans: lane t's low half is element (t/4, 2(t%4)), stored at row 2(t%4)'s address + 2(t/4).  Rows 0
    and 2 share an address, so lanes 4r and 4r+1 store their low halves to one place: equal halves (their high
    halves differ) are no race, and the value stays known."""
    from kernel_interp_harness import lanes, launch

    body = ("mov.u32 %r39, %tid.x;\nmov.u32 %r6, tile;\nshl.b32 %r5, %r39, 4;\nsetp.eq.u32 %p1, %r39, 2;\n"
            "selp.b32 %r5, 0, %r5, %p1;\nadd.u32 %r8, %r6, %r5;\nand.b32 %r7, %r39, 1;\nshl.b32 %r7, %r7, 16;\n"
            "or.b32 %r7, %r7, 5;\nstmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r8], {%r7};\nbar.sync 0;\n"
            "ld.shared.u16 %r1, [%r6];\nld.shared.u16 %r2, [%r6+2];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r1") == [5] * 32 and lanes(m, "%r2") == [5] * 32
