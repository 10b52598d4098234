"""PTX vs SASS inventories (``layoutalg.kernel.sass``) on hand-written ``cuobjdump -sass`` lines and tiny PTX
functions: SASS widths from the opcode modifiers (LDS.U8 1 B, .S16 2 B, none 4 B, .64 8 B, .128 16 B; LDSM/STSM
16 B per lane), PTX widths from vector x type, tensormap.replace's LDS/STS words, and merge candidates."""

from __future__ import annotations

import dataclasses

import pytest

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.sass import Finding, compare, merge_candidates, ptx_inventory, sass_inventory


def fn(lines: list[str], name: str = "k", target: str = "sm_90"):  # type: ignore[no-untyped-def]
    src = (f".version 8.0\n.target {target}\n.address_size 64\n.visible .entry {name}()\n{{\n"
           ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n.shared .align 128 .b8 s[1024];\n"
           "mov.u32 %r1, s;\n" + "\n".join(lines) + "\n" + OBSERVE + "ret;\n}\n")
    return parse_module(src).entries[name]


# every register stored before ret: the kernels read what they load (else ptxas drops the load, and
# ptx_inventory expects no LDS for it: kernel.interp.narrowing)
OBSERVE = "".join(f"st.global.b32 [0], %r{k};\n" for k in range(16)) + "".join(
    f"st.global.b64 [0], %rd{k};\n" for k in range(8))


def sass(func: str, *insns: str) -> str:
    body = "\n".join(f"        /*{16 * i:04x}*/                   {t} ;" for i, t in enumerate(insns))
    return f"\n\tcode for sm_90\n\t\tFunction : {func}\n\t.headerflags @\"EF_CUDA_SM90\"\n{body}\n"


def test_sass_widths_follow_the_opcode_modifiers() -> None:
    text = sass("k", "LDS.U8 R1, [R2]", "LDS.S16 R1, [R2]", "LDS R1, [R2]", "LDS.64 R2, [R4+0x8]",
                "STS.128 [R2], R4", "LDS.U.128 R4, [R2]", "LDSM.16.M88.4 R4, [R2]", "STSM.16.M88.2 [R2], R4",
                "LDGSTS.E.BYPASS.128 [R2], desc[UR4][R4.64]", "LDGSTS.E [R2], desc[UR4][R4.64]", "STS.U16 [R2], R3",
                "LDG.E R1, desc[UR4][R2.64]", "BAR.SYNC.DEFER_BLOCKING 0x0")
    assert sass_inventory(text) == {"k": {("ld", 1): 1, ("ld", 2): 1, ("ld", 4): 1, ("ld", 8): 1, ("st", 16): 1,
                                          ("ld", 16): 1, ("ldmatrix", 16): 1, ("stmatrix", 16): 1,
                                          ("cp.async", 16): 1, ("cp.async", 4): 1, ("st", 2): 1}}


def test_sass_instructions_guarded_by_not_pt_never_execute_and_are_skipped() -> None:
    text = sass("k", "@!PT LDS RZ, [RZ]", "@P0 LDS R1, [R2]", "@!P1 STS [R2], R1", "@!UP0 LDS.64 R2, [R4]",
                "@PT STS.64 [R4], R2")
    assert sass_inventory(text) == {"k": {("ld", 4): 1, ("st", 4): 1, ("ld", 8): 1, ("st", 8): 1}}


def test_each_sass_function_gets_the_instructions_up_to_the_next_function() -> None:
    text = sass("first", "LDS R1, [R2]", "LDS R1, [R2]") + sass("second", "STS.64 [R2], R4") + sass("third")
    assert sass_inventory(text) == {"first": {("ld", 4): 2}, "second": {("st", 8): 1}, "third": {}}


def test_ptx_widths_are_vector_count_times_element_bytes() -> None:
    f = fn(["ld.shared.v4.f32 {%r2, %r3, %r4, %r5}, [%r1];", "st.shared.v2.b64 [%r1], {%rd2, %rd3};",
            "ld.shared.u8 %r6, [%r1];", "ld.shared::cta.u16 %r7, [%r1];", "st.shared.b32 [%r1], %r2;",
            "ld.global.u32 %r12, [%rd1];", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r8, %r9, %r10, %r11}, [%r1];",
            "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};"], target="sm_90")
    inv, lines = ptx_inventory(f)
    assert inv == {("ld", 16): 1, ("st", 16): 1, ("ld", 1): 1, ("ld", 2): 1, ("st", 4): 1, ("ldmatrix", 16): 1,
                   ("stmatrix", 16): 1}
    assert lines == {"ld": [9, 11, 12], "st": [10, 13], "ldmatrix": [15], "stmatrix": [16]}


