"""The symbolic route of :func:`layoutalg.banks.proof.conflict_free`: the same checks as enumeration, then the claim.

**Validity first, exactly as enumeration.**  Enumeration (:func:`~layoutalg.banks.analyze.analyze`) rejects an
access with a coordinate outside the layout's extent in its mode (``CoordinateError``), a negative address, an
address whose bytes end past the shared memory of the architecture, or an address not a multiple of the access
width (``InstructionError``).  Here the same four conditions are *proved* for every active lane, every axis value
and every parameter value (:func:`layoutalg.prove.claims.forall`); a counterexample raises the same error as
enumeration would, naming the lane, the axes, the coordinate and the byte address; an undecided check makes the
whole answer "unknown".  Only then is conflict-freedom stated (the alignment it proves is what makes
``word ^ u == word + u`` below exact).

**The claim.**  Every lane, word, phase and instance variable the proof introduces is a generated variable
(:meth:`layoutalg.prove.expr.Var.fresh`), so no name in the user's access function can be confused with them.
Route 1 (GF(2) when bit-linear, else z3): the bank of (lane j of phase p, word u) is injective in (j, u) for every
phase and instance -- injective implies no two distinct words share a bank.  Route 2 (z3): within one phase, two
words in one bank are the same word (broadcasts allowed).  A refutation names both lanes, their coordinates
(``row``, ``col``) and byte addresses, the bank and the words.
"""

from __future__ import annotations

from typing import Any, Callable

from layoutalg.banks.access import Access
from layoutalg.banks.analyze import _mode_sizes
from layoutalg.banks.instruction import Instruction
from layoutalg.errors import CoordinateError, InstructionError, LayoutError
from layoutalg.prove.result import ProofResult


def coord_names(rank: int) -> list[str]:
    """Display names of a coordinate's modes: ``index`` (rank 1), ``row``, ``col``, then ``mode2``, ``mode3``..."""
    if rank == 1:
        return ["index"]
    return ["row", "col"] + [f"mode{k}" for k in range(2, rank)]


def _labels(access: Access, *wanted: str) -> list[str]:
    """Display names for the proof's generated variables: ``wanted``, primed where a user's axis has that name.

    Identity never depends on these (generated variables are :meth:`~layoutalg.prove.expr.Var.fresh`); they only
    keep the counterexample's keys unambiguous.
    """
    from layoutalg.prove import expr as ex
    from layoutalg.prove.functions import params_in

    taken = {name for name, _ in access.ranges}
    if access.fn is not None:  # and the parameters the access function itself uses
        probe = access.fn(ex.Var.fresh("lane", 0, 32), **{name: ex.param(name, n) for name, n in access.ranges})
        taken |= {p.name for p in params_in(probe if isinstance(probe, (tuple, list)) else (probe,))}
    out = []
    for name in wanted:
        while name in taken:
            name += "'"
        taken.add(name)
        out.append(name)
    return out


def _coords(coord_fn: Callable[..., Any], lane: Any, axes: dict[str, Any], rank: int) -> tuple[Any, ...]:
    from layoutalg.prove import expr as ex

    crd = coord_fn(lane, **axes)
    crd = tuple(crd) if isinstance(crd, (tuple, list)) else (crd,)
    if len(crd) != rank:
        raise LayoutError(f"the access function returns {len(crd)} coordinates; the layout has {rank} modes")
    return tuple(ex.as_expr(c) for c in crd)


