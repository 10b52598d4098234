"""ldmatrix/stmatrix forms the tracer models (matrixops.py): only .m8n8 with .b16 elements, exactly one of
.x1/.x2/.x4, and as many registers as matrices (PTX ISA 8.x "ldmatrix", "stmatrix"); anything else is
refused naming the line."""

from __future__ import annotations

from typing import Any

import pytest
from kernel_interp_harness import lanes, refusal

from layoutalg.kernel.records import Recorder

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


# ---------------------------------------------------------------- fragments against the ISA, two CTAs of 32 warps
THREADS, CTAS = 1024, 2
BIG = ".shared .align 16 .b8 tile[16384];"
#: per thread: %r30..%r33 = its four words (distinct per thread, CTA and word), %r6 = tile, %r7 = tile + 16 tid,
#: %r10 = lane, %r11 = warp; then row r's address for lane t is tile + 16 ROW(t) (a permutation of the rows)
PRELUDE = ("mov.u32 %r36, %ctaid.x;\nmul.lo.u32 %r36, %r36, 7919;\nmad.lo.u32 %r30, %r39, 40503, %r36;\n"
           "add.u32 %r31, %r30, 1000003;\nadd.u32 %r32, %r30, 2000006;\nadd.u32 %r33, %r30, 3000009;\n"
           "mul.lo.u32 %r30, %r30, 747796405;\nmul.lo.u32 %r31, %r31, 747796405;\n"
           "mul.lo.u32 %r32, %r32, 747796405;\nmul.lo.u32 %r33, %r33, 747796405;\n"
           "mov.u32 %r6, tile;\nshl.b32 %r5, %r39, 4;\nadd.u32 %r7, %r6, %r5;\n"
           "and.b32 %r10, %r39, 31;\nshr.u32 %r11, %r39, 5;\n"
           "mul.lo.u32 %r8, %r39, 7;\nadd.u32 %r8, %r8, 3;\nand.b32 %r8, %r8, 1023;\nshl.b32 %r8, %r8, 4;\n"
           "add.u32 %r8, %r8, %r6;\n")


def _word(t: int, c: int, k: int) -> int:
    return (((t * 40503 + c * 7919) % (1 << 32) + k * 1000003) * 747796405) % (1 << 32)


def _row(t: int) -> int:
    return (7 * t + 3) % THREADS


def _half(word: int, h: int) -> int:
    return (word >> (16 * h)) & 0xFFFF


def _run_ctas(body: str, recorder: Recorder | None = None) -> Any:
    from kernel_interp_harness import ptx_text

    from layoutalg.kernel.interp.geometry import Geometry
    from layoutalg.kernel.interp.program import build_image, run
    from layoutalg.kernel.ptx.parser import parse_module

    module = parse_module(ptx_text(body, THREADS, BIG))
    table = b"".join(bytes(16) + (1).to_bytes(4, "little") for _ in range(THREADS))
    image = build_image(module, module.entries["k"], table, {"tab": 0}, 0, 0)
    return run(image, Geometry((CTAS, 1, 1), (THREADS, 1, 1), [(c, 0, 0) for c in range(CTAS)]),
               recorder or Recorder(), 1_000_000)


def _unused_lanes_misaligned(count: int) -> str:
    """Lanes past 8 * count get a misaligned row address: the ISA ignores their addresses (.x1: threads 0-7
    supply them, .x2: threads 0-15)."""
    return f"setp.ge.u32 %p2, %r10, {8 * count};\n@%p2 add.u32 %r8, %r6, 1;\n"


