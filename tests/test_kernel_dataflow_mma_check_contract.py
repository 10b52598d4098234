"""Origin keys of the mma check (layoutalg/kernel/dataflow/mma_check.py): ``pack_origin`` folds a (row origin,
column origin) pair, each within +-2**30, into one int64 and ``unpack_origin`` gives the pair back exactly;
distinct pairs give distinct keys.  The C-input check of an m16n8k16 f32 mma (tests/dataflow_synth.py's kernel,
fragments per the PTX ISA table: lane 0's c0, c1 are C(0, 0), C(0, 1) and c2, c3 are C(8, 0), C(8, 1), one f32
register each) names the register and what it holds."""

from __future__ import annotations

import itertools
import struct

import numpy as np
from dataflow_synth import MmaCase, mma_kernel

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.dataflow.mma_check import pack_origin, unpack_origin
from layoutalg.kernel.ptx import parse_module

EDGES = [-(2**30), -(2**30) + 1, -65537, -2, -1, 0, 1, 2, 7, 65535, 65536, 2**31 // 2 - 1]


def test_origin_keys_round_trip_at_the_edges_of_their_range() -> None:
    pairs = list(itertools.product(EDGES, EDGES))
    o0 = np.array([p[0] for p in pairs], dtype=np.int64)
    o1 = np.array([p[1] for p in pairs], dtype=np.int64)
    keys = pack_origin(o0, o1)
    r0, r1 = unpack_origin(keys)
    assert r0.tolist() == o0.tolist() and r1.tolist() == o1.tolist()
    assert len(set(keys.tolist())) == len(pairs)


def test_origin_keys_are_ordered_by_row_then_column() -> None:
    keys = pack_origin(np.array([0, 0, 1, -1]), np.array([0, 5, -3, 2**30 - 1])).tolist()
    assert keys[3] < keys[0] < keys[1] < keys[2]
    assert unpack_origin(pack_origin(3, -4)) == (3, -4)


SYNTH = {"a": "pA@(16,32):(32,1)", "b": "pB@(32,8):(8,1)", "c": "pC@(16,8):(8,1)"}


def check_synth(text: str):
    return check_mma(trace(parse_module(text), block=32), **SYNTH)


def test_a_wrong_f32_c_input_names_the_register_of_its_element() -> None:
    # the second mma reads its C operand {%f4, %f6, %f5, %f7}: c1 (C(0, 1) in lane 0) is the register holding c2,
    # the accumulator of C(8, 0) after the first mma's 16 k-products
    r = check_synth(mma_kernel(MmaCase(mutations=[("chain", 1, 2)])))
    cex = r.counterexample
    assert r.verdict == "refuted" and cex["kind"] == "accumulator" and cex["operand"] == "C"
    assert (cex["lane"], cex["element"], cex["register"]) == (0, 1, "%f6")
    assert cex["held"].startswith("the accumulator of C(8, 0) after 16 k-products")
    assert cex["expected"] == "the accumulator of C(0, 1), its old value or 0"


def test_a_constant_f32_c_input_is_reported_with_its_exact_bits() -> None:
    # the first mma's c1 starts as 0f3F800001 instead of 0: no accumulator, not zero, not C's old value
    text = mma_kernel(MmaCase()).replace("mov.f32 %f1, 0f00000000;", "mov.f32 %f1, 0f3F800001;")
    r = check_synth(text)
    cex = r.counterexample
    value = struct.unpack("<f", struct.pack("<I", 0x3F800001))[0]
    assert r.verdict == "refuted" and cex["kind"] == "accumulator"
    assert (cex["lane"], cex["element"], cex["register"]) == (0, 1, "%f1")
    assert cex["held"] == f"the constant {value!r} (bits 0x3f800001), not loaded from A or B"
