"""Shared-memory access mechanics of the interpreter (memory.py), checked through PTX the interpreter runs:
address operands (PTX ISA "Addresses as Operands": ``[reg+imm]``, ``[var+imm]``, ``[imm]``), bounds and
alignment refusals that name the offending address, one access record per warp, and racing stores (lanes of
one ``st`` writing different values to one byte leave it unknown: the hardware keeps one writer, unspecified
which; writing the same value is no race)."""

from __future__ import annotations

import pytest
from kernel_interp_harness import lanes, launch, refusal

from layoutalg.kernel.records import Recorder

SMEM = ".shared .align 16 .b8 tile[1024];"  # the CTA's shared memory is [1024, 2048) (SMEM_BASE = 1024)
ADDR = "mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 2;\nmov.u32 %r37, tile;\nadd.u32 %r36, %r37, %r38;\n"


def test_an_address_operand_can_be_a_variable_an_immediate_or_a_register_with_an_offset():
    body = ("mov.u64 %rd1, tile;\nst.shared.u32 [%rd1+8], 77;\nld.shared.u32 %r1, [1032];\n"
            "ld.shared.u32 %r2, [tile+8];\nld.shared.u32 %r3, [%rd1+8];")
    m = launch(body, decls=SMEM)
    assert lanes(m, "%r1") == lanes(m, "%r2") == lanes(m, "%r3") == [77] * 32


def test_a_register_where_an_address_belongs_or_an_unknown_symbol_is_refused_naming_the_line():
    err, line = refusal("ld.shared.u32 %r1, %r2;", "%r1, %r2", decls=SMEM)
    assert err.line == line and "expected an address operand [..], got Reg(name='%r2')" in str(err)
    err, line = refusal("ld.shared.u32 %r1, [nosuch+4];", "nosuch", decls=SMEM)
    assert err.line == line and "unknown symbol 'nosuch'" in str(err)


def test_an_access_past_shared_memory_by_some_lanes_is_refused_naming_the_last_address():
    # lane t reads [1024 + 64 t]: lane 0 at the first byte, lanes 16.. past the end (2048)
    body = ("mov.u32 %r39, %tid.x;\nshl.b32 %r38, %r39, 6;\nmov.u32 %r37, tile;\nadd.u32 %r38, %r38, %r37;\n"
            "ld.shared.u32 %r1, [%r38];")
    err, line = refusal(body, "ld.shared", decls=SMEM)
    assert err.line == line
    assert "shared-memory address 3008 (4 bytes) is outside the CTA's shared memory [1024, 2048)" in str(err)
    err, line = refusal(body, "ld.shared", decls=SMEM, active=[t % 8 == 7 for t in range(32)])
    assert err.line == line and "shared-memory address 3008 (4 bytes) is outside" in str(err)
    err, line = refusal("ld.shared.u32 %r1, [tile+-4];", "ld.shared", decls=SMEM, active=[t < 5 for t in range(32)])
    assert err.line == line and "shared-memory address 1020 (4 bytes) is outside" in str(err)


def test_a_variable_address_below_zero_wraps_as_64_bit_arithmetic_like_a_register_address():
    # PTX addresses are 64-bit (.address_size 64): tile (1024) - 2000 is 2**64 - 976, -976 as a signed int64, both
    # for [tile+-2000] and for [%rd1+-2000] with %rd1 = tile
    for body in ("ld.shared.u32 %r1, [tile+-2000];", "mov.u64 %rd1, tile;\nld.shared.u32 %r1, [%rd1+-2000];"):
        err, line = refusal(body, "ld.shared", decls=SMEM)
        assert err.line == line and f"shared-memory address {1024 - 2000} (4 bytes) is outside" in str(err), body
    # 2**63 past tile is far outside shared memory, not tile itself
    err, line = refusal(f"ld.shared.u32 %r1, [tile+{2**63}];", "ld.shared", decls=SMEM)
    assert err.line == line and f"shared-memory address {1024 + 2**63 - 2**64} (4 bytes) is outside" in str(err)


def test_a_misaligned_access_is_refused_naming_the_first_misaligned_address():
    # lane t reads word t; lane 5 (only) adds 2 bytes: 1024 + 20 + 2 = 1046 is not 4-byte aligned
    body = ADDR + "setp.eq.u32 %p1, %r39, 5;\n@%p1 add.u32 %r36, %r36, 2;\nld.shared.u32 %r1, [%r36];"
    err, line = refusal(body, "ld.shared.u32", decls=SMEM)
    assert err.line == line and "misaligned shared-memory address 1046 for a 4-byte access" in str(err)


