"""Replay a hardware recording against layoutalg's models, on a CPU.

Each recorded case is compared with two independent predictions where they
exist: the atom's PTX-level semantics (``fragment_coord``, ``row_address_lane``)
and the atom's CuTe TV layouts (``thr_id``, ``a/b/c_layout``,
``src/dst_layout``).  Bank cases are compared with ``banks.wavefronts``.
Every mismatch is reported by lane, register and coordinate.

What one-hot mma runs can and cannot see: the triples ``[a, b, d]`` fix the
fragment layouts up to renaming rows (the same permutation of m in A and D),
columns (of n in B and D) and k (in A and B) -- a renaming no program can
observe through ``mma`` alone.  The *schemes* (ldmatrix from a known smem
layout, then mma, against ``A @ B``) pin the names down for m16n8k16.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable

Outcome = dict[str, Any]
MAX_DETAILS = 8


def _outcome(section: str, case: str, status: str, details: Iterable[str] = (), note: str = "") -> Outcome:
    d = list(details)
    return {"section": section, "case": case, "status": status, "details": d[:MAX_DETAILS],
            "more_details": max(0, len(d) - MAX_DETAILS), "note": note}


def _compare(section: str, case: str, checks: list[tuple[str, list[str]]]) -> list[Outcome]:
    return [_outcome(section, f"{case} [{model}]", "mismatch" if errs else "agree", errs) for model, errs in checks]


# -- matrix copies ------------------------------------------------------------------
def _half(word: int, half: int) -> int:
    return (word >> (16 * half)) & 0xFFFF


def _cute_matrix_pairs(atom: Any) -> list[tuple[int, int, int, int]]:
    """From CuTe's layouts (16-bit values): ``(reg_lane, reg_value, addr_lane, elem)`` pairs.

    The register side is ldmatrix's Dst / stmatrix's Src; the address side the
    other.  Where several address-side threads map to one coordinate (CuTe's
    stride-0 modes for .x1/.x2) the lowest lane is the one that supplies it.
    """
    typed = atom.bind(16)
    reg_side, addr_side = ((typed.val_layout_dst, typed.val_layout_src) if atom.kind == "ldmatrix"
                           else (typed.val_layout_src, typed.val_layout_dst))
    thr = atom.thr_id
    where: dict[int, tuple[int, int]] = {}
    for t in range(addr_side[0].size()):
        for e in range(addr_side[1].size()):
            c = addr_side(t, e)
            lane = thr(t)
            if c not in where or lane < where[c][0]:
                where[c] = (lane, e)
    out = []
    for t in range(reg_side[0].size()):
        for v in range(reg_side[1].size()):
            lane, e = where[reg_side(t, v)]
            out.append((thr(t), v, lane, e))
    return out


def check_ldmatrix(case: dict[str, Any], atom: Any) -> list[tuple[str, list[str]]]:
    addrs, regs = case["lane_byte_addresses"], case["regs"]
    ptx_errs: list[str] = []
    for lane in range(32):
        for reg in range(atom.num_matrices):
            for half in (0, 1):
                mat, row, col = atom.fragment_coord(lane, reg, half)
                src = atom.row_address_lane(mat, row)
                want = addrs[src] // 2 + col
                got = _half(regs[lane][reg], half)
                if got != want:
                    ptx_errs.append(f"lane {lane} reg {reg} half {half}: hardware read byte {2 * got}, "
                                    f"model (matrix {mat}, row {row}, col {col}) from lane {src} says byte {2 * want}")
    cute_errs: list[str] = []
    for lane, v, src, e in _cute_matrix_pairs(atom):
        want = addrs[src] // 2 + e
        got = _half(regs[lane][v // 2], v % 2)
        if got != want:
            cute_errs.append(f"lane {lane} value {v} (reg {v // 2} half {v % 2}): hardware read byte {2 * got}, "
                             f"{atom.name} layouts say lane {src}'s row, element {e} (byte {2 * want})")
    return [("ptx", ptx_errs), ("cute", cute_errs)]


def _diff_writes(got: dict[int, int], want: dict[int, int], what: Callable[[int], str]) -> list[str]:
    errs = []
    for unit in sorted(set(got) | set(want)):
        if got.get(unit) != want.get(unit):
            errs.append(f"smem byte {2 * unit}: hardware wrote {what(got[unit]) if unit in got else 'nothing'}, "
                        f"model says {what(want[unit]) if unit in want else 'nothing'}")
    return errs


def _stsm_code_name(code: int) -> str:
    k = code - 1
    return f"lane {k // 8} reg {(k % 8) // 2} half {k % 2}"


def check_stmatrix(case: dict[str, Any], atom: Any) -> list[tuple[str, list[str]]]:
    addrs = case["lane_byte_addresses"]
    got = {u: v for u, v in case["smem_writes"]}
    want: dict[int, int] = {}
    for lane in range(32):
        for reg in range(atom.num_matrices):
            for half in (0, 1):
                mat, row, col = atom.fragment_coord(lane, reg, half)
                want[addrs[atom.row_address_lane(mat, row)] // 2 + col] = lane * 8 + 2 * reg + half + 1
    want_cute: dict[int, int] = {}
    for lane, v, dst, e in _cute_matrix_pairs(atom):
        want_cute[addrs[dst] // 2 + e] = lane * 8 + v + 1
    return [("ptx", _diff_writes(got, want, _stsm_code_name)), ("cute", _diff_writes(got, want_cute, _stsm_code_name))]


def check_movmatrix(case: dict[str, Any]) -> list[tuple[str, list[str]]]:
    from layoutalg.atoms.copy import movmatrix_coords

    code_at = {}
    for lane in range(32):
        for half in (0, 1):
            code_at[movmatrix_coords(lane, half)[0]] = _half(case["in_regs"][lane], half)
    errs = []
    for lane in range(32):
        for half in (0, 1):
            want = code_at[movmatrix_coords(lane, half)[1]]
            got = _half(case["out_regs"][lane], half)
            if got != want:
                errs.append(f"lane {lane} half {half}: hardware holds code {got}, model says {want}")
    return [("ptx", errs)]


# -- mma ----------------------------------------------------------------------------
def _slot(lane: int, i: int, per_lane: int) -> int:
    return lane * per_lane + i


def _slot_name(slot: int, per_lane: int, per_reg: int) -> str:
    lane, i = divmod(slot, per_lane)
    return f"lane {lane} reg {i // per_reg} elem {i % per_reg}"


def mma_ptx_triples(atom: Any) -> tuple[set[tuple[int, int, int]], dict[str, dict[int, tuple[int, int, int]]]]:
    """Triples ``(a_slot, b_slot, d_slot)`` the PTX fragment formulas predict, and each slot's (mma, row, col)."""
    coords: dict[str, dict[int, tuple[int, int, int]]] = {}
    for op in "ABC":
        n = atom.num_elements(op)
        coords[op] = {_slot(lane, i, n): (atom.ptx_mma_index(lane), *atom.fragment_coord(op, lane, i))
                      for lane in range(32) for i in range(n)}
    return _join(coords), coords


