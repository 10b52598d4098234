"""banks.analyze / suggest_swizzle / conflict_free against per-lane evaluation with the layout's own __call__.

Reference values come from calling the layout per lane (core/swizzle code, not ours) and the scalar model
(itself replayed against every hardware measurement in test_banks_model.py), or from formulas written here.
"""

from __future__ import annotations

import pytest

from layoutalg.banks import analyze, conflict_free, suggest_swizzle, wavefronts
from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.core.layout import Layout
from layoutalg.errors import CoordinateError, LayoutError
from layoutalg.prove.expr import param
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

LDSM_X4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"


def a_operand(lane, warp, k, i):
    return warp * 32 + (i // 2) * 16 + lane % 16, k * 32 + (i % 2) * 16 + (lane // 16) * 8


def per_lane_reference(layout, fn, ins, ebytes, **ranges):
    """Wavefronts of every instance by calling the layout once per lane (plain Python)."""
    import itertools

    names = list(ranges)
    out = {}
    for values in itertools.product(*[range(ranges[n]) for n in names]):
        params = dict(zip(names, values))
        addrs = [ebytes * layout(*fn(lane, **params)) for lane in range(32)]
        out[values] = wavefronts(ins, addrs)
    return out


@pytest.mark.parametrize("layout, per_instr", [
    (Layout((128, 128), (128, 1)), 32),                                        # 256-byte rows: 8-way per matrix
    (ComposedLayout(Swizzle(3, 3, 4), 0, Layout((128, 128), (128, 1))), 4),
    (ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, 128), (128, 1))), 8),   # calibration: Sw<3,3,3> pitch 128h = 8
    (Layout((128, 128), (136, 1)), 4),                                         # +8 halves of padding
])
def test_analyze_matches_per_lane_evaluation(layout, per_instr):
    acc = Access.from_fn(LDSM_X4, a_operand, warp=4, k=4, i=4)
    res = analyze(layout, acc, dtype="f16")
    ref = per_lane_reference(layout, a_operand, LDSM_X4, 2, warp=4, k=4, i=4)
    assert res.wavefronts.shape == (4, 4, 4)
    assert {(w, k, i): int(res.wavefronts[w, k, i]) for (w, k, i) in ref} == ref
    assert set(ref.values()) == {per_instr}
    assert res.total_ideal == 64 * 4
    assert res.conflict_free == (per_instr == 4)


def test_textbook_cases_through_analyze():
    tile64 = Layout((64, 64), (64, 1))
    assert analyze(tile64, LDSM_X4, dtype="f16").wavefronts.max() == 32
    sw = ComposedLayout(Swizzle(3, 3, 3), 0, tile64)
    assert analyze(sw, LDSM_X4, dtype="f16").conflict_free
    col = analyze(Layout((32, 32), (32, 1)), "ld.shared.b32", dtype="f32", by="column")
    assert set(col.wavefronts.ravel().tolist()) == {32}
    padded = analyze(Layout((32, 32), (33, 1)), "ld.shared.b32", dtype="f32", by="column")
    assert padded.conflict_free and padded.total == 32


def test_conflict_bits_and_worst():
    res = analyze(Layout((64, 64), (64, 1)), LDSM_X4, dtype="f16")
    # 8 rows 128 bytes apart collide: their byte addresses differ in bits 7, 8, 9 only
    assert set(res.conflict_bits()) == {7, 8, 9}
    (idx, wf, ideal), *_ = res.worst(1)
    assert (wf, ideal) == (32, 4) and set(idx) == {"row_block", "col_block"}
    rep = res.report(**idx)
    assert rep.wavefronts == 32
    with pytest.raises(CoordinateError):
        res.report(row_block=0)


def test_access_and_layout_errors():
    with pytest.raises(CoordinateError):
        analyze(Layout((16, 16), (16, 1)), Access.from_fn(LDSM_X4, lambda lane: (lane, 0)), dtype="f16")
    with pytest.raises(CoordinateError):
        analyze(Layout(256, 1), Access.from_fn(LDSM_X4, lambda lane: (lane % 16, 0)), dtype="f16")
    with pytest.raises(LayoutError):
        Access(LDSM_X4, [[0, 0]] * 31)
    with pytest.raises(LayoutError):
        Access.from_fn(LDSM_X4, lambda lane, k: (lane, k), k=0)
    with pytest.raises(LayoutError):
        tile_access(LDSM_X4, (64, 40), "f16")
    with pytest.raises(LayoutError):
        analyze(Layout((64, 64), (64, 1)), LDSM_X4)  # no dtype
    with pytest.raises(LayoutError):
        element_bytes("f13")
    assert element_bytes("bf16") == 2 and element_bytes(32) == 4 and element_bytes("fp8") == 1


