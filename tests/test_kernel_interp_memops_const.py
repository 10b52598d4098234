"""``ld.const`` of an initialised module ``.const`` variable reads its initializer (a ``__constant__`` lookup
table: the value the module is loaded with), so shared-memory addresses computed from it are costed instead of
being reported data-dependent; elements the initializer leaves out are zero (PTX ISA, "Array Declarations"); a
``.const`` variable without an initializer (set by the host) stays unknown."""

from __future__ import annotations

from layoutalg.kernel import trace

# s[perm[lane] * 8 + warp] = 1 with perm a transposing permutation of 0..31 whose initializer stops at 30 elements
# (perm[30] = perm[31] = 0); then s[cfg[0] & 255] with cfg set by the host.
PERM = [4 * (i % 8) + i // 8 for i in range(30)]
PTX = f""".version 8.0
.target sm_90
.address_size 64
.const .align 4 .u32 perm[32] = {{{", ".join(map(str, PERM))}}};
.const .align 4 .b8 cfg[8];
.visible .entry k()
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 s[1024];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shr.u32 %r3, %r1, 5;
    mov.u64 %rd1, perm;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.const.u32 %r4, [%rd3];
    shl.b32 %r5, %r4, 3;
    add.u32 %r6, %r5, %r3;
    shl.b32 %r7, %r6, 2;
    mov.u32 %r8, s;
    add.u32 %r9, %r8, %r7;
    mov.u32 %r10, 1;
    st.shared.u32 [%r9], %r10;
    ld.const.u32 %r11, [cfg];
    and.b32 %r12, %r11, 255;
    shl.b32 %r13, %r12, 2;
    add.u32 %r14, %r8, %r13;
    ld.shared.u32 %r15, [%r14];
    st.global.u32 [0], %r15;
    ret;
}}
"""


def test_a_const_lookup_table_gives_known_shared_addresses_and_a_host_set_one_does_not():
    t = trace(PTX, "k", block=64)
    st, ld = t.instructions
    # lane l stores word 8 perm[l] + warp: perm[l] = 4 (l % 8) + l // 8 for l < 30, 0 for lanes 30, 31; bank
    # 8 perm[l] % 32 = 8 ((l // 8) % 4): four banks of 8 lanes, lanes 30 and 31 on word 8 * 0 + warp with lane 0
    per_bank = {}
    for lane in range(32):
        p = PERM[lane] if lane < 30 else 0
        per_bank.setdefault((8 * p) % 32, set()).add(8 * p)
    worst = max(len(words) for words in per_bank.values())
    assert (st.opcode, st.executions, st.wavefronts, st.data_dependent) == ("st.shared.u32", 2, 2 * worst, 0)
    assert worst == 8
    assert (ld.opcode, ld.executions, ld.data_dependent) == ("ld.shared.u32", 2, 2)
    assert [i.line for i in t.data_dependent] == [ld.line]
