"""ldmatrix / stmatrix move the values the PTX ISA's fragment figures say (values stay known).

Shared memory holds half ``h`` = h at byte 2h (lane t writes halves 8t .. 8t+7); 32 lanes run
``ldmatrix.x4[.trans]`` with lane l supplying row address 16 l (matrix l // 8, row l % 8); each lane then
stores with an address built from its registers, so the recorded addresses expose the loaded values.
"""

from __future__ import annotations

import pytest

from layoutalg.kernel import trace

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
.reg .b32 %r<40>;
.reg .pred %p<2>;
.shared .align 16 .b8 s[8192];
mov.u32 %r1, %tid.x;
mov.u32 %r2, s;
shl.b32 %r3, %r1, 3;
shl.b32 %r7, %r1, 4;
add.s32 %r4, %r2, %r7;
""" + "".join(f"add.s32 %r8, %r3, {k};\nst.shared.u16 [%r4+{2 * k}], %r8;\n" for k in range(8)) + """shl.b32 %r5, %r1, 4;
add.s32 %r6, %r2, %r5;
bar.sync 0;
"""


def expected(lane: int, j: int, trans: bool) -> tuple[int, int]:
    def m(r: int, c: int) -> int:
        return (8 * j + r) * 8 + c
    if trans:
        return m(2 * (lane % 4), lane // 4), m(2 * (lane % 4) + 1, lane // 4)
    return m(lane // 4, 2 * (lane % 4)), m(lane // 4, 2 * (lane % 4) + 1)


@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_x4_gives_each_lane_the_isa_fragment(trans: bool) -> None:
    body = f"ldmatrix.sync.aligned.m8n8.x4{'.trans' if trans else ''}.shared.b16 {{%r10, %r11, %r12, %r13}}, [%r6];\n"
    for j in range(4):
        # lo half -> address 4096 + 4 * lo (a word store, so the value is recorded as an address)
        body += (f"and.b32 %r{20 + j}, %r{10 + j}, 65535;\nshl.b32 %r{24 + j}, %r{20 + j}, 2;\n"
                 f"add.s32 %r{28 + j}, %r2, %r{24 + j};\nst.shared.u32 [%r{28 + j}+4096], %r1;\n"
                 f"shr.u32 %r{32 + j}, %r{10 + j}, 16;\nshl.b32 %r{36 + j}, %r{32 + j}, 2;\n"
                 f"add.s32 %r{36 + j}, %r2, %r{36 + j};\nst.shared.u32 [%r{36 + j}+4096], %r1;\n")
    t = trace(HEAD + body + "ret;\n}\n", block=32)
    assert t.complete
    stores = [r for r in sorted(t.accesses, key=lambda r: r.step) if r.kind == "st" and r.access_bytes == 4]
    assert len(stores) == 8
    for j in range(4):
        lo, hi = stores[2 * j].smem[0], stores[2 * j + 1].smem[0]
        for lane in range(32):
            want = expected(lane, j, trans)
            assert ((int(lo[lane]) - 1024 - 4096) // 4, (int(hi[lane]) - 1024 - 4096) // 4) == want


def test_stmatrix_writes_where_ldmatrix_reads() -> None:
    body = ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r6];\n"
            "add.s32 %r14, %r6, 2048;\n"
            "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r14], {%r10, %r11, %r12, %r13};\n"
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r15, %r16, %r17, %r18}, [%r14];\n"
            "and.b32 %r20, %r15, 65535;\nshl.b32 %r21, %r20, 2;\nadd.s32 %r22, %r2, %r21;\n"
            "st.shared.u32 [%r22+4096], %r1;\n")
    t = trace(HEAD + body + "ret;\n}\n", block=32)
    last = [r for r in sorted(t.accesses, key=lambda r: r.step) if r.kind == "st" and r.access_bytes == 4][-1]
    # a .trans store then a .trans load round-trips: lane l gets back its first register's low half
    for lane in range(32):
        assert (int(last.smem[0][lane]) - 1024 - 4096) // 4 == expected(lane, 0, False)[0]
