"""The wgmma GPU suite for every element type (tf32, fp8, int8, f16/bf16), on a CPU.

What the GPU run will execute is checked here without a GPU: the generated kernels spell each
instruction's operand list as the PTX ISA gives it (scale immediates for floating types only,
transpose immediates for 16-bit types only), every variant has a catalog atom, and the replay
reads element-granular recordings of any width: a recording synthesised from the shared-memory
descriptor and the PTX fragment formula agrees with the atom, and a corrupted one is caught.
(The kernels were compiled for sm_90a with nvcc 13.0 when written; the live runs are
tests/test_gpu_live_wgmma_types.py.)
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from layoutalg.atoms.catalog import wgmma
from layoutalg.atoms.gmma_desc import GmmaDescriptor
from layoutalg.gpu import replay
from layoutalg.gpu.wgmma import WgmmaVariant, canonical_operand, kernel_source, wgmma_variants
from layoutalg.gpu.wgmma_triples import factorise, pack, triple_codes

NEW = [v for v in wgmma_variants() if v.ab_type not in ("f16", "bf16")]


def test_the_suite_covers_every_new_type_pair_in_both_a_sources():
    kinds = {(v.ab_type, v.bt, v.d_type, v.saturate, v.a_source) for v in NEW}
    for a, b, d, sat in [("tf32", "tf32", "f32", False), ("e4m3", "e5m2", "f16", False), ("e5m2", "e4m3", "f32", False),
                         ("s8", "u8", "s32", True), ("u8", "s8", "s32", False)]:
        assert (a, b, d, sat, "smem") in kinds and (a, b, d, sat, "reg") in kinds
    assert {v.n for v in NEW} >= {8, 24, 64, 256}
    assert {v.b.layout_type for v in NEW} == {"INTERLEAVE", "B32", "B64", "B128"}


@pytest.mark.parametrize("v", wgmma_variants(), ids=lambda v: v.name())
def test_kernel_spells_the_ptx_operand_list(v):
    name, src = kernel_source(v)
    atom = wgmma(v.n, v.ab_type, v.d_type, v.a_source, b=v.bt, saturate=v.saturate)
    assert atom.ptx == v.ptx and atom.shape_mnk[2] == v.k
    line = next(ln for ln in src.splitlines() if "wgmma.mma_async" in ln)
    operands = line.split(v.ptx, 1)[1].split(";")[0]
    imms = re.findall(r",\s*(\d)", operands.split("p", 1)[1])
    floating = v.ab_type not in ("s8", "u8")
    expected = (2 if floating else 0) + ((1 if v.a is None else 2) if v.bits == 16 else 0)
    assert len(imms) == expected, operands
    assert operands.count("%") == v.d_units + (4 if v.a is None else 1) + 1
    if v.a is None:  # K/2 A elements per thread in 4 registers, lower elements in lower bits
        assert f"tid * {v.k // 2}" in src and f"<< ({v.bits} * e)" in src


def _synthesised_case(v: WgmmaVariant) -> dict:
    """What a correct GPU would record: triples from the descriptor and the PTX fragment formula."""
    atom = wgmma(v.n, v.ab_type, v.d_type, v.a_source, b=v.bt, saturate=v.saturate)
    eb, k = v.elem_bytes, v.k

    def smem(op, rows, offset, flip):
        desc = GmmaDescriptor(offset, op.lbo, op.sbo, op.layout_type)
        return [((desc.address(op.major, mn, kk, v.bits) - offset) // eb, (kk, mn) if flip else (mn, kk))
                for mn in range(rows) for kk in range(k)]

    a = smem(v.a, 64, v.a_offset, False) if v.a else \
        [(t * (k // 2) + i, atom.fragment_coord("A", t, i)) for t in range(128) for i in range(k // 2)]
    b = smem(v.b, v.n, v.b_offset, True)
    d = [(t * (v.n // 2) + i, atom.fragment_coord("C", t, i)) for t in range(128) for i in range(v.n // 2)]
    n_a = v.a.region_bytes // eb if v.a else 128 * (k // 2)
    n_b, n_d = v.b.region_bytes // eb, 128 * (v.n // 2)
    codes = triple_codes([(i, m, kk) for i, (m, kk) in a], [(i, kk, n) for i, (kk, n) in b],
                         [(i, m, n) for i, (m, n) in d], n_b, n_d)
    triples = np.column_stack([codes // (n_b * n_d), (codes // n_d) % n_b, codes % n_d])
    a_lab, b_lab, d_lab, exact = factorise(triples, n_a, n_b, n_d)
    assert exact
    op = {"major": v.b.major, "layout_type": v.b.layout_type, "lbo": v.b.lbo, "sbo": v.b.sbo,
          "region_bytes": v.b.region_bytes, "region_offset": v.b_offset}
    a_op = None if v.a is None else {"major": v.a.major, "layout_type": v.a.layout_type, "lbo": v.a.lbo,
                                     "sbo": v.a.sbo, "region_bytes": v.a.region_bytes, "region_offset": v.a_offset}
    return {"instruction": v.ptx, "variant": v.label(), "n": v.n, "ab_type": v.ab_type, "b_type": v.bt, "d_type": v.d_type, "saturate": v.saturate, "k": k,
            "elem_bits": v.bits, "a_source": v.a_source, "a_operand": a_op, "b_operand": op,
            "counts": {"a": n_a, "b": n_b, "d": n_d}, "triples": int(len(triples)),
            "a_labels": pack(a_lab), "b_labels": pack(b_lab), "d_labels": pack(d_lab), "anomalies": []}


CASES = [
    WgmmaVariant(24, "tf32", "f32", "smem", canonical_operand(64, "K", "INTERLEAVE"),
                 canonical_operand(24, "K", "B64")),
    WgmmaVariant(24, "tf32", "f32", "reg", None, canonical_operand(24, "K", "INTERLEAVE")),
    WgmmaVariant(40, "e4m3", "f16", "smem", canonical_operand(64, "K", "B128"), canonical_operand(40, "K", "B32"),
                 "e5m2"),
    WgmmaVariant(8, "s8", "s32", "reg", None, canonical_operand(8, "K", "B128"), "u8", True),
]


@pytest.mark.parametrize("v", CASES, ids=lambda v: v.name())
def test_replay_reads_recordings_of_every_element_width(v):
    case = _synthesised_case(v)
    atom = wgmma(v.n, v.ab_type, v.d_type, v.a_source, b=v.bt, saturate=v.saturate)
    assert case["triples"] == 64 * v.n * v.k
    assert all(not errs for _, errs in replay.check_wgmma(case, atom))
    outs = replay.replay_sections({"wgmma": [case]})
    assert outs and all(o["status"] == "agree" for o in outs)


@pytest.mark.parametrize("v", CASES, ids=lambda v: v.name())
def test_replay_catches_a_wgmma_recording_with_two_d_slots_swapped(v):
    from layoutalg.gpu.wgmma_triples import unpack

    case = _synthesised_case(v)
    d = unpack(case["d_labels"])
    d[[0, 3]] = d[[3, 0]]  # thread 0's elements 0 and 3: different rows and columns
    case["d_labels"] = pack(d)
    atom = wgmma(v.n, v.ab_type, v.d_type, v.a_source, b=v.bt, saturate=v.saturate)
    assert all(errs for _, errs in replay.check_wgmma(case, atom))


@pytest.mark.parametrize("name", ["SM80_16x8x256_S32U1U1S32_TN_XORPOPC", "SM80_8x8x4_C64C64C64C64_TN", "SM61_DP4A",
                                  "UniversalFMA", "SM90_16x8x8_C64C64C64C64_TN"])
def test_fragment_check_refuses_atoms_the_one_hot_suite_cannot_run(name):
    from layoutalg.atoms.catalog import get
    from layoutalg.errors import InstructionError
    from layoutalg.gpu.fragment_check import check_mma

    with pytest.raises(InstructionError, match="one-hot suite"):
        check_mma(get(name))
