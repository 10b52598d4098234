"""How each instruction moves tags: a registry of rule builders, the default rule, and installation.

A *rule* is a function ``rule(machine, mask)`` run just before the interpreter's own op (so it sees
the registers' values and addresses before the instruction writes them) that computes the tags of
the instruction's results and stores them.  ``RULES[root]`` builds one from the parsed instruction
(:func:`rule`); roots without a builder get :func:`default_rule`: results are untagged when no
source is tagged, otherwise OPAQUE naming the instruction -- never a guess.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.interp.decode import Context, Op
from layoutalg.kernel.ptx.nodes import Addr, Instruction, Not, PredPair, Reg, Vec

Rule = Callable[[Any, Any], None]
RuleBuilder = Callable[[Instruction, Context, Op], "Rule | None"]
RULES: dict[str, RuleBuilder] = {}


def rule(*roots: str) -> Callable[[RuleBuilder], RuleBuilder]:
    def deco(fn: RuleBuilder) -> RuleBuilder:
        for r in roots:
            RULES[r] = fn
        return fn
    return deco


def reg_names(op: Any) -> list[str]:
    """Register names inside an operand (vector items, an address's base)."""
    if isinstance(op, Reg):
        return [op.name]
    if isinstance(op, Not):
        return [op.reg.name]
    if isinstance(op, Vec):
        return [n for x in op.items for n in reg_names(x)]
    if isinstance(op, Addr) and isinstance(op.base, Reg):
        return [op.base.name]
    if isinstance(op, PredPair):
        return [op.first.name, op.second.name]
    return []


def source_names(ins: Instruction, op: Op) -> list[str]:
    """Registers an instruction reads: every register operand except a destination-only operand 0."""
    names: list[str] = []
    for k, x in enumerate(ins.operands):
        if k == 0 and op.dests and not isinstance(x, Addr):
            continue
        names.extend(reg_names(x))
    if op.dests and ins.operands:
        names.extend(n for n in reg_names(ins.operands[0]) if n not in op.dests)
    return names


def default_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """Untagged results from untagged sources; OPAQUE results from tagged ones (see the module doc)."""
    if not op.dests:
        return None
    srcs = [n for n in source_names(ins, op) if n in ctx.registers]
    dests = list(op.dests)
    code = tg.opaque(op.index, tg.W_UNMODELLED)

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        planes = [f.regs.get(s) for s in srcs]
        if all(p is None for p in planes):
            for d in dests:
                f.regs.put(d, None, mask)
            return
        lanes = f.lanes(m, mask)
        tagged = np.zeros(m.n, dtype=bool)
        for p in planes:
            if p is not None:
                tagged |= (p >= 0).any(axis=1)
        if (tagged & lanes).any():
            f.note_unfollowed(op, "its sources carry tagged data")
        for d in dests:
            u = f.regs.units_of(d)
            if u:
                f.regs.put(d, np.where(tagged[:, None], code, np.full((m.n, u), tg.NONE, dtype=np.int64)), mask)
    return run


def install(ops: list[Op], ctx: Context) -> None:
    """Wrap every op's run with its tag rule (ops the machine treats as no-ops become ops when they have one)."""
    from layoutalg.kernel.dataflow import arith, asyncmem, matrix, memory, moves, sync  # noqa: F401  (registers rules)

    for op in ops:
        ins = op.ins
        if op.kind in ("bra", "exit"):
            continue
        build = RULES.get(ins.root, default_rule)
        r = build(ins, ctx, op)
        if r is None:
            continue
        orig = op.run
        if op.kind == "nop":
            op.kind = "op"
        op.run = _chain(r, orig)


def _chain(first: Rule, then: Callable[[Any, Any], None] | None) -> Callable[[Any, Any], None]:
    if then is None:
        return first

    def run(m: Any, mask: Any) -> None:
        first(m, mask)
        then(m, mask)
    return run
