"""Costing recorded warps (``layoutalg.kernel.costing``) on hand-built access records: whole and partial warps
against the bank rule worked by hand (32 banks of 4 bytes: a 4-byte load at a stride of 8 bytes puts lanes i and
i + 16 in one bank, 2 wavefronts; at 16 bytes four lanes a bank, 4), cp.async against ``banks.report`` on the
same lanes (buffers must never share a line), and every warp the model does not cost, with its reason."""

from __future__ import annotations

import numpy as np
import pytest

import layoutalg.banks as banks
from layoutalg.errors import LayoutError
from layoutalg.kernel.costing import ZERO_FILL_REASON, cost_record, cost_records
from layoutalg.kernel.records import AccessRecord

LANES = np.arange(32, dtype=np.int64)


def rec(rows: list[np.ndarray], kind: str = "ld", text: str = "ld.shared.b32", nbytes: int = 4,
        active: list[np.ndarray] | None = None, **kw: object) -> AccessRecord:
    smem = np.array(rows, dtype=np.int64)
    act = np.ones(smem.shape, bool) if active is None else np.array(active, dtype=bool)
    return AccessRecord(0, 1, text, kind, nbytes, text, 0, np.arange(len(rows), dtype=np.int64), act, smem,
                        **kw)  # type: ignore[arg-type]


def costs_of(r: AccessRecord) -> tuple[list[bool], list[int], list[int], dict[str, int], int]:
    c = cost_record(r)
    return c.modelled.tolist(), c.wavefronts.tolist(), c.ideal.tolist(), c.reasons, c.data_dependent


def test_whole_warps_cost_one_wavefront_per_way_of_the_worst_bank() -> None:
    r = rec([4 * LANES, 8 * LANES, 16 * LANES, np.zeros(32, np.int64)])
    assert costs_of(r) == ([True] * 4, [1, 2, 4, 1], [1, 1, 1, 1], {}, 0)


def test_records_of_one_mnemonic_are_costed_together_and_each_gets_its_own_warps() -> None:
    a, b = rec([8 * LANES, 4 * LANES]), rec([16 * LANES])
    c = rec([4 * LANES], kind="st", text="st.shared.b32")
    out = cost_records([a, b, c])
    assert [o.wavefronts.tolist() for o in out] == [[2, 1], [4], [1]]
    assert [o.modelled.tolist() for o in out] == [[True, True], [True], [True]]


def test_partial_warps_cost_only_their_active_lanes() -> None:
    half = LANES < 16  # lanes 0..15 at an 8-byte stride: banks 0, 2, ..., 30, one lane each
    r = rec([8 * LANES, 8 * LANES], active=[half, np.ones(32, bool)])
    assert costs_of(r) == ([True, True], [1, 2], [1, 1], {}, 0)


def test_a_warp_with_no_active_lane_is_neither_costed_nor_refused() -> None:
    r = rec([8 * LANES, 8 * LANES], active=[np.zeros(32, bool), np.ones(32, bool)])
    assert costs_of(r) == ([False, True], [0, 2], [0, 1], {}, 0)


def test_dropped_warps_count_as_data_dependent_and_are_never_costed() -> None:
    r = rec([8 * LANES, 8 * LANES, 4 * LANES], dropped=np.array([True, False, True]))
    assert costs_of(r) == ([False, True, False], [0, 2, 0], [0, 1, 0], {}, 2)


def test_atomics_are_costed_by_rule_6_for_every_warp_with_an_active_lane() -> None:
    # one word for every lane: each lane is a pass of its own (rule 6), so a warp costs its active lanes
    same = np.zeros(32, np.int64)
    r = rec([4 * LANES, same, same, same], kind="atom", text="atom.shared.add.u32",
            active=[np.ones(32, bool), np.ones(32, bool), np.zeros(32, bool), LANES < 3])
    modelled, wf, ideal, reasons, _ = costs_of(r)
    assert modelled == [True, True, False, True] and wf == [1, 32, 0, 3] and ideal == [1, 1, 0, 1] and reasons == {}
    assert wf[1] == banks.report("atom.shared.add.u32", same.tolist()).wavefronts