def test_ptx_cp_async_width_is_its_copy_size_and_only_ca_cg_copies_count() -> None:
    f = fn(["cp.async.cg.shared.global [%r1], [%rd1], 16;", "cp.async.ca.shared.global [%r1], [%rd1], 8;",
            "cp.async.ca.shared.global [%r1], [%rd1], 4, %r3;", "cp.async.commit_group;", "cp.async.wait_all;",
            "cp.async.ca.shared.global [%r1], [%rd1], 16, %p1;"])
    inv, lines = ptx_inventory(f)
    assert inv == {("cp.async", 16): 2, ("cp.async", 8): 1, ("cp.async", 4): 1}
    assert lines == {"cp.async": [9, 10, 11, 14]}


@pytest.mark.parametrize("copy", ["cp.async.ca.shared.global [%r1], [%rd1];", "cp.async.cg.shared.global [%r1], [%rd1];",
                                  "cp.async.ca.shared.global [%r1], [%rd1], %r3;"])
def test_ptx_cp_async_without_an_immediate_cp_size_is_refused_naming_its_line(copy: str) -> None:
    # PTX ISA (cp.async): cp-size is a mandatory integer constant, so no width may be guessed for the copy
    f = fn(["ld.shared.u32 %r2, [%r1];", copy])
    with pytest.raises(KernelError, match=r"PTX line 10, cp\.async\.c[ag]\.shared\.global: .*immediate cp-size"):
        ptx_inventory(f)
    with pytest.raises(KernelError, match="immediate cp-size"):
        compare(f, sass("k", "LDS R1, [R2]", "LDGSTS.E.BYPASS.128 [R2], desc[UR4][R4.64]"))


def test_tensormap_replace_on_shared_memory_counts_as_its_lds_sts_words() -> None:
    f = fn(["tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r1], 2, %r2;",
            "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd2;",
            "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r1], 0, %rd2;",
            "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 2, %r2;",
            "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r1], 9, %r2;"], target="sm_90a")
    inv, lines = ptx_inventory(f)
    # global_dim: one 4-byte STS; global_address: one 8-byte STS; global_stride (ordinal < 4): its 4-byte word,
    # and a read-modify-write of word 0x1C; the .global one and the out-of-range ordinal add nothing
    assert inv == {("st", 4): 3, ("st", 8): 1, ("ld", 4): 1}
    assert lines == {"st": [9, 10, 11, 11], "ld": [11]}


def test_tensormap_fence_proxy_copy_from_shared_reads_one_word_and_a_malformed_replace_none() -> None:
    f = fn(["tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;",
            "tensormap.replace.shared::cta [%r1], %r2;"], target="sm_90a")
    assert ptx_inventory(f) == ({("ld", 4): 1}, {"ld": [9]})


def test_compare_reports_kinds_whose_width_sets_differ_and_ignores_more_sass_than_ptx() -> None:
    f = fn(["ld.shared.u32 %r2, [%r1];", "ld.shared.u32 %r3, [%r1+4];", "st.shared.u32 [%r1], %r2;",
            "st.shared.u32 [%r1+64], %r2;"])
    same = sass("k", "LDS R2, [R1]", "LDS R3, [R1+0x4]", "STS [R1], R2", "STS [R1], R2", "STS [R1], R2",
                "STS [R1], R2")
    assert compare(f, same) == []  # more STS than st.shared: a loop unrolled by ptxas
    merged = sass("k", "LDS.64 R2, [R1]", "STS [R1], R2", "STS [R1+0x40], R2", "LDSM.16.M88.4 R4, [R1]")
    found = compare(f, merged)
    assert found == [Finding("ld", {4: 2}, {8: 1}, (9, 10)), Finding("ldmatrix", {}, {16: 1}, ())]
    assert found[0].reason.startswith("PTX has 2 x 4 B ld accesses, the SASS 1 x 8 B: ptxas merged")
    assert found[1].reason.startswith("PTX has none ldmatrix accesses, the SASS 1 x 16 B")


