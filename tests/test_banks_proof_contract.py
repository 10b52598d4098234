"""``conflict_free`` by enumeration: what a proof and a refutation say, checked against the access itself.

Every fact a refutation names is re-derived here from the access's coordinates and the layout's own ``__call__``:
the two lanes are active and in one phase, their byte addresses are ``element_bytes * layout(coord) + base``, the
bank is word % 32 for both, the words differ, and the cost is the instance's cost under ``analyze``.  Refusals:
the same errors (type and message) as the model, checked in the documented order.
"""

from __future__ import annotations

import time

import pytest

from layoutalg.banks import analyze
from layoutalg.banks.access import Access, tile_access
from layoutalg.banks.model import report
from layoutalg.banks.proof import conflict_free, replay_report, symbolic_access
from layoutalg.core.layout import Layout
from layoutalg.errors import InstructionError, LayoutError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

LDSM_X4 = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
CG = "cp.async.cg.shared.global"


def _phase_size(instruction: str, nbytes: int) -> int:
    if "matrix" in instruction:
        return 8
    return 32 if nbytes <= 4 else 128 // nbytes


@pytest.mark.parametrize("layout, access, dtype, nbytes, base", [
    (Layout((32, 32), (32, 1)), Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=32), "f32", 4, 0),
    (Layout((32, 32), (32, 1)), Access.from_fn("ld.shared.b32", lambda lane, c: (lane, c), c=32), "f32", 4, 512),
    (Layout((32, 16), (16, 1)), Access.from_fn("st.shared.v2.b32", lambda lane, c: (lane, 2 * c), c=8), "f32", 8, 0),
    (Layout((64, 64), (64, 1)), tile_access(LDSM_X4, (64, 64), "f16"), "f16", 16, 1024),
])
def test_an_enumerated_refutation_names_two_lanes_of_one_phase_needing_one_bank_for_two_words(
        layout: Layout, access: Access, dtype: str, nbytes: int, base: int) -> None:
    start = time.perf_counter()
    res = conflict_free(layout, access, dtype, base=base)
    assert 0 <= res.seconds <= time.perf_counter() - start  # the proof's own duration
    assert res.refuted and res.method == "enum"
    cex = res.counterexample
    assert cex is not None
    key = tuple(cex[a] for a in access.axes)
    e = 4 if dtype == "f32" else 2
    lanes = (cex["lane"], cex["lane_b"])
    per = _phase_size(access.instruction, nbytes)
    assert lanes[0] != lanes[1] and lanes[0] // per == lanes[1] // per
    for lane, tag in zip(lanes, ("", "_b")):
        row, col = (int(x) for x in access.coords[key + (lane,)])
        assert (cex["row" + tag], cex["col" + tag]) == (row, col)
        assert cex["address" + tag] == e * layout(row, col) + base
        first = cex["address" + tag] // 4
        assert first <= cex["word" + tag] < first + max(1, nbytes // 4)  # a word this lane touches
        assert cex["word" + tag] % 32 == cex["bank"]
    assert cex["word"] != cex["word_b"]
    res_all = analyze(layout, access, dtype=dtype, base=base)
    assert cex["wavefronts"] == int(res_all.wavefronts[key]) > cex["ideal"]
    where = ", ".join(f"{a}={cex[a]}" for a in access.axes)
    assert res.explanation.startswith(f"at {where}: lanes {lanes[0]} (row {cex['row']}, col {cex['col']}, byte "
                                      f"{cex['address']}) and {lanes[1]} (row {cex['row_b']}")
    assert res.explanation.endswith(f"both need bank {cex['bank']} (words {cex['word']} and {cex['word_b']}); "
                                    f"the instance costs {cex['wavefronts']} wavefronts, ideal {cex['ideal']}")
    for axis, extent in zip(access.axes, access.batch_shape):
        assert f"{axis} < {extent}" in res.claim


def test_a_proof_by_enumeration_counts_every_instance_and_its_ideal() -> None:
    tile = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))
    access = tile_access(LDSM_X4, (64, 64), "f16")
    start = time.perf_counter()
    res = conflict_free(tile, access, "f16")
    assert 0 <= res.seconds <= time.perf_counter() - start
    total = analyze(tile, access, dtype="f16").total_ideal
    assert res.proved and res.counterexample is None
    assert res.explanation == f"all {access.count} instances cost their ideal ({total} wavefronts in all)"
    assert res.claim == (f"{LDSM_X4} over {tile} is bank-conflict-free for every lane and every row_block < 4, "
                         "col_block < 4")