def test_an_instruction_the_bank_model_refuses_is_unmodelled_with_the_model_s_reason() -> None:
    r = rec([4 * LANES, 4 * LANES], text="ld.shared.b24")
    modelled, _, _, reasons, _ = costs_of(r)
    assert modelled == [False, False] and list(reasons.values()) == [2] and "b24" in next(iter(reasons))


def test_a_warp_the_model_refuses_is_unmodelled_while_its_group_is_costed() -> None:
    good, bad = rec([8 * LANES], text="ld.shared.b64", nbytes=8), rec([8 * LANES + 4], text="ld.shared.b64", nbytes=8)
    out = cost_records([good, bad])
    assert out[0].modelled.tolist() == [True] and out[0].wavefronts.tolist() == [2]
    assert out[1].modelled.tolist() == [False] and sum(out[1].reasons.values()) == 1


def test_a_generic_address_record_is_costed_like_a_shared_one() -> None:
    assert costs_of(rec([8 * LANES], generic=True)) == ([True], [2], [1], {}, 0)


def test_partial_cp_async_copies_are_unmodelled_and_full_ones_costed() -> None:
    text = "cp.async.ca.shared.global, 4"
    zeros = np.zeros((2, 32), np.int64)
    src = np.full((2, 32), 4, np.int64)
    src[1, 5] = 2  # warp 1's lane 5 reads 2 of its 4 bytes and zero-fills the rest
    r = rec([4 * LANES, 4 * LANES], "cp.async", text, 4, global_buffer=zeros, global_offset=zeros + 4 * LANES,
            src_size=src)
    modelled, wf, _, reasons, _ = costs_of(r)
    assert modelled == [True, False] and wf[1] == 0 and reasons == {ZERO_FILL_REASON: 1}


