"""``check_mma(trace, a=..., b=..., c=...)``: prove, for the traced launch, that the kernel's data
movement feeds every mma exactly the operands the PTX fragment layouts require.

The claim, for the launch the trace was made from (every traced CTA):

1. every executed ``mma`` holds, in every lane, register and half, the A and B elements its PTX
   fragment layout names for one (m0, n0, k0) tile per warp (derived from the elements present);
   out-of-range tile positions may hold zeros.  In :func:`check_mma` the k index may
   take another order inside the mma as long as A and B agree: fragment k position ``c`` holds one k,
   ``kappa(c)``, in every row of A and every column of B, the k distinct (then every product
   ``A(m, k) * B(k, n)`` still lands in C(m, n), and claim 2 counts each k once).  That is a claim about
   C, not about the fragments: :func:`check_mma_fragments` demands the PTX positions (a fragment-level
   claim, as :func:`layoutalg.prove.fragment_delivers` makes);
2. every C input is zero or the unmodified accumulator of the same C element, so each (m, n) is a
   chain of products; no (m, n, k) product is accumulated twice;
3. every C element written (all of C when the whole grid is traced) finally holds the accumulator of
   that element after all K products, possibly through element-wise arithmetic (``alpha * acc +
   beta * C``) and float conversion;
4. no shared-memory race: every read's last write is ordered before it (barriers, cp.async waits).

Verdicts: "proved" when all hold and nothing on the way was outside the model; "refuted" with a
counterexample (PTX line, CTA, warp, lane, register, the element held and the one required), or
the race with both instructions; "unknown" with the reason (an instruction the data-flow model does
not follow on the data's path, a data-dependent address or branch, a race where the kernel also
synchronises in ways the model ignores, ...).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from layoutalg.errors import LayoutError
from layoutalg.kernel.dataflow.flow import FlowResult, Launch, flow
from layoutalg.kernel.dataflow.mma_check import Finding, MmaChecker
from layoutalg.kernel.dataflow.specs import parse_spec

ORDER = {"operand": 0, "fma": 0, "accumulator": 1, "duplicate": 2, "race": 3, "global race": 3, "store": 4}


@dataclass
class MmaCheckResult:
    """The verdict of :func:`check_mma` (``as_dict()`` is the CLI's ``mma_check`` object)."""

    verdict: str
    counterexample: dict[str, Any] | None
    reason: str
    claim: str
    findings: list[Finding] = field(default_factory=list)
    flow: FlowResult | None = None
    checker: MmaChecker | None = None
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "counterexample": self.counterexample, "reason": self.reason,
                "claim": self.claim, "seconds": round(self.seconds, 3),
                "findings": [{"verdict": f.verdict, "kind": f.kind, "message": f.message, **f.fields}
                             for f in self.findings[:20]]}

    def layouts(self) -> list[Any]:
        """The recovered shared-memory layouts of this launch (:mod:`.recover`)."""
        from layoutalg.kernel.dataflow.recover import recover

        assert self.flow is not None and self.checker is not None
        return recover(self.flow, self.checker)

    def report(self) -> str:
        lines = [f"mma check: {self.verdict}", f"  claim: {self.claim}"]
        if self.reason:
            lines.append(f"  reason: {self.reason}")
        if self.counterexample:
            for k, v in self.counterexample.items():
                if k != "message":
                    lines.append(f"    {k}: {v}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()


def check_mma(trace: Any, a: Any, b: Any, c: Any) -> MmaCheckResult:
    """Check the traced launch's mma data flow (see the module doc).

    ``trace``: a :class:`~layoutalg.kernel.result.Trace` (or a :class:`~.flow.Launch`); ``a``, ``b``,
    ``c``: ``'PARAM@LAYOUT'`` strings (or ``(param, layout)`` pairs), the layouts in the mma's
    convention A = M x K, B = K x N, C = M x N from coordinates to element offsets.
    An order of k other than the PTX fragments' one, the same in A and B, passes (C is still A B): this is a
    claim about C; :func:`check_mma_fragments` demands the PTX fragment positions.
    """
    return _check(trace, a, b, c, exact_fragments=False)


def check_mma_fragments(trace: Any, a: Any, b: Any, c: Any) -> MmaCheckResult:
    """:func:`check_mma` with claim 1 held to the PTX fragment positions: every A and B element at its PTX ISA
    fragment position of one tile per mma (a claim about the fragments: an order of k other than the PTX one is
    refuted even where A and B share it and C is right)."""
    return _check(trace, a, b, c, exact_fragments=True)


def _check(trace: Any, a: Any, b: Any, c: Any, exact_fragments: bool) -> MmaCheckResult:
    start = time.perf_counter()
    launch = trace if isinstance(trace, Launch) else getattr(trace, "launch", None)
    if launch is None:
        raise LayoutError("check_mma needs a Trace made by layoutalg.kernel.trace (it carries the launch)")
    specs = [parse_spec(role, v) for role, v in (("A", a), ("B", b), ("C", c))]
    checker = MmaChecker(specs[0], specs[1], specs[2], exact_fragments=exact_fragments)
    result = flow(launch, checker)
    findings = list(checker.findings) + checker.verdict_findings(result.whole_grid)
    verdict, cex, reason = decide(result, findings, checker)
    return MmaCheckResult(verdict, cex, reason, _claim(checker, result), findings, result, checker,
                          time.perf_counter() - start)


def decide(fr: FlowResult, findings: list[Finding], checker: MmaChecker) -> tuple[str, dict[str, Any] | None, str]:
    """(verdict, counterexample, reason) from the flow's incidents and the checker's findings."""
    unknown: list[str] = []
    if fr.data_dependent:
        d = fr.data_dependent[0]
        unknown.append(f"PTX line {d.line} ({d.opcode}): {d.reason}")
    if fr.unknown_stores:
        line = next(iter(fr.unknown_stores.values()))
        unknown.append(f"PTX line {line}: a global store to an address unknown at trace time (it could hit C)")
    if fr.overlaps:
        line = next(iter(fr.overlaps.values()))
        unknown.append(f"PTX line {line}: a global store to memory another thread of the launch loads (what that "
                       "thread reads depends on the order, which the trace does not model)")
    complete = not unknown
    refuted = [f for f in findings if f.verdict == "refuted"]
    if not complete:
        refuted = [f for f in refuted if f.kind not in ("store", "duplicate")]
    sure = checker.sure_global_races
    for f in refuted:
        if f.kind != "global race":
            continue
        if fr.sync_unmodelled:  # the kernel may order these stores in ways the check does not see
            unknown.append(f"{f.message}; but the kernel also synchronises through "
                           f"{fr.opcode(next(iter(fr.sync_unmodelled)))}, which the race check does not model")
        elif sure is not None and (f.fields.get("line"), f.fields.get("first_line")) not in sure:
            unknown.append(f"{f.message}, once counted barriers whose phases' warps depend on timing order nothing "
                           f"({_loose_text(fr)}); with the phases the trace formed, the stores are ordered")
    refuted = [f for f in refuted if f.kind != "global race" or not fr.sync_unmodelled and
               (sure is None or (f.fields.get("line"), f.fields.get("first_line")) in sure)]
    refuted.sort(key=lambda f: ORDER.get(f.kind, 9))
    operand_level = [f for f in refuted if ORDER.get(f.kind, 9) < ORDER["race"]]
    if operand_level:
        return "refuted", _cex(operand_level[0]), operand_level[0].message
    if fr.races:
        sure_races = [r for r in fr.races if fr.sure_races is None or (r.kind, r.first, r.second) in fr.sure_races]
        r = (sure_races or fr.races)[0]
        text = (f"{r.kind}: PTX line {fr.line(r.first)} ({fr.opcode(r.first)}, warp {r.first_warp}) and PTX line "
                f"{fr.line(r.second)} ({fr.opcode(r.second)}, warp {r.second_warp}) touch shared byte "
                f"{r.address} of CTA {fr.traced_ctas[r.cta]} with nothing ordering them")
        if fr.loose_barriers:
            text += f" ({_loose_text(fr)})"
        cex = {"kind": "race", "race": r.kind, "first": {"line": fr.line(r.first), "opcode": fr.opcode(r.first),
                                                          "warp": r.first_warp},
               "second": {"line": fr.line(r.second), "opcode": fr.opcode(r.second), "warp": r.second_warp},
               "cta": list(fr.traced_ctas[r.cta]), "shared_address": r.address, "count": r.count,
               "message": text}
        if fr.sync_unmodelled:
            line = fr.line(next(iter(fr.sync_unmodelled)))
            return "unknown", cex, (text + f"; but the kernel also synchronises through {fr.fn.body[next(iter(fr.sync_unmodelled))].opcode} "
                                    f"(PTX line {line}), which the race check does not model")
        if sure_races:
            return "refuted", cex, text
        if not refuted:
            return "unknown", cex, (text + "; with the phases the trace formed the barrier orders them, and whether "
                                    "another schedule's phases let them race is not decided")
    if refuted:
        return "refuted", _cex(refuted[0]), refuted[0].message
    soft = [f for f in findings if f.verdict == "unknown"]
    if soft:
        unknown.append(soft[0].message)
        if soft[0].kind in ("no products", "store") and fr.unfollowed:
            op = next(iter(fr.unfollowed))
            unknown.append(f"the data flow is not followed through PTX line {fr.line(op)} ({fr.opcode(op)}): "
                           f"{fr.unfollowed[op]}")
    if unknown:
        return "unknown", None, "; ".join(unknown)
    return "proved", None, ""


def _loose_text(fr: FlowResult) -> str:
    k, why = next(iter(fr.loose_barriers.items()))
    return f"PTX line {fr.line(k)}, {fr.opcode(k)}, orders no warps: {why}"


def _cex(f: Finding) -> dict[str, Any]:
    return {"kind": f.kind, **f.fields, "message": f.message}


def _claim(chk: MmaChecker, fr: FlowResult) -> str:
    if not hasattr(chk, "M"):
        return ""
    grid = "every CTA" if fr.whole_grid else f"CTAs {fr.traced_ctas}"
    what = []
    if chk.mma_executions:
        what.append(f"{chk.mma_executions} mma warp-executions" + (
            f" ({chk.k_permuted} of them with the k in one order other than the PTX one, the same in A and B)"
            if chk.k_permuted else ""))
    if chk.fma_lanes:
        what.append(f"{chk.fma_lanes} scalar A x B fma products")
    checked = getattr(chk, "c_checked", None)
    tail = f"; {checked} of {chk.M * chk.N} C elements checked" if checked is not None else ""
    if getattr(chk, "c_seeded", 0):
        tail += "; the accumulators start from C's old values (C = A B + C)"
    fragments = "the fragment elements" if chk.exact_fragments else \
        "the fragment elements (or the same elements with one order of k, the same in A and B)"
    return (f"{grid} of the launch: {' and '.join(what) or 'no products'} receive {fragments} of "
            f"A ({chk.a.text}) and B ({chk.b.text}); each (m, n, k) of the {chk.M}x{chk.N}x{chk.K} problem is "
            f"accumulated once; C ({chk.c.text}) receives its accumulators; no shared-memory race{tail}")