def test_addresses_are_refused_negative_then_past_the_end_then_misaligned() -> None:
    tile = Layout((32, 32), (32, 1))
    with pytest.raises(InstructionError, match="negative shared-memory address -2 in ld.shared.b32"):
        conflict_free(tile, "ld.shared.b32", "f32", base=-2)  # negative and misaligned: negative is named
    cap = 227 * 1024
    top = 4 * (32 * 32 - 1)
    with pytest.raises(InstructionError, match=rf"address {cap - 2 + top} of ld.shared.b32: its 4 bytes end at "
                                               rf"{cap + 2 + top}, past the {cap} bytes of shared memory per block "
                                               "on sm_90"):
        conflict_free(tile, "ld.shared.b32", "f32", base=cap - 2)  # past the end and misaligned: past the end
    with pytest.raises(InstructionError, match=r"misaligned address 2 of ld.shared.b32: must be a multiple of 4 "
                                               r"\(at index \(0, 0\)\)"):
        conflict_free(tile, "ld.shared.b32", "f32", base=2)
    # the last 4 bytes of shared memory are usable
    assert conflict_free(tile, "ld.shared.b32", "f32", base=cap - 4 - top).proved
    # the capacity is the target arch's: 99 KiB on sm_86
    with pytest.raises(InstructionError, match="per block on sm_86"):
        conflict_free(tile, "ld.shared.b32", "f32", base=99 * 1024 - 4 * 32 * 32 + 4, arch="sm_86")


def test_only_the_lanes_an_ldmatrix_reads_are_checked() -> None:
    # ldmatrix .x1 reads lanes 0-7; the other lanes' coordinates fall outside the 8x8 tile's memory at base 0
    import numpy as np

    coords = np.array([[r, 0] for r in range(8)] + [[0, 1]] * 24)
    acc = Access("ldmatrix.sync.aligned.m8n8.x1.shared.b16", coords)
    assert conflict_free(Layout((8, 8), (8, 1)), acc, "f16").proved


@pytest.mark.parametrize("method, message", [
    ("enumeration", "did you mean 'enum'"),
    ("Z", "did you mean 'z3'"),
    ("gf2", "did you mean 'f2'"),
    ("enumerate_every_instance", "did you mean 'enum'"),  # a prefix, however long the rest
    ("z3_solver", "did you mean 'z3'"),
    ("xyzzy", "got 'xyzzy'$"),
    (3, "got 3"),
])
def test_a_bad_method_is_refused_with_the_provers_spellings(method: object, message: str) -> None:
    with pytest.raises(LayoutError, match=r"method must be one of auto, f2, z3, enum \(the prover's spellings\), "
                                          rf".*{message}"):
        conflict_free(Layout((32, 32), (32, 1)), "ld.shared.b32", "f32", method=method)  # type: ignore[arg-type]


