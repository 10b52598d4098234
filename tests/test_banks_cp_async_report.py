"""banks.cp_async_report: what a cp.async report says about where its cost comes from.

Truths written here: a fully coalesced 128-byte row costs one wavefront (measured, see cp_async.py); a
group's line and row are byte // 128; a lane's shared word is byte // 4 and its bank word % 32; the first bank
of an aligned access is (byte % 128) // 4; who waits for whom is read off the hand-built patterns below.
"""

from __future__ import annotations

from layoutalg.banks import report
from layoutalg.banks.model import BankUse

CG = "cp.async.cg.shared.global"


def test_cg_report_names_each_line_to_row_group_with_its_lanes_and_ideal():
    smem: list[int | None] = [None] * 32
    glob: list[int | None] = [None] * 32
    for i in range(8):  # global line 0 -> shared row 2, then global line 3 -> shared row 5, both coalesced
        smem[i], glob[i] = 256 + 16 * i, 16 * i
        smem[8 + i], glob[8 + i] = 640 + 16 * i, 384 + 16 * i
    smem[16], glob[16] = 256, 512   # the same shared address as lane 0: only the lowest lane counts
    smem[17], glob[17] = None, 1024  # inactive on the shared side
    smem[18], glob[18] = 2048, None  # inactive on the global side
    smem[19], glob[19] = 2032, 2032  # the last 16 bytes of global line 15 -> shared row 15, alone
    rep = report(CG, smem, glob)
    assert rep.notes == (
        f"global line 0 (bytes 0-127) -> shared row 2 (bytes 256-383): lanes {list(range(8))}: 1 wavefront",
        f"global line 3 (bytes 384-511) -> shared row 5 (bytes 640-767): lanes {list(range(8, 16))}: 1 wavefront",
        "global line 15 (bytes 1920-2047) -> shared row 15 (bytes 1920-2047): lanes [19]: 1 wavefront",
    )
    assert rep.wavefronts == 3 and rep.ideal == 3  # 17 distinct 16-byte destinations: 3 ideal wavefronts


def _conflicts_4_bytes(smem: list[int | None], lanes: range) -> tuple[BankUse, ...]:
    """Banks of a 4-byte phase asked by more than one lane: its distinct words and the lanes wanting each."""
    by_bank: dict[int, dict[int, list[int]]] = {}
    for lane in lanes:
        if smem[lane] is not None:
            word = smem[lane] // 4
            by_bank.setdefault(word % 32, {}).setdefault(word, []).append(lane)
    return tuple(BankUse(b, tuple(sorted(ws)), tuple(tuple(ws[w]) for w in sorted(ws)))
                 for b, ws in sorted(by_bank.items()) if sum(map(len, ws.values())) > 1)


def test_ca_report_names_the_lane_waiting_for_the_most_lanes_on_both_sides():
    smem: list[int | None] = [4 * i for i in range(32)]
    glob: list[int | None] = [4 * i for i in range(32)]
    for k, lane in enumerate((5, 9, 11), 1):  # lanes 2, 5, 9, 11 read global bank 2: each waits for 3
        glob[lane] = 128 * k + 8
    for k, lane in enumerate((29, 30, 31), 1):  # lanes 28-31 write shared bank 28: each waits for 3
        smem[lane] = 128 * k + 112
    glob[21], glob[25] = 128 + 80, 256 + 80  # lanes 20, 21, 25 read global bank 20
    smem[22], smem[23] = 128 + 80, 256 + 80  # lanes 20, 22, 23 write shared bank 20: lane 20 waits for 4
    smem[17] = 128 + 64  # lanes 16, 17 write shared bank 16
    rep = report("cp.async.ca.shared.global, 4", smem, glob)
    assert rep.notes == ("lanes 0-31: lane 20 waits for 4 lanes: global bank 20 (source byte 80) is also read by "
                         "lanes [21, 25], shared bank 20 (byte 80) also written by lanes [22, 23]",)
    (phase,) = rep.phases
    assert phase.lanes == tuple(range(32)) and phase.ideal == 1
    assert phase.conflicts == _conflicts_4_bytes(smem, range(32))
    assert [u.bank for u in phase.conflicts] == [16, 20, 28]


def test_ca_report_explains_a_two_way_conflict():
    smem: list[int | None] = [4 * i for i in range(32)]
    smem[1] = 128  # lanes 0 and 1 write two words of shared bank 0
    rep = report("cp.async.ca.shared.global, 4", smem, [4 * i for i in range(32)])
    assert rep.wavefronts == 2
    assert rep.notes == ("lanes 0-31: lane 0 waits for 1 lanes: global bank 0 (source byte 0) is also read by "
                         "lanes [], shared bank 0 (byte 0) also written by lanes [1]",)


def test_ca_report_of_16_byte_copies_names_bank_groups_and_idle_phases():
    smem: list[int | None] = [None] * 32
    glob: list[int | None] = [None] * 32
    for i in range(8):  # phase 0 only: lane i -> 16-byte slot i on both sides
        smem[i], glob[i] = 16 * i, 16 * i
    glob[3] = 128 + 16  # lanes 1 and 3 read one global bank group
    smem[5] = 256 + 16  # lanes 1 and 5 write one shared bank group
    smem[9], glob[9] = 1024, None  # a lane inactive on one side keeps phase 1 idle
    rep = report("cp.async.ca.shared.global, 16", smem, glob)
    first_bank = 16 % 128 // 4
    assert rep.notes == (f"lanes 0-7: lane 1 waits for 2 lanes: global bank {first_bank} (source byte 16) is also read "
                         f"by lanes [3], shared bank {first_bank} (byte 16) also written by lanes [5]",)
    assert [p.lanes for p in rep.phases] == [tuple(range(8 * k, 8 * k + 8)) for k in range(4)]
    assert [p.ideal for p in rep.phases] == [1, 0, 0, 0] and rep.ideal == 1
    assert [p.wavefronts for p in rep.phases][1:] == [0, 0, 0]


def test_a_conflict_free_ca_copy_has_no_notes():
    lanes = [4 * i for i in range(32)]
    rep = report("cp.async.ca.shared.global, 4", lanes, lanes)
    assert rep.notes == () and rep.wavefronts == rep.ideal == 1 and rep.phases[0].conflicts == ()


def test_a_coalesced_cg_warp_costs_one_wavefront_per_row_and_that_is_its_ideal():
    lanes = [16 * i for i in range(32)]  # 512 consecutive bytes on both sides: 4 rows of 128 bytes
    rep = report(CG, lanes, lanes)
    assert rep.wavefronts == rep.ideal == 4 and len(rep.notes) == 4