def test_cp_async_costs_match_the_bank_model_on_the_same_global_lines_in_any_buffer() -> None:
    smem = 16 * LANES
    # .cg depends on where the lanes' 16-byte chunks fall in 128-byte lines (a shift of 16 B costs 12 here)
    for text, glob in (("cp.async.ca.shared.global, 16", (LANES % 8) * 16 + (LANES // 8) * 4096),
                       ("cp.async.cg.shared.global", 16 * LANES + 16), ("cp.async.cg.shared.global", 16 * LANES + 48)):
        want = banks.report(text, smem.tolist(), global_byte_addresses=glob.tolist()).wavefronts
        for buf, base in ((0, 0), (3, 10_000 * 128), (7, 3 * 128)):
            r = rec([smem], "cp.async", text, 16, global_buffer=np.full((1, 32), buf), global_offset=glob[None] + base)
            assert costs_of(r)[1] == [want]
    text = "cp.async.cg.shared.global"
    g0, g1 = 16 * LANES + 16, 16 * LANES + 48 + 7 * 128  # two warps of one record, each against the model alone
    want2 = [banks.report(text, smem.tolist(), global_byte_addresses=g.tolist()).wavefronts for g in (g0, g1)]
    r = rec([smem, smem], "cp.async", text, 16, global_buffer=np.full((2, 32), 2), global_offset=np.stack([g0, g1]))
    assert costs_of(r)[1] == want2
    text = "cp.async.ca.shared.global, 16"
    # lanes split over two buffers at equal offsets read two lines, never one
    two = np.where(LANES < 16, 0, 1)[None]
    split = rec([smem], "cp.async", text, 16, global_buffer=two, global_offset=((LANES % 16) * 16)[None])
    one = rec([smem], "cp.async", text, 16, global_buffer=np.zeros((1, 32), np.int64),
              global_offset=((LANES % 16) * 16)[None])
    sep = banks.report(text, smem.tolist(), global_byte_addresses=[(lane // 16) * 4096 + (lane % 16) * 16
                                                                   for lane in range(32)]).wavefronts
    same = banks.report(text, smem.tolist(), global_byte_addresses=[(lane % 16) * 16 for lane in range(32)]).wavefronts
    assert costs_of(split)[1] == [sep] and costs_of(one)[1] == [same]


def lanes_paired_only_past_inactive_partners() -> tuple[np.ndarray, np.ndarray]:
    """(byte addresses, active lanes) of a partial 64-bit load whose active lanes pair up (rule 2) only because a
    pair with an inactive lane is ignored (rule 5), and whose cost depends on it."""
    rng = np.random.default_rng(0)
    while True:
        a = rng.integers(0, 16, 32).astype(np.int64) * 8
        act = rng.random(32) < 0.5
        addrs = [int(x) if on else None for x, on in zip(a, act)]
        full_pairs = all(addrs[i] == addrs[i ^ 1] for i in range(32))
        partial_pairs = all(None in (addrs[i], addrs[i ^ 1]) or addrs[i] == addrs[i ^ 1] for i in range(32))
        if partial_pairs and not full_pairs:
            return a, act


def test_partial_wide_loads_are_costed_with_pairs_of_an_inactive_lane_ignored() -> None:
    a, act = lanes_paired_only_past_inactive_partners()
    r = rec([a, 8 * LANES, a], text="ld.shared.b64", nbytes=8, active=[act, act, np.ones(32, bool)])
    modelled, wf, _, reasons, _ = costs_of(r)
    assert modelled == [True, True, True] and reasons == {}
    partial = [int(x) if on else None for x, on in zip(a, act)]
    assert wf[0] == banks.report("ld.shared.b64", partial).wavefronts
    assert wf[2] == banks.report("ld.shared.b64", a.tolist()).wavefronts


def test_an_atomic_is_unmodelled_with_the_bank_model_s_refusal_of_its_mnemonic() -> None:
    text = "atom.shared.add.f32"  # ptxas makes a compare-and-swap loop of it
    with pytest.raises(LayoutError) as refusal:
        banks.report(text, (4 * LANES).tolist())
    why = str(refusal.value)
    r = rec([4 * LANES, 4 * LANES], kind="atom", text=text, active=[np.ones(32, bool), LANES < 3])
    assert costs_of(r) == ([False, False], [0, 0], [0, 0], {why: 2}, 0) and "compare-and-swap loop" in why


def test_a_record_of_an_unmodelled_kind_is_never_costed_even_when_its_mnemonic_is_modelled() -> None:
    # the record's kind (a wmma fragment access) decides, not the mnemonic handed to the bank model
    r = rec([4 * LANES, 4 * LANES], kind="wmma", text="st.shared.b32")
    assert costs_of(r) == ([False, False], [0, 0], [0, 0], {"wmma on shared memory is not modelled": 2}, 0)


def test_a_partial_warp_of_a_wide_load_the_model_refuses_is_unmodelled_with_the_model_s_reason() -> None:
    # 32 bytes a lane: the model refuses the instruction, so the lanes' pairing is never asked for
    text = "ld.shared.v8.b32"
    r = rec([32 * LANES, 32 * LANES], text=text, nbytes=32, active=[LANES < 16, np.ones(32, bool)])
    modelled, _, _, reasons, _ = costs_of(r)
    assert modelled == [False, False] and list(reasons.values()) == [2]
    assert "32 bytes per lane" in next(iter(reasons))


def test_a_dropped_partial_wide_load_is_data_dependent_and_never_costed_from_its_known_lanes() -> None:
    a, act = lanes_paired_only_past_inactive_partners()
    r = rec([a, 8 * LANES], text="ld.shared.b64", nbytes=8, active=[act, np.ones(32, bool)],
            dropped=np.array([True, False]))
    # warp 1: 64-bit loads at an 8-byte stride, two conflict-free half-warp phases over 256 bytes: 2 of an ideal 2
    assert costs_of(r) == ([False, True], [0, 2], [0, 2], {}, 1)


def test_cp_async_lanes_of_two_buffers_in_one_shared_row_read_two_global_lines() -> None:
    # .cg groups lanes by (global 128-byte line, shared 128-byte row): each shared row here is filled by lanes 0-3
    # from buffer 0 and lanes 4-7 from buffer 1 at offsets inside one 128-byte span; buffers never share a line
    text = "cp.async.cg.shared.global"
    smem = 16 * LANES
    buf = (LANES // 4) % 2
    off = 16 * (LANES % 8) + 128 * (LANES // 8)
    apart = banks.report(text, smem.tolist(), global_byte_addresses=(buf * 4096 + off).tolist()).wavefronts
    r = rec([smem], "cp.async", text, 16, global_buffer=buf[None], global_offset=off[None])
    assert costs_of(r)[1] == [apart] == [8]  # 8 (line, row) groups, each a straight sector map: 1 wavefront
