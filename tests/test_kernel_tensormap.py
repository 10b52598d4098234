"""``tensormap.replace`` / ``tensormap.cp_fenceproxy`` become the LDS/STS that ptxas emits for them.

The oracle is the committed SASS of triton_matmul_tma_sm90 (``cuobjdump -sass`` of ``ptxas -arch=sm_90a``):
the LDS/STS it addresses as ``[UR8+imm]`` (the tensor-map at the start of the dynamic shared memory)
must be, offset for offset, the accesses :func:`field_accesses` gives for the PTX's
``tensormap.replace`` instructions; the whole-launch counts are checked against Nsight in
tests/test_kernel_corpus_counters.py.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from kernel_interp_harness import lanes, launch

from layoutalg.errors import KernelError
from layoutalg.kernel import trace
from layoutalg.kernel.interp.tensormap import field_accesses
from layoutalg.kernel.ptx.nodes import Addr, Reg, TensorAddr, Vec
from layoutalg.kernel.ptx.operands import parse_operand

TMA = Path(__file__).parent / "data" / "kernels" / "triton_matmul_tma_sm90"
SASS_ACCESS = re.compile(r"\b(LDS|STS)(\.64)?\s+(?:R\d+,\s*)?\[UR8(?:\+(0x[0-9a-f]+))?\](?:,|\s*;)")
REPLACE = re.compile(r"tensormap\.replace\.tile\.(\w+)\.shared::cta\.b1024\.b(?:32|64)\s+\[[^]]*\],\s*([^;]*);")


def sass_accesses() -> Counter[tuple[str, int, int]]:
    out: Counter[tuple[str, int, int]] = Counter()
    for m in SASS_ACCESS.finditer((TMA / "kernel.sass").read_text()):
        op, wide, off = m.groups()
        out[(op, int(off, 16) if off else 0, 8 if wide else 4)] += 1
    return out


def model_accesses() -> Counter[tuple[str, int, int]]:
    out: Counter[tuple[str, int, int]] = Counter()
    for m in REPLACE.finditer((TMA / "kernel.ptx").read_text()):
        field, operands = m.group(1), [x.strip() for x in m.group(2).split(",")]
        ordinal = int(operands[0], 16) if len(operands) == 2 else None
        for off, width, rmw in field_accesses(field, ordinal):
            if rmw:
                out[("LDS", off, 4)] += 1
            out[("STS", off, width)] += 1
    return out


def test_every_tensormap_field_write_is_the_sass_lds_sts_of_its_word() -> None:
    sass, model = sass_accesses(), model_accesses()
    assert sum(model.values()) == 42 + 30  # 39 replaces: 42 STS (3 of them STS.64), 30 read-modify-write LDS
    assert model == sass


def test_the_descriptor_copy_is_one_warp_wide_lds_per_warp_and_replaces_run_in_one_lane() -> None:
    import json

    launch = json.loads((TMA / "launch.json").read_text())
    t = trace(str(TMA / "kernel.ptx"), kernel=launch["kernel"], grid=launch["grid"], block=launch["block"],
              args=launch["args"], dynamic_smem=launch["dynamic_smem"])
    copies = [r for r in t.accesses if r.part == "LDS (copy to global)"]
    assert len({r.line for r in copies}) == 3
    for r in copies:  # warp 0 of each CTA: lane i reads word i of the 128-byte map
        assert r.active.all() and (r.smem - r.smem[:, :1] == 4 * np.arange(32)).all()
    replaces = [r for r in t.accesses if r.opcode.startswith("tensormap.replace")]
    assert replaces and all(int(r.active.sum()) == len(r.warps) for r in replaces)  # thread 0 of each CTA


def test_unknown_fields_and_ordinals_are_refused_naming_the_line() -> None:
    with pytest.raises(ValueError, match="ordinal"):
        field_accesses("box_dim", 5)
    with pytest.raises(ValueError, match="swizzle_atomicity"):
        field_accesses("swizzle_atomicity", None)
    ptx = """.version 8.5