def test_proof_enumeration_proves_and_refutes_with_the_colliding_lanes():
    tile = Layout((64, 64), (64, 1))
    bad = conflict_free(tile, LDSM_X4, "f16")
    assert bad.refuted
    cex = bad.counterexample
    rb, cb = cex["row_block"], cex["col_block"]
    acc = tile_access(LDSM_X4, (64, 64), "f16")
    r1, c1 = acc.coords[rb, cb, cex["lane"]]
    r2, c2 = acc.coords[rb, cb, cex["lane_b"]]
    b1, b2 = 2 * tile(int(r1), int(c1)), 2 * tile(int(r2), int(c2))
    assert cex["lane"] // 8 == cex["lane_b"] // 8                      # same matrix = same phase
    assert (b1 // 4) % 32 == (b2 // 4) % 32 == cex["bank"] and b1 != b2
    good = conflict_free(ComposedLayout(Swizzle(3, 3, 3), 0, tile), LDSM_X4, "f16")
    assert good.proved and good.method == "enum"  # the prover's spelling, as everywhere


def test_proof_symbolic_over_an_unbounded_stage_parameter():
    from layoutalg.banks.proof import symbolic_access

    stage = param("stage", lo=0, hi=1 << 20)

    def fn(lane, i):  # a 2-stage ring: every k-tile uses stage k % 2 (coordinates stay inside the layout)
        return lane % 16 + 16 * (i // 4), (i % 4) * 16 + (lane // 16) * 8, stage % 2

    staged = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64, 2), (64, 1, 4096)))
    acc = symbolic_access(LDSM_X4, fn, i=16)
    for method in ("auto", "f2", "z3"):
        res = conflict_free(staged, acc, "f16", method=method)
        assert res.proved, res.render()
    assert conflict_free(staged, acc, "f16", method="f2").method == "f2"   # GF(2) rank argument
    plain = Layout((64, 64, 2), (64, 1, 4096))
    assert conflict_free(plain, acc, "f16", method="f2").status == "unknown"  # f2 alone cannot refute
    res2 = conflict_free(plain, acc, "f16", method="z3")
    assert res2.refuted
    cex = res2.counterexample
    la, lb = cex["lane"], cex["lane_b"]
    assert la // 8 == lb // 8
    st = cex["stage"] % 2
    ba = 2 * plain(*[int(x) if isinstance(x, int) else st for x in fn(la, cex["i"])])
    bb = 2 * plain(*[int(x) if isinstance(x, int) else st for x in fn(lb, cex["i"])])
    assert (ba // 4) % 32 == (bb // 4) % 32 and ba // 4 != bb // 4
    with pytest.raises(LayoutError):
        conflict_free(staged, acc, "f16", method="enum")


def test_proof_symbolic_wide_loads_report_the_real_phase():
    from layoutalg.banks.proof import symbolic_access

    # 16-byte loads, rows 32 bytes apart: 2-way within each quarter-warp phase
    acc = symbolic_access("ld.shared.v4.b32", lambda lane, i: (lane, 4 * i), i=2)
    res = conflict_free(Layout((32, 8), (8, 1)), acc, "f32", method="z3")
    assert res.refuted
    cex = res.counterexample
    assert cex["lane"] // 8 == cex["lane_b"] // 8 and cex["wavefronts"] == 8
    # broadcast is not a conflict: every lane of a warp reads one word
    acc2 = symbolic_access("ld.shared.b32", lambda lane, i: (i, 0 * lane), i=4)
    assert conflict_free(Layout((4, 32), (32, 1)), acc2, "f32").proved


def _all_conflict_free(layout, accesses, dtype):
    """Independent check: every instance costs its ideal, evaluating the layout per lane."""
    e = element_bytes(dtype)
    for acc in accesses:
        flat = acc.coords.reshape(-1, 32, acc.rank)
        for inst in flat:
            addrs = [e * layout(*map(int, crd)) for crd in inst]
            if wavefronts(acc.instruction, addrs) != len(
                    __import__("layoutalg.banks.model", fromlist=["x"]).report(acc.instruction, addrs).phases):
                return False
    return True


def test_suggest_finds_a_three_bit_swizzle_for_the_64_column_fp16_tile():
    s = suggest_swizzle((64, 64), "f16", [LDSM_X4])
    assert s.conflict_free and s.proof.proved
    assert s.swizzle is not None and s.swizzle.bits == 3 and s.padding == 0  # as cheap as CuTe's Swizzle<3,3,3>
    assert (s.swizzle.bits, s.swizzle.base, s.swizzle.shift) == (3, 3, 3)
    assert s.baseline_wavefronts == 16 * 32
    assert _all_conflict_free(s.layout, [tile_access(LDSM_X4, (64, 64), "f16")], "f16")
    assert "Swizzle<3,3,3>" in str(s) and s.to_json()["conflict_free"]


def test_suggest_non_power_of_two_tile():
    s = suggest_swizzle((64, 48), "f16", [LDSM_X4])  # 96-byte rows: 2-way conflicts unswizzled
    assert s.baseline_wavefronts > s.ideal
    assert s.conflict_free and s.proof.proved
    assert _all_conflict_free(s.layout, [tile_access(LDSM_X4, (64, 48), "f16")], "f16")
    # the swizzle is a permutation of the 3072 offsets of the tile
    assert sorted(s.layout.to_numpy().tolist()) == list(range(64 * 48))


def test_suggest_swizzles_a_24_column_fp32_tile_read_by_column():
    # 32 x 24 fp32 tile, a warp reads one column (lane = row): rows 96 bytes apart -> 8-way.
    col = Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=24)
    s = suggest_swizzle((32, 24), "f32", [col])
    assert s.baseline_wavefronts == 24 * 8
    assert s.conflict_free and s.proof.proved
    assert _all_conflict_free(s.layout, [col], "f32")
    assert sorted(s.layout.to_numpy().tolist()) == list(range(32 * 24))


