"""PTX ISA mma.sync register fragments written as one formula per family, for the atoms contract tests.

PTX ISA "Matrix Fragments for mma.m16n8kK" / "mma.m8n8kK": with ``g = laneid >> 2`` (groupID),
``t = laneid % 4`` (threadID_in_group) and ``v`` elements packed per 32-bit register (``32 / bits``, one for
64-bit and complex types), value ``i`` of a thread sits in register ``r = i // v`` at position ``j = i % v``:

* m16n8: A (M x K) row ``g + 8*(r & 1)``, col ``v*t + j + 4v*(r >> 1)``;  B (K x N) row ``v*t + j + 4v*r``,
  col ``g``;  C (M x N) row ``g + 8*(i >> 1)``, col ``2t + (i & 1)``.
* m8n8:  A row ``g``, col ``v*t + j + 4v*r``;  B as for m16n8;  C row ``g``, col ``2t + i``.
* m8n8k4 .f16 (sm_70, quad pairs; ``hi = laneid >= 16``, ``l = laneid % 4``): A .row ``(l + 4hi, i)``, .col
  ``(i + 4hi, l)``; B .row ``(l, i + 4hi)``, .col ``(i, l + 4hi)``; C .f16 ``(l + 4hi, i)``, C .f32 row
  ``(l & 1) + (i & 2) + 4hi``, col ``(l & 2) + (i & 5)``.
* one-thread atoms (dp4a, dp2a, fma): A ``(0, i)``, B ``(i, 0)``, C ``(0, 0)``.
"""

from __future__ import annotations

from typing import Any

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8,
        "s4": 4, "u4": 4, "b1": 1, "s16": 16, "s32": 32, "c64": 128, "gc64": 192}


def per_register(type_name: str) -> int:
    return max(1, 32 // BITS[type_name])


def ptx_coord(atom: Any, op: str, lane: int, i: int) -> tuple[int, int]:
    m, n, k = atom.shape_mnk
    if m == n == 1:
        return {"A": (0, i), "B": (i, 0)}.get(op, (0, 0))
    if atom.arch == 70:
        hi, low = lane >> 4, lane % 4
        a_row, b_row = atom.ptx.split(".")[4:6]
        if op == "A":
            return (low + 4 * hi, i) if a_row == "row" else (i + 4 * hi, low)
        if op == "B":
            return (low, i + 4 * hi) if b_row == "row" else (i, low + 4 * hi)
        if atom.c_type == "f16":
            return low + 4 * hi, i
        return (low & 1) + (i & 2) + 4 * hi, (low & 2) + (i & 5)
    g, t = lane >> 2, lane % 4
    if op == "A":
        v = per_register(atom.a_type)
        r, j = divmod(i, v)
        if m == 16:
            return g + 8 * (r & 1), v * t + j + 4 * v * (r >> 1)
        return g, v * t + j + 4 * v * r
    if op == "B":
        v = per_register(atom.b_type)
        r, j = divmod(i, v)
        return v * t + j + 4 * v * r, g
    if m == 16:
        return g + 8 * (i >> 1), 2 * t + (i & 1)
    return g, 2 * t + i


def check_fragments(atom: Any) -> None:
    """Every (thread, value) of CuTe's TV layouts lands where the PTX formula says; each element once."""
    m, n, k = atom.shape_mnk
    for op, (rows, cols) in (("A", (m, k)), ("B", (k, n)), ("C", (m, n))):
        tv = atom.layout(op)
        nthr, nval = tv[0].size(), tv[1].size()
        assert nthr * nval == rows * cols, (atom.name, op)
        seen = set()
        for thr in range(nthr):
            lane = atom.thr_id(thr)
            for val in range(nval):
                idx = tv(thr, val)
                got = (idx // n, idx % n) if op == "B" else (idx % m, idx // m)
                assert got == ptx_coord(atom, op, lane, val), (atom.name, op, thr, val)
                seen.add(got)
        assert len(seen) == rows * cols, (atom.name, op)


def check_name(atom: Any) -> None:
    """CuTe's name ``SM{arch}_{M}x{N}x{K}_{D}{A}{B}{C}_TN[...]`` agrees with the atom's fields and PTX text."""
    m, n, k = atom.shape_mnk
    prefix, shape, types = atom.name.split("_")[:3]
    assert prefix == f"SM{atom.arch}" and shape == f"{m}x{n}x{k}", atom.name
    assert atom.arch in (70, 75, 80, 89, 90), atom.name  # CuTe's mma.sync generations
    up = {"b1": "U1"}
    want = "".join(up.get(x, x.upper()) for x in (atom.d_type, atom.a_type, atom.b_type, atom.c_type))
    assert types == want, atom.name
    if atom.ptx.startswith("mma.sync"):
        words = atom.ptx.split(" ")[0].split(".")
        assert f"m{m}n{n}k{k}" in words, atom.ptx
        start = words.index("satfinite") + 1 if "satfinite" in words else 6
        real = {"c64": "f64", "gc64": "f64"}  # complex atoms issue f64 mma.sync instructions
        want_types = [real.get(x, x) for x in (atom.d_type, atom.a_type, atom.b_type, atom.c_type)]
        assert words[start:start + 4] == want_types, atom.ptx
        assert ("satfinite" in words) == atom.name.endswith("_SATURATE")
