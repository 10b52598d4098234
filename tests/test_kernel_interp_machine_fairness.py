"""Warps progress independently (machine.py, "Fairness between warps"): a warp spinning on a shared flag that
another warp sets later in the program is not starved by the lowest-PC-first choice (after FAIR_AFTER polls the
other warps get a round), while each warp's own lanes still reconverge by min PC (one warp execution per
instruction and warp) and warps leaving a loop early still wait at its exit for the late ones."""

from __future__ import annotations

from layoutalg.kernel import trace
from layoutalg.kernel.interp.machine import FAIR_AFTER

HEAD = """.version 8.0
.target sm_90
.address_size 64
"""

# Warp 1 polls `flag` in a loop laid out before the code of warp 0 that stores data[] and then sets the flag
# (nvcc's layout of `if (tid >= 32) { while (flag == 0); out = data[..]; } else { data[t] = 3t; flag = 1; }`).
SPIN = HEAD + """
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p<5>;
    .reg .b32 %r<14>;
    .reg .b64 %rd<5>;
    .shared .align 4 .u32 flag;
    .shared .align 4 .b8 data[128];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra AFTER_INIT;
    mov.u32 %r2, 0;
    st.volatile.shared.u32 [flag], %r2;
AFTER_INIT:
    bar.sync 0;
    setp.gt.s32 %p2, %r1, 31;
    @%p2 bra WAITER;
    bra.uni PRODUCER;
WAITER:
    cvta.to.global.u64 %rd1, %rd2;
POLL:
    ld.volatile.shared.u32 %r8, [flag];
    setp.eq.s32 %p4, %r8, 0;
    @%p4 bra POLL;
    shl.b32 %r9, %r1, 2;
    and.b32 %r10, %r9, 124;
    mov.u32 %r11, data;
    add.s32 %r12, %r11, %r10;
    ld.shared.u32 %r13, [%r12];
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r13;
    bra.uni DONE;
PRODUCER:
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, data;
    add.s32 %r5, %r4, %r3;
    mul.lo.s32 %r6, %r1, 3;
    st.shared.u32 [%r5], %r6;
    membar.cta;
    @%p1 bra DONE;
    mov.u32 %r7, 1;
    st.volatile.shared.u32 [flag], %r7;
DONE:
    ret;
}
"""


def _line(ptx: str, text: str) -> int:
    return next(i for i, s in enumerate(ptx.splitlines(), 1) if text in s)


def test_a_warp_polling_a_flag_another_warp_sets_later_in_the_program_is_not_starved():
    t = trace(SPIN, "spin", block=64, args={"out": "buf"}, step_budget=10_000)
    poll = t.instruction(_line(SPIN, "ld.volatile.shared.u32 %r8"))
    assert poll.executions == FAIR_AFTER + 1  # polls until warp 0 gets its round, then one that sees the flag
    assert t.instruction(_line(SPIN, "ld.shared.u32 %r13")).executions == 1
    assert t.instruction(_line(SPIN, "st.shared.u32 [%r5]")).executions == 1
    assert not t.data_dependent


# Every warp runs a loop of (lane + 1) + warp trips over a shared counter (lanes leave it at different
# iterations), then stores once after it; warp 1 is still in the loop when warp 0 has left it.
LOOP = HEAD + """
.visible .entry loops()
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .shared .align 4 .b8 s[1024];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shr.u32 %r3, %r1, 5;
    add.u32 %r4, %r2, 1;
    mad.lo.u32 %r4, %r3, 40, %r4;
    mov.u32 %r5, 0;
    shl.b32 %r6, %r1, 2;
    mov.u32 %r7, s;
    add.u32 %r8, %r7, %r6;
TOP:
    st.shared.u32 [%r8], %r5;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, %r4;
    @%p1 bra TOP;
    st.shared.u32 [%r8+512], %r5;
    ret;
}
"""


def test_parked_warps_keep_their_lanes_together_so_counts_stay_per_warp():
    t = trace(LOOP, "loops", block=64, step_budget=10_000)
    body = t.instruction(_line(LOOP, "st.shared.u32 [%r8], %r5"))
    after = t.instruction(_line(LOOP, "st.shared.u32 [%r8+512]"))
    assert body.executions == 32 + 72  # warp w iterates 32 + 40 w times (its slowest lane)
    assert after.executions == 2  # once per warp: lanes that left the loop early wait for the rest of theirs
    # warp 0 leaves the loop 40 (< FAIR_AFTER) iterations before warp 1 and waits at its exit: 9 instructions
    # before the loop, 4 per iteration of the slowest lane (72), then the store and ret once for both warps
    assert t.steps == 9 + 4 * 72 + 2
