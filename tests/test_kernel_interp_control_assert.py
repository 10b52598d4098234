"""A failed device-side ``assert`` (a call of ``__assertfail``) halts the kernel on the GPU (CUDA C++ Programming
Guide, "Assertion"): the trace ends there with a KernelError naming the call, as for ``trap``, instead of reporting
the rest of the launch as if it ran.  An assert that holds, and ``vprintf``, change nothing."""

from __future__ import annotations

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel import trace

# nvcc's PTX for `assert(n > 0); s[tid] = tid; __syncthreads(); out[tid] = s[(3 tid) & 127];` (strings omitted)
PTX = """.version 8.0
.target sm_90
.address_size 64
.extern .func __assertfail
(
    .param .b64 __assertfail_param_0,
    .param .b64 __assertfail_param_1,
    .param .b32 __assertfail_param_2,
    .param .b64 __assertfail_param_3,
    .param .b64 __assertfail_param_4
)
;
.visible .entry k(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 s[512];
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [n];
    setp.gt.s32 %p1, %r2, 0;
    @%p1 bra OK;
    mov.u64 %rd3, 0;
    { // callseq 0, 0
    .param .b64 param0;
    st.param.b64 [param0+0], %rd3;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd3;
    .param .b32 param2;
    st.param.b32 [param2+0], 34;
    .param .b64 param3;
    st.param.b64 [param3+0], %rd3;
    .param .b64 param4;
    st.param.b64 [param4+0], 1;
    call.uni
    __assertfail,
    (
    param0,
    param1,
    param2,
    param3,
    param4
    );
    } // callseq 0
OK:
    mov.u32 %r1, %tid.x;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, s;
    add.s32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    bar.sync 0;
    ret;
}
"""


def test_an_assert_that_holds_changes_nothing():
    t = trace(PTX, "k", block=128, args={"out": "buf", "n": 5})
    assert [(s.opcode, s.executions) for s in t.instructions] == [("st.shared.u32", 4)]


def test_a_failed_assert_ends_the_trace_at_the_call_as_the_gpu_halts_the_kernel():
    line = next(i for i, s in enumerate(PTX.splitlines(), 1) if s.strip() == "call.uni")
    with pytest.raises(KernelError, match=rf"PTX line {line}, call.uni: a device-side assert failed") as err:
        trace(PTX, "k", block=128, args={"out": "buf", "n": 0})
    assert err.value.line == line and "aborts" in str(err.value)