def check_valid(smem_layout: Any, access: Access, ins: Instruction, e: int, base: int, capacity: int,
                arch: str) -> ProofResult | None:
    """Prove every active lane's access valid (as enumeration checks); raise its error on a counterexample.

    Returns None when proved, an "unknown" :class:`ProofResult` when undecided.  The conditions are proved
    together first; if that fails they are tried one by one in enumeration's order (coordinates, then negative,
    past the end, misaligned addresses), so the error raised is the one enumeration raises.
    """
    from layoutalg.prove import expr as ex
    from layoutalg.prove.claims import forall

    sizes = _mode_sizes(smem_layout)
    w = ins.access_bytes
    lane_label, address_label, *names = _labels(access, "lane", "address", *coord_names(len(sizes)))
    lane = ex.Var.fresh(lane_label, 0, len(ins.active_lanes))
    axes = [ex.var(name, extent) for name, extent in access.ranges]
    crd = _coords(access.fn, lane, {a.name: a for a in axes}, len(sizes))  # type: ignore[arg-type]
    addr = ex.sym(smem_layout)(*crd) * e + base
    show = dict(zip(names, crd))
    show[address_label] = addr
    in_layout = ex.all_of(*[ex.all_of(c >= 0, c < n) for c, n in zip(crd, sizes)])
    checks: list[tuple[Any, Callable[[dict[str, int], str], Exception]]] = [
        (in_layout, lambda cex, where: CoordinateError(next(
            f"access coordinate {cex[name]} ({name}) in mode {k} is outside smem_layout's extent {n} (at {where})"
            for k, (name, n) in enumerate(zip(names, sizes)) if not 0 <= cex[name] < n))),
        (addr >= 0, lambda cex, where: InstructionError(
            f"negative shared-memory address {cex[address_label]} in {ins.canonical} (at {where})")),
        (addr + w <= capacity, lambda cex, where: InstructionError(
            f"address {cex[address_label]} of {ins.canonical}: its {w} bytes end at {cex[address_label] + w}, past "
            f"the {capacity} bytes of shared memory per block on {arch} (at {where})")),
        (addr % w == 0, lambda cex, where: InstructionError(
            f"misaligned address {cex[address_label]} of {ins.canonical}: must be a multiple of {w} (at {where})")),
    ]
    domain = [lane, *axes]
    everything = forall(ex.all_of(*[c for c, _ in checks]), domain=domain, name="every lane's address is valid")
    if everything.proved:
        return None
    if everything.refuted:
        for cond, error in checks:
            # each over the whole domain, once the earlier ones are proved: enumeration's order, so the error
            # raised is the one enumeration, checking them one after another, would raise
            res = forall(cond, domain=domain, name="every lane's address is valid", show=show)
            if res.refuted:
                cex = res.counterexample or {}
                raise error(cex, ", ".join(f"{k}={v}" for k, v in cex.items() if k not in show))
            if not res.proved:
                everything = res
                break
    return ProofResult("unknown", None, everything.seconds, everything.method, everything.claim,
                       "could not show that every lane's coordinate is inside the layout and every address "
                       "inside shared memory and aligned (as enumeration requires)", everything.notes)


