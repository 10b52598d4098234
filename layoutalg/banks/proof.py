"""Proof that an access over a shared-memory layout is bank-conflict-free, for every warp, instance and parameter.

Conflict-free means every instance costs its ideal wavefronts (:mod:`layoutalg.banks.model`).  Every phase of
every modelled instruction touches at most 32 distinct words, so its ideal is 1, and the claim is: *within
one phase, two words in the same bank are the same word*.

Two routes:

* **enumeration** (an :class:`~layoutalg.banks.access.Access` with concrete coordinates, or any finite
  access): the exact model is evaluated on every instance -- the whole domain -- so "proved" is sound;
  a refutation names the instance (by axis), the two lanes, the bank and the two words.
* **symbolic** (``method="f2"``/``"z3"``, or an access built by ``Access.from_fn`` whose function uses
  :func:`layoutalg.prove.expr.param` parameters, e.g. an unbounded k-tile index or a leading dimension): the
  claim above is stated over the lanes ``lane``, ``lane_b``, the words ``u``, ``v`` within each lane's access
  and the access's axes, and handed to :func:`layoutalg.prove.claims.forall`, which decides it over GF(2) when
  every term is bit-linear (swizzles, power-of-two strides), by enumeration when the domain is small, and by z3
  otherwise (a timeout is "unknown").  For 8- and 16-byte loads, whose phases double when every lane i holds
  the same address as lane i^1 (or every lane as lane i^2), the claim is stated over the doubled phases, which implies it for both phase structures;
  a refutation of that stronger claim that the exact model does not confirm becomes "unknown".
"""

from __future__ import annotations

import time
from typing import Any

from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.banks.analyze import _mode_sizes, analyze
from layoutalg.banks.instruction import parse_instruction
from layoutalg.banks.model import report
from layoutalg.errors import LayoutError
from layoutalg.prove.dispatch import METHODS
from layoutalg.prove.result import ProofResult


def _claim_text(smem_layout: Any, instruction: str, axes: Any) -> str:
    over = ", ".join(str(a) for a in axes) if axes else "its instances"
    return f"{instruction} over {smem_layout} is bank-conflict-free for every lane and every {over}"


def _enumerate(smem_layout: Any, access: Access, dtype: Any, base: int, global_layout: Any = None) -> ProofResult:
    start = time.perf_counter()
    res = analyze(smem_layout, access, dtype=dtype, base=base, global_layout=global_layout)
    claim = _claim_text(smem_layout, res.instruction, [f"{a} < {n}" for a, n in zip(res.axes, res.wavefronts.shape)])
    if res.conflict_free:
        return ProofResult("proved", None, time.perf_counter() - start, "enum", claim,
                           f"all {res.count} instances cost their ideal ({res.total_ideal} wavefronts in all)")
    idx, wf, ideal = res.worst(1)[0]
    if res.global_addresses is not None:
        return _cp_async_refutation(res, idx, wf, ideal, claim, start)
    rep = res.report(**idx)
    phase = next(p for p in rep.phases if p.conflicts)
    use = max(phase.conflicts, key=lambda u: u.ways)
    lane_a, lane_b = use.lanes[0][0], use.lanes[1][0]
    cex = dict(idx)
    cex.update({"lane": lane_a, "lane_b": lane_b, "bank": use.bank, "word": use.words[0], "word_b": use.words[1],
                "wavefronts": wf, "ideal": ideal})
    where = ", ".join(f"{k}={v}" for k, v in idx.items())
    why = (f"at {where}: lanes {lane_a} and {lane_b} both need bank {use.bank} (words {use.words[0]} and "
           f"{use.words[1]}, bytes {4 * use.words[0]} and {4 * use.words[1]}); the instance costs {wf} wavefronts, "
           f"ideal {ideal}")
    return ProofResult("refuted", cex, time.perf_counter() - start, "enum", claim, why)


