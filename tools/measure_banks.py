"""Measure shared-memory wavefronts of many access patterns on the GPU (run on the device machine).

    python3 tools/measure_banks.py OUTDIR [--set 1|2|3|4|5|6|7|8|8b|9|9b|10] [--budget-s 400] [--only PREFIX] [--start K]

Generates a fixed, seeded list of patterns (targeted experiments that separate
the candidate rules, then random ones), builds one probe program with
``layoutalg.gpu.banks_ncu``, checks its SASS, runs Nsight Compute over every
launch (in chunks, saving after each) and writes ``OUTDIR/measurements.json``
and ``OUTDIR/sass.json``.  ``--start K`` skips the first K cases (to resume a run the budget cut short; the
measurements of the resumed run go to OUTDIR too, so use a fresh OUTDIR).  Round 7 (cp.async) lives in
``tools/banks_round7.py``, which also imports its results; round 8 (partial warps of ld/st, a fresh holdout) in
``tools/banks_round8.py``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from layoutalg.gpu import banks_ncu  # noqa: E402
from layoutalg.gpu.banks_ncu import Case  # noqa: E402

LD = {1: "ld.shared.u8", 2: "ld.shared.u16", 4: "ld.shared.b32", 8: "ld.shared.v2.b32", 16: "ld.shared.v4.b32"}
ST = {1: "st.shared.u8", 2: "st.shared.u16", 4: "st.shared.b32", 8: "st.shared.v2.b32", 16: "st.shared.v4.b32"}


def mat(kind: str, n: int, trans: bool = False) -> str:
    return f"{kind}.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16"


def targeted() -> list[Case]:
    """Hand-made patterns, each separating two candidate rules (named in the case name)."""
    cs: list[Case] = []

    def add(name: str, ins: str, addrs: list[int], g: list[int] | None = None) -> None:
        cs.append(Case(name, ins, tuple(addrs), tuple(g) if g else None, ("targeted",)))

    for w in (8, 16):
        for op, tab in (("ld", LD), ("st", ST)):
            ins = tab[w]
            add(f"{op}{w} all same", ins, [256] * 32)
            add(f"{op}{w} halves identical 128B", ins, [(i % 16) * w % 128 + (((i % 16) * w) // 128) * 128
                                                        for i in range(32)])
            add(f"{op}{w} lanes i%8 contiguous", ins, [(i % 8) * w for i in range(32)])
            add(f"{op}{w} quarters: 0-7 row0, 8-15 row1, 16-23 row0, 24-31 row1", ins,
                [(i % 8) * 16 + (128 if (i // 8) % 2 else 0) for i in range(32)] if w == 16 else
                [(i % 16) * 8 + (128 if (i // 16) else 0) for i in range(32)])
            add(f"{op}{w} h0 column 16 rows, h1 contiguous", ins,
                [i * 128 for i in range(16)] + [(i - 16) * w for i in range(16, 32)])
            add(f"{op}{w} h0 column, h1 same column", ins, [(i % 16) * 128 for i in range(32)])
            add(f"{op}{w} h0 column, h1 other bank column", ins,
                [(i % 16) * 128 + (64 if i >= 16 else 0) for i in range(32)])
            add(f"{op}{w} even lanes column, odd lanes contiguous", ins,
                [(i // 2) * 128 if i % 2 == 0 else 4096 + (i // 2) * w for i in range(32)])
            add(f"{op}{w} lane0 alone at row1, rest broadcast row0", ins, [128] + [0] * 31)
            add(f"{op}{w} lane16 alone at row1, rest broadcast row0", ins, [0] * 16 + [128] + [0] * 15)
            add(f"{op}{w} 0-7 same A,8-15 same B(bank-equal),16-31 same A", ins, [0] * 8 + [128] * 8 + [0] * 16)
            add(f"{op}{w} 4-way in h0 only", ins, [(i % 4) * 128 + (i // 4) * w if i < 16 else 2048 + i * w
                                                    for i in range(32)])
            add(f"{op}{w} quarter q gets 8 rows", ins, [(i % 8) * 128 + (i // 8) * w for i in range(32)])
            add(f"{op}{w} pairs of lanes same, contiguous", ins, [(i // 2) * w for i in range(32)])
            add(f"{op}{w} quads of lanes same, contiguous", ins, [(i // 4) * w for i in range(32)])
            add(f"{op}{w} quads same, column", ins, [(i // 4) * 128 for i in range(32)])
            add(f"{op}{w} lanes 2k,2k+1 same, h1 other row", ins, [(i // 2) * w % 128 + (i // 16) * 1024
                                                                    for i in range(32)])
            add(f"{op}{w} offset 8 within 16", ins, [i * 16 + (8 if w == 8 else 0) for i in range(32)])
            add(f"{op}{w} 3 lanes same then contiguous", ins, [0, 0, 0] + [i * w for i in range(3, 32)])
            add(f"{op}{w} all lanes distinct rows bank0 except lane31", ins, [i * 128 for i in range(31)] + [64])
    # 8/16-bit: word-level merging
    for op, tab in (("ld", LD), ("st", ST)):
        for w in (1, 2):
            ins = tab[w]
            add(f"{op}{w} all bytes of word 0", ins, [i % (4 // w) * w for i in range(32)])
            add(f"{op}{w} all same byte", ins, [5 * w] * 32)
            add(f"{op}{w} stride 4 bytes", ins, [i * 4 + (w if w == 1 else 0) for i in range(32)])
            add(f"{op}{w} words in bank0 different rows, byte i%4", ins,
                [(i // (4 // w)) * 128 + (i % (4 // w)) * w for i in range(32)])
            add(f"{op}{w} same word per bank pairs, two rows", ins,
                [(i % 16) * 4 + (128 if i >= 16 else 0) + (w if i % 2 else 0) * 0 for i in range(32)])
            add(f"{op}{w} contiguous across 128B boundary", ins, [64 + i * w for i in range(32)])
            add(f"{op}{w} stride 128", ins, [i * 128 + (i % 4 // w) * w for i in range(32)])
            add(f"{op}{w} 2 lanes per word different bytes, 2 rows", ins,
                [(i // 2 % 8) * 4 + (i // 16) * 128 + (i % 2) * (2 if w == 2 else 1) for i in range(32)])
    # ldmatrix / stmatrix: per-matrix phases and merging
    for kind in ("ldmatrix", "stmatrix"):
        for n in (1, 2, 4):
            ins = mat(kind, n)
            rows = 8 * n
            add(f"{kind}.x{n} all rows same address", ins, [512] * 32)
            add(f"{kind}.x{n} all matrices identical conflict-free", ins, [(i % 8) * 16 for i in range(32)])
            add(f"{kind}.x{n} all matrices identical 8-way", ins, [(i % 8) * 128 for i in range(32)])
            add(f"{kind}.x{n} rows pairwise equal", ins, [(i // 2) * 16 for i in range(32)])
            add(f"{kind}.x{n} 2 rows equal rest column", ins, [0, 0] + [i * 128 for i in range(2, 32)])
            add(f"{kind}.x{n} rows i%4 column (4 distinct/matrix)", ins, [(i % 4) * 128 for i in range(32)])
            add(f"{kind}.x{n} matrix rows in half banks (2-way)", ins, [(i % 4) * 16 + (i % 8 // 4) * 128
                                                                        + (i // 8) * 4096 for i in range(32)])
            if n >= 2:
                add(f"{kind}.x{n} m0 one address, m1 conflict-free other banks", ins,
                    [0] * 8 + [(i % 8) * 16 + 2048 for i in range(8, 32)])
                add(f"{kind}.x{n} m0 rows banks0-15 x2, m1 rows banks16-31 x2", ins,
                    [((i % 8) % 4) * 16 + ((i % 8) // 4) * 128 + (64 if (i // 8) % 2 else 0) for i in range(32)])
            add(f"{kind}.x{n} unused lanes wild", ins,
                [(i % 8) * 16 + (i // 8) * 256 if i < rows else i * 128 for i in range(32)])
    # cp.async: global side vs shared side
    sw = [((i % 8) * 128) + ((0 ^ (i % 8)) * 16) + (i // 8) * 1024 for i in range(32)]
    smem_pats = {
        "smem contiguous": lambda s: [i * s for i in range(32)],
        "smem 128B rows pitch 144": lambda s: [(i * s // 128) * 144 + (i * s % 128) for i in range(32)],
        "smem Sw333 column": lambda s: [sw[i] for i in range(32)],
        "smem column pitch128": lambda s: [i * 128 for i in range(32)],
        "smem reversed": lambda s: [(31 - i) * s for i in range(32)],
        "smem pairs swapped": lambda s: [(i ^ 1) * s for i in range(32)],
        "smem column pitch 144": lambda s: [i * 144 for i in range(32)],
        "smem contiguous from 16": lambda s: [16 + i * s for i in range(32)],
    }
    glob_pats = {
        "glob contiguous": lambda s: [i * s for i in range(32)],
        "glob column 128": lambda s: [i * 128 for i in range(32)],
        "glob column 4096": lambda s: [i * 4096 for i in range(32)],
        "glob reversed": lambda s: [(31 - i) * s for i in range(32)],
        "glob same 32B sector pairs": lambda s: [(i // 2) * 32 + (i % 2) * s for i in range(32)],
        "glob rows pitch 144": lambda s: [(i * s // 128) * 144 + (i * s % 128) for i in range(32)],
    }
    for cache, size in (("cg", 16), ("ca", 16), ("ca", 8), ("ca", 4)):
        ins = "cp.async.cg.shared.global" if cache == "cg" else f"cp.async.ca.shared.global, {size}"
        for sname, sf in smem_pats.items():
            for gname, gf in glob_pats.items():
                sm = [a - a % size for a in sf(size)]
                gl = [a - a % size for a in gf(size)]
                add(f"cp.async.{cache}{size} {sname} / {gname}", ins, sm, gl)
    return cs


def random_cases(seed: int = 2026) -> list[Case]:
    """Random patterns: uniform in a window, from a small pool (duplicates), strided, xor-swizzled, per-group mixes."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def addr_gen(w: int) -> list[int]:
        mode = rng.choice(["uniform", "pool", "stride", "xor", "groups", "rows"])
        if mode == "uniform":
            span = rng.choice([128, 256, 512, 1024, 4096])
            return [rng.randrange(0, span // w) * w for _ in range(32)]
        if mode == "pool":
            k = rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24])
            span = rng.choice([256, 1024, 4096])
            pool = [rng.randrange(0, span // w) * w for _ in range(k)]
            return [rng.choice(pool) for _ in range(32)]
        if mode == "stride":
            s = rng.choice([1, 2, 3, 4, 5, 8, 9, 12, 16, 17, 24, 32, 33, 36, 64, 72, 128, 132, 136, 144]) * w
            s = s - s % w if s >= w else w
            base = rng.randrange(0, 64) * w
            perm = list(range(32))
            if rng.random() < 0.4:
                rng.shuffle(perm)
            return [base + perm[i] * s for i in range(32)]
        if mode == "xor":
            per_row = max(1, 128 // w)
            pitch = rng.choice([128, 256])
            mask = rng.choice([1, 3, 7]) if per_row > 1 else 0
            col = rng.randrange(per_row)
            return [i * pitch + (((col ^ (i & mask)) % per_row) * w) for i in range(32)]
        if mode == "rows":
            pitch = rng.choice([128, 144, 256, 136, 160]) - 0
            pitch -= pitch % w
            per = rng.choice([2, 4, 8, 16])
            return [(i // per) * pitch + (i % per) * w for i in range(32)]
        out = []
        for _g in range(4):
            kind = rng.choice(["same", "contig", "column", "random"])
            base = rng.randrange(0, 32) * 128
            for j in range(8):
                if kind == "same":
                    out.append(base)
                elif kind == "contig":
                    out.append(base + j * w)
                elif kind == "column":
                    out.append(base + j * 128)
                else:
                    out.append(rng.randrange(0, 2048 // w) * w)
        if rng.random() < 0.5:
            out = out[8:16] + out[0:8] + out[24:32] + out[16:24] if rng.random() < 0.5 else out
        return out

    plan = [(LD, 4, 50), (ST, 4, 30), (LD, 1, 30), (ST, 1, 30), (LD, 2, 30), (ST, 2, 30),
            (LD, 8, 70), (ST, 8, 45), (LD, 16, 90), (ST, 16, 60)]
    for tab, w, count in plan:
        for k in range(count):
            cs.append(Case(f"rand {tab[w]} #{k}", tab[w], tuple(addr_gen(w)), None, ("random",)))
    # spelling checks: b64 and b32 type spellings map to the same SASS
    for k in range(6):
        a = tuple(addr_gen(8))
        cs.append(Case(f"rand ld.shared.b64 #{k}", "ld.shared.b64", a, None, ("random",)))
    for kind, count in (("ldmatrix", 70), ("stmatrix", 45)):
        for k in range(count):
            n = rng.choice([1, 2, 4, 4, 4])
            trans = rng.random() < 0.3
            rows = addr_gen(16)
            cs.append(Case(f"rand {kind}.x{n}{'.t' if trans else ''} #{k}", mat(kind, n, trans), tuple(rows), None,
                           ("random",)))
    for k in range(40):
        cache, size = rng.choice([("cg", 16), ("ca", 16), ("ca", 8), ("ca", 4)])
        ins = "cp.async.cg.shared.global" if cache == "cg" else f"cp.async.ca.shared.global, {size}"
        sm = addr_gen(size)
        # distinct smem destinations (overlapping cp.async writes are a race)
        if len(set(sm)) < 32:
            sm = [i * size * rng.choice([1, 2, 9]) for i in range(32)]
        gl = addr_gen(size)
        cs.append(Case(f"rand cp.async.{cache}{size} #{k}", ins, tuple(sm), tuple(gl), ("random",)))
    return cs


def round2(seed: int = 7) -> list[Case]:
    """Second round: pins the lane-pair rule of 64/128-bit loads, high offsets, and cp.async shifts."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(name: str, ins: str, addrs: list[int], g: list[int] | None = None) -> None:
        cs.append(Case(name, ins, tuple(addrs), tuple(g) if g else None, ("round2",)))

    for w in (8, 16):
        for op, tab in (("ld", LD), ("st", ST)):
            ins = tab[w]
            add(f"r2 {op}{w} odd pairing (2k+1,2k+2) equal", ins, [((i + 1) // 2) * w for i in range(32)])
            add(f"r2 {op}{w} pairs equal except pair 15", ins, [(i // 2) * w for i in range(30)] + [15 * w, 16 * w])
            add(f"r2 {op}{w} pairs equal except pair 0", ins, [0, w] + [(i // 2) * w + 512 for i in range(2, 32)])
            add(f"r2 {op}{w} pairs equal, h0 8 rows bank0, h1 8 rows bank 16", ins,
                [(i // 2) * 128 if i < 16 else ((i - 16) // 2) * 128 + 64 for i in range(32)])
            add(f"r2 {op}{w} pairs equal, q0 4 rows bg0, q1 4 rows bg1", ins,
                [(i // 2 % 4) * 128 + (i // 8 % 2) * 16 + (i // 16) * 4096 for i in range(32)])
            add(f"r2 {op}{w} pairs same bank different row", ins, [(i // 2) * w + (i % 2) * 1024 for i in range(32)])
            add(f"r2 {op}{w} pairs equal, h0 only", ins, [(i // 2) * w if i < 16 else i * 128 for i in range(32)])
            add(f"r2 {op}{w} lane i and i^16 equal", ins, [(i % 16) * 128 for i in range(32)])
            add(f"r2 {op}{w} pairs equal, 2-way in whole warp", ins, [(i // 2) * w % 128 + (i // 16) * 128
                                                                    for i in range(32)])
    for k in range(40):
        for op, tab, w, _n in (("ld", LD, 8, 1), ("ld", LD, 16, 1), ("st", ST, 8, 0), ("st", ST, 16, 0)):
            if op == "st" and k >= 15:
                continue
            span = rng.choice([128, 256, 512, 2048])
            base = [rng.randrange(0, span // w) * w for _ in range(16)]
            addrs = [base[i // 2] for i in range(32)]
            add(f"r2 rand pairs-equal {tab[w]} #{k}", tab[w], addrs)
            if op == "ld" and k < 20:
                j = rng.randrange(16)
                broken = list(addrs)
                broken[2 * j + 1] = rng.randrange(0, span // w) * w
                if broken[2 * j + 1] != broken[2 * j]:
                    add(f"r2 rand pairs-equal-but-one {tab[w]} #{k}", tab[w], broken)
    for k in range(6):
        ins = rng.choice([LD[4], LD[16], ST[8], mat("ldmatrix", 4), mat("stmatrix", 2, True), LD[1]])
        w = 16 if "matrix" in ins else {"u8": 1, "b32": 4, "v2.b32": 8, "v4.b32": 16}[ins.split(".shared.")[1]]
        high = rng.randrange(64, 220) * 1024
        add(f"r2 high offsets {ins} #{k}", ins, [high + rng.randrange(0, 4096 // w) * w for _ in range(32)])
    # cp.async: shifted rows, permutations, outliers
    for cache, size, shifts in (("cg", 16, range(0, 128, 16)), ("ca", 16, range(0, 128, 16)),
                                ("ca", 8, (0, 8, 16, 24, 64, 72)), ("ca", 4, (0, 4, 8, 12, 64))):
        ins = "cp.async.cg.shared.global" if cache == "cg" else f"cp.async.ca.shared.global, {size}"
        for s in shifts:
            for t in shifts:
                add(f"r2 cp.async.{cache}{size} smem shift {s} glob shift {t}", ins,
                    [s + size * i for i in range(32)], [t + size * i for i in range(32)])
    ins = "cp.async.cg.shared.global"
    for k in range(10):
        perm = list(range(32))
        for q in range(4):
            sub = perm[8 * q:8 * q + 8]
            rng.shuffle(sub)
            perm[8 * q:8 * q + 8] = sub
        add(f"r2 cp.async.cg16 smem permuted within quarters #{k}", ins, [16 * perm[i] for i in range(32)],
            [16 * i for i in range(32)])
    for _k in range(5):
        qp = [0, 1, 2, 3]
        rng.shuffle(qp)
        add(f"r2 cp.async.cg16 smem quarters to segments {qp}", ins, [qp[i // 8] * 256 + 16 * (i % 8)
                                                                       for i in range(32)], [16 * i for i in range(32)])
    for j in (0, 1, 3, 7, 8, 15, 31):
        sm = [16 * i for i in range(32)]
        sm[j] = 8192 + 16 * j
        add(f"r2 cp.async.cg16 lane {j} to far segment", ins, sm, [16 * i for i in range(32)])
        gl = [16 * i for i in range(32)]
        gl[j] = 65536 + 16 * j
        add(f"r2 cp.async.cg16 lane {j} from far line", ins, [16 * i for i in range(32)], gl)
    for size in (16, 8):
        for gap in (256, 512):
            ins2 = "cp.async.cg.shared.global" if size == 16 else "cp.async.ca.shared.global, 8"
            add(f"r2 cp.async {size} quarters from lines {gap} apart", ins2, [size * i for i in range(32)],
                [(i // 8) * gap + size * (i % 8) for i in range(32)])
    for k in range(60):
        cache, size = ("cg", 16) if k < 30 else rng.choice([("ca", 16), ("ca", 8), ("ca", 4)])
        ins2 = "cp.async.cg.shared.global" if cache == "cg" else f"cp.async.ca.shared.global, {size}"
        slots = rng.sample(range(0, rng.choice([64, 128, 512]) * 16 // size), 32)
        sm = [x * size for x in slots]
        mode = rng.choice(["contig", "rows", "random"])
        if mode == "contig":
            gl = [rng.randrange(0, 8) * 128 + size * i for i in range(32)]
            gl = [size * i + rng.choice([0, 0, 128, 256]) for i in range(32)]
        elif mode == "rows":
            pitch = rng.choice([128, 144, 160, 256])
            gl = [(i * size // 128) * pitch + (i * size % 128) for i in range(32)]
        else:
            gl = [rng.randrange(0, 4096 // size) * size for _ in range(32)]
        add(f"r2 rand cp.async.{cache}{size} {mode} #{k}", ins2, sm, gl)
    return cs


def round3(seed: int = 11) -> list[Case]:
    """Third round: is the load pair rule about equal addresses only (or adjacent halves of one 2w block)?
    cp.async.cg permutation structure; calibration-like swizzled ldmatrix/stmatrix and epilogue patterns."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(name: str, ins: str, addrs: list[int], g: list[int] | None = None) -> None:
        cs.append(Case(name, ins, tuple(addrs), tuple(g) if g else None, ("round3",)))

    for w in (8, 16):
        for op, tab in (("ld", LD), ("st", ST)):
            ins = tab[w]
            # pairs (a, a+w) inside one 2w-aligned block; h0 pairs in bank group 0, h1 in bank group 16
            add(f"r3 {op}{w} adjacent pairs, rows, two bank groups", ins,
                [(i // 2 % 8) * 128 + (i % 2) * w + (i // 16) * 64 for i in range(32)])
            add(f"r3 {op}{w} swapped adjacent pairs, rows, two bank groups", ins,
                [(i // 2 % 8) * 128 + (1 - i % 2) * w + (i // 16) * 64 for i in range(32)])
            add(f"r3 {op}{w} adjacent pairs straddling 2w blocks", ins,
                [(i // 2 % 8) * 128 + w + (i % 2) * w + (i // 16) * 64 for i in range(32)])
            add(f"r3 {op}{w} 15 equal pairs + 1 adjacent pair", ins,
                [(i // 2) * 128 % 1024 + (w if i == 31 else 0) + (i // 16) * 64 for i in range(32)])
            add(f"r3 {op}{w} equal pairs, rows, two bank groups", ins,
                [(i // 2 % 8) * 128 + (i // 16) * 64 for i in range(32)])
    for k in range(30):
        for w in (8, 16):
            pool = [rng.randrange(0, 32) * 2 * w + rng.choice([0, 0, 1024, 2048]) for _ in range(rng.choice([4, 8, 16]))]
            addrs = []
            for _p in range(16):
                a = rng.choice(pool)
                addrs += [a, a + w * rng.choice([0, 1])]
            add(f"r3 rand mixed pairs {LD[w]} #{k}", LD[w], addrs)
    # cp.async.cg: permutation structure
    ins = "cp.async.cg.shared.global"
    for k in range(8):
        perm = list(range(32))
        for q in range(4):
            sub = perm[8 * q:8 * q + 8]
            rng.shuffle(sub)
            perm[8 * q:8 * q + 8] = sub
        add(f"r3 cp.async.cg16 glob permuted within quarters #{k}", ins, [16 * i for i in range(32)],
            [16 * perm[i] for i in range(32)])
        add(f"r3 cp.async.cg16 both permuted alike #{k}", ins, [16 * perm[i] for i in range(32)],
            [16 * perm[i] for i in range(32)])
    for q in range(4):
        add(f"r3 cp.async.cg16 quarter {q} smem shifted 16", ins,
            [16 * i + (1024 + 16 if i // 8 == q else 0) for i in range(32)], [16 * i for i in range(32)])
        add(f"r3 cp.async.cg16 quarter {q} smem pairs swapped", ins,
            [16 * (i ^ 1 if i // 8 == q else i) for i in range(32)], [16 * i for i in range(32)])
        add(f"r3 cp.async.cg16 quarter {q} smem chunks 0,1 exchanged with 2,3", ins,
            [16 * (i ^ 2 if i // 8 == q else i) for i in range(32)], [16 * i for i in range(32)])
        add(f"r3 cp.async.cg16 quarter {q} smem chunk xor 4", ins,
            [16 * (i ^ 4 if i // 8 == q else i) for i in range(32)], [16 * i for i in range(32)])
    for x in range(1, 8):
        add(f"r3 cp.async.cg16 all quarters smem chunk xor {x}", ins, [16 * (i ^ x) for i in range(32)],
            [16 * i for i in range(32)])
    # calibration-like: swizzled tiles read by ldmatrix/stmatrix and by ld/st columns
    for k in range(60):
        kind = rng.choice(["ldmatrix", "ldmatrix", "stmatrix"])
        n = rng.choice([1, 2, 4, 4])
        trans = rng.random() < 0.3
        b, m, s = rng.choice([(1, 3, 3), (2, 3, 3), (3, 3, 3), (2, 4, 3), (3, 4, 3), (3, 3, 4), (2, 3, 4), (1, 4, 3)])
        pitch_h = rng.choice([16, 32, 40, 48, 64, 72, 96, 128, 136])
        r0 = rng.randrange(0, 4) * 8
        c0 = rng.randrange(0, max(1, pitch_h // 8 - 1)) * 8
        addrs = []
        for lane in range(32):
            row = r0 + (lane % 16 if n == 4 else lane % (8 * n))
            col = c0 + (8 * (lane // 16) if n == 4 else 0)
            col = min(col, pitch_h - 8)
            off = row * pitch_h + col
            yyy = ((1 << b) - 1) << (m + s)
            off ^= (off & yyy) >> s
            addrs.append(2 * off)
        add(f"r3 calib-like {kind}.x{n}{'.t' if trans else ''} Sw<{b},{m},{s}> pitch={pitch_h}h #{k}",
            mat(kind, n, trans), addrs)
    for k in range(40):
        w = rng.choice([4, 8, 16])
        table = rng.choice([LD, ST])
        pitch = rng.choice([128, 256, 132, 136, 144, 160, 192, 512])
        b, m, s = rng.choice([(0, 4, 3), (3, 4, 3), (2, 4, 3), (3, 2, 5), (2, 3, 4)])
        col = rng.randrange(0, 128 // w) * w
        addrs = []
        for lane in range(32):
            off = lane * pitch + col
            yyy = ((1 << b) - 1) << (m + s)
            off ^= (off & yyy) >> s
            addrs.append(off - off % w)
        add(f"r3 column {table[w]} pitch={pitch} Sw<{b},{m},{s}> #{k}", table[w], addrs)
    return cs


def _swz(off: int, b: int, m: int, s: int) -> int:
    """CuTe Swizzle<B,M,S> on an offset: XOR bits [M, M+B) with bits [M+S, M+S+B)."""
    return off ^ ((off >> s) & (((1 << b) - 1) << m))


def round4(seed: int = 404) -> list[Case]:
    """Fourth round, a holdout: realistic tile patterns (row-major, padded, swizzled tiles of int8/fp16/fp32 read
    and written by every instruction and width at shifted bases) and adversarial ones aimed at the edges of the
    rules (partial lane-pair equality, duplicates across phases, repeated ldmatrix rows, u8/u16 word sharing,
    junk in ignored lanes, stmatrix.trans .x1/.x2, offsets near the top of shared memory).  Each case's tags
    carry ``predicted:N``, the model's count written before the measurement."""
    from layoutalg.banks import wavefronts as model_wavefronts

    rng = random.Random(seed)
    cs: list[Case] = []
    top = 227 * 1024  # the probe's dynamic shared-memory allocation

    def add(name: str, ins: str, addrs: list[int]) -> None:
        pred = model_wavefronts(ins, addrs)
        cs.append(Case(name, ins, tuple(addrs), None, ("round4", f"predicted:{pred}")))

    widths = {1: "u8", 2: "u16", 4: "b32", 8: "v2", 16: "v4"}
    swizzles = [(0, 0, 0), (1, 4, 3), (2, 4, 3), (3, 4, 3), (3, 3, 3), (2, 3, 3), (1, 3, 3), (3, 4, 4),
                (2, 4, 5), (3, 3, 5), (2, 2, 3), (3, 2, 4), (1, 5, 3), (3, 1, 3), (2, 4, 4), (3, 4, 5)]

    def tile_offset(row: int, col_bytes: int, pitch: int, es: int, sw: tuple[int, int, int], base: int) -> int:
        """Byte offset of (row, byte column) in a tile of ``pitch`` bytes per row, swizzled on element offsets."""
        elem = (row * pitch + col_bytes) // es
        return base + es * _swz(elem, *sw) + (col_bytes % es)

    # realistic: tiles read/written by ld/st of every width
    for k in range(170):
        es = rng.choice([1, 2, 4])
        w = rng.choice([1, 2, 4, 8, 16, 16, 8, 4]) if es == 1 else rng.choice([es, 4, 8, 16, 16, 8])
        if w < es:
            w = es
        cols_bytes = rng.choice([32, 64, 128, 256])
        pad = rng.choice([0, 0, 4, 8, 16])
        pitch = cols_bytes + pad
        sw = rng.choice(swizzles) if pad == 0 else (0, 0, 0)
        base = rng.randrange(0, 64) * 16 + rng.randrange(0, 16 // w) * w if w < 16 else rng.randrange(0, 128) * 16
        per_row = max(1, cols_bytes // w)
        mode = rng.choice(["row", "column", "tile", "column", "row"])
        tw = rng.choice([2, 4, 8])
        addrs = []
        for lane in range(32):
            if mode == "row":  # lanes sweep a row, wrapping into the next rows
                r, c = lane // per_row, (lane % per_row) * w
            elif mode == "column":  # one lane per row at a fixed column
                r, c = lane, (k % per_row) * w
            else:  # a th x tw thread tile
                r, c = lane // tw, ((lane % tw) * w) % cols_bytes
            a = tile_offset(r, c, pitch, es, sw, base)
            addrs.append(a - a % w)
        op = rng.choice(["ld", "st"])
        ins = f"{op}.shared.{widths[w]}" + (".b32" if w >= 8 else "")
        tag = f"{es * 8}bit cols={cols_bytes}B pad={pad} Sw<{sw[0]},{sw[1]},{sw[2]}> base={base}"
        add(f"r4 tile {ins} {mode} {tag} #{k}", ins, addrs)
    # realistic: ldmatrix/stmatrix over tiles
    for k in range(120):
        kind = rng.choice(["ldmatrix", "ldmatrix", "stmatrix"])
        n = rng.choice([1, 2, 4, 4])
        trans = rng.random() < 0.4
        es = rng.choice([2, 2, 1, 4])
        cols_bytes = rng.choice([32, 64, 128, 256])
        pad = rng.choice([0, 0, 0, 16, 8, 4]) if not rng.random() < 0.1 else 48
        if pad % 16:  # matrix rows must stay 16-byte aligned: pad in 16s when rows must be aligned
            pad = 16
        pitch = cols_bytes + pad
        sw = rng.choice(swizzles) if pad == 0 else (0, 0, 0)
        if sw[1] * 1 + (es.bit_length() - 1) < 4 and sw[0]:  # swizzle must move whole 16-byte rows
            sw = (sw[0], 4 - (es.bit_length() - 1), sw[2])
        base = rng.randrange(0, 64) * 16
        r0 = rng.randrange(0, 4) * 8
        chunks = cols_bytes // 16
        c0 = rng.randrange(0, chunks)
        pattern = rng.choice(["A", "B", "rows"])
        addrs = []
        for lane in range(32):
            m_idx, j = lane // 8, lane % 8
            if pattern == "A":  # x4: matrices (r0..7,c), (r8..15,c), (r0..7,c+1), (r8..15,c+1)
                r, ch = r0 + j + 8 * (m_idx % 2), c0 + m_idx // 2
            elif pattern == "B":
                r, ch = r0 + j + 8 * (m_idx // 2), c0 + m_idx % 2
            else:
                r, ch = r0 + j, c0 + m_idx
            a = tile_offset(r, (ch % chunks) * 16, pitch, es, sw, base)
            addrs.append(a - a % 16)
        if n < 4 and rng.random() < 0.5:  # junk (aligned) in the lanes the instruction ignores
            for lane in range(8 * n, 32):
                addrs[lane] = rng.randrange(0, 512) * 16
        ins = mat(kind, n, trans)
        tag = f"{es * 8}bit cols={cols_bytes}B pad={pad} Sw<{sw[0]},{sw[1]},{sw[2]}> base={base}"
        add(f"r4 tile {kind}.x{n}{'.t' if trans else ''} {pattern} {tag} #{k}", ins, addrs)

    # adversarial: partial pair equality for 8/16-byte accesses
    def pairs(vals: list[int]) -> list[int]:
        return [vals[i // 2] for i in range(32)]

    for w in (8, 16):
        for op, tab in (("ld", LD), ("st", ST)):
            ins = tab[w]
            col = [(i * 128) % 2048 + (i // 16) * 16 for i in range(16)]
            add(f"r4 {op}{w} pairs equal, pair k == pair k+8", ins, pairs([(i % 8) * 128 for i in range(16)]))
            add(f"r4 {op}{w} pairs equal, all pairs in one bank column", ins, pairs(col))
            add(f"r4 {op}{w} quads equal, column", ins, [(i // 4) * 128 for i in range(32)])
            add(f"r4 {op}{w} quads equal, contiguous", ins, [(i // 4) * w for i in range(32)])
            add(f"r4 {op}{w} octets equal, column", ins, [(i // 8) * 128 for i in range(32)])
            add(f"r4 {op}{w} pairs equal in q0 only", ins, [(i // 2) * 128 if i < 8 else i * w + 4096 for i in range(32)])
            add(f"r4 {op}{w} pairs equal in q0,q1 only, rows", ins,
                [(i // 2) * 128 if i < 16 else (i % 8) * 128 + 64 for i in range(32)])
            add(f"r4 {op}{w} pairs equal in h1 only, rows", ins,
                [(i % 16) * 128 if i < 16 else ((i - 16) // 2) * 128 + 64 for i in range(32)])
            add(f"r4 {op}{w} crossing pairs (2k+1,2k+2) + lanes 0,31 equal", ins,
                [((i + 1) // 2 % 16) * 128 for i in range(32)])
            add(f"r4 {op}{w} pairs equal, 16 distinct rows bank0", ins, pairs([i * 128 for i in range(16)]))
            add(f"r4 {op}{w} pairs equal, 16 distinct same-bank rows, 2 groups", ins,
                pairs([(i % 8) * 256 + (i // 8) * 64 for i in range(16)]))
            add(f"r4 {op}{w} dup across phases: lane i and i+8 equal, column", ins,
                [(i % 8) * 128 for i in range(32)])
            add(f"r4 {op}{w} dup across phases: lane i and i+4 equal", ins, [(i % 4) * 128 for i in range(32)])
            add(f"r4 {op}{w} lane i and 31-i equal, column", ins, [min(i, 31 - i) * 128 for i in range(32)])
            add(f"r4 {op}{w} near top of smem, column", ins, [top - 4096 + i * 128 - w for i in range(32)])
            add(f"r4 {op}{w} near top of smem, contiguous", ins, [top - 32 * w + i * w for i in range(32)])
            add(f"r4 {op}{w} pairs equal near top, rows", ins, pairs([top - 2048 + i * 128 - w for i in range(16)]))
            for k in range(10 if op == "ld" else 4):
                pool = [rng.randrange(0, 64) * w + rng.choice([0, 1024, 2048, 4096])
                        for _ in range(rng.choice([2, 4, 8, 16]))]
                vals = [rng.choice(pool) for _ in range(16)]
                lane_addrs = pairs(vals)
                if k % 2:  # break pair equality in a random number of pairs
                    for _b in range(rng.choice([1, 1, 2, 8])):
                        j = rng.randrange(16)
                        lane_addrs[2 * j + 1] = rng.choice(pool)
                add(f"r4 rand pool pairs {op}{w} #{k}", ins, lane_addrs)
    # 8/16-bit: lanes sharing words, loads and stores
    for w in (1, 2):
        for op, tab in (("ld", LD), ("st", ST)):
            ins = tab[w]
            per = 4 // w
            add(f"r4 {op}{w} {per} lanes per word, column of words", ins,
                [(i // per) * 128 + (i % per) * w for i in range(32)])
            add(f"r4 {op}{w} 2 lanes per word same byte, column", ins, [(i // 2) * 128 for i in range(32)])
            add(f"r4 {op}{w} lanes share words across 4 rows bank0..7", ins,
                [(i % 4) * 128 + (i // 4) * 4 + (i % per) * w for i in range(32)])
            add(f"r4 {op}{w} contiguous, odd base", ins, [w * 37 + i * w for i in range(32)])
            add(f"r4 {op}{w} fp16/int8 column pitch 130B", ins, [(i * 130) - (i * 130) % w for i in range(32)])
            add(f"r4 {op}{w} column pitch 132B, byte 3", ins, [i * 132 + (3 if w == 1 else 2) for i in range(32)])
            add(f"r4 {op}{w} near top, lanes per word", ins, [top - 64 + (i // per) * 4 + (i % per) * w - 4096 * (i % 2)
                                                             for i in range(32)])
            for k in range(8):
                span = rng.choice([64, 256, 1024, 4096])
                add(f"r4 rand {op}{w} bytes #{k}", ins, [rng.randrange(0, span // w) * w for _ in range(32)])
    # ldmatrix / stmatrix: repeated rows inside and across matrices, .trans x1/x2, junk lanes, high offsets
    for kind in ("ldmatrix", "stmatrix"):
        for n in (1, 2, 4):
            for trans in (False, True):
                ins = mat(kind, n, trans)
                t = ".t" if trans else ""
                add(f"r4 {kind}.x{n}{t} rows 0,1 equal, 2-7 same bank column", ins,
                    [0, 0] + [j * 128 for j in range(2, 8)] + [(i % 8) * 128 + 64 for i in range(8, 32)])
                add(f"r4 {kind}.x{n}{t} rows pairwise equal, column", ins, [(i // 2 % 4) * 128 + (i // 8) * 16
                                                                             for i in range(32)])
                add(f"r4 {kind}.x{n}{t} each matrix one row repeated 8x, banks apart", ins,
                    [(i // 8) * 2048 + (i // 8) * 16 for i in range(32)])
                add(f"r4 {kind}.x{n}{t} m1 repeats m0 rows, 8-way", ins, [(i % 8) * 128 + (i // 16) * 16
                                                                           for i in range(32)])
                add(f"r4 {kind}.x{n}{t} 4 rows in bank group 0, 4 in group 4", ins,
                    [(i % 4) * 256 + (i % 8 // 4) * 16 + (i // 8) * 32 for i in range(32)])
                add(f"r4 {kind}.x{n}{t} near top of smem", ins, [top - 2048 + (i % 8) * 144 + (i // 8) * 16 - 16 * 8
                                                                  for i in range(32)])
                if n < 4:
                    junk = [(i % 8) * 16 for i in range(8 * n)] + [((i * 7) % 16) * 128 + 3 * 16 for i in range(8 * n, 32)]
                    add(f"r4 {kind}.x{n}{t} junk 16-way column in ignored lanes", ins, junk)
                    junk2 = [(i % 8) * 128 for i in range(8 * n)] + [0] * (32 - 8 * n)
                    add(f"r4 {kind}.x{n}{t} 8-way, ignored lanes zero", ins, junk2)
                for k in range(4):
                    pool = [rng.randrange(0, 128) * 16 for _ in range(rng.choice([3, 6, 12]))]
                    add(f"r4 rand pool {kind}.x{n}{t} #{k}", ins, [rng.choice(pool) for _ in range(32)])
    return cs


def round5(seed: int = 505) -> list[Case]:
    """Fifth round: which lane-equality patterns make 64/128-bit loads use double-size phases (round 4 found a
    128-bit load with lanes i and i^2 equal, pairs not, costing 2 like the pair case).  Lane-quad structure:
    i^1, i^2, i^3 equality, mixed per quad, quads of 2 distinct addresses in other shapes; stores alike."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(name: str, ins: str, addrs: list[int]) -> None:
        cs.append(Case(name, ins, tuple(addrs), None, ("round5",)))

    def by_quad(w: int, shapes: list[tuple[int, int, int, int]], vals: list[int]) -> list[int]:
        """Lane 4q+j gets vals[2q + shapes[q][j]] (shape entries 0/1 pick one of the quad's two addresses)."""
        return [vals[2 * (i // 4) + shapes[i // 4][i % 4]] for i in range(32)]

    x1, x2, x3 = (0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0)
    other = {"AAAB": (0, 0, 0, 1), "ABBB": (0, 1, 1, 1), "AAAA": (0, 0, 0, 0), "BAAA": (1, 0, 0, 0)}
    for w in (8, 16):
        for op, tab in (("ld", LD), ("st", ST)):
            ins = tab[w]
            layouts = {
                "column": [(j * 128) % 4096 + (j // 32) * 16 for j in range(16)],
                "2 rows per bank group": [(j % 8) * 256 + (j // 8) * 64 for j in range(16)],
                "contiguous": [j * w for j in range(16)],
                "4 same-bank rows x 4 groups": [(j % 4) * 128 + (j // 4) * 2 * w for j in range(16)],
            }
            reps = 2 if op == "ld" else 1
            for lname, vals in list(layouts.items())[: 4 if op == "ld" else 2]:
                for sname, shape in (("i^2", x2), ("i^3", x3), ("i^1", x1)):
                    add(f"r5 {op}{w} lanes i,{sname} equal, {lname}", ins, by_quad(w, [shape] * 8, vals))
                for sname, shape in other.items():
                    add(f"r5 {op}{w} every quad {sname}, {lname}", ins, by_quad(w, [shape] * 8, vals))
                if reps:
                    add(f"r5 {op}{w} quads alternate i^1 / i^2 equality, {lname}", ins,
                        by_quad(w, [x1, x2] * 4, vals))
                    add(f"r5 {op}{w} half0 i^1, half1 i^2 equality, {lname}", ins,
                        by_quad(w, [x1] * 4 + [x2] * 4, vals))
                    add(f"r5 {op}{w} i^2 equality except quad 7 (i^1), {lname}", ins,
                        by_quad(w, [x2] * 7 + [x1], vals))
                    broken = by_quad(w, [x2] * 8, vals)
                    broken[31] = broken[31] + 4096
                    add(f"r5 {op}{w} i^2 equality except lane 31, {lname}", ins, broken)
                    add(f"r5 {op}{w} random quad shapes of 2 addresses, {lname}", ins,
                        by_quad(w, [rng.choice([x1, x2, x3, (0, 0, 0, 1), (1, 0, 1, 1)]) for _ in range(8)], vals))
            # i^2 equality with 16 distinct addresses in one bank: does the double phase hold 16 rows?
            add(f"r5 {op}{w} i^2 equal, 16 rows one bank", ins, by_quad(w, [x2] * 8, [j * 128 for j in range(16)]))
            add(f"r5 {op}{w} i^2 equal, 8 rows one bank per half", ins,
                by_quad(w, [x2] * 8, [(j % 8) * 128 + (j // 8) * 64 for j in range(16)]))
    add("r5 repeat of r4 tile ld.shared.v4.b32 #135", LD[16], [1744 + 32 * (i // 8) + 16 * (i % 2) for i in range(32)])
    add("r5 r4 #135 shape, quads distinct", LD[16], [1744 + 32 * (i // 4) + 16 * (i % 2) for i in range(32)])
    for k in range(24):
        w = rng.choice([8, 16])
        shape = rng.choice([x1, x2, x3])
        span = rng.choice([256, 1024, 4096])
        vals = [rng.randrange(0, span // w) * w for _ in range(16)]
        add(f"r5 rand ld{w} quad-structured #{k}", LD[w], by_quad(w, [shape] * 8, vals))
    return cs


CG = "cp.async.cg.shared.global"


def round6(seed: int = 606) -> list[Case]:
    """Sixth round, a holdout for the cp.async.cg rule (layoutalg.banks.cp_async), predicted before measuring:
    realistic gmem->smem tile copies (row-major, padded and swizzled smem; several global pitches and
    offsets; lanes along rows or down columns), the helper's targeted checks (duplicate destinations with
    different sources, one global chunk to both halves of a sector, sector permutations within one row),
    and random patterns."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(name: str, smem: list[int], glob: list[int]) -> None:
        cs.append(Case(name, CG, tuple(smem), tuple(glob), ("round6",)))

    def swz(off: int, bits: int) -> int:  # Sw<bits,4,3> on byte offsets
        return off ^ (((off >> 7) & ((1 << bits) - 1)) << 4)

    for row_bytes in (64, 128, 256, 512):
        per_row = min(32, row_bytes // 16)
        for ld in sorted({row_bytes, 256, 1024, 4096, 4096 + 16, 4096 + 48}):
            if ld < row_bytes:
                continue
            for g0 in (0, 16, 64, 160):
                rows = [(lane // per_row, lane % per_row) for lane in range(32)]
                glob = [g0 + r * ld + c * 16 for r, c in rows]
                for pitch_name, smem in (
                    ("rowmajor", [r * row_bytes + c * 16 for r, c in rows]),
                    ("pad16", [r * (row_bytes + 16) + c * 16 for r, c in rows]),
                    ("sw1", [swz(r * row_bytes + c * 16, 1) for r, c in rows]),
                    ("sw2", [swz(r * row_bytes + c * 16, 2) for r, c in rows]),
                    ("sw3", [swz(r * row_bytes + c * 16, 3) for r, c in rows]),
                    ("sw3 row+3", [swz((r + 3) * row_bytes + c * 16, 3) for r, c in rows]),
                ):
                    if rng.random() < 0.45:  # a sample of the grid, to keep the round small
                        add(f"r6 tile {row_bytes}B rows ld{ld} g0={g0} smem {pitch_name}", smem, glob)
    for ld in (128, 256, 4096):  # lanes down columns: lane -> (row lane%8, chunk lane//8)
        for name, f in (("rowmajor", lambda r, c: r * 128 + c * 16), ("sw3", lambda r, c: swz(r * 128 + c * 16, 3)),
                        ("colmajor", lambda r, c: c * 128 + r * 16)):
            add(f"r6 columns ld{ld} smem {name}", [f(lane % 8, lane // 8) for lane in range(32)],
                [(lane % 8) * ld + (lane // 8) * 16 for lane in range(32)])
    contiguous = [16 * lane for lane in range(32)]
    add("r6 dup dest: lanes 2k,2k+1 same smem, different global lines", [32 * (lane // 2) for lane in range(32)],
        [(lane % 2) * 1024 + 16 * (lane // 2) for lane in range(32)])
    add("r6 dup dest: all lanes one smem chunk, contiguous global", [256] * 32, contiguous)
    add("r6 dup dest: lane 0 and lane 31 same smem, rest contiguous", [496] + contiguous[1:], contiguous)
    add("r6 one global chunk to both halves of a sector", contiguous, [32 * (lane // 2) for lane in range(32)])
    add("r6 one global chunk to 4 smem rows", [(lane % 4) * 128 + (lane // 4) * 16 for lane in range(32)],
        [(lane // 4) * 16 for lane in range(32)])
    perms = [(0, 2, 1, 3), (1, 0, 3, 2), (3, 2, 1, 0), (1, 2, 3, 0), (0, 1, 3, 2), (2, 0, 3, 1), (0, 3, 2, 1)]
    for perm in perms:
        for halves in ("straight", "crossed"):
            smem, glob = [], []
            for lane in range(32):
                row, k = lane // 8, lane % 8
                sector, half = k // 2, k % 2
                out_half = half if halves == "straight" else 1 - half
                glob.append(row * 128 + sector * 32 + half * 16)
                smem.append(row * 128 + perm[sector] * 32 + out_half * 16)
            add(f"r6 sector map {perm} {halves} halves", smem, glob)
    for k in range(40):
        add(f"r6 rand slots #{k}", [rng.randrange(0, 128) * 16 for _ in range(32)],
            [rng.randrange(0, 128) * 16 for _ in range(32)])
    for k in range(30):
        span = rng.choice([256, 512, 1024])
        smem_perm = rng.sample(range(span // 16), 32 if span >= 512 else span // 16)
        glob_perm = rng.sample(range(64), 32)
        smem_vals = (smem_perm * 2)[:32]
        add(f"r6 rand permutations span{span} #{k}", [16 * v for v in smem_vals], [16 * v for v in glob_perm])
    for k in range(20):
        base = rng.randrange(0, 8) * 128
        add(f"r6 rand row-local shuffles #{k}", [base + 16 * ((lane // 8) * 8 + rng.randrange(8)) for lane in range(32)],
            [16 * lane + rng.choice([0, 0, 128, 256]) for lane in range(32)])
    return cs


def _from_tool(module: str, function: str) -> Callable[[], list[Case]]:
    """A round whose patterns live in another tool (``tools/<module>.py``), imported when the round is asked for."""
    def load() -> list[Case]:
        import importlib

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        return list(getattr(importlib.import_module(module), function)())

    return load


def main() -> int:
    out_dir = sys.argv[1]
    budget = float(sys.argv[sys.argv.index("--budget-s") + 1]) if "--budget-s" in sys.argv else 400.0
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    start = int(sys.argv[sys.argv.index("--start") + 1]) if "--start" in sys.argv else 0
    t0 = time.time()
    os.makedirs(out_dir, exist_ok=True)
    work = os.path.join(out_dir, "..", "smem_probe_work")
    os.makedirs(work, exist_ok=True)
    exe = banks_ncu.build(work)
    sass = banks_ncu.check_sass(exe)
    with open(os.path.join(out_dir, "sass.json"), "w") as fh:
        json.dump(sass, fh, indent=1)
    bad = {k: v for k, v in sass.items() if not v["ok"]}
    print("SASS check:", "all ok" if not bad else bad, flush=True)
    metrics = banks_ncu.available_metrics()
    print("metrics:", metrics, flush=True)
    dev = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    which = sys.argv[sys.argv.index("--set") + 1] if "--set" in sys.argv else "1"
    rounds = {"1": lambda: targeted() + random_cases(), "2": round2, "3": round3, "4": round4, "5": round5,
              "6": round6, "7": _from_tool("banks_round7", "round7"), "8": _from_tool("banks_round8", "round8"),
              "8b": _from_tool("banks_round8", "round8b"), "9": _from_tool("banks_round9", "round9"),
              "9b": _from_tool("banks_round9", "round9b"), "10": _from_tool("banks_round10", "round10")}
    cases = rounds[which]()
    cases = [c for c in cases if c.name.startswith(only)][start:]
    print(f"{len(cases)} cases, build+check {time.time() - t0:.1f}s", flush=True)
    results: list[dict[str, object]] = []
    chunk = 150
    for i in range(0, len(cases), chunk):
        if time.time() - t0 > budget:
            print(f"budget reached after {len(results)} cases", flush=True)
            break
        t1 = time.time()
        results += banks_ncu.measure(cases[i:i + chunk], workdir=work, exe=exe, metrics=metrics)
        shutil.copy(os.path.join(work, "cases.bin.csv"), os.path.join(out_dir, f"ncu_raw_{start + i:05d}.csv"))
        print(f"chunk {i}: {time.time() - t1:.1f}s", flush=True)
        doc = {"meta": {"device": dev, "metrics": metrics, "tool": "tools/measure_banks.py",
                        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
                        "addresses": "byte offsets from the 1024-byte-aligned dynamic shared-memory base"},
               "cases": results}
        with open(os.path.join(out_dir, "measurements.json"), "w") as fh:
            json.dump(doc, fh)
    print(f"done: {len(results)} cases in {time.time() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