def test_suggest_padding_path():
    # 32 x 32 fp32 tile read by column: 32-way.  Padding only (no swizzle allowed): pitch 33.
    col = Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=32)
    s = suggest_swizzle((32, 32), "f32", [col], max_swizzle_bits=0)
    assert s.baseline_wavefronts == 32 * 32
    assert s.swizzle is None and s.padding == 1 and s.layout == Layout((32, 32), (33, 1))
    assert s.conflict_free and s.proof.proved and _all_conflict_free(s.layout, [col], "f32")


def test_suggest_from_an_already_padded_layout():
    # pitch 36 words: rows 4 banks apart -> 4-way on a column read; the answer must keep every offset inside
    # the padded rows (a permutation of them) or pad further.
    col = Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=32)
    s = suggest_swizzle((32, 32), "f32", [col], pitch=36)
    assert s.baseline_wavefronts == 32 * 4
    assert s.conflict_free and s.proof.proved and _all_conflict_free(s.layout, [col], "f32")
    plain = Layout((32, 32), (36, 1))
    assert sorted(s.layout.to_numpy().tolist()) == sorted(plain.to_numpy().tolist()) or s.padding > 0


def test_suggest_bad_input():
    with pytest.raises(LayoutError):
        suggest_swizzle((64,), "f16", [LDSM_X4])
    with pytest.raises(LayoutError):
        suggest_swizzle((64, 64), "f16", [])
    with pytest.raises(LayoutError):
        suggest_swizzle((64, 64), "f16", [3])


