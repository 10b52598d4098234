"""ldmatrix / stmatrix ``.m8n8 .b16`` on tags (layoutalg/kernel/dataflow/matrix.py), against the PTX ISA's
fragment rule written out here: lane t's register j holds halves (M_j[t/4][2(t%4)], M_j[t/4][2(t%4)+1]) of
matrix j, whose row r sits at the address lane 8j + r gives; with ``.trans`` (M_j[2(t%4)][t/4],
M_j[2(t%4)+1][t/4]).  stmatrix is the same map with the data going the other way.  Each thread first
copies its own 16 bytes of A to shared row t (so shared row r holds A bytes 16r..16r+15), and row addresses
are a permutation of the rows, so every half's source is distinguishable."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import lane_units, run

from layoutalg.errors import KernelError
from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.matrix import half_sources

STAGE = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;", "ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];",
         "st.shared.v4.u32 [%r11], {%r4, %r5, %r6, %r7};", "bar.sync 0;"]
# %r13 = sm + 16 * perm(t), perm(t) = (5 t + 3) mod 32 (ROW_ADDR_64: mod 64, for two warps; t: thread of the CTA)
ROW_ADDR = ["mad.lo.u32 %r12, %r1, 5, 3;", "and.b32 %r12, %r12, 31;", "mad.lo.u32 %r13, %r12, 16, %r10;"]
ROW_ADDR_64 = [ROW_ADDR[0], "and.b32 %r12, %r12, 63;", ROW_ADDR[2]]
OUT = ["st.global.v4.u32 [%rd5], {%r20, %r21, %r22, %r23};"]
REGS = "{%r20, %r21, %r22, %r23}"


def perm(thread: int, block: int) -> int:
    return (5 * thread + 3) % block


def ld_expected(count: int, trans: bool, block: int = 32) -> list[list]:
    out = []
    for thread in range(block):
        w, t = divmod(thread, 32)
        row = []
        for j in range(count):
            for h in range(2):
                if trans:
                    lane, byte = 8 * j + 2 * (t % 4) + h, 2 * (t // 4)
                else:
                    lane, byte = 8 * j + t // 4, 4 * (t % 4) + 2 * h
                row.append(("A", 16 * perm(32 * w + lane, block) + byte))
        out.append(row)
    return out


@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_gives_each_lane_the_halves_the_ptx_fragment_rule_names(count: int, trans: bool) -> None:
    regs = "{" + ", ".join(f"%r{20 + j}" for j in range(count)) + "}"
    ins = f"ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 {regs}, [%r13];"
    got = lane_units(STAGE + ROW_ADDR + [ins] + OUT, units=2 * count)
    assert got == ld_expected(count, trans)


def test_ldmatrix_in_every_warp_uses_that_warps_row_addresses() -> None:
    body = STAGE + ROW_ADDR_64 + [f"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {REGS}, [%r13];"] + OUT
    assert lane_units(body, units=8, block=64) == ld_expected(4, False, block=64)


def st_expected(trans: bool, block: int = 32) -> list[list]:
    """Shared row r, byte b <- lane t's register j half h, where that lane's register held A bytes 16 t + 4 j + 2 h."""
    rows: dict = {}
    for thread in range(block):
        w, t = divmod(thread, 32)
        for j in range(4):
            for h in range(2):
                if trans:
                    lane, byte = 8 * j + 2 * (t % 4) + h, 2 * (t // 4)
                else:
                    lane, byte = 8 * j + t // 4, 4 * (t % 4) + 2 * h
                rows[(perm(32 * w + lane, block), byte)] = ("A", 16 * (32 * w + t) + 4 * j + 2 * h)
    return [[rows.get((r, 2 * u), "none") for u in range(8)] for r in range(block)]


@pytest.mark.parametrize("trans, block", [(False, 32), (True, 32), (False, 64)])
def test_stmatrix_puts_each_lanes_halves_where_the_ptx_fragment_rule_names(trans: bool, block: int) -> None:
    body = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;", "ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];",
            *(ROW_ADDR if block == 32 else ROW_ADDR_64), f"stmatrix.sync.aligned.m8n8.x4{'.trans' if trans else ''}.shared.b16 [%r13], "
            "{%r4, %r5, %r6, %r7};", "bar.sync 0;", f"ld.shared.v4.u32 {REGS}, [%r11];", *OUT]
    assert lane_units(body, units=8, block=block) == st_expected(trans, block)


@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_and_stmatrix_run_without_numpy_warnings(trans: bool) -> None:
    # a user running with -W error (or a notebook) must not see a numpy division-by-zero warning from the model
    import warnings

    t = ".trans" if trans else ""
    body = STAGE + ROW_ADDR + [f"ldmatrix.sync.aligned.m8n8.x4{t}.shared.b16 {REGS}, [%r13];",
                               f"stmatrix.sync.aligned.m8n8.x4{t}.shared.b16 [%r13], {REGS};"] + OUT
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(body)


def test_the_ldmatrix_samples_name_every_shared_unit_read_with_its_tag() -> None:
    body = STAGE + ROW_ADDR + [f"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {REGS}, [%r13];"] + OUT
    _, fr = run(body)
    op = [i for i, ins in enumerate(fr.fn.body) if ins.root == "ldmatrix"][0]
    _warp, _inst, unit, tag = fr.samples[op].arrays()
    assert unit.size == 32 * 8
    # every sample's tag is the A element that was staged at that shared unit (row r = A bytes 16 r..)
    assert sorted(zip(unit.tolist(), [int(tg.glob_off(t)) for t in tag.tolist()])) == \
        sorted((u, 2 * u) for u in set(unit.tolist()))
    assert sorted(set(unit.tolist())) == list(range(256))


def test_ldmatrix_from_row_addresses_unknown_at_trace_time_is_opaque() -> None:
    body = STAGE + ["ld.global.u32 %r13, [%rd4];", f"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {REGS}, [%r13];"]
    got = lane_units(body + OUT, units=8)
    assert got == [[("opaque", tg.W_GLOBAL_ADDR)] * 8] * 32


def test_ldmatrix_needs_only_the_row_addresses_of_the_lanes_its_matrices_use() -> None:
    """x1 reads the addresses of lanes 0..7 only: the other lanes' addresses may be anything."""
    body = STAGE + ROW_ADDR + ["setp.ge.u32 %p1, %r1, 8;", "@%p1 ld.global.u32 %r13, [%rd4];",
                               "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r20}, [%r13];"]
    assert lane_units(body + OUT, units=2) == ld_expected(1, False)