@pytest.mark.parametrize("unknown_warp", [None, 5])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_gives_every_lane_the_isa_fragment_in_each_cta(count: int, trans: bool, unknown_warp: int | None):
    """ISA ldmatrix .m8n8 .b16: register j of lane t holds (M_j[t/4][2(t%4)], M_j[t/4][2(t%4)+1]), with .trans
    (M_j[2(t%4)][t/4], M_j[2(t%4)+1][t/4]), where row r of M_j is the 8 halves at the address lane 8j + r
    supplies.  Each CTA reads its own shared memory; a warp whose row addresses are unknown gets unknown
    fragments, the other warps stay exact; the recorded access is the 16-byte rows of the lanes that supply
    addresses."""
    regs = ["%r1", "%r2", "%r3", "%r4"][:count]
    unknown = "" if unknown_warp is None else (
        f"ld.global.u32 %r9, [%rd14];\nsetp.eq.u32 %p3, %r11, {unknown_warp};\n@%p3 add.u32 %r8, %r8, %r9;\n")
    body = (PRELUDE + "st.shared.v4.u32 [%r7], {%r30, %r31, %r32, %r33};\nbar.sync 0;\n"
            + _unused_lanes_misaligned(count) + unknown
            + f"ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 {{{', '.join(regs)}}}, [%r8];")
    rec = Recorder()
    m = _run_ctas(body, rec)
    for j, reg in enumerate(regs):
        got = lanes(m, reg)
        want: list[int | None] = []
        for c in range(CTAS):
            for t in range(THREADS):
                w, lane = divmod(t, 32)
                if w == unknown_warp:
                    want.append(None)
                    continue
                base = 32 * w + 8 * j
                if not trans:
                    want.append(_word(_row(base + lane // 4), c, lane % 4))
                else:
                    col = lane // 4
                    lo = _word(_row(base + 2 * (lane % 4)), c, col // 2)
                    hi = _word(_row(base + 2 * (lane % 4) + 1), c, col // 2)
                    want.append(_half(lo, col % 2) | _half(hi, col % 2) << 16)
        assert got == want, (reg, [i for i, (g, x) in enumerate(zip(got, want)) if g != x][:8])
    (r,) = [r for r in rec.accesses if r.kind == "ldmatrix"]
    assert r.access_bytes == 16
    costed = [w for w in range(CTAS * THREADS // 32) if w % 32 != unknown_warp]
    rows = {int(w): a for w, a in zip(r.warps, r.active)}
    for w in costed:
        assert rows[w].tolist() == [lane < 8 * count for lane in range(32)], w


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_stmatrix_writes_every_lane_fragment_where_the_isa_puts_it_in_each_cta(count: int, trans: bool):
    """ISA stmatrix .m8n8 .b16 (the inverse of ldmatrix): element M_j[r][e] goes to the address lane 8j + r supplies,
    plus 2e bytes; it comes from lane 4r + e/2, half e%2 of register j (with .trans from lane 4e + r/2, half r%2).
    Rows no lane addresses keep their zeros; each CTA writes its own shared memory."""
    regs = ["%r30", "%r31", "%r32", "%r33"][:count]
    body = (PRELUDE + "mov.u32 %r20, 0;\nst.shared.v4.u32 [%r7], {%r20, %r20, %r20, %r20};\nbar.sync 0;\n"
            + _unused_lanes_misaligned(count)
            + f"stmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 [%r8], {{{', '.join(regs)}}};\n"
            "bar.sync 0;\nld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r7];")
    m = _run_ctas(body)
    halves = [[0] * (THREADS * 8) for _ in range(CTAS)]  # per CTA: the tile as halves
    for c in range(CTAS):
        for w in range(THREADS // 32):
            for j in range(count):
                for r in range(8):
                    row = _row(32 * w + 8 * j + r)
                    for e in range(8):
                        lane, h = (4 * e + r // 2, r % 2) if trans else (4 * r + e // 2, e % 2)
                        halves[c][8 * row + e] = _half(_word(32 * w + lane, c, j), h)
    for k, reg in enumerate(["%r1", "%r2", "%r3", "%r4"]):
        want = [halves[c][8 * t + 2 * k] | halves[c][8 * t + 2 * k + 1] << 16 for c in range(CTAS) for t in range(THREADS)]
        assert lanes(m, reg) == want, reg


@pytest.mark.parametrize("op", ["ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r8];",
                                "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r8], {%r1, %r2, %r3, %r4};"])
def test_a_matrix_row_one_byte_past_shared_memory_or_off_16_byte_alignment_is_refused(op: str):
    """Each row is 16 bytes and its address must be 16-byte aligned (ISA ldmatrix/stmatrix): a row starting 16
    bytes before the end of a 1023-byte shared memory overruns it by one byte; an address one byte past a
    16-byte boundary is misaligned."""
    decls = ".shared .align 16 .b8 tile[1023];"
    for start, words in [(1008, "outside the CTA's shared memory"), (17, "misaligned shared-memory address")]:
        body = f"mov.u32 %r8, tile;\nadd.u32 %r8, %r8, {start};\n" + op
        err, line = refusal(body, op.split(".")[0] + ".sync", decls=decls)
        assert err.line == line and words in str(err), (op, start)
    ok = "mov.u32 %r8, tile;\nadd.u32 %r8, %r8, 992;\n" + op  # the last whole row is accepted
    from kernel_interp_harness import launch

    launch(ok, decls=decls)


def test_stmatrix_under_an_unknown_guard_makes_the_ctas_shared_memory_unknown():
    """Whether a guarded stmatrix stores at all is data-dependent, so every word of the CTA's shared memory may
    have changed; with a known-false guard the words stay known."""
    from kernel_interp_harness import launch

    body = ("mov.u32 %r6, tile;\nst.shared.u32 [%r6+512], 41;\nand.b32 %r5, %r39, 7;\nshl.b32 %r5, %r5, 4;\n"
            "add.u32 %r8, %r6, %r5;\nld.global.u32 %r9, [%rd14];\nsetp.eq.u32 %p1, %r9, 1;\nbar.sync 0;\n"
            "@%p1 stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r8], {%r30};\nbar.sync 0;\nld.shared.u32 %r1, [%r6+512];")
    assert lanes(launch(body, decls=SMEM), "%r1") == [None] * 32
    known = body.replace("setp.eq.u32 %p1, %r9, 1;", "setp.eq.u32 %p1, %r39, 99;")
    assert lanes(launch(known, decls=SMEM), "%r1") == [41] * 32