def decide(smem_layout: Any, access: Access, ins: Instruction, e: int, base: int, method: str,
           claim: str) -> ProofResult:
    """Route 1, then route 2 (module doc), over a valid access; ``refuted`` results name lanes and addresses."""
    from layoutalg.prove import expr as ex
    from layoutalg.prove.claims import forall, injective
    from layoutalg.prove.functions import params_in

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
    rank = len(_mode_sizes(smem_layout))
    S = ex.sym(smem_layout)

    # Route 1: the bank of (lane j of phase p, word u) is injective in (j, u) for every phase and instance.
    names = coord_names(rank)
    labels = _labels(access, "lane", "lane_b", "u", "v", "phase", "j", "address", "address_b", "bank", "word",
                     "word_b", *names, *[f"{n}_b" for n in names])
    at = dict(zip(("lane", "lane_b", "u", "v", "phase", "j", "address", "address_b", "bank", "word", "word_b"), labels))
    crd_labels, crd_b_labels = labels[11:11 + rank], labels[11 + rank:]
    phase = ex.Var.fresh(at["phase"], 0, max(1, active // per), kind="param")
    axis_params = {name: ex.param(name, extent) for name, extent in access.ranges}
    j, u = ex.Var.fresh(at["j"], 0, per), ex.Var.fresh(at["u"], 0, nwords)

    def bank(j: Any, u: Any) -> Any:
        word = (S(*_coords(coord_fn, per * phase + j, axis_params, rank)) * e + base) // 4
        return (word ^ u) % 32  # the access is aligned to its width (checked), so word ^ u == word + u

    inj = injective(bank, domain=[j, u], name="bank of (lane in phase, word)",
                    method="f2" if method in ("auto", "f2") else "z3")
    if inj.proved:
        return ProofResult("proved", None, inj.seconds, inj.method, claim,
                           f"every phase's {per} lanes x {nwords} words map one-to-one onto banks "
                           f"({'GF(2) rank argument' if inj.method == 'f2' else inj.method}), for every instance",
                           inj.notes)
    if method == "f2":
        return ProofResult("unknown", None, inj.seconds, inj.method, claim,
                           "the GF(2) route needs a bit-linear, one-to-one bank map; try method='z3'", inj.notes)

    # Route 2: within one phase, two words in one bank are the same word (broadcasts allowed).
    lane_a, lane_b = ex.Var.fresh(at["lane"], 0, 32), ex.Var.fresh(at["lane_b"], 0, 32)
    v = ex.Var.fresh(at["v"], 0, nwords)
    axes = {name: ex.var(name, extent) for name, extent in access.ranges}
    crd_a, crd_b = _coords(coord_fn, lane_a, axes, rank), _coords(coord_fn, lane_b, axes, rank)
    addr_a, addr_b = S(*crd_a) * e + base, S(*crd_b) * e + base
    word_a, word_b = addr_a // 4 + u, addr_b // 4 + v
    pred = (word_a % 32 != word_b % 32) | (word_a == word_b)
    where = ((lane_a // per) == (lane_b // per)) & (lane_a < active) & (lane_b < active)
    show: dict[str, Any] = dict(zip(crd_labels, crd_a))
    show[at["address"]] = addr_a
    show.update(dict(zip(crd_b_labels, crd_b)))
    show.update({at["address_b"]: addr_b, at["bank"]: word_a % 32, at["word"]: word_a, at["word_b"]: word_b})
    res = forall(pred, domain=[lane_a, lane_b, u, v, *axes.values()], where=where, name="same bank implies same word",
                 method="z3" if method == "auto" else method, show=show)
    doubled = ins.kind == "ld" and ins.access_bytes > 4 and not ins.matrices
    if res.status != "refuted" or not doubled:
        return ProofResult(res.status, res.counterexample, res.seconds, res.method, claim,
                           _lanes_text(res.counterexample, at, crd_labels, crd_b_labels, names)
                           if res.refuted else res.explanation, res.notes)
    # 8/16-byte loads: the doubled phase was refuted; confirm with the exact model at that instance if we can.
    cex = res.counterexample or {}
    if params_in(addr_a, addr_b):
        return ProofResult("unknown", None, res.seconds, res.method, claim,
                           "the doubled-phase claim is refuted but the counterexample involves parameters the exact "
                           "model cannot replay", res.notes)
    return _replay(smem_layout, access, e, base, cex, claim, res)


def _lanes_text(cex: dict[str, int] | None, at: dict[str, str], crd_a: list[str], crd_b: list[str],
                names: list[str]) -> str:
    """``at i=1: lanes 0 (row 0, col 0, byte 0) and 8 (row 8, col 0, byte 1024) both need bank 0 (words 0 and 256)``.

    ``at`` maps each generated quantity to its label in ``cex``; ``crd_a``/``crd_b`` label the two coordinates.
    """
    if not cex:
        return ""
    skip = set(at.values()) | set(crd_a) | set(crd_b)
    where = ", ".join(f"{k}={v}" for k, v in cex.items() if k not in skip)

    def lane(which: str, labels: list[str], address: str) -> str:
        crd = ", ".join(f"{n} {cex[label]}" for n, label in zip(names, labels))
        return f"{cex[at[which]]} ({crd}, byte {cex[at[address]]})"

    return (f"{'at ' + where + ': ' if where else ''}lanes {lane('lane', crd_a, 'address')} and "
            f"{lane('lane_b', crd_b, 'address_b')} both need bank {cex[at['bank']]} "
            f"(words {cex[at['word']]} and {cex[at['word_b']]})")


def _replay(smem_layout: Any, access: Access, e: int, base: int, cex: dict[str, int], claim: str,
            res: ProofResult) -> ProofResult:
    """Replay z3's instance of a doubled-phase refutation on the exact model."""
    from layoutalg.banks.proof import enumerate_access

    coord_fn = access.fn
    if coord_fn is None:
        raise LayoutError("a symbolic proof needs an Access built by Access.from_fn (the coordinate function)")
    at = {n: cex[n] for n, _ in access.ranges}
    sub = Access.from_fn(access.instruction, lambda lane: coord_fn(lane, **at))
    exact = enumerate_access(smem_layout, sub, 8 * e, base)
    if exact.refuted and exact.counterexample:
        merged = dict(at)
        merged.update(exact.counterexample)
        at_text = ", ".join(f"{k}={v}" for k, v in at.items())
        return ProofResult("refuted", merged, res.seconds, res.method, claim,
                           f"at {at_text} (z3's instance, replayed on the exact model): "
                           + exact.explanation.split(": ", 1)[-1], res.notes)
    return ProofResult("unknown", None, res.seconds, res.method, claim,
                       "conflict-free at the refuting instance under the exact model (its lanes do not pair up, so its "
                       "phases are the smaller ones); the doubled-phase claim does not decide it", res.notes)
