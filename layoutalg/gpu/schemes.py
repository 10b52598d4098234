"""The proofs' kernel schemes, run end to end on real values, and their verdicts.

Each scheme is a small kernel recipe from ``proofs/`` (issue 5): where the
shared-memory tiles lie, which address each lane gives each ``ldmatrix`` /
``stmatrix`` / ``cp.async``, and what the result should be.  The cases are
built here (pure Python + numpy), run by :class:`layoutalg.gpu.record.Recorder`
(``scheme`` / ``pipeline``), and judged here against plain matrix
arithmetic: a scheme the proofs call *proved* must compute ``A @ B`` (or the
exact tile) at every position; one they call *refuted* must fail at some
position (a wrong result, or an address the instruction cannot take).
:func:`scheme_model_d` also predicts the ldmatrix -> mma schemes from the atoms.
"""

from __future__ import annotations

from typing import Any, Callable

from layoutalg.core.validate import describe
from layoutalg.gpu.replay import Outcome, _outcome
from layoutalg.gpu.suite import HALVES, swizzle


def _rng(seed: int) -> Any:
    import numpy as np

    return np.random.default_rng(seed)


# -- the ldmatrix -> mma schemes -----------------------------------------------------------
A_ROWS, A_COLS = 32, 64  # A tile M x K, fp16
B_BASE = A_ROWS * A_COLS  # B tile starts after A (in halves)
B_DIM = 64  # B tile is 64 x 64


def _offset_map(sw: tuple[int, int, int] | None) -> Callable[[int], int]:
    if sw is None:
        return lambda x: x
    bits, base, shift = sw
    return lambda x: swizzle(bits, base, shift, x)