def _cp_async_refutation(res: Any, idx: dict[str, int], wf: int, ideal: int, claim: str, start: float) -> ProofResult:
    """A cp.async instance over its ideal: how many global lines feed how many shared rows (the rule's groups)."""
    key = tuple(idx[a] for a in res.axes)
    smem = [int(x) for x in res.addresses[key]]
    sources = [int(x) for x in res.global_addresses[key]]
    lines, rows = len({g // 128 for g in sources}), len({s // 128 for s in smem})
    groups = len({(g // 128, s // 128) for s, g in zip(smem, sources)})
    where = ", ".join(f"{k}={v}" for k, v in idx.items())
    cex = dict(idx)
    cex.update({"global_lines": lines, "smem_rows": rows, "groups": groups, "wavefronts": wf, "ideal": ideal})
    why = (f"at {where}: the warp's 16-byte copies read {lines} global 128-byte lines into {rows} shared 128-byte "
           f"rows, {groups} (line, row) pairs; the instance costs {wf} wavefronts, ideal {ideal}")
    return ProofResult("refuted", cex, time.perf_counter() - start, "enum", claim, why)


def _symbolic(smem_layout: Any, access: Access, dtype: Any, base: int, method: str,
              timeout: float | None) -> ProofResult:
    from layoutalg.prove import expr as ex
    from layoutalg.prove.claims import forall, injective

    ins = parse_instruction(access.instruction)
    e = element_bytes(dtype)
    coord_fn = access.fn
    if coord_fn is None:
        raise LayoutError("a symbolic proof needs an Access built by Access.from_fn (the coordinate function)")
    nwords = max(1, ins.access_bytes // 4)
    if ins.matrices:
        per = 8
    elif ins.access_bytes <= 4:
        per = 32
    else:
        per = 128 // ins.access_bytes * (2 if ins.kind == "ld" else 1)
    active = len(ins.active_lanes)
    lane_a, lane_b = ex.var("lane", 32), ex.var("lane_b", 32)
    u, v = ex.var("u", nwords), ex.var("v", nwords)
    axes = [ex.var(name, extent) for name, extent in access.ranges]
    S = ex.sym(smem_layout)
    rank = len(_mode_sizes(smem_layout))

    def address(lane: Any) -> Any:
        crd = coord_fn(lane, **{a.name: a for a in axes})
        crd = tuple(crd) if isinstance(crd, (tuple, list)) else (crd,)
        if len(crd) != rank:
            raise LayoutError(f"the access function returns {len(crd)} coordinates; the layout has {rank} modes")
        return S(*crd) * e + base

    claim = _claim_text(smem_layout, ins.canonical, [f"{n} < {x}" for n, x in access.ranges] + ["parameter value"])
    # Route 1 (GF(2) when bit-linear, else z3): the bank of (lane j of phase p, word u) is injective in (j, u)
    # for every phase and instance.  Injective => no two distinct words share a bank => conflict-free.
    phase = ex.param("phase", max(1, active // per))
    axis_params = [ex.param(name, extent) for name, extent in access.ranges]
    j = ex.var("j", per)

    def bank(j: Any, u: Any) -> Any:
        crd = coord_fn(per * phase + j, **{a.name: a for a in axis_params})
        crd = tuple(crd) if isinstance(crd, (tuple, list)) else (crd,)
        if len(crd) != rank:
            raise LayoutError(f"the access function returns {len(crd)} coordinates; the layout has {rank} modes")
        word = (S(*crd) * e + base) // 4
        return (word ^ u) % 32  # the access is aligned to its width, so word ^ u == word + u

    inj = injective(bank, domain={"j": j, "u": u}, name="bank of (lane in phase, word)",
                    method="f2" if method in ("auto", "f2") else "z3", timeout=timeout)
    if inj.proved:
        return ProofResult("proved", None, inj.seconds, inj.method, claim,
                           f"every phase's {per} lanes x {nwords} words map one-to-one onto banks "
                           f"({'GF(2) rank argument' if inj.method == 'f2' else inj.method}), for every instance",
                           inj.notes)
    if method == "f2":
        return ProofResult("unknown", None, inj.seconds, inj.method, claim,
                           "the GF(2) route needs a bit-linear, one-to-one bank map; try method='z3'", inj.notes)
    # Route 2 (z3): within one phase, two words in one bank are the same word (broadcasts allowed).
    word_a = address(lane_a) // 4 + u
    word_b = address(lane_b) // 4 + v
    pred = (word_a % 32 != word_b % 32) | (word_a == word_b)
    where = ((lane_a // per) == (lane_b // per)) & (lane_a < active) & (lane_b < active)
    res = forall(pred, domain=[lane_a, lane_b, u, v, *axes], where=where, name="same bank implies same word",
                 method="z3" if method == "auto" else method, timeout=timeout)
    doubled = ins.kind == "ld" and ins.access_bytes > 4 and not ins.matrices
    if res.status != "refuted" or not doubled:
        return ProofResult(res.status, res.counterexample, res.seconds, res.method, claim, res.explanation, res.notes)
    # 8/16-byte loads: the doubled phase was refuted; confirm with the exact model at that instance if we can.
    cex = res.counterexample or {}
    known = {"lane", "lane_b", "u", "v"} | {n for n, _ in access.ranges}
    if any(k not in known for k in cex) or any(n not in cex for n, _ in access.ranges):
        return ProofResult("unknown", None, res.seconds, res.method, claim,
                           "the doubled-phase claim is refuted but the counterexample involves parameters the exact "
                           "model cannot replay", res.notes)
    sub = Access.from_fn(access.instruction, lambda lane: coord_fn(lane, **{n: cex[n] for n, _ in access.ranges}))
    exact = _enumerate(smem_layout, sub, dtype, base)
    if exact.refuted and exact.counterexample:
        # report the lanes of the real (exact-model) phase at that instance
        at = {n: cex[n] for n, _ in access.ranges}
        merged = dict(at)
        merged.update(exact.counterexample)
        at_text = ", ".join(f"{k}={v}" for k, v in at.items())
        return ProofResult("refuted", merged, res.seconds, res.method, claim,
                           f"at {at_text} (z3's instance, replayed on the exact model): " + exact.explanation.split(": ", 1)[-1],
                           res.notes)
    return ProofResult("unknown", None, res.seconds, res.method, claim,
                       "conflict-free at the refuting instance under the exact model (its lanes do not pair up, so its "
                       "phases are the smaller ones); the doubled-phase claim does not decide it", res.notes)


def conflict_free(smem_layout: Any, access: Any, dtype: Any = None, *, base: int = 0, method: str = "auto",
                  timeout: float | None = None, by: str = "row", global_layout: Any = None) -> ProofResult:
    """Prove ``access`` over ``smem_layout`` (elements of ``dtype``) conflict-free, or refute it with the lanes.

    ``access``: an instruction string (the whole rank-2 tile swept, see :func:`~layoutalg.banks.access.tile_access`)
    or an :class:`~layoutalg.banks.access.Access`.  ``method="auto"`` enumerates a finite access; ``"f2"``,
    ``"z3"`` (or an access whose function holds :func:`layoutalg.prove.expr.param` parameters, which cannot be
    enumerated) go through :func:`layoutalg.prove.claims.forall`.  A ``cp.async.cg`` access also needs
    ``global_layout`` (where each element comes from, see :func:`~layoutalg.banks.analyze.analyze`) and is
    decided by enumeration only.
    """
    if method not in METHODS:
        import difflib

        given = str(method).lower()
        close = [m for m in METHODS if given.startswith(m) or m.startswith(given)] or \
            difflib.get_close_matches(given, METHODS, n=1, cutoff=0.5)
        raise LayoutError(f"method must be one of {', '.join(METHODS)} (the prover's spellings), got {method!r}"
                          + (f"; did you mean {close[0]!r}?" if close else ""))
    if hasattr(access, "layout_tv") and hasattr(access, "atom"):  # a TiledCopy (layoutalg.atoms.tiled)
        from layoutalg.banks.tiled import access_from_tiled_copy

        access = access_from_tiled_copy(access, smem_layout)
    if isinstance(access, str):
        sizes = _mode_sizes(smem_layout)
        if len(sizes) != 2:
            raise LayoutError(f"an instruction string needs a rank-2 layout; {smem_layout} has {len(sizes)} modes")
        access = tile_access(access, (sizes[0], sizes[1]), dtype, by=by)
    if not isinstance(access, Access):
        raise LayoutError(f"access must be an Access or an instruction string, got {type(access).__name__}")
    if access.symbolic and method == "enum":
        raise LayoutError("a symbolic access (with parameters) cannot be enumerated; use method='auto', 'f2' or 'z3'")
    cp_async = parse_instruction(access.instruction).kind == "cp.async"
    if cp_async and (method in ("f2", "z3") or access.symbolic):
        raise LayoutError("a cp.async access is decided by enumeration only: give concrete coordinates and "
                          "method='auto' or 'enum'")
    if method in ("f2", "z3") or access.symbolic:
        return _symbolic(smem_layout, access, dtype, base, method, timeout)
    return _enumerate(smem_layout, access, dtype, base, global_layout if cp_async else None)


def symbolic_access(instruction: str, fn: Any, **ranges: int) -> Access:
    """An :class:`Access` for a coordinate function that uses symbolic parameters (never enumerated)."""
    parse_instruction(instruction)
    import numpy as np

    for name, extent in ranges.items():
        if isinstance(extent, bool) or not isinstance(extent, int) or extent <= 0:
            raise LayoutError(f"symbolic_access range {name}={extent!r} must be a positive int")
    return Access(instruction, np.zeros((32, 1), dtype=np.int64), (), fn, tuple(ranges.items()), symbolic=True)


def replay_report(instruction: str, addresses: Any) -> str:
    """The per-phase text of one instance (helper for counterexample display)."""
    return str(report(instruction, addresses))