def mma_cute_triples(atom: Any) -> tuple[set[tuple[int, int, int]], dict[str, dict[int, tuple[int, int, int]]]]:
    """The same from CuTe's TV layouts (A: m + M*k, B: n + N*k, C: m + M*n) over ``thr_id``'s lanes."""
    m_, n_, _ = atom.shape_mnk
    coords: dict[str, dict[int, tuple[int, int, int]]] = {}
    for op, lay in (("A", atom.a_layout), ("B", atom.b_layout), ("C", atom.c_layout)):
        per_lane = atom.num_elements(op)
        rows = m_ if op in "AC" else n_
        cs: dict[int, tuple[int, int, int]] = {}
        for t in range(lay[0].size()):
            for v in range(lay[1].size()):
                idx = lay(t, v)
                first, second = idx % rows, idx // rows
                # PTX orientation: A (m, k), B (k, n), C (m, n)
                cs[_slot(atom.thr_id(t), v, per_lane)] = (0, second, first) if op == "B" else (0, first, second)
        coords[op] = cs
    return _join(coords), coords


def _join(coords: dict[str, dict[int, tuple[int, int, int]]]) -> set[tuple[int, int, int]]:
    by_row_col: dict[tuple[int, int, int], list[int]] = {}
    for d, (q, m, n) in coords["C"].items():
        by_row_col.setdefault((q, m, n), []).append(d)
    b_by_k: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for b, (q, k, n) in coords["B"].items():
        b_by_k.setdefault((q, k), []).append((b, n))
    out = set()
    for a, (q, m, k) in coords["A"].items():
        for b, n in b_by_k.get((q, k), []):
            for d in by_row_col.get((q, m, n), []):
                out.add((a, b, d))
    return out