def test_stmatrix_to_row_addresses_unknown_at_trace_time_leaves_shared_memory_opaque() -> None:
    body = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;", "ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];",
            "ld.global.u32 %r13, [%rd4 + 4];", "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r13], {%r4, %r5, %r6, %r7};",
            "bar.sync 0;", f"ld.shared.v4.u32 {REGS}, [%r11];", *OUT]
    assert all(row == [("opaque", tg.W_SMEM_WRITE)] * 8 for row in lane_units(body, units=8))


def test_half_sources_are_the_fragment_rule_as_arrays() -> None:
    for count in (1, 2, 4):
        for trans in (False, True):
            row, off = half_sources(count, trans)
            assert row.shape == off.shape == (count, 32, 2)
            for j in range(count):
                for t in range(32):
                    for h in range(2):
                        want = (8 * j + 2 * (t % 4) + h, 2 * (t // 4)) if trans else (8 * j + t // 4, 4 * (t % 4) + 2 * h)
                        assert (int(row[j, t, h]), int(off[j, t, h])) == want


@pytest.mark.parametrize("ins", ["ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r20, %r21}, [%r13];",
                                 "ldmatrix.sync.aligned.m8n8.shared.b16 {%r20}, [%r13];",
                                 "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r13], {%r4};"])
def test_other_shapes_are_refused_not_guessed(ins: str) -> None:
    with pytest.raises(KernelError, match=r"only the \.m8n8 \.b16 shape|exactly one of \.x1 \.x2 \.x4"):
        run(STAGE + ROW_ADDR + [ins])


def test_ldmatrix_of_rows_its_own_warp_stored_is_no_race_in_any_warp() -> None:
    """Each thread stores shared row t, then each warp's ldmatrix reads only its own 32 rows: no other warp
    touched them, so no barrier is needed (in warp 1 as in warp 0)."""
    body = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;", "ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];",
            "st.shared.v4.u32 [%r11], {%r4, %r5, %r6, %r7};",
            f"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {REGS}, [%r11];", *OUT]
    _, res = run(body, block=64)
    assert res.races == []
    # the other warp's rows: warp w reads the rows of warp 1 - w with no barrier, a race
    other = ["xor.b32 %r12, %r1, 32;", "mad.lo.u32 %r13, %r12, 16, %r10;"]
    _, res = run(body[:4] + other + [f"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {REGS}, [%r13];", *OUT], block=64)
    assert res.races != []


@pytest.mark.parametrize(("count", "lane"), [(1, 7), (2, 15), (4, 31)])
def test_ldmatrix_with_the_last_used_row_address_unknown_is_opaque(count: int, lane: int) -> None:
    """.xN reads the row addresses of lanes 0..8N-1: the last of them unknown makes every result opaque."""
    regs = "{" + ", ".join(f"%r{20 + j}" for j in range(count)) + "}"
    body = STAGE + ROW_ADDR + [f"setp.eq.u32 %p1, %r1, {lane};", "@%p1 ld.global.u32 %r13, [%rd4];",
                               f"ldmatrix.sync.aligned.m8n8.x{count}.shared.b16 {regs}, [%r13];"]
    assert lane_units(body + OUT, units=2) == [[("opaque", tg.W_GLOBAL_ADDR)] * 2] * 32


@pytest.mark.parametrize(("extra", "words"), [("add.u32 %r13, %r13, 8;", "misaligned shared-memory address"),
                                              ("add.u32 %r13, %r13, 1008;", "outside the CTA's shared memory")])
def test_ldmatrix_of_a_misaligned_or_outside_row_is_refused_naming_the_line(extra: str, words: str) -> None:
    body = STAGE + ROW_ADDR + [extra, f"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {REGS}, [%r13];"]
    with pytest.raises(KernelError, match=f"PTX line \\d+, ldmatrix.*{words}"):
        run(body + OUT)