def test_finding_reason_lists_every_width_in_increasing_order() -> None:
    text = Finding("st", {8: 1, 2: 3}, {16: 2, 4: 1}, (1,)).reason
    assert "PTX has 3 x 2 B, 1 x 8 B st accesses, the SASS 1 x 4 B, 2 x 16 B:" in text


def test_compare_refuses_sass_without_the_function_naming_those_it_has() -> None:
    f = fn(["ld.shared.u32 %r2, [%r1];"])
    with pytest.raises(ValueError, match=r"the SASS has no function k \(it has: a, b\)"):
        compare(f, sass("a", "LDS R1, [R2]") + sass("b"))
    with pytest.raises(ValueError, match=r"no function k \(it has: none\)"):
        compare(f, "nothing here")


def test_the_last_function_s_instructions_are_not_counted_in_the_one_before() -> None:
    text = sass("first", "LDS R1, [R2]") + sass("second", "STS [R2], R1") + sass("third", "LDS.128 R4, [R2]")
    assert sass_inventory(text) == {"first": {("ld", 4): 1}, "second": {("st", 4): 1}, "third": {("ld", 16): 1}}


def test_a_missing_function_error_lists_the_first_300_characters_of_the_names() -> None:
    names = [f"kern_{i:04d}" for i in range(40)]  # 9 characters and ", " each: 438 characters joined
    listed = ", ".join(names)[:300]
    assert listed.endswith("kern_0026, ker")  # 27 whole names, then 3 characters of the 28th
    f = fn(["ld.shared.u32 %r2, [%r1];"])
    with pytest.raises(ValueError) as info:
        compare(f, "".join(sass(name, "LDS R1, [R2]") for name in names))
    assert str(info.value) == f"the SASS has no function k (it has: {listed})"


def test_findings_are_immutable() -> None:
    found = Finding("ld", {4: 2}, {8: 1}, (9, 10))
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.kind = "st"  # type: ignore[misc]


def test_merge_candidates_pair_adjacent_aligned_equal_width_accesses_of_one_base() -> None:
    f = fn(["ld.shared.u32 %r2, [%r1];", "add.s32 %r9, %r9, 1;", "ld.shared.u32 %r3, [%r1+4];",  # 9, 11: a pair
            "ld.shared.u32 %r4, [%r1+8];", "ld.shared.u32 %r5, [%r1+16];",  # 8 and 16 are not adjacent
            "st.shared.b64 [%r1+16], %rd2;", "st.shared.b64 [%r1+24], %rd3;",  # 14, 15: a pair (16 % 16 == 0)
            "st.shared.b64 [%r1+40], %rd2;", "st.shared.b64 [%r1+48], %rd3;",  # 40 % 16 != 0: none
            "ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1];", "ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1+16];",
            "ld.shared.u32 %r2, [%r1+32];", "bar.sync 0;", "ld.shared.u32 %r3, [%r1+36];",  # a barrier between
            "ld.shared.u32 %r2, [%r1+64];", "ld.shared.u32 %r3, [%r6+68];",  # different bases
            "ld.shared.u32 %r2, [%r1+72];", "st.shared.u32 [%r1+76], %r3;",  # a load then a store
            "ld.shared.u16 %r2, [%r1+80];", "ld.shared.u16 %r3, [%r1+82];",  # 2-byte pair
            "ld.shared.u32 %r2, [s+96];", "ld.shared.u32 %r3, [s+100];"])  # no base register
    assert merge_candidates(f) == [(9, 11), (14, 15), (27, 28)]
    assert merge_candidates(f) == [(9, 11), (14, 15), (27, 28)]  # asked again: the same pairs


def test_global_accesses_between_shared_ones_break_a_merge_candidate() -> None:
    f = fn(["ld.shared.u32 %r2, [%r1];", "ld.global.u32 %r3, [%rd1];", "ld.shared.u32 %r4, [%r1+4];",
            "st.shared.u32 [%r1+8], %r2;", "atom.shared.add.u32 %r5, [%r1+64], 1;", "st.shared.u32 [%r1+12], %r2;",
            "st.shared.u32 [%r1+16], %r2;", "st.shared.u32 [%r1+20], %r2;"])
    assert merge_candidates(f) == [(15, 16)]
