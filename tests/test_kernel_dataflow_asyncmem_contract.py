"""cp.async and the unfollowed memory instructions (layoutalg/kernel/dataflow/asyncmem.py) on one-warp PTX
snippets.  PTX ISA cp.async: ``cp-size`` bytes land in shared memory, of which the first ``src-size`` come from
global memory and the rest are zero; ``ignore-src`` true copies nothing (all zero).  A 16-bit unit cut by
src-size, an src-size or ignore predicate unknown at trace time, or src-size > cp-size make units OPAQUE
(W_SRC_SIZE).  Atomics write memory the model does not follow: their results and (shared) the CTA's shared
memory are OPAQUE, global ones are unknown stores."""

from __future__ import annotations

import pytest
from kernel_dataflow_contract_harness import lane_units, run, what

from layoutalg.kernel.dataflow import tags as tg

S = ["mov.u32 %r10, sm;", "mad.lo.u32 %r11, %r1, 16, %r10;"]  # %r11: this thread's 16 shared bytes
RD = ["ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r11];", "st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};"]
WAIT = ["cp.async.commit_group;", "cp.async.wait_group 0;"]
SRC = ("opaque", tg.W_SRC_SIZE)


def copied(cp: list[str]) -> list[list]:
    return lane_units(S + cp + WAIT + RD, units=8)


@pytest.mark.parametrize("src_size", [None, 16, 6, 5, 1, 0])
def test_cp_async_copies_src_size_bytes_and_zero_fills_the_rest(src_size: int | None) -> None:
    tail = "" if src_size is None else f", {src_size}"
    got = copied([f"cp.async.cg.shared.global [%r11], [%rd4], 16{tail};"])
    n = 16 if src_size is None else src_size
    for t, row in enumerate(got):
        want = [("A", 16 * t + 2 * u) if 2 * u + 2 <= n else SRC if 2 * u < n else "zero" for u in range(8)]
        assert row == want, (src_size, t, row)


