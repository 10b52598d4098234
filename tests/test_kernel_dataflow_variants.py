"""More hand-written GEMM variants than the measured corpus holds (tests/data/dataflow, built from
tools/kernel_corpus/hw_mma.cu by build_variants.py): other copy paths (cp.async.ca of 8 bytes, cp.async.cg),
the f32 shared-memory epilogue, and planted bugs the corpus lacks (a k-loop one tile short, a doubled k step,
no barrier before the next fill overwrites shared memory, accumulators starting at 1.0).  Each correct one is
proved and each bug refuted with the counterexample kind its bug implies."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from layoutalg.kernel import check_mma, trace
from layoutalg.kernel.ptx import parse_module

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "dataflow")
VARIANTS = json.load(open(os.path.join(HERE, "variants.json")))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_hand_written_gemm_variant_verdict(name):
    meta = VARIANTS[name]
    module = parse_module(gzip.open(os.path.join(HERE, name + ".ptx.gz"), "rt").read())
    t = trace(module, grid=(2, 2), block=128, args={0: "buf", 1: "buf", 2: "buf", 3: 128, 4: 128, 5: 64})
    r = check_mma(t, a="0@(128,64):(64,1)", b="1@(64,128):(128,1)", c="2@(128,128):(128,1)")
    assert r.verdict == meta["expect"], r.reason
    if meta["counterexample"]:
        assert r.counterexample["kind"] == meta["counterexample"], r.reason
    if name == "x_xb_skip_last":
        assert "after 32 k-products" in r.reason and "after 64 k-products" in r.reason
    if name == "x_xb_no_tail_sync":
        assert r.counterexample["race"].startswith("write after read")