def scheme_cases(seed: int = 7) -> list[dict[str, Any]]:
    """The proofs' ldmatrix -> mma.m16n8k16 schemes, each at several warp-tile positions.

    A is an M x K row-major fp16 tile (K contiguous, 64 columns), B a K x N
    tile, row-major (N contiguous; loaded with ``.trans``) or N-major (K
    contiguous; loaded without).  A swizzle ``(B, M, S)`` applies to the
    element offset inside each tile.  ``expect`` is what the proofs claim:
    ``"equal"`` when the registers form exactly the mma fragments (so D is
    A_sub @ B_sub), ``"differs"`` otherwise.
    """

    rng = _rng(seed)
    schemes: list[tuple[str, tuple[int, int, int] | None, str, bool, str]] = [
        ("identity, B row-major .trans", None, "row", True, "equal"),
        ("Swizzle<3,3,3>, B row-major .trans", (3, 3, 3), "row", True, "equal"),
        ("Swizzle<2,3,3>, B row-major .trans", (2, 3, 3), "row", True, "equal"),
        ("Swizzle<3,2,3>, B row-major .trans", (3, 2, 3), "row", True, "differs"),
        ("Swizzle<3,3,3>, B N-major no .trans", (3, 3, 3), "nmajor", False, "equal"),
        ("Swizzle<3,3,3>, B N-major with .trans", (3, 3, 3), "nmajor", True, "differs"),
        ("identity, B row-major without .trans", None, "row", False, "differs"),
        ("Swizzle<3,3,3>, B row-major without .trans", (3, 3, 3), "row", False, "differs"),
    ]
    positions = [(0, 0, 0), (16, 16, 8), (0, 48, 40), (16, 32, 56)]  # (m0, k0, n0)
    cases = []
    for label, sw, b_order, b_trans, expect in schemes:
        f = _offset_map(sw)
        a_full = rng.integers(-3, 4, size=(A_ROWS, A_COLS))
        b_full = rng.integers(-3, 4, size=(B_DIM, B_DIM))  # [k, n]
        image = scheme_image(a_full.tolist(), b_full.tolist(), list(sw) if sw else None, b_order)
        for m0, k0, n0 in positions:
            a_addr = []
            for lane in range(32):
                m = m0 + lane % 8 + 8 * ((lane // 8) % 2)
                k = k0 + 8 * (lane // 16)
                a_addr.append(2 * f(m * A_COLS + k))
            b_addr = []
            for lane in range(32):
                if b_order == "row":  # lane l (0..15) points at row k0+l of the row-major tile
                    k, n = k0 + lane % 16, n0
                else:  # lane l (0..15) points at the k-run k0 + 8*(l//8) of column n0 + l%8
                    k, n = k0 + 8 * ((lane // 8) % 2), n0 + lane % 8
                off = k * B_DIM + n if b_order == "row" else n * B_DIM + k
                b_addr.append(2 * (B_BASE + f(off)))
            cases.append({
                "scheme": label, "swizzle": list(sw) if sw else None, "b_order": b_order, "b_trans": b_trans,
                "expect": expect, "m0": m0, "k0": k0, "n0": n0,
                "a_sub": a_full[m0:m0 + 16, k0:k0 + 16].tolist(), "b_sub": b_full[k0:k0 + 16, n0:n0 + 8].tolist(),
                "a_lane_byte_addresses": a_addr, "b_lane_byte_addresses": b_addr,
                "image": image.tolist(), "a_tile": a_full.tolist(), "b_tile": b_full.tolist(),
            })
    return cases


def scheme_image(a_tile: list[list[int]], b_tile: list[list[int]], sw: list[int] | None, b_order: str) -> Any:
    """The scheme's shared memory (float64 per 16-bit element): A row-major at 0, B at ``B_BASE``, swizzled."""
    import numpy as np

    def f(x: int) -> int:
        return x if sw is None else swizzle(sw[0], sw[1], sw[2], x)

    image = np.zeros(HALVES, dtype=np.float64)
    for m in range(A_ROWS):
        for k in range(A_COLS):
            image[f(m * A_COLS + k)] = a_tile[m][k]
    for k in range(B_DIM):
        for n in range(B_DIM):
            image[B_BASE + f(k * B_DIM + n if b_order == "row" else n * B_DIM + k)] = b_tile[k][n]
    return image


C_BASE, C_PITCH = 1024, 128  # stmatrix epilogue: a 32 x 128 row-major C tile at unit 1024


def _lanes_x4(base: int, pitch: int) -> list[int]:
    """ldmatrix.x4 row addresses (bytes) over a 16 x 16 row-major block at unit ``base``: lane l points at
    row l % 8 + 8 * ((l // 8) % 2), column 8 * (l // 16) -- the A fragment order without .trans, the two
    n-blocks of a B fragment with .trans."""
    out = []
    for lane in range(32):
        r, c = lane % 8 + 8 * ((lane // 8) % 2), 8 * (lane // 16)
        out.append(2 * (base + r * pitch + c))
    return out


def pipeline_cases(seed: int = 11) -> list[dict[str, Any]]:
    """The proofs' accumulator and producer schemes, end to end on real values (issue 5's proofs/).

    * ``stsm_epilogue``: C = A B (two m16n8k16 f16 accumulators) stored by stmatrix.x4, lane l at
      row l % 16, column 8*(l // 16) of the warp's block of a row-major C tile (expect: C block
      == A B; with .trans: differs);
    * ``movmatrix_b``: S = A B, movmatrix.trans of S's two registers as B of A2 S (expect equal;
      without movmatrix: differs);
    * ``fa2_p_reuse``: S = Q K as two n-blocks, their f16x2 registers in order as A of P V (equal);
    * ``cp_async_tile``: 128 threads x 8 iterations of 16-byte cp.async.cg filling a 128 x 64 fp16
      tile through Swizzle<3,3,3> (equal), no swizzle (equal), Swizzle<3,2,3> (differs: misaligned).
    """
    import numpy as np

    rng = _rng(seed)
    cases: list[dict[str, Any]] = []

    def ints(shape: tuple[int, int]) -> Any:
        return rng.integers(-2, 3, size=shape)

    for trans, expect in ((False, "equal"), (True, "differs")):
        for r0, c0 in ((0, 0), (16, 48), (0, 112)):
            a, b = ints((16, 16)), ints((16, 16))
            image = np.zeros(HALVES)
            image[0:256] = a.reshape(-1)
            image[256:512] = b.reshape(-1)
            cases.append({"kind": "stsm_epilogue", "scheme": f"stmatrix.x4{'.trans' if trans else ''} epilogue of f16 "
                          "accumulators into a row-major C tile", "expect": expect, "trans": trans,
                          "c_origin": [r0, c0], "a": a.tolist(), "b": b.tolist(), "image": image.tolist(),
                          "a_lane_byte_addresses": _lanes_x4(0, 16),
                          "b_lane_byte_addresses": _lanes_x4(256, 16),
                          "c_lane_byte_addresses": [2 * (C_BASE + (r0 + lane % 16) * C_PITCH + c0 + 8 * (lane // 16))
                                                    for lane in range(32)]})
    for use, expect in ((True, "equal"), (False, "differs")):
        for _ in range(2):
            a, b, a2 = ints((16, 16)), ints((16, 8)), ints((16, 16))
            image = np.zeros(HALVES)
            image[0:256], image[256:384], image[512:768] = a.reshape(-1), b.reshape(-1), a2.reshape(-1)
            cases.append({"kind": "movmatrix_b", "scheme": f"accumulator S {'through movmatrix.trans ' if use else ''}"
                          "as the B operand of A2 S", "expect": expect, "movmatrix": use,
                          "a": a.tolist(), "b": b.tolist(), "a2": a2.tolist(), "image": image.tolist(),
                          "a_lane_byte_addresses": _lanes_x4(0, 16),
                          "b_lane_byte_addresses": [2 * (256 + (lane % 16) * 8) for lane in range(32)],
                          "a2_lane_byte_addresses": _lanes_x4(512, 16)})
    for _ in range(2):
        q, k, v = ints((16, 16)), ints((16, 16)), ints((16, 8))
        image = np.zeros(HALVES)
        image[0:256], image[256:512], image[512:640] = q.reshape(-1), k.reshape(-1), v.reshape(-1)
        cases.append({"kind": "fa2_p_reuse", "scheme": "FlashAttention-2: S = Q K accumulators reused as the A "
                      "operand of P V", "expect": "equal", "q": q.tolist(), "k": k.tolist(), "v": v.tolist(),
                      "image": image.tolist(),
                      "q_lane_byte_addresses": _lanes_x4(0, 16),
                      "k_lane_byte_addresses": _lanes_x4(256, 16),
                      "v_lane_byte_addresses": [2 * (512 + (lane % 16) * 8) for lane in range(32)]})
    for sw, expect in (((3, 3, 3), "equal"), (None, "equal"), ((3, 2, 3), "differs")):
        f = _offset_map(sw)
        src, dst = [], []
        for it in range(8):
            for t in range(128):
                e = (16 * it + t // 8) * 64 + 8 * (t % 8)
                src.append(2 * e)
                dst.append(2 * f(e))
        cases.append({"kind": "cp_async_tile", "scheme": f"sm80 cp.async.cg 16B producer into a 128x64 fp16 tile, "
                      f"{'Swizzle<{},{},{}>'.format(*sw) if sw else 'no swizzle'}", "expect": expect,
                      "swizzle": list(sw) if sw else None, "iters": 8, "threads": 128,
                      "src_byte_offsets": src, "dst_byte_offsets": dst,
                      "global_source": "16-bit unit h of the 128 x 64 row-major tile holds h"})
    return cases


# -- verdicts ---------------------------------------------------------------------------------
def scheme_reference(case: dict[str, Any]) -> list[list[float]]:
    """``A_sub @ B_sub`` in the m16n8k16 D register order (PTX C formula, retyped here)."""
    a, b = case["a_sub"], case["b_sub"]
    out = []
    for lane in range(32):
        row = []
        for i in range(4):
            m, n = lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2
            row.append(float(sum(a[m][k] * b[k][n] for k in range(16))))
        out.append(row)
    return out


def scheme_verdicts(cases: list[dict[str, Any]]) -> list[Outcome]:
    """Per scheme: 'equal' needs every position run and D == A @ B; 'differs' needs one that fails."""
    by: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        by.setdefault(c["scheme"], []).append(c)
    outs = []
    for name, cs in by.items():
        ok = [c["ran"] and c["d"] == scheme_reference(c) for c in cs]
        hardware = "equal" if all(ok) else "differs"
        expect = cs[0]["expect"]
        detail = [f"position m0={c['m0']} k0={c['k0']} n0={c['n0']}: "
                  + ("D == A@B" if o else ("not run: " + "; ".join(c["not_run_because"]) if not c["ran"]
                                           else "D != A@B")) for c, o in zip(cs, ok)]
        outs.append(_outcome("schemes", name, "agree" if hardware == expect else "mismatch",
                             [] if hardware == expect else detail,
                             note=f"expected {expect}, hardware {hardware}"))
    return outs


def scheme_model_d(case: dict[str, Any], tiles: dict[str, Any]) -> list[list[float]] | None:
    """D registers the models predict for a scheme case: ldmatrix semantics fill the registers from the
    scheme's smem image, the mma fragment formulas say which (m, k) / (k, n) each holds.  None when a
    row address is not 16-byte aligned (ldmatrix cannot run)."""
    from layoutalg.atoms.catalog import ldmatrix, mma
    if any(a % 16 for a in case["a_lane_byte_addresses"] + case["b_lane_byte_addresses"]):
        return None
    image = scheme_image(tiles["a_tile"], tiles["b_tile"], case["swizzle"], case["b_order"])
    mm = mma("m16n8k16", a="f16", c="f32")

    def operand(atom: Any, addrs: list[int], op: str, rows: int, cols: int) -> list[list[float]]:
        mat = [[0.0] * cols for _ in range(rows)]
        for lane in range(32):
            for i in range(mm.num_elements(op)):
                m_, r, c = atom.fragment_coord(lane, i // 2, i % 2)
                row, col = mm.fragment_coord(op, lane, i)
                mat[row][col] = float(image[addrs[atom.row_address_lane(m_, r)] // 2 + c])
        return mat

    a = operand(ldmatrix(4, False), case["a_lane_byte_addresses"], "A", 16, 16)
    b = operand(ldmatrix(2, case["b_trans"]), case["b_lane_byte_addresses"], "B", 16, 8)
    out = []
    for lane in range(32):
        row = []
        for i in range(4):
            m, n = mm.fragment_coord("C", lane, i)
            row.append(sum(a[m][k] * b[k][n] for k in range(16)))
        out.append(row)
    return out


def scheme_model_outcomes(cases: list[dict[str, Any]], tiles: dict[str, Any]) -> list[Outcome]:
    """Per scheme case: the models' predicted D (or 'cannot run') against the hardware's."""
    outs = []
    for c in cases:
        label = f"{c['scheme']} m0={c['m0']} k0={c['k0']} n0={c['n0']} [models]"
        if c["scheme"] not in tiles:
            outs.append(_outcome("schemes", label, "not_checked", note="recording lacks the scheme's tiles"))
            continue
        want = scheme_model_d(c, tiles[c["scheme"]])
        if want is None or not c["ran"]:
            ok = want is None and not c["ran"]
            detail = [] if ok else [f"model {'cannot run' if want is None else 'runs'}, hardware "
                                    f"{'ran' if c['ran'] else 'did not run'}"]
        else:
            detail = [f"lane {lane} D reg {i}: hardware {c['d'][lane][i]}, models {want[lane][i]}"
                      for lane in range(32) for i in range(4) if c["d"][lane][i] != want[lane][i]]
        outs.append(_outcome("schemes", label, "mismatch" if detail else "agree", detail))
    return outs


def _c_fragment(mat: Any) -> list[list[float]]:
    """A 16 x 8 matrix in m16n8 D register order (PTX C formula, retyped here)."""
    return [[float(mat[lane // 4 + 8 * (i // 2)][2 * (lane % 4) + i % 2]) for i in range(4)] for lane in range(32)]


def pipeline_ok(case: dict[str, Any]) -> bool:
    """Whether one end-to-end scheme run computed the mathematically expected result."""
    import numpy as np

    if not case["ran"]:
        return False
    kind = case["kind"]
    if kind == "stsm_epilogue":
        ref = np.array(case["a"]) @ np.array(case["b"])
        return bool((np.array(case["c_block"]) == ref).all()
                    and case["c_region_nonzero_units"] == int(np.count_nonzero(ref)))
    if kind == "movmatrix_b":
        ref = np.array(case["a2"]) @ (np.array(case["a"]) @ np.array(case["b"]))
        return bool(case["d"] == _c_fragment(ref))
    if kind == "fa2_p_reuse":
        ref = (np.array(case["q"]) @ np.array(case["k"])) @ np.array(case["v"])
        return bool(case["d"] == _c_fragment(ref))
    if kind == "cp_async_tile":
        from layoutalg.gpu.wgmma import unpack

        smem = unpack(case["smem"], 1).reshape(-1)
        f = _offset_map(tuple(case["swizzle"]) if case["swizzle"] else None)
        want = np.zeros(len(smem), dtype=np.int64)
        for e in range(len(smem)):
            want[f(e)] = e
        return bool((smem == want).all())
    raise ValueError(f"unknown pipeline kind {describe(kind)}")


def pipeline_verdicts(cases: list[dict[str, Any]]) -> list[Outcome]:
    """Per scheme: 'equal' needs every run to compute the expected result; 'differs' needs one that does not."""
    by: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        by.setdefault(c["scheme"], []).append(c)
    outs = []
    for name, cs in by.items():
        ok = [pipeline_ok(c) for c in cs]
        hardware = "equal" if all(ok) else "differs"
        expect = cs[0]["expect"]
        detail = [("ran, result as expected" if o else "ran, result differs" if c["ran"]
                   else "not run: " + "; ".join(c["not_run_because"])) for c, o in zip(cs, ok)]
        outs.append(_outcome("schemes", name, "agree" if hardware == expect else "mismatch",
                             [] if hardware == expect else detail, note=f"expected {expect}, hardware {hardware}"))
    return outs


