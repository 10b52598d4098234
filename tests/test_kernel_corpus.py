"""The kernel corpus under tests/data/kernels is self-consistent, and its argument packer follows
issue 14's CLI rules (checked against an independent struct-based packing)."""

from __future__ import annotations

import json
import os
import random
import struct
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "kernel_corpus"))

import launchspec  # noqa: E402
import sass_counts  # noqa: E402

CORPUS = os.path.join(ROOT, "tests", "data", "kernels")
NAMES = sorted(n for n in os.listdir(CORPUS) if os.path.exists(os.path.join(CORPUS, n, "launch.json")))


def _load(name: str) -> tuple[dict, str, str]:
    d = os.path.join(CORPUS, name)
    with open(os.path.join(d, "launch.json")) as fh:
        launch = json.load(fh)
    with open(os.path.normpath(os.path.join(d, launch["ptx"]))) as fh:
        ptx = fh.read()
    with open(os.path.normpath(os.path.join(d, launch["sass"]))) as fh:
        sass = fh.read()
    return launch, ptx, sass


def test_corpus_covers_issue_14_list():
    assert len(NAMES) >= 20
    for prefix in ("cute_tutorial_hgemm_tn_", "cute_tutorial_sgemm_nt_", "cute_gemm_cg_sw333", "triton_matmul_sm80",
                   "triton_softmax_sm80", "triton_matmul_sm90", "hw_mma_trans_padded", "hw_mma_trans_swizzled",
                   "hw_mma_movmatrix_padded", "transpose_32x32_nopad", "transpose_32x32_padded", "reduce_interleaved",
                   "reduce_sequential", "histogram_smem"):
        assert any(n.startswith(prefix) for n in NAMES), prefix
    assert sum(n.startswith("cute_tutorial_hgemm_tn_") for n in NAMES) == 2
    assert sum(n.startswith("hw_bug_") for n in NAMES) == 5


@pytest.mark.parametrize("name", NAMES)
def test_launch_packs_to_the_ptx_parameters(name):
    launch, ptx, _ = _load(name)
    ps = launchspec.params(ptx, launch["kernel"])
    assert [p.describe() for p in ps] == launch["params"]
    packed = launchspec.pack_all(ps, launch["args"])
    assert [len(pk.data) for pk in packed] == [p.size for p in ps]
    slots = [key for pk in packed for _, key in pk.pointers]
    assert sorted(slots) == sorted(launch["buffers"])
    text = launchspec.launch_text(launch, ptx)
    assert text.count("\nparam ") == len(ps) and text.count("\nbuffer ") == len(slots)
    assert launchspec.find_entry(ptx, launch["kernel_substring"]) == launch["kernel"]


@pytest.mark.parametrize("name", NAMES)
def test_static_counts_are_those_of_the_committed_ptx_and_sass(name):
    launch, ptx, sass = _load(name)
    assert launch["static_counts"]["ptx"] == sass_counts.ptx_counts(ptx, launch["kernel"])
    assert launch["static_counts"]["sass"] == sass_counts.sass_counts(sass)


@pytest.mark.parametrize("name", NAMES)
def test_matrices_fit_their_buffers_and_bugs_expect_refutation(name):
    launch, _, _ = _load(name)
    v = launch["verify"]
    if v["kind"] == "gemm":
        for role in ("A", "B", "C"):
            m = v[role]
            (r, c), (sr, sc) = m["shape"], m["stride"]
            assert (r - 1) * sr + (c - 1) * sc < launch["buffers"][str(m["arg"])]["count"]
            assert launch["buffers"][str(m["arg"])]["role"] == role
        assert v["A"]["shape"][1] == v["B"]["shape"][0] and v["C"]["shape"] == [v["A"]["shape"][0], v["B"]["shape"][1]]
        assert launch["mma_check"] == [f"{k}={v[k]['arg']}@{v[k]['layout']}" for k in ("A", "B", "C")]
    if name.startswith("hw_bug_"):
        assert launch["expect"]["mma_check"] == "refuted" and launch["expect"]["bug"]
    elif launch["expect"]["mma_check"] is not None:
        assert launch["expect"]["mma_check"] == "proved"