def test_cp_async_of_4_and_8_bytes_copies_that_many() -> None:
    for size in (4, 8):
        got = lane_units(S + [f"cp.async.ca.shared.global [%r11], [%rd4], {size};"] + WAIT + RD, units=size // 2)
        assert all(row == [("A", 16 * t + 2 * u) for u in range(size // 2)] for t, row in enumerate(got))


def test_src_size_past_the_copy_or_unknown_makes_every_unit_opaque() -> None:
    assert all(row == [SRC] * 8 for row in copied(["cp.async.cg.shared.global [%r11], [%rd4], 16, 20;"]))
    unknown = ["ld.global.u32 %r20, [%rd4];", "and.b32 %r21, %r20, 15;",
               "cp.async.cg.shared.global [%r11], [%rd4], 16, %r21;"]
    assert all(row == [SRC] * 8 for row in copied(unknown))


def test_ignore_src_zero_fills_the_lanes_whose_predicate_is_true() -> None:
    got = copied(["setp.lt.u32 %p2, %r1, 16;", "cp.async.cg.shared.global [%r11], [%rd4], 16, %p2;"])
    for t, row in enumerate(got):
        assert row == (["zero"] * 8 if t < 16 else [("A", 16 * t + 2 * u) for u in range(8)]), t
    got = copied(["ld.global.u32 %r20, [%rd4];", "setp.lt.u32 %p2, %r20, 16;",
                  "cp.async.cg.shared.global [%r11], [%rd4], 16, %p2;"])
    assert all(row == [SRC] * 8 for row in got)


def test_cp_async_to_an_unknown_shared_address_makes_shared_memory_opaque() -> None:
    got = copied(["ld.global.u32 %r20, [%rd4];", "and.b32 %r21, %r20, 0;", "add.u32 %r22, %r11, %r21;",
                  "cp.async.cg.shared.global [%r22], [%rd4], 16;"])
    assert all(row == [("opaque", tg.W_SMEM_WRITE)] * 8 for row in got)


def test_a_shared_atomic_is_unfollowed_and_makes_shared_memory_opaque() -> None:
    body = S + ["ld.global.u32 %r2, [%rd4];", "st.shared.u32 [%r11], %r2;", "atom.shared.add.u32 %r3, [%r10+1000], 1;",
                "ld.shared.u32 %r4, [%r11];", "st.global.v2.u32 [%rd5], {%r4, %r3};"]
    got = lane_units(body, units=4)
    assert all(row == [("opaque", tg.W_SMEM_WRITE)] * 2 + [("opaque", tg.W_UNMODELLED)] * 2 for row in got)
    _, res = run(body)
    assert list(res.sync_unmodelled.values()) == ["atom.shared.add.u32"] and not res.unknown_stores


def test_a_global_atomic_is_an_unknown_store_with_an_opaque_result() -> None:
    body = ["ld.global.u32 %r2, [%rd4];", "atom.global.add.u32 %r3, [%rd4], %r2;", "st.global.u32 [%rd5], %r3;"]
    got = lane_units(body)
    assert all(row == [("opaque", tg.W_UNMODELLED)] * 2 for row in got)
    _, res = run(body)
    assert len(res.unknown_stores) == 1 and list(res.sync_unmodelled.values()) == ["atom.global.add.u32"]


@pytest.mark.parametrize("grid,block", [(1, 64), (2, 64), (3, 32)])
def test_every_warp_of_every_cta_waits_for_its_own_copies(grid: int, block: int) -> None:
    body = S + ["cp.async.cg.shared.global [%r11], [%rd4], 16;"] + WAIT + RD
    _, res = run(body, block=block, grid=grid)
    assert res.races == []
    _, res = run(S + ["cp.async.cg.shared.global [%r11], [%rd4], 16;", "cp.async.commit_group;"] + RD,
                 block=block, grid=grid)
    assert {r.kind for r in res.races} == {"read of a cp.async not yet waited for"}
    assert {(r.cta, r.first_warp) for r in res.races} <= {(c, w) for c in range(grid) for w in range(block // 32)}


@pytest.mark.parametrize("copy", ["cp.async.bulk.global.shared::cta.bulk_group [%rd5], [%r11], 16;",
                                  "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd5], [%r11], 16;"])
def test_a_bulk_copy_from_shared_to_global_memory_is_an_unknown_store(copy: str) -> None:
    # PTX ISA cp{.reduce}.async.bulk.dst.src: .global.shared::cta writes global memory (dst first)
    rec, res = run(S + [copy])
    assert list(res.unknown_stores) == list(res.sync_unmodelled) and len(res.unknown_stores) == 1
    assert list(res.sync_unmodelled.values()) == [copy.split(" ")[0]] and not rec.units


def test_a_bulk_copy_from_global_to_shared_memory_is_no_global_store_and_makes_shared_memory_opaque() -> None:
    # .shared::cluster.global: the destination is shared memory, the global source is only read
    copy = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r11], [%rd4], 16, [%r10];"
    body = S + ["ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];", "st.shared.v4.u32 [%r11], {%r4, %r5, %r6, %r7};",
                copy, "bar.sync 0;"] + RD
    _, res = run(body)
    assert not res.unknown_stores and list(res.sync_unmodelled.values()) == [copy.split(" ")[0]]
    assert all(row == [("opaque", tg.W_SMEM_WRITE)] * 8 for row in lane_units(body, units=8))


def test_a_cp_async_to_an_unknown_address_in_one_cta_leaves_the_other_cta_s_shared_memory_known() -> None:
    # every CTA fills its own shared memory from A; only CTA 1 then copies to an address unknown at trace time
    body = S + ["ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];", "st.shared.v4.u32 [%r11], {%r4, %r5, %r6, %r7};",
                "mov.u32 %r25, %ctaid.x;", "setp.eq.u32 %p3, %r25, 1;",
                "ld.global.u32 %r20, [%rd4];", "and.b32 %r21, %r20, 0;", "add.u32 %r22, %r11, %r21;",
                "@%p3 cp.async.cg.shared.global [%r22], [%rd4], 16;"] + WAIT + [
                "ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r11];",
                "mul.wide.u32 %rd6, %r25, 512;", "add.s64 %rd7, %rd5, %rd6;",  # CTA c stores to C bytes 512 c + 16 t
                "st.global.v4.u32 [%rd7], {%r4, %r5, %r6, %r7};"]
    rec, _ = run(body, grid=2)
    for t in range(32):
        assert [what(rec.units.get((1, 16 * t + 2 * u))) for u in range(8)] == [("A", 16 * t + 2 * u) for u in range(8)]
        assert [what(rec.units.get((1, 512 + 16 * t + 2 * u))) for u in range(8)] == [("opaque", tg.W_SMEM_WRITE)] * 8


@pytest.mark.parametrize("prefetch", ["cp.async.bulk.prefetch.L2.global [%rd4], 16;",
                                      "cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd4], 16, %rd6;"])
def test_a_bulk_prefetch_into_l2_is_no_global_store(prefetch: str) -> None:
    # PTX ISA cp.async.bulk.prefetch.L2.src: .global names the source; the prefetch writes no memory
    body = ["mov.u64 %rd6, 0;", prefetch, "ld.global.u32 %r2, [%rd4];", "st.global.u32 [%rd5], %r2;"]
    _, res = run(body)
    assert not res.unknown_stores
    assert all(row == [("A", 16 * t), ("A", 16 * t + 2)] for t, row in enumerate(lane_units(body)))



@pytest.mark.parametrize("low", [1, 5, 9])
def test_a_src_size_unknown_at_trace_time_makes_every_unit_opaque_whatever_its_known_low_bits(low: int) -> None:
    # src-size = (loaded data) | low: at least ``low`` bytes come from global memory and the rest may be zeros
    # or copied, so no unit's content is known (PTX ISA cp.async: the first src-size bytes are copied)
    got = copied(["ld.global.u32 %r20, [%rd4];", f"or.b32 %r21, %r20, {low};",
                  "cp.async.cg.shared.global [%r11], [%rd4], 16, %r21;"])
    assert all(row == [SRC] * 8 for row in got), got[:1]


def test_a_wait_group_completes_only_the_copies_of_the_warp_that_waits() -> None:
    # PTX ISA cp.async.wait_group: the executing thread waits for its own groups.  Warp 1 waits, warp 0 does not:
    # warp 0's reads of its copies are still racing them, warp 1's are not
    body = S + ["cp.async.cg.shared.global [%r11], [%rd4], 16;", "cp.async.commit_group;",
                "setp.lt.u32 %p3, %r1, 32;", "@%p3 bra SKIP;", "cp.async.wait_group 0;", "SKIP:"] + RD
    _, res = run(body, block=64)
    assert {r.kind for r in res.races} == {"read of a cp.async not yet waited for"}
    assert {(r.cta, r.first_warp) for r in res.races} == {(0, 0)}


@pytest.mark.parametrize("store, unknown", [
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, 16;", 1),
    ("wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd2], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, 16;", 1),
    ("wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%r10], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, 16;", 0)])
def test_a_wmma_store_to_global_or_generic_memory_is_an_unknown_store(store: str, unknown: int) -> None:
    # PTX ISA wmma.store.d: the fragment is written to memory at the address (global, or generic without a state
    # space); the model does not follow it, so global memory it may write (C) is an unknown store.  It used to
    # write nothing the check saw: a GEMM whose C a wmma.store overwrote afterwards was proved
    _, res = run(S + [f"mov.f32 %f{i}, 0f00000000;" for i in range(8)] + [store])
    assert len(res.unknown_stores) == unknown and list(res.sync_unmodelled.values()) == [store.split(" ")[0]]


def test_a_gemm_whose_c_a_wmma_store_overwrites_is_not_proved() -> None:
    # the harness's scalar GEMM stores C, then a wmma.store writes zeros over it (and past it): "proved" before
    from kernel_dataflow_contract_harness import SPECS, gemm

    from layoutalg.kernel import check_mma, trace
    from layoutalg.kernel.ptx import parse_module

    zeros = "\n".join(f"mov.f32 %f{50 + i}, 0f00000000;" for i in range(8))
    text = gemm(store="st.global.f32 [%rd5], {acc};\n" + zeros + "\nwmma.store.d.sync.aligned.row.m16n16k16.global."
                      "f32 [%rd3], {{%f50, %f51, %f52, %f53, %f54, %f55, %f56, %f57}}, 16;")
    r = check_mma(trace(parse_module(text), block=32), **SPECS)
    assert r.verdict == "unknown" and r.reason.endswith("a global store to an address unknown at trace time (it "
                                                        "could hit C)")