def check_mma(case: dict[str, Any], atom: Any) -> list[tuple[str, list[str]]]:
    per = case["elems_per_lane"]
    bits = {op: _type_bits(case["types"][op]) for op in "abcd"}
    per_reg = {op: max(1, 32 // bits[op]) for op in "abcd"}
    from layoutalg.gpu.record import unpack_triples

    got = set(unpack_triples(case["triples"]))

    def describe(t: tuple[int, int, int], coords: dict[str, dict[int, tuple[int, int, int]]]) -> str:
        a, b, d = t
        return (f"A {_slot_name(a, per['a'], per_reg['a'])} {coords['A'].get(a, '?')}, "
                f"B {_slot_name(b, per['b'], per_reg['b'])} {coords['B'].get(b, '?')}, "
                f"D {_slot_name(d, per['d'], per_reg['d'])} {coords['C'].get(d, '?')}")

    results = []
    for model, fn in (("ptx", mma_ptx_triples), ("cute", mma_cute_triples)):
        want, coords = fn(atom)
        lanes_a = {s // per["a"] for s in coords["A"]}
        seen = {t for t in got if t[0] // per["a"] in lanes_a} if model == "cute" else got
        errs = [f"hardware has, model lacks: {describe(t, coords)}" for t in sorted(seen - want)]
        errs += [f"model has, hardware lacks: {describe(t, coords)}" for t in sorted(want - seen)]
        results.append((model, errs))
    c_errs = [f"C {_slot_name(c, per['c'], per_reg['c'])} came out in D {_slot_name(d, per['d'], per_reg['d'])}"
              for c, d in case["c_to_d"] if c != d]
    counts = Counter(c for c, _ in case["c_to_d"])
    c_errs += [f"C slot {c} reached {k} D slots" for c, k in counts.items() if k != 1]
    if len(counts) != 32 * per["c"]:
        c_errs.append(f"only {len(counts)} of {32 * per['c']} C slots reached D")
    results.append(("c_is_d", c_errs))
    if case.get("anomalies"):
        results.append(("decode", [f"recording anomaly: {a}" for a in case["anomalies"]]))
    return results


def _type_bits(t: str) -> int:
    from layoutalg.gpu.suite import TYPE_BITS

    return TYPE_BITS[t]


# -- per-thread copies --------------------------------------------------------------
def _smem_byte(unit_image: Callable[[int], int], byte: int) -> int:
    return (unit_image(byte // 2) >> (8 * (byte % 2))) & 0xFF


def check_cp_async(case: dict[str, Any], atom: Any) -> list[tuple[str, list[str]]]:
    """Model: thread copies ``vector_bits`` contiguous bits (CuTe src/dst ``(1, bits):(1, 1)``)."""
    typed = atom.bind(16)
    src_l, dst_l = typed.val_layout_src, typed.val_layout_dst
    want: dict[int, int] = {}
    for lane in range(32):
        s, d = case["lane_src_byte_offsets"][lane] // 2, case["lane_byte_addresses"][lane] // 2
        for v in range(dst_l[1].size()):
            want[d + dst_l(0, v)] = s + src_l(0, v)
    got = {u: v for u, v in case["smem_writes"]}
    return [("cute", _diff_writes(got, want, lambda x: f"global byte {2 * x}"))]


def check_ld_shared(case: dict[str, Any]) -> list[tuple[str, list[str]]]:
    n = case["bytes"]
    unit_bytes = 8 if case["instruction"].endswith("b64") else min(4, n)
    errs = []
    for lane in range(32):
        a = case["lane_byte_addresses"][lane]
        data = [_smem_byte(lambda u: u, a + j) for j in range(n)]
        for u in range(n // unit_bytes):
            want = sum(data[u * unit_bytes + j] << (8 * j) for j in range(unit_bytes))
            if case["regs"][lane][u] != want:
                errs.append(f"lane {lane} register {u}: hardware {case['regs'][lane][u]:#x}, expected the "
                            f"{unit_bytes} bytes at {a + u * unit_bytes}: {want:#x}")
    return [("bytes", errs)]


def check_st_shared(case: dict[str, Any]) -> list[tuple[str, list[str]]]:
    from layoutalg.gpu.record import st_shared_bytes

    data = st_shared_bytes(case["bytes"])
    want_bytes: dict[int, int] = {}
    for lane in range(32):
        for j in range(case["bytes"]):
            want_bytes[case["lane_byte_addresses"][lane] + j] = int(data[lane][j])
    want: dict[int, int] = {}
    for b, v in want_bytes.items():
        want[b // 2] = want.get(b // 2, 0) | (v << (8 * (b % 2)))
    got = {u: v for u, v in case["smem_writes"]}
    return [("bytes", _diff_writes(got, want, lambda x: f"{x:#06x}"))]


# -- wgmma ---------------------------------------------------------------------------
def wgmma_model_coords(case: dict[str, Any], atom: Any, model: str) -> dict[str, dict[int, tuple[int, int]]]:
    """Coordinates of every A/B unit or slot and D slot: A (m, k), B (k, n), D (m, n).

    Shared-memory operands use ``GmmaDescriptor.address`` (the only model of
    them); register operands the PTX fragment formula (``model == "ptx"``) or
    CuTe's TV layouts (``"cute"``: C ``(tid, v) -> m + 64*n``, A of RS likewise).
    """
    from layoutalg.atoms.gmma import GmmaDescriptor

    n = case["n"]
    coords: dict[str, dict[int, tuple[int, int]]] = {"A": {}, "B": {}, "C": {}}

    def smem_units(op: dict[str, Any], rows: int, flip: bool) -> dict[int, tuple[int, int]]:
        desc = GmmaDescriptor(op["region_offset"], op["lbo"], op["sbo"], op["layout_type"])
        out = {}
        for mn in range(rows):
            for k in range(16):
                unit = (desc.address(op["major"], mn, k, 16) - op["region_offset"]) // 2
                out[unit] = (k, mn) if flip else (mn, k)
        return out

    def reg_coords(op: str, per_thread: int) -> dict[int, tuple[int, int]]:
        if model == "ptx":
            return {tid * per_thread + i: atom.fragment_coord(op, tid, i)
                    for tid in range(128) for i in range(per_thread)}
        # CuTe: (tid, v) -> m + 64*n; to_numpy lists L(tid + 128*v) (first mode fastest)
        idx = atom.layout(op).to_numpy().reshape(per_thread, 128).T
        return {tid * per_thread + i: (int(idx[tid, i]) % 64, int(idx[tid, i]) // 64)
                for tid in range(128) for i in range(per_thread)}

    coords["A"] = smem_units(case["a_operand"], 64, False) if case["a_operand"] else reg_coords("A", 8)
    coords["B"] = smem_units(case["b_operand"], n, True)
    coords["C"] = reg_coords("C", n // 2)
    return coords


def check_wgmma(case: dict[str, Any], atom: Any) -> list[tuple[str, list[str]]]:
    import numpy as np

    from layoutalg.gpu.wgmma import expand, triple_codes, unpack

    cnt = case["counts"]
    n_b, n_d = cnt["b"], cnt["d"]
    got = expand(unpack(case["a_labels"]), unpack(case["b_labels"]), unpack(case["d_labels"]), n_b, n_d)
    per_d = case["n"] // 2
    a_name = ("A smem unit {}" if case["a_operand"] else "A tid {0[0]} elem {0[1]}")
    results = []
    for model in ("ptx", "cute"):
        coords = wgmma_model_coords(case, atom, model)
        want = triple_codes([(i, m, k) for i, (m, k) in coords["A"].items()],
                            [(i, k, n) for i, (k, n) in coords["B"].items()],
                            [(i, m, n) for i, (m, n) in coords["C"].items()], n_b, n_d)
        errs: list[str] = []
        if want.shape != got.shape or not (want == got).all():
            extra = np.setdiff1d(got, want)[:MAX_DETAILS]
            lack = np.setdiff1d(want, got)[:MAX_DETAILS]

            def describe(code: int, coords: dict[str, dict[int, tuple[int, int]]] = coords) -> str:
                a, rest = divmod(int(code), n_b * n_d)
                b, d = divmod(rest, n_d)
                an = a_name.format(a if case["a_operand"] else divmod(a, 8))
                return (f"{an} {coords['A'].get(a, '?')}, B smem unit {b} {coords['B'].get(b, '?')}, "
                        f"D tid {d // per_d} elem {d % per_d} {coords['C'].get(d, '?')}")

            errs += [f"hardware has, model lacks: {describe(c)}" for c in extra]
            errs += [f"model has, hardware lacks: {describe(c)}" for c in lack]
            errs.append(f"{len(np.setdiff1d(got, want))} extra and {len(np.setdiff1d(want, got))} missing triples "
                        f"of {len(want)}")
        results.append((model, errs))
    if case.get("anomalies"):
        results.append(("decode", [f"recording anomaly: {a}" for a in case["anomalies"]]))
    return results


def _wgmma_outcomes(cases: list[dict[str, Any]]) -> list[Outcome]:
    from layoutalg.atoms.catalog import wgmma

    outs = []
    for case in cases:
        if "error" in case:
            outs.append(_outcome("wgmma", case["variant"], "not_checked", [case["error"][:500]], "did not run"))
            continue
        atom = wgmma(case["n"], case["ab_type"], case["d_type"], case["a_source"])
        outs += _compare("wgmma", f"{atom.name} {case['variant']}", check_wgmma(case, atom))
    return outs


# -- driver -------------------------------------------------------------------------
def _atoms_by_ptx() -> dict[str, list[Any]]:
    from layoutalg.atoms.mma import MMA_ATOMS

    out: dict[str, list[Any]] = {}
    for atom in MMA_ATOMS:
        out.setdefault(atom.ptx, []).append(atom)
    return out


def _matrix_atom(kind: str, instruction: str) -> Any:
    from layoutalg.atoms.catalog import ldmatrix, stmatrix

    num = int(instruction.split(".x")[1][0])
    trans = ".trans" in instruction
    return (ldmatrix if kind == "ldmatrix" else stmatrix)(num, trans)


def replay_sections(recording: dict[str, Any]) -> list[Outcome]:
    """Every outcome of every recorded case."""
    outs: list[Outcome] = []
    for case in recording.get("ldmatrix", []):
        atom = _matrix_atom("ldmatrix", case["instruction"])
        outs += _compare("ldmatrix", f"{case['instruction']} {case['pattern']}", check_ldmatrix(case, atom))
    for case in recording.get("stmatrix", []):
        atom = _matrix_atom("stmatrix", case["instruction"])
        outs += _compare("stmatrix", f"{case['instruction']} {case['pattern']}", check_stmatrix(case, atom))
    for case in recording.get("movmatrix", []):
        outs += _compare("movmatrix", case["instruction"], check_movmatrix(case))
    by_ptx = _atoms_by_ptx()
    for case in recording.get("mma", []):
        if "error" in case:
            outs.append(_outcome("mma", case["instruction"], "not_checked", [case["error"]], "did not run"))
            continue
        atoms = by_ptx.get(case["instruction"], [])
        if not atoms:
            outs.append(_outcome("mma", case["instruction"], "not_checked", note="no atom in the catalog"))
        for atom in atoms:
            outs += _compare("mma", f"{atom.name} {case['instruction']}", check_mma(case, atom))
    for case in recording.get("cp_async", []):
        from layoutalg.atoms.catalog import cp_async

        atom = cp_async(case["bytes"], case["instruction"].split(".")[2])
        outs += _compare("cp_async", f"{case['instruction']} {case['bytes']}B {case['pattern']}",
                         check_cp_async(case, atom))
    for case in recording.get("ld_shared", []):
        outs += _compare("ld_shared", f"{case['instruction']} {case['pattern']}", check_ld_shared(case))
    for case in recording.get("st_shared", []):
        outs += _compare("st_shared", f"{case['instruction']} {case['pattern']}", check_st_shared(case))
    from layoutalg.gpu.schemes import pipeline_verdicts, scheme_model_outcomes, scheme_verdicts

    outs += scheme_verdicts(recording.get("schemes", []))
    outs += scheme_model_outcomes(recording.get("schemes", []), recording.get("scheme_tiles", {}))
    outs += pipeline_verdicts(recording.get("pipelines", []))
    outs += _wgmma_outcomes(recording.get("wgmma", []))
    outs += _bank_outcomes(recording.get("banks", []))
    return outs


def _bank_outcomes(cases: list[dict[str, Any]]) -> list[Outcome]:
    if not cases:
        return []
    try:
        from layoutalg.banks import wavefronts  # type: ignore[attr-defined]
    except ImportError as exc:
        return [_outcome("banks", c["name"], "not_checked", note=f"bank model not importable: {exc}") for c in cases]
    outs = []
    for c in cases:
        label = f"{c['name']} ({c['instruction']})"
        if c.get("wavefronts") is None:
            outs.append(_outcome("banks", label, "not_checked", note="no measurement"))
            continue
        try:
            model = wavefronts(c["instruction"], c["lane_byte_addresses"], c.get("global_byte_addresses"))
        except Exception as exc:  # the model refuses (an instruction it does not model)
            outs.append(_outcome("banks", label, "not_checked", note=f"model refused: {type(exc).__name__}: {exc}"))
            continue
        ok = model == c["wavefronts"]
        outs.append(_outcome("banks", label, "agree" if ok else "mismatch",
                             [] if ok else [f"measured {c['wavefronts']} wavefronts ({c.get('method', 'ncu')}), "
                                            f"model says {model}; lanes {c['lane_byte_addresses']}"]))
    return outs


def replay_recording(recording: dict[str, Any]) -> dict[str, Any]:
    """Summary report: counts per section and every mismatch."""
    outs = replay_sections(recording)
    sections: dict[str, dict[str, Any]] = {}
    for o in outs:
        s = sections.setdefault(o["section"], {"agree": 0, "mismatch": 0, "not_checked": 0, "note": ""})
        s[o["status"]] += 1
    dev = recording.get("device", {})
    return {
        "device": f"{dev.get('name')} (sm_{str(dev.get('compute_capability', '?')).replace('.', '')}), "
                  f"driver {dev.get('driver')}, recorded {recording.get('date')}",
        "cases": len(outs),
        "agree": sum(o["status"] == "agree" for o in outs),
        "mismatches": sum(o["status"] == "mismatch" for o in outs),
        "not_checked": sum(o["status"] == "not_checked" for o in outs),
        "sections": sections,
        "details": [f"{o['section']}: {o['case']}: {d}" for o in outs if o["status"] == "mismatch" for d in o["details"]],
        "outcomes": outs,
    }