def test_tiled_copy_access_is_the_cutlass_a_operand_pattern():
    from layoutalg.atoms import catalog
    from layoutalg.atoms.tiled import make_tiled_copy_A, make_tiled_mma

    mma = make_tiled_mma(catalog.get("SM80_16x8x16_F32F16F16F32_TN"), (2, 2, 1))
    copy = make_tiled_copy_A(catalog.ldmatrix(4), mma, bits=16)
    plain = Layout((128, 32), (32, 1))
    acc = __import__("layoutalg.banks", fromlist=["x"]).access_from_tiled_copy(copy, plain)
    assert acc.instruction == LDSM_X4 and acc.axes == ("warp", "call") and acc.coords.shape == (4, 8, 32, 2)
    # warp 0, first call: lane l -> row l % 16, column (l // 16) * 8 (PTX ldmatrix.x4 feeding mma.m16n8k16 A)
    assert [tuple(x) for x in acc.coords[0, 0].tolist()] == [(ln % 16, (ln // 16) * 8) for ln in range(32)]
    res = analyze(plain, copy, dtype="f16")  # 64-byte rows: 2-way (calibration "ldsm.x4 rowmajor pitch=32h" = 16)
    assert set(res.wavefronts.ravel().tolist()) == {16}
    sw = ComposedLayout(Swizzle(2, 3, 3), 0, plain)
    assert analyze(sw, copy, dtype="f16").conflict_free
    assert conflict_free(sw, copy, "f16").proved


def test_cp_async_cg_tile_copy_through_analyze() -> None:
    """A 64x64 fp16 gmem->smem copy with cp.async.cg: each instance checked against the per-instruction model
    fed the same lanes by hand; a global row pitch that is not a multiple of 128 bytes costs extra wavefronts."""
    smem = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))
    aligned = analyze(smem, "cp.async.cg.shared.global", "f16", global_layout=Layout((64, 64), (4096, 1)))
    assert aligned.count == 16 and aligned.total == 64 and aligned.conflict_free
    for k in range(aligned.count):  # lane l of instance k moves elements (8k'+..): row (32k + l) // 8, col 8*(l % 8)
        rows = [(256 * k + 8 * lane) // 64 for lane in range(32)]
        cols = [(256 * k + 8 * lane) % 64 for lane in range(32)]
        smem_bytes = [2 * smem(r, c) for r, c in zip(rows, cols)]
        glob_bytes = [2 * (4096 * r + c) for r, c in zip(rows, cols)]
        assert int(aligned.wavefronts[k]) == wavefronts("cp.async.cg.shared.global", smem_bytes, glob_bytes)
    padded = analyze(smem, "cp.async.cg.shared.global", "f16", global_layout=Layout((64, 64), (72, 1)))
    assert padded.total > aligned.total
    assert padded.report(instance=1).wavefronts == int(padded.wavefronts[1])
    with pytest.raises(LayoutError, match="global_layout"):
        analyze(smem, "cp.async.cg.shared.global", "f16")
    with pytest.raises(LayoutError, match="global_layout must be a Layout"):
        analyze(smem, "cp.async.cg.shared.global", "f16", global_layout=64)
    with pytest.raises(CoordinateError, match="outside global_layout's extent 32"):
        analyze(smem, "cp.async.cg.shared.global", "f16", global_layout=Layout((32, 64), (64, 1)))


def test_cp_async_cg_conflict_free_proof_and_refutation() -> None:
    from layoutalg.banks.proof import conflict_free

    smem = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))
    proved = conflict_free(smem, "cp.async.cg.shared.global", "f16", global_layout=Layout((64, 64), (4096, 1)))
    assert proved.status == "proved" and proved.method == "enum"
    refuted = conflict_free(smem, "cp.async.cg.shared.global", "f16", global_layout=Layout((64, 64), (72, 1)))
    assert refuted.status == "refuted"
    cex = refuted.counterexample
    assert cex is not None and cex["wavefronts"] > cex["ideal"] == 4
    # the counterexample's instance really costs what it says
    res = analyze(smem, "cp.async.cg.shared.global", "f16", global_layout=Layout((64, 64), (72, 1)))
    assert int(res.wavefronts[cex["instance"]]) == cex["wavefronts"]
    with pytest.raises(LayoutError, match="enumeration only"):
        conflict_free(smem, "cp.async.cg.shared.global", "f16", method="z3", global_layout=Layout((64, 64), (72, 1)))


def test_suggest_covers_cp_async_fills_with_their_global_side() -> None:
    """A cp.async.cg fill plus the ldmatrix reads of the same 64x64 fp16 tile: the suggestion makes both
    conflict-free (each instance re-costed here with the per-instruction model); the global side may be a
    leading dimension or a layout, and one smaller than the row is refused."""
    sug = suggest_swizzle((64, 64), "f16", ["cp.async.cg.shared.global", LDSM_X4], global_ld=4096)
    assert sug.conflict_free and sug.proof.status == "proved"
    glob = Layout((64, 64), (4096, 1))
    res = analyze(sug.layout, "cp.async.cg.shared.global", "f16", global_layout=glob)
    for k in range(res.count):
        s = [int(x) for x in res.addresses.reshape(-1, 32)[k]]
        g = [int(x) for x in res.global_addresses.reshape(-1, 32)[k]]
        assert wavefronts("cp.async.cg.shared.global", s, g) == 4
    same = suggest_swizzle((64, 64), "f16", ["cp.async.cg.shared.global", LDSM_X4], global_layout=glob)
    assert same.layout == sug.layout
    with pytest.raises(LayoutError, match="smaller than the tile's row of 64"):
        suggest_swizzle((64, 64), "f16", ["cp.async.ca.shared.global, 16"], global_ld=48)
    with pytest.raises(LayoutError, match="one global element"):
        suggest_swizzle((64, 64), "f16", ["cp.async.ca.shared.global, 16"], global_layout=Layout((64, 64), (8, 1)))
    with pytest.raises(LayoutError, match="global_ld="):
        suggest_swizzle((64, 64), "f16", ["cp.async.cg.shared.global"])
    with pytest.raises(LayoutError, match="not both"):
        suggest_swizzle((64, 64), "f16", ["cp.async.cg.shared.global"], global_ld=64, global_layout=glob)
    with pytest.raises(LayoutError, match="cp.async accesses only"):
        suggest_swizzle((64, 64), "f16", [LDSM_X4], global_ld=64)
