"""``trace(..., arch=)`` refuses an instruction the architecture lacks, as ptxas does ("Feature 'stmatrix' requires
.target sm_90 or higher"), instead of costing it with the bank model that ``banks.wavefronts(arch=)`` refuses."""

from __future__ import annotations

import pytest

from layoutalg.banks import wavefronts
from layoutalg.errors import InstructionError, KernelError
from layoutalg.kernel import trace

PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry epi()
{
    .reg .b32 %r<8>;
    .reg .pred %p<2>;
    .shared .align 16 .b8 s[512];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 15;
    shl.b32 %r3, %r2, 4;
    mov.u32 %r4, s;
    add.u32 %r5, %r4, %r3;
    setp.lt.u32 %p1, %r1, 1000;
    @%p1 bra SKIP;
    stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r5], {%r1, %r2};
SKIP:
    ret;
}
"""


def test_stmatrix_on_sm_80_is_refused_at_its_line_even_where_no_thread_reaches_it():
    with pytest.raises(InstructionError):
        wavefronts("stmatrix.sync.aligned.m8n8.x2.shared.b16", [16 * (i % 16) for i in range(32)], arch="sm_80")
    with pytest.raises(KernelError, match=r"PTX line 16, stmatrix.*: stmatrix does not exist on sm_80; it needs sm_90"):
        trace(PTX, "epi", block=32, arch="sm_80")  # every thread branches over it


def test_the_same_kernel_traces_on_an_architecture_that_has_it():
    t = trace(PTX.replace("setp.lt.u32", "setp.gt.u32"), "epi", block=32, arch="sm_90")  # executed now
    assert [(s.opcode, s.executions, s.wavefronts) for s in t.instructions] == [
        ("stmatrix.sync.aligned.m8n8.x2.shared.b16", 1, 2)]