def _reference_pack(items: list[tuple[str, int]]) -> bytes:
    """Independent packing: one struct code per element (words '<I', 64-bit elements '<Q')."""
    return b"".join(struct.pack("<I" if kind == "w" else "<Q", val) for kind, val in items)


def test_word_lists_pack_as_little_endian_words_against_struct():
    rng = random.Random(7)
    for _ in range(300):
        items: list[tuple[str, int]] = []
        for _ in range(rng.randint(1, 6)):
            kind = rng.choice(["w", "w", "i64", "buf"])
            items.append((kind, 0 if kind == "buf" else rng.randrange(1 << (32 if kind == "w" else 64))))
        raw = _reference_pack(items)
        last_kind = items[-1][0]
        # sizes that the list fills exactly, or with a short last word whose excess bits are zero
        size = len(raw) - (rng.randint(0, 3) if last_kind == "w" else 0)
        text = ",".join("buf" if k == "buf" else f"i64:{v}" if k == "i64" else str(v) for k, v in items)
        p = launchspec.Param(0, "p", "b8", size, 4, True, False)
        excess = raw[size:]
        if any(excess):
            with pytest.raises(launchspec.SpecError, match="non-zero bits|does not fit"):
                launchspec.pack(p, text)
            continue
        pk = launchspec.pack(p, text)
        assert bytes(pk.data) == raw[:size]
        offsets, off = [], 0
        for w, (k, _) in enumerate(items):
            if k == "buf":
                offsets.append((off, f"0.{w}"))
            off += 4 if k == "w" else 8
        assert pk.pointers == offsets


def test_scalar_and_aggregate_integers():
    u32 = launchspec.Param(1, "n", "u32", 4, 4, False, False)
    assert bytes(launchspec.pack(u32, "-1").data) == b"\xff\xff\xff\xff"
    assert bytes(launchspec.pack(u32, "0x10").data) == b"\x10\0\0\0"
    with pytest.raises(launchspec.SpecError, match="does not fit"):
        launchspec.pack(u32, str(1 << 32))
    half = launchspec.Param(2, "alpha", "b8", 2, 2, True, False)
    assert bytes(launchspec.pack(half, "15360").data) == struct.pack("<H", 15360)
    shape = launchspec.Param(3, "shape", "b8", 12, 4, True, False)
    with pytest.raises(launchspec.SpecError, match="fills 4 of 12"):
        launchspec.pack(shape, "5")
    three = launchspec.Param(4, "t", "b8", 3, 1, True, False)
    assert bytes(launchspec.pack(three, "0x030201").data) == b"\x01\x02\x03"
    with pytest.raises(launchspec.SpecError, match="non-zero bits"):
        launchspec.pack(three, "0x04030201")
    with pytest.raises(launchspec.SpecError, match="fills 8 of 12"):
        launchspec.pack(shape, "1,2")
    with pytest.raises(launchspec.SpecError, match="non-zero bits past byte 12"):
        launchspec.pack(shape, "1,2,3,4")
    with pytest.raises(launchspec.SpecError, match="16 bytes for 12"):
        launchspec.pack(shape, "1,2,3,0")
    assert bytes(launchspec.pack(shape, "i64:0x0000000200000001,3").data) == struct.pack("<3I", 1, 2, 3)
    with pytest.raises(launchspec.SpecError, match="64-bit"):
        launchspec.pack(u32, "buf")


def test_defaults_and_missing_arguments():
    ps = [launchspec.Param(0, "a", "b8", 1, 1, True, False), launchspec.Param(1, "p", "u64", 8, 8, False, False),
          launchspec.Param(2, "n", "u32", 4, 4, False, False)]
    with pytest.raises(launchspec.SpecError, match="parameter 2"):
        launchspec.pack_all(ps, {})
    packed = launchspec.pack_all(ps, {"2": "7"})
    assert bytes(packed[0].data) == b"\0" and packed[1].pointers == [(0, "1")]
    with pytest.raises(launchspec.SpecError, match="do not exist"):
        launchspec.pack_all(ps, {"2": "7", "3": "1"})