def test_bad_arguments_are_refused_naming_them() -> None:
    tile = Layout((32, 32), (32, 1))
    with pytest.raises(LayoutError, match="smem_layout must be a Layout or a ComposedLayout, got"):
        conflict_free((32, 32), "ld.shared.b32", "f32")
    with pytest.raises(LayoutError, match="smem_layout must be a Layout or a ComposedLayout, got"):
        conflict_free(lambda *crd: 0, "ld.shared.b32", "f32")  # callable, but no shape
    with pytest.raises(LayoutError, match=r"an instruction string needs a rank-2 layout; \(4,4,4\):\(1,4,16\) has 3"):
        conflict_free(Layout((4, 4, 4)), "ld.shared.b32", "f32")
    with pytest.raises(LayoutError, match="access must be an Access or an instruction string, got int"):
        conflict_free(tile, 7, "f32")
    from layoutalg.atoms import catalog

    with pytest.raises(LayoutError, match="access must be an Access or an instruction string, got TypedCopyAtom"):
        conflict_free(tile, catalog.ld_shared(32).bind(32), "f32")  # a copy atom, not a tiled copy
    with pytest.raises(InstructionError, match=r"stmatrix.sync.aligned.m8n8.x4.shared.b16: stmatrix does not exist on "
                                               r"sm_80; it needs sm_90 or later"):
        conflict_free(Layout((64, 64), (64, 1)), "stmatrix.x4", "f16", arch="sm_80")
    assert conflict_free(ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1))), "stmatrix.x4", "f16").proved
    with pytest.raises(LayoutError, match="decided by enumeration only"):
        conflict_free(Layout((64, 64), (64, 1)), CG, "f16", method="f2", global_layout=Layout((64, 64), (64, 1)))
    sym = symbolic_access(CG, lambda lane, i: (lane, 8 * i), i=2)
    with pytest.raises(LayoutError, match="decided by enumeration only"):
        conflict_free(Layout((64, 64), (64, 1)), sym, "f16", global_layout=Layout((64, 64), (64, 1)))
    sym_ld = symbolic_access("ld.shared.b32", lambda lane, i: (lane, i), i=2)
    with pytest.raises(LayoutError, match="cannot be enumerated"):
        conflict_free(tile, sym_ld, "f32", method="enum")
    concrete = Access("ld.shared.b32", [[lane, 0] for lane in range(32)])
    with pytest.raises(LayoutError, match="needs an Access built by Access.from_fn"):
        conflict_free(tile, concrete, "f32", method="z3")


@pytest.mark.parametrize("extent", [0, -1, True, 2.0, "4"])
def test_symbolic_access_ranges_must_be_positive_ints(extent: object) -> None:
    with pytest.raises(LayoutError, match=r"symbolic_access range i=.* must be a positive int"):
        symbolic_access("ld.shared.b32", lambda lane, i: (lane, i), i=extent)  # type: ignore[arg-type]
    acc = symbolic_access("ld.shared.b32", lambda lane, i: (lane, i), i=1)
    assert acc.symbolic and acc.ranges == (("i", 1),)


def test_replay_report_is_the_models_report_of_one_instance() -> None:
    addrs = [128 * lane for lane in range(32)]
    text = replay_report("ld.shared.b32", addrs)
    assert text == str(report("ld.shared.b32", addrs)) and "32 wavefronts" in text


def _lane_facts(cex: dict[str, int], access: Access, key: tuple[int, ...], smem: Layout, glob: Layout) -> None:
    for tag in ("", "_b"):
        row, col = (int(x) for x in access.coords[key + (cex["lane" + tag],)])
        assert (cex["row" + tag], cex["col" + tag]) == (row, col)
        assert cex["address" + tag] == 2 * smem(row, col) and cex["global_address" + tag] == 2 * glob(row, col)


