"""Rules of float arithmetic, float conversions, and the tensor-core/fma products.

Element-wise float instructions (``add sub mul fma mad neg abs min max`` and float ``cvt``) act per
element: an element's units are *one accumulator* when they are all ACC units of one value in order
(two for a 32-bit element, one for a 16-bit one).  The result of an element-wise instruction is

* untagged when every source element is untagged;
* the accumulator, marked ``derived``, when exactly one source element is an accumulator and the
  others are untagged or loaded from a buffer other than the mma operands (``alpha * acc``,
  ``beta * C + acc``);
* OPAQUE otherwise (two accumulators, operand elements, anything unfollowed).

``fma``/``mad`` whose two factors are an A element and a B element (either order) is a k-product:
the consumer (:mod:`.mma_check`) checks it and names the accumulator it produces.  ``mma`` is
handed to the consumer whole.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.rules import Rule, default_rule, rule
from layoutalg.kernel.interp.decode import FLOAT_TYPES, Context, Op, instr_type
from layoutalg.kernel.ptx.nodes import Instruction, Reg, Vec

ELEM = {"f16": (1, 1), "bf16": (1, 1), "f16x2": (2, 1), "bf16x2": (2, 1), "f32": (1, 2), "tf32": (1, 2),
        "f64": (1, 4)}  # type -> (elements per register, units per element)
FLOAT_ROOTS = ("add", "sub", "mul", "fma", "mad", "neg", "abs", "min", "max", "div")


def classify(group: np.ndarray) -> tuple[Any, Any, Any, Any]:
    """For unit groups (k, ue) of elements: (is NONE, is one accumulator, is one loaded element, identity).

    An accumulator element has the ACC units of one value in order (``part`` 0, 1; ``wide`` iff two
    units); a loaded element has consecutive GLOBAL units, the first aligned to the element size.
    ``identity``: the first unit's tag (an accumulator's first unit has ``part`` 0)."""
    ue = group.shape[1]
    first = group[:, 0]
    k0 = first >> tg.KIND_SHIFT
    if ue == 1:
        return (first < 0, (k0 == tg.K_ACC) & (((first >> 56) & 3) == 0), (k0 == tg.K_GLOBAL) & ((first & 1) == 0),
                first)
    if ue == 2:
        second = group[:, 1]
        none = (first < 0) & (second < 0)
        acc = (k0 == tg.K_ACC) & (((first >> 56) & 3) == 2) & (second == (first | np.int64(1 << 56)))
        glob = (k0 == tg.K_GLOBAL) & (second == first + 2) & ((first & 3) == 0)
        return none, acc, glob, first
    none_w = (group < 0).all(axis=1)
    consecutive = (group == first[:, None] + 2 * np.arange(ue)[None, :]).all(axis=1)
    glob_w = (k0 == tg.K_GLOBAL) & consecutive & ((first % (2 * ue)) == 0)
    return none_w, np.zeros(first.shape, dtype=bool), glob_w, first


def acc_units(identity: np.ndarray, ue: int, derived: bool) -> np.ndarray:
    """(k, ue) ACC units of accumulator identities re-encoded for ``ue``-unit elements."""
    base = identity & ~np.int64((1 << 56) | (1 << 57))
    if derived:
        base = base | np.int64(1 << 58)
    if ue == 2:
        base = base | np.int64(1 << 57)
    return base[:, None] | (np.arange(ue, dtype=np.int64)[None, :] << 56)


def elementwise(groups: list[np.ndarray], ue_out: int, op_index: int, operand_buffers: set[int]) -> np.ndarray:
    """Result units (k, ue_out) of an element-wise operation on source element groups (see the module doc).

    One accumulator among untagged and non-operand loaded elements: the accumulator, ``derived``.  No
    accumulator and one non-operand loaded element of the same width (``beta * C``): that element,
    ``derived``.  Anything else tagged: OPAQUE."""
    k = groups[0].shape[0]
    n_acc = np.zeros(k, dtype=np.int64)
    n_glob = np.zeros(k, dtype=np.int64)
    bad = np.zeros(k, dtype=bool)
    any_tag = np.zeros(k, dtype=bool)
    ident = np.full(k, tg.NONE, dtype=np.int64)
    g_ident = np.full(k, tg.NONE, dtype=np.int64)
    same_width = True
    for g in groups:
        none, acc, glob, idn = classify(g)
        any_tag |= ~none
        n_acc += acc
        ident = np.where(acc, idn, ident)
        if operand_buffers:
            glob = glob & ~np.isin(tg.glob_buf(idn), list(operand_buffers))
        n_glob += glob
        g_ident = np.where(glob, idn, g_ident)
        same_width = same_width and g.shape[1] == ue_out
        bad |= ~(none | acc | glob)
    out = np.where(any_tag[:, None], tg.opaque(op_index, tg.W_MIX), np.full((k, ue_out), tg.NONE, dtype=np.int64))
    good = (n_acc == 1) & ~bad
    if good.any():
        out = np.where(good[:, None], acc_units(ident, ue_out, True), out)
    loaded = (n_acc == 0) & (n_glob == 1) & ~bad
    if same_width and loaded.any():
        units = (g_ident | np.int64(1 << 58))[:, None] + 2 * np.arange(ue_out, dtype=np.int64)[None, :]
        out = np.where(loaded[:, None], units, out)
    return out


def _operand_buffers(m: Any) -> set[int]:
    c = m.flow.consumer
    return c.operand_buffers() if c is not None else set()


def _group_rows(p: np.ndarray | None, n: int, e: int, ue: int) -> np.ndarray:
    if p is None:
        return np.full((n, ue), tg.NONE, dtype=np.int64)
    lo, hi = e * ue, (e + 1) * ue
    if p.shape[1] >= hi:
        return p[:, lo:hi]
    out = np.full((n, ue), tg.NONE, dtype=np.int64)
    have = max(0, p.shape[1] - lo)
    out[:, :have] = p[:, lo:lo + have]
    return out


@rule(*FLOAT_ROOTS)
def float_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    try:
        t = instr_type(ins)
    except Exception:
        return default_rule(ins, ctx, op)
    if t not in FLOAT_TYPES or t not in ELEM or not isinstance(ins.operands[0], Reg):
        return default_rule(ins, ctx, op)
    n_elem, ue = ELEM[t]
    dest = ins.operands[0].name
    srcs = list(ins.operands[1:])
    product = ins.root in ("fma", "mad") and len(srcs) == 3
    c_reader = ctx.reader(srcs[2], t, ins) if product else None

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        planes = [f.regs.get(s.name) if isinstance(s, Reg) else None for s in srcs]
        if all(p is None for p in planes):
            f.regs.put(dest, None, mask)
            return
        out = np.full((m.n, n_elem * ue), tg.NONE, dtype=np.int64)
        buffers = _operand_buffers(m)
        lanes = f.lanes(m, mask)
        for e in range(n_elem):
            groups = [_group_rows(p, m.n, e, ue) for p in planes]
            got = f.consumer.fma(m, op, lanes, groups, c_reader, e, ue, planes) \
                if product and f.consumer is not None else None
            if got is None:
                res = elementwise(groups, ue, op.index, buffers)
            else:
                res, handled = got
                if not handled.all():
                    res = np.where(handled[:, None], res, elementwise(groups, ue, op.index, buffers))
            out[:, e * ue:(e + 1) * ue] = res
        f.regs.put(dest, out, mask)
    return run


def float_convert_rule(ins: Instruction, ctx: Context, op: Op, dtype: str, atype: str) -> Rule | None:
    """Float -> float ``cvt`` (and the ``f16x2 <- f32, f32`` pack): an accumulator stays one, derived."""
    name = ins.operands[0].name  # type: ignore[union-attr]
    if dtype in ("f16x2", "bf16x2") and atype == "f32" and len(ins.operands) >= 3:
        hi_src, lo_src = ins.operands[1], ins.operands[2]

        def pack(m: Any, mask: Any) -> None:
            f = m.flow
            ph = f.regs.get(hi_src.name) if isinstance(hi_src, Reg) else None
            pl = f.regs.get(lo_src.name) if isinstance(lo_src, Reg) else None
            if ph is None and pl is None:
                f.regs.put(name, None, mask)
                return
            lo = elementwise([_group_rows(pl, m.n, 0, 2)], 1, op.index, _operand_buffers(m))
            hi = elementwise([_group_rows(ph, m.n, 0, 2)], 1, op.index, _operand_buffers(m))
            f.regs.put(name, np.concatenate([lo, hi], axis=1), mask)
        return pack
    if dtype in ELEM and atype in ELEM and ELEM[dtype][0] == 1 and ELEM[atype][0] == 1:
        ue_in, ue_out = ELEM[atype][1], ELEM[dtype][1]
        src = ins.operands[1]

        def conv(m: Any, mask: Any) -> None:
            f = m.flow
            p = f.regs.get(src.name) if isinstance(src, Reg) else None
            if p is None:
                f.regs.put(name, None, mask)
                return
            f.regs.put(name, elementwise([_group_rows(p, m.n, 0, ue_in)], ue_out, op.index, _operand_buffers(m)),
                       mask)
        return conv
    return default_rule(ins, ctx, op)


@rule("mma")
def mma_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """``mma.sync``: the consumer checks the operands and names the accumulators (OPAQUE without one)."""
    d = ins.operands[0]
    dests = [x.name for x in (d.items if isinstance(d, Vec) else (d,)) if isinstance(x, Reg)]

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        if f.consumer is not None:
            f.consumer.mma(m, op, ins, ctx, mask)
            return
        code = tg.opaque(op.index, tg.W_UNMODELLED)
        for nm in dests:
            f.regs.put(nm, np.full((m.n, f.regs.units_of(nm)), code, dtype=np.int64), mask)
    return run