def test_every_warp_of_a_1024_thread_cta_gets_one_record_entry():
    rec = Recorder()
    launch("mov.u32 %r39, %tid.x;\nand.b32 %r38, %r39, 255;\nshl.b32 %r38, %r38, 2;\n"
           "mov.u32 %r37, tile;\nadd.u32 %r38, %r38, %r37;\nst.shared.u32 [%r38], %r39;", threads=1024, decls=SMEM, recorder=rec)
    (st,) = [r for r in rec.accesses if r.kind == "st"]
    assert st.warps.tolist() == list(range(32))
    assert st.smem.tolist() == [[1024 + 4 * ((32 * w + t) % 256) for t in range(32)] for w in range(32)]


def test_one_records_arrays_are_not_shared_with_another_records():
    rec = Recorder()
    launch("st.shared.u32 [tile], 1;\nst.shared.u32 [tile+4], 2;", threads=64, decls=SMEM, recorder=rec)
    first, second = rec.accesses
    for arr in (first.warps, first.active):
        try:
            arr[...] = 0
        except ValueError:  # read-only is as good as private
            pass
    assert second.warps.tolist() == [0, 1] and second.active.all()


def _race(inputs: list[list[int]]) -> list[int | None]:
    """Every lane first writes 999 to word t of ``tile``; lane t then stores its %r30 to word %r32, a known
    value where %r31 != 0 and an unknown one (shared memory never written) where %r31 == 0; lane t reads
    word t back."""
    body = (ADDR + "st.shared.u32 [%r36], 999;\nsetp.ne.u32 %p1, %r31, 0;\n@%p1 st.shared.u32 [%r36+512], %r30;\n"
            "ld.shared.u32 %r5, [%r36+512];\nshl.b32 %r35, %r32, 2;\nadd.u32 %r35, %r35, %r37;\n"
            "st.shared.u32 [%r35], %r5;\nld.shared.u32 %r1, [%r36];")
    return lanes(launch(body, inputs, decls=SMEM), "%r1")


def _race_oracle(inputs: list[list[int]]) -> list[int | None]:
    """Brute force: a word keeps its writers' value if they all wrote the same known value, else is unknown."""
    out: list[int | None] = []
    for word in range(len(inputs)):
        writes = {(v if k else None) for v, k, dest in inputs if dest == word}
        out.append(999 if not writes else writes.pop() if len(writes) == 1 and None not in writes else None)
    return out


RACES = {
    "pairs of lanes writing different values": [[t, 1, t // 2] for t in range(32)],
    "pairs of lanes writing the same value": [[t // 2, 1, t // 2] for t in range(32)],
    "an unknown and a known write to one word": [[5, 1, 0], [0, 0, 1], [0, 1, 1], [0, 0, 3], [9, 1, 3]]
    + [[t, 1, t] for t in range(5, 32)],
}


@pytest.mark.parametrize("inputs", list(RACES.values()), ids=list(RACES))
def test_lanes_racing_on_a_word_leave_it_unknown_unless_they_all_write_the_same_known_value(inputs):
    assert _race(inputs) == _race_oracle(inputs)


def test_a_partial_warps_record_holds_each_active_lanes_addresses_and_zero_for_inactive_lanes():
    # records.py: per lane its shared address and, for cp.async, its global source; inactive lanes hold 0
    rec = Recorder()
    body = ("ld.param.u64 %rd3, [buf0];\nmul.wide.u32 %rd5, %r39, 16;\nadd.u64 %rd3, %rd3, %rd5;\n"
            "shl.b32 %r38, %r39, 4;\nmov.u32 %r37, tile;\nadd.u32 %r37, %r37, %r38;\ncvt.u64.u32 %rd1, %r37;\n"
            "cp.async.cg.shared.global [%rd1], [%rd3], 16;\ncp.async.wait_all;")
    launch(body, active=[t < 12 for t in range(32)], decls=SMEM, buffers=1, recorder=rec)
    (cp,) = [r for r in rec.accesses if r.kind == "cp.async"]
    assert cp.warps.tolist() == [0] and cp.active.tolist() == [[t < 12 for t in range(32)]]
    assert cp.smem.tolist() == [[1024 + 16 * t if t < 12 else 0 for t in range(32)]]
    assert cp.global_buffer is not None and cp.global_buffer.tolist() == [[0] * 32]
    assert cp.global_offset is not None and cp.global_offset.tolist() == [[16 * t if t < 12 else 0 for t in range(32)]]