def test_a_cg_refutation_names_lanes_writing_one_shared_row_from_two_global_lines() -> None:
    smem = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))
    glob = Layout((64, 64), (72, 1))  # 144-byte global rows: lines and rows no longer line up
    res = conflict_free(smem, CG, "f16", global_layout=glob)
    cex = res.counterexample
    assert res.refuted and cex is not None
    access = tile_access(CG, (64, 64), "f16")
    key = (cex["instance"],)
    _lane_facts(cex, access, key, smem, glob)
    assert cex["address"] // 128 == cex["address_b"] // 128
    assert cex["global_address"] // 128 != cex["global_address_b"] // 128
    an = analyze(smem, CG, "f16", global_layout=glob)
    s, g = an.addresses[key].tolist(), an.global_addresses[key].tolist()
    assert (cex["global_lines"], cex["smem_rows"]) == (len({x // 128 for x in g}), len({x // 128 for x in s}))
    assert cex["groups"] == len({(x // 128, y // 128) for x, y in zip(g, s)})
    assert cex["wavefronts"] == int(an.wavefronts[key]) and cex["ideal"] == 4
    assert res.explanation.startswith(f"at instance={cex['instance']}: the warp's 16-byte copies read "
                                      f"{cex['global_lines']} global 128-byte lines into {cex['smem_rows']} shared")
    assert res.explanation.endswith("write one shared 128-byte row from different global 128-byte lines")


def test_a_cg_refutation_names_lanes_whose_sectors_shift_differently() -> None:
    # Swizzle<1,4,1> flips the 32-byte sector bit of some 16-byte chunks of a row: one global line feeds one
    # shared row, but not sector for sector
    smem = ComposedLayout(Swizzle(1, 4, 1), 0, Layout((4, 64), (64, 1)))
    glob = Layout((4, 64), (64, 1))
    res = conflict_free(smem, CG, "f16", global_layout=glob)
    cex = res.counterexample
    assert res.refuted and cex is not None
    _lane_facts(cex, tile_access(CG, (4, 64), "f16"), (cex["instance"],), smem, glob)
    a, b = (cex["address"], cex["global_address"]), (cex["address_b"], cex["global_address_b"])
    assert (a[0] // 128, a[1] // 128) == (b[0] // 128, b[1] // 128)
    assert (a[0] // 32 - a[1] // 32) % 4 != (b[0] // 32 - b[1] // 32) % 4
    assert res.explanation.endswith("move 16 bytes between 32-byte sectors shifted differently (global to shared)")


def test_a_cg_refutation_without_a_lane_pair_names_only_the_groups() -> None:
    # a column sweep: every lane its own shared row and global line, so no two lanes share a group
    res = conflict_free(Layout((64, 64), (64, 1)), CG, "f16", global_layout=Layout((64, 64), (64, 1)), by="column")
    assert res.refuted and res.counterexample is not None and "lane" not in res.counterexample
    assert (res.counterexample["global_lines"], res.counterexample["smem_rows"]) == (32, 32)
    assert "e.g." not in res.explanation


@pytest.mark.parametrize("nbytes", [4, 8, 16])
@pytest.mark.parametrize("side", ["global", "shared"])
def test_a_ca_refutation_names_a_lane_and_one_it_waits_for_in_its_phase(nbytes: int, side: str) -> None:
    ins = f"cp.async.ca.shared.global, {nbytes}"
    smem = Layout((64, 64), (64, 1))
    # by column: lane l copies row l; a row-major global side puts every lane in global bank group 0 too;
    # global rows one vector apart (each row's other vectors far away) make consecutive lanes' sources
    # consecutive vectors: only the shared side collides
    v = nbytes // 2
    glob = Layout((64, 64), (64, 1)) if side == "global" else Layout((64, (v, 64 // v)), (v, (1, 64 * v)))
    res = conflict_free(smem, ins, "f16", global_layout=glob, by="column")
    cex = res.counterexample
    assert res.refuted and cex is not None
    access = tile_access(ins, (64, 64), "f16", by="column")
    key = (cex["row_block"], cex["col_group"])
    _lane_facts(cex, access, key, smem, glob)
    per = {4: 32, 8: 16, 16: 8}[nbytes]  # lanes per .ca phase
    assert cex["lane"] // per == cex["lane_b"] // per and cex["lane"] != cex["lane_b"]
    groups = 128 // nbytes
    which = "global_address" if side == "global" else "address"
    assert cex[which] // nbytes % groups == cex[which + "_b"] // nbytes % groups
    assert res.explanation.endswith(f"share a {side} bank in one phase (lane {cex['lane']} waits for {per - 1} lanes)")
    assert cex["wavefronts"] == int(analyze(smem, ins, "f16", global_layout=glob, by="column").wavefronts[key])


def test_a_single_instance_is_claimed_and_refuted_without_an_empty_index() -> None:
    import numpy as np

    column = Access("ld.shared.b32", np.array([[lane, 0] for lane in range(32)]))  # no batch axes: one instance
    res = conflict_free(Layout((32, 32), (32, 1)), column, "f32")
    assert res.refuted
    assert res.claim == "ld.shared.b32 over (32,32):(32,1) is bank-conflict-free for every lane of its one instance"
    assert res.explanation.startswith("lanes 0 (row 0, col 0, byte 0) and 1 (row 1, col 0, byte 128) both need bank 0")
    copy = Access(CG, np.array([[lane, 0] for lane in range(32)]))
    cg = conflict_free(Layout((32, 8), (8, 1)), copy, "f16", global_layout=Layout((32, 8), (64, 1)))
    assert cg.refuted and cg.explanation.startswith("the warp's 16-byte copies read 32 global 128-byte lines")
    ca = conflict_free(Layout((32, 8), (8, 1)), Access("cp.async.ca.shared.global, 16", copy.coords), "f16",
                       global_layout=Layout((32, 8), (64, 1)))
    assert ca.refuted and ca.explanation.startswith("the instance costs")


def test_a_symbolic_access_whose_validity_is_undecided_is_unknown_not_judged() -> None:
    # a budget too small to decide even the validity conditions: "unknown", naming the conditions
    acc = symbolic_access("ld.shared.b32", lambda lane, i: ((lane * 7 + i * i) % 32, i % 32), i=1 << 20)
    res = conflict_free(Layout((32, 32), (32, 1)), acc, "f32", timeout=1e-6)
    assert res.status == "unknown" and res.counterexample is None
    assert res.explanation.startswith("could not show that every lane's coordinate is inside the layout")


def test_a_method_that_only_compares_equal_to_a_name_is_still_refused() -> None:
    class EqualToEverything:
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    with pytest.raises(LayoutError, match="method must be auto, enum, f2 or z3, got"):
        conflict_free(Layout((32, 32), (32, 1)), "ld.shared.b32", "f32", method=EqualToEverything())  # type: ignore[arg-type]


def test_an_instance_axis_named_like_a_coordinate_keeps_its_value() -> None:
    """Access.from_fn(..., row=2): instance row=1 reads column 0 down 32 rows (all on bank 0), instance 0 a row.
    The counterexample's ``row`` is the instance (as the sentence says), lane 0's row is ``row#2``; before, the
    lane's row 0 overwrote the instance's 1."""
    from layoutalg.banks.access import Access
    from layoutalg.core.layout import Layout
    from layoutalg.prove import conflict_free as prove_conflict_free

    access = Access.from_fn("ld.shared.b32", lambda lane, row: (lane * row, lane * (1 - row)), row=2)
    result = prove_conflict_free(Layout((64, 64), (64, 1)), access, "f32")
    cex = result.counterexample
    assert result.refuted and cex is not None
    assert cex["row"] == 1 and result.explanation.startswith("at row=1: ")
    assert (cex["row#2"], cex["col"]) == (cex["lane"] * 1, 0) and cex["row_b"] == cex["lane_b"]


@pytest.mark.parametrize("base", [0.5, 4.0, "0"])
def test_a_base_that_is_not_an_int_is_refused_on_every_route(base) -> None:
    # base=0.5 used to be truncated to 0 and "proved"
    tile = Layout((32, 32), (32, 1))
    for method in ("auto", "z3"):
        with pytest.raises(LayoutError, match="base must be an int"):
            conflict_free(tile, Access.from_fn("ld.shared.b32", lambda lane, i: (lane, i), i=32), "f32", base=base,
                          method=method)
