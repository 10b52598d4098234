"""Which atomics the kernel tracer hands the bank model as the merged increment (``red.shared.add.u32, 1``).

ptxas 13.0 compiles an ``add.u32`` of the immediate 1 whose result nothing reads -- a ``red``, or an ``atom``
whose destination is ``_`` or a register overwritten or never mentioned before a read (``atomicAdd(p, 1)`` with its
result unused, or read only by code ptxas removes as dead) -- to ATOMS.POPC.INC, which merges the warp's increments of one word; an ``atom`` whose result is read,
an ``s32`` add or an add of another value stay ATOMS.ADD (every case below compiled with ptxas 13.0 for sm_90 and
its SASS read with cuobjdump).  The costs follow rule 6 of :mod:`layoutalg.banks.model`.
"""

from __future__ import annotations

import pytest

import layoutalg.banks as banks
from layoutalg.kernel import trace

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 4 .b8 tile[1024];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, tile;
  add.u32 %r5, %r4, %r3;
"""
TAIL = """  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r7;
  ret;
}
"""
# every lane updates one of two words (banks 0 and 1): merged, 1 wavefront a warp; lane by lane, 16
CASES = [
    ("atom.shared.add.u32 %r6, [%r5], 1;", "red.shared.add.u32, 1", 1),  # %r6 is never read
    ("atom.shared.add.u32 %r7, [%r5], 1;", "red.shared.add.u32, 1", 1),  # %r7 is overwritten before it is read
    ("atom.shared.add.u32 %r9, [%r5], 1;\n  ld.param.u64 %rd2, [out];\n  st.global.u32 [%rd2+4], %r9;",
     "atom.shared.add.u32", 16),  # %r9 is stored
    # read past the atom's basic block (after a branch)
    ("atom.shared.add.u32 %r9, [%r5], 1;\n  bra.uni L1;\nL1:\n  ld.param.u64 %rd2, [out];\n  st.global.u32 [%rd2+4], %r9;",
     "atom.shared.add.u32", 16),
    # read only by code ptxas removes (an add chain nothing reads; a compare guarding only such an add): merged
    ("atom.shared.add.u32 %r9, [%r5], 1;\n  add.u32 %r10, %r9, 1;\n  xor.b32 %r11, %r10, 5;", "red.shared.add.u32, 1", 1),
    ("atom.shared.add.u32 %r9, [%r5], 1;\n  setp.eq.u32 %p1, %r9, 0;\n  @%p1 add.u32 %r12, %r1, 1;",
     "red.shared.add.u32, 1", 1),
    # a compare guarding a store reads it
    ("atom.shared.add.u32 %r9, [%r5], 1;\n  setp.eq.u32 %p1, %r9, 0;\n  @%p1 st.shared.u32 [%r5+8], %r1;",
     "atom.shared.add.u32", 16),
    ("red.shared.add.u32 [%r5], 1;", "red.shared.add.u32, 1", 1),
    ("atom.shared.add.u32 _, [%r5], 1;", "red.shared.add.u32, 1", 1),
    ("red.shared.add.s32 [%r5], 1;", "red.shared.add.s32", 16),
    ("red.shared.add.u32 [%r5], 2;", "red.shared.add.u32", 16),
    ("atom.shared.cas.b32 %r8, [%r5], %r1, %r2;", "atom.shared.cas.b32", 32),
]


@pytest.mark.parametrize(("line", "model_text", "per_warp"), CASES, ids=[c[0] for c in CASES])
def test_the_merged_increment_is_an_add_of_1_whose_result_nothing_reads(line: str, model_text: str,
                                                                        per_warp: int) -> None:
    ptx = HEAD + "  " + line + "\n  atom.shared.add.u32 %r7, [%r5], 3;\n" + TAIL
    t = trace(ptx, kernel="k", grid=1, block=64, args={"0": "buf"})
    first = t.instructions[0]
    assert first.model_text == model_text
    two_words = [4 * (lane % 2) for lane in range(32)]
    assert per_warp == banks.wavefronts(model_text, two_words)
    assert (first.executions, first.wavefronts) == (2, 2 * per_warp)
    assert t.counters["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"] == 2 * (per_warp + 16)
    # Nsight's conflict counter counts passes: per warp, passes - 1 (cas: two wavefronts a pass)
    passes = per_warp // (2 if ".cas." in model_text else 1)
    assert t.counters["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"] == 2 * (passes - 1 + 15)