.target sm_90a
.address_size 64
.extern .shared .align 128 .b8 smem[];
.visible .entry k()
{
\t.reg .b32 %r<3>;
\tmov.u32 %r1, smem;
\ttensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [%r1], 1;
\tret;
}
"""
    with pytest.raises(KernelError, match="line 9.*swizzle_atomicity"):
        trace(ptx, block=32, dynamic_smem=128)


def test_tensor_addresses_parse_as_a_map_and_its_coordinates() -> None:
    op = parse_operand("[%rd10, {%r104, %r68}]", 1)
    assert op == TensorAddr(Addr(Reg("%rd10")), Vec((Reg("%r104"), Reg("%r68"))))
    assert parse_operand("[%rd10+16]", 1) == Addr(Reg("%rd10"), 16)


def _replace_kernel(line: str) -> str:
    return (".version 8.5\n.target sm_90a\n.address_size 64\n.extern .shared .align 128 .b8 smem[];\n"
            ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, smem;\n\tmov.u32 %r2, 7;\n"
            f"\t{line}\n\tret;\n}}\n")


def test_a_field_with_an_ordinal_past_its_range_or_no_such_field_is_refused() -> None:
    with pytest.raises(ValueError, match="tensormap field global_stride ordinal 4"):
        field_accesses("global_stride", 4)  # the innermost dimension has no stride field
    with pytest.raises(ValueError, match="tensormap field no_such_field ordinal 0"):
        field_accesses("no_such_field", 0)


def test_a_register_ordinal_is_refused_naming_the_line() -> None:
    ptx = _replace_kernel("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r1], %r2, %r2;")
    with pytest.raises(KernelError, match="line 10.*the ordinal must be an immediate"):
        trace(ptx, block=32, dynamic_smem=128)


def test_each_field_word_access_is_at_its_offset_in_the_map() -> None:
    ptx = _replace_kernel("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r1], 1, 64;")
    t = trace(ptx, block=32, dynamic_smem=128)
    at = {r.part: int(r.smem[r.active][0]) for r in t.accesses if r.opcode.startswith("tensormap.replace")}
    assert set(at) == {"STS +0x10", "LDS +0x1c", "STS +0x1c"}
    assert at["LDS +0x1c"] == at["STS +0x1c"] == at["STS +0x10"] + 0xC


def test_the_ordinal_range_in_the_refusal_is_zero_to_rank_minus_one() -> None:
    with pytest.raises(ValueError, match=r"box_dim needs an ordinal 0\.\.4$"):
        field_accesses("box_dim", 5)  # PTX ISA: a tensor-map has at most 5 dimensions
    with pytest.raises(ValueError, match=r"global_dim needs an ordinal 0\.\.4$"):
        field_accesses("global_dim", None)


def test_a_rank_five_map_has_four_global_strides_the_last_at_ordinal_three() -> None:
    # PTX ISA: global_stride has rank - 1 entries (the innermost dimension is contiguous), so ordinals 0..3
    # of a rank-5 map; each is a whole low word at 0xc + 4i and a read-modify-write of the high-bits word 0x1c.
    for i in range(4):
        assert field_accesses("global_stride", i) == [(0xC + 4 * i, 4, False), (0x1C, 4, True)]


def _tm_kernel(line: str, block: int = 32) -> str:
    return (".version 8.5\n.target sm_90a\n.address_size 64\n.extern .shared .align 128 .b8 smem[];\n"
            ".visible .entry k(.param .u64 g)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
            "\tmov.u32 %r1, smem;\n\tmov.u32 %r2, %tid.x;\n\tld.param.u64 %rd1, [g];\n"
            f"\t{line}\n\tret;\n}}\n")


def test_an_unknown_tensormap_instruction_is_refused_naming_the_line() -> None:
    for line in ("tensormap.foo [%r1];", "tensormap [%r1];"):
        with pytest.raises(KernelError, match="line 12.*unknown tensormap instruction"):
            trace(_tm_kernel(line), block=32, dynamic_smem=128, args={"g": "buf"})


def test_a_replace_without_a_field_is_refused_for_what_its_syntax_lacks() -> None:
    # ISA: tensormap.replace.tile.field{.ss}.b1024.type; ptxas 13.0 refuses both (tests/data/ptxas_reader_verdicts.json)
    for line, lacks in (("tensormap.replace [%r1], 1;", r"\.tile"), ("tensormap.replace.tile [%r1], 1;", r"\.b1024")):
        with pytest.raises(KernelError, match=f"line 12.*tensormap.replace: {lacks} is required"):
            trace(_tm_kernel(line), block=32, dynamic_smem=128, args={"g": "buf"})


def test_a_replace_with_generic_addressing_is_refused() -> None:
    line = "tensormap.replace.tile.global_address.b1024.b64 [%rd1], %rd1;"  # valid PTX (no .ss: generic)
    with pytest.raises(KernelError, match="line 12.*without .shared::cta or .global .generic addressing"):
        trace(_tm_kernel(line), block=32, dynamic_smem=128, args={"g": "buf"})


CP = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu"


def test_a_descriptor_copy_without_sync_aligned_or_its_operands_is_refused() -> None:
    for line, why in ((f"{CP}.sync [%rd1], [%r1], 128;", r"\.aligned is required"),
                      (f"{CP}.sync.aligned [%rd1], [%r1];", r"expected \[dst\], \[src\], size")):
        with pytest.raises(KernelError, match=f"line 12.*{why}"):
            trace(_tm_kernel(line), block=32, dynamic_smem=128, args={"g": "buf"})


def test_a_descriptor_copy_of_other_than_128_bytes_is_refused() -> None:
    with pytest.raises(KernelError, match="line 12.*the copy is of 128 bytes"):
        trace(_tm_kernel(f"{CP}.sync.aligned [%rd1], [%r1], 64;"), block=32, dynamic_smem=128, args={"g": "buf"})


def test_a_descriptor_copy_whose_lanes_name_different_maps_is_refused() -> None:
    # .sync.aligned: every lane of the warp executes it on one tensor-map; lane i's map at smem + 128 i is not that
    line = f"shl.b32 %r3, %r2, 7;\n\tadd.u32 %r3, %r1, %r3;\n\t{CP}.sync.aligned [%rd1], [%r3], 128;"
    with pytest.raises(KernelError, match="line 14.*lanes of one warp name different tensor-maps"):
        trace(_tm_kernel(line), block=32, dynamic_smem=128 * 32, args={"g": "buf"})


def test_a_bare_cp_fenceproxy_is_refused_as_a_malformed_copy_not_an_unknown_instruction() -> None:
    with pytest.raises(KernelError, match="line 12.*cp_fenceproxy: the state spaces are .global.shared::cta"):
        trace(_tm_kernel("tensormap.cp_fenceproxy [%rd1], [%r1], 128;"), block=32, dynamic_smem=128, args={"g": "buf"})


def test_a_tensor_map_not_8_byte_aligned_is_refused_for_its_8_byte_word() -> None:
    # the map's first field is one STS.64 at byte 0 (the corpus SASS), so the map must be 8-byte aligned
    for line in ("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r3], 1;",
                 f"{CP}.sync.aligned [%rd1], [%r3], 128;"):
        with pytest.raises(KernelError, match=r"line 13.*misaligned shared-memory address \d+ for a 8-byte access"):
            trace(_tm_kernel("add.u32 %r3, %r1, 4;\n\t" + line), block=32, dynamic_smem=256, args={"g": "buf"})


def test_field_writes_and_the_copy_are_recorded_with_the_width_and_mnemonic_of_their_sass_access() -> None:
    # corpus SASS: global_address is one STS.64 at byte 0; a whole-word field one STS; a flag field LDS + STS
    # (32-bit); the copy a 32-bit LDS per lane
    body = ("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;\n\t"
            "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r1], 0, 5;\n\t"
            "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r1], 1;\n\t"
            f"{CP}.sync.aligned [%rd1], [%r1], 128;")
    t = trace(_tm_kernel(body), block=32, dynamic_smem=128, args={"g": "buf"})
    widths = {(r.part, r.access_bytes) for r in t.accesses}
    assert widths == {("STS +0x0", 8), ("STS +0x20", 4), ("LDS +0x8", 4), ("STS +0x8", 4), ("LDS (copy to global)", 4)}
    texts = {s.part: s.model_text for s in t.instructions}
    assert texts == {"STS +0x0": "st.shared.b64", "STS +0x20": "st.shared.b32", "LDS +0x8": "ld.shared.b32",
                     "STS +0x8": "st.shared.b32", "LDS (copy to global)": "ld.shared.b32"}


TM_SMEM = ".shared .align 128 .b8 tile[512];"
UNKNOWN = "ld.param.u64 %rd3, [buf0];\nld.global.u32 %r9, [%rd3];\n"  # %r9: loaded from global, unknown


def test_a_field_write_makes_exactly_its_word_unknown() -> None:
    # map at tile + 128; the flag word is map + 8; the word 8 bytes before the map is not the map's
    body = ("mov.u32 %r37, tile;\nadd.u32 %r36, %r37, 128;\nst.shared.u32 [%r37+120], 5;\nst.shared.u32 [%r37+136], 6;\n"
            "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r36], 1;\n"
            "ld.shared.u32 %r1, [%r37+120];\nld.shared.u32 %r2, [%r37+136];")
    m = launch(body, threads=32, decls=TM_SMEM, target="sm_90a", version="8.3")  # tensormap.replace: ISA Notes
    assert lanes(m, "%r1") == [5] * 32 and lanes(m, "%r2") == [None] * 32


def test_a_field_write_to_an_unknown_address_forgets_the_ctas_shared_memory_and_a_copy_forgets_nothing() -> None:
    keep = "mov.u32 %r37, tile;\nst.shared.u32 [%r37+256], 7;\n" + UNKNOWN + "add.u32 %r8, %r37, %r9;\n"
    m = launch(keep + "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r8], 1;\nld.shared.u32 %r1, [%r37+256];",
               threads=32, decls=TM_SMEM, buffers=1, target="sm_90a", version="8.3")
    assert lanes(m, "%r1") == [None] * 32  # the write may have hit any byte
    m = launch(keep + f"{CP}.sync.aligned [%rd3], [%r8], 128;\nld.shared.u32 %r1, [%r37+256];",
               threads=32, decls=TM_SMEM, buffers=1, target="sm_90a", version="8.3")
    assert lanes(m, "%r1") == [7] * 32  # the copy only reads shared memory