def test_ptx_parameter_parsing_nvcc_and_triton_forms():
    ptx = """.visible .entry k(
        .param .align 4 .b8 k_param_0[12],
        .param .u64 .ptr .global .align 1 k_param_1,
        .param .f32 k_param_2,
        .param .align 2 .b8 k_param_3[2]
    )
    {
    }"""
    ps = launchspec.params(ptx, "k")
    assert [(p.size, p.align, p.is_array, p.ptx_type) for p in ps] == [
        (12, 4, True, "b8"), (8, 8, False, "u64"), (4, 4, False, "f32"), (2, 2, True, "b8")]
    assert ps[1].is_ptr and not ps[0].is_ptr


def _ptx_width(op: str) -> int:
    parts = op.split(".")
    vec = next((int(p[1:]) for p in parts if p in ("v2", "v4", "v8")), 1)
    bits = next(int(p[1:]) for p in reversed(parts) if p[:1] in "busf" and p[1:].isdigit())
    return vec * bits


def _sass_width(op: str) -> int:
    mods = op.split(".")[1:]
    for m in mods:
        if m.isdigit():
            return int(m)
        if m in ("U8", "S8"):
            return 8
        if m in ("U16", "S16"):
            return 16
    return 32


@pytest.mark.parametrize("name", [n for n in NAMES if _load(n)[0]["ptx"] == "kernel.ptx"])
def test_ptx_shared_accesses_map_one_to_one_onto_sass(name):
    """Every ld/st.shared becomes one LDS/STS of the same width, every ldmatrix/stmatrix/movmatrix/
    cp.async/atom.shared one LDSM/STSM/MOVM/LDGSTS/ATOMS -- except where tensormap.replace edits a
    descriptor in shared memory, which ptxas lowers to extra LDS/STS (listed, not matched), and where a
    load's result is partly or wholly unread: then the LDS/LDSM are those ptxas narrows it to
    (:func:`layoutalg.kernel.sass.ptx_inventory`, :mod:`layoutalg.kernel.interp.narrowing`)."""
    from layoutalg.kernel.ptx import parse_module
    from layoutalg.kernel.sass import ptx_inventory

    launch, ptx_text, _ = _load(name)
    ptx, sass = launch["static_counts"]["ptx"], launch["static_counts"]["sass"]
    pf, sf = dict(ptx["families"]), sass["families"]
    loads, _ = ptx_inventory(parse_module(ptx_text).entry(launch["kernel"]))
    pf["ldmatrix"] = loads[("ldmatrix", 16)]
    for p_fams, s_fam in ((("ldmatrix",), "LDSM"), (("stmatrix",), "STSM"), (("movmatrix",), "MOVM"),
                          (("cp.async.ca", "cp.async.cg"), "LDGSTS"), (("atom.shared", "red.shared"), "ATOMS")):
        assert sum(pf.get(f, 0) for f in p_fams) == sf.get(s_fam, 0), (p_fams, s_fam)
    if "tensormap.replace" in pf:
        assert sf.get("LDS", 0) > pf.get("ld.shared", 0) and sf.get("STS", 0) > pf.get("st.shared", 0)
        return
    for head, s_fam in (("ld.shared", "LDS"), ("st.shared", "STS")):
        p_widths = sorted(w for op, n in ptx["detail"].items() if op.startswith(head)
                          for w in [_ptx_width(op)] * n)
        if head == "ld.shared":
            p_widths = sorted(8 * w for (kind, w), n in loads.items() if kind == "ld" for _ in range(n))
        s_widths = sorted(w for op, n in sass["detail"].items() if op.split(".")[0] == s_fam
                          for w in [_sass_width(op)] * n)
        assert p_widths == s_widths, (head, p_widths, s_widths)
