"""GF(2) linear algebra: decide claims about bit-linear index functions exactly and fast.

Every variable ranging over ``[0, 2**k)`` without further constraints is a
vector of ``k`` input bits.  A term is *compiled* to an affine map over GF(2),
``value(x) = XOR of cols[j] over the set bits j of x, XOR const`` (each column
an int bit mask), by rules that are exact for non-negative integers:

* ``a ^ b``: XOR the maps;  ``x << k``, ``x >> k``: shift every column;
* ``a & c``, ``a % 2**k`` (= ``a & (2**k - 1)``) with a constant: mask every column;
* ``a + b`` and ``a | b`` only when the bits ``a`` can ever set and the bits ``b``
  can ever set are disjoint (then no carry is possible and ``a + b = a | b = a ^ b``);
* ``a * c`` with a constant ``c >= 0``: the sum of ``a << k`` over the bits of ``c`` (same rule);
* ``a // 2**k`` is ``a >> k``.

Anything else (a product of two variables, a non-power-of-two extent or
divisor, a negative constant, ``-``) raises :class:`NotApplicableError` and another
engine decides.  Because the compiled map *is* the integer function on the
whole domain, the decisions are exact:

* ``a == b`` everywhere  iff  the maps of ``a`` and ``b`` are identical
  (else ``x = 0`` or ``x = e_j`` for a differing column ``j`` is a counterexample);
* ``a < 2**m`` everywhere  iff  no column and not the constant has a bit ``>= m``;
* ``f`` injective in ``x`` (for every parameter value)  iff  its columns on the
  bits of ``x`` are linearly independent (a kernel vector ``k`` gives ``f(k) = f(0)``);
* ``f(p, x) != g(p, y)`` always  iff  ``f.const ^ g.const`` is not in the span
  of the columns of ``f ^ g`` (Gaussian elimination gives the witness).

The Gaussian elimination here is the same as :mod:`layoutalg.swizzle.f2`'s
rank computation; it is kept local because it also tracks the combination of
columns that produced each pivot (needed for counterexamples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Collision, Forall, NotApplicableError, Outcome, Problem


@dataclass(frozen=True)
class Affine:
    """``x -> XOR_j (bit j of x) * cols[j]  XOR  const`` over the global input bits."""

    cols: tuple[int, ...]
    const: int

    def support(self) -> int:
        out = self.const
        for c in self.cols:
            out |= c
        return out

    def xor(self, other: "Affine") -> "Affine":
        return Affine(tuple(a ^ b for a, b in zip(self.cols, other.cols)), self.const ^ other.const)

    def map(self, fn: Any) -> "Affine":
        return Affine(tuple(fn(c) for c in self.cols), fn(self.const))

    def is_const(self) -> bool:
        return not any(self.cols)

    def at(self, bits: int) -> int:
        out = self.const
        j = 0
        while bits:
            if bits & 1:
                out ^= self.cols[j]
            bits >>= 1
            j += 1
        return out


class BitSpace:
    """Assigns global input-bit positions to variables."""

    def __init__(self, variables: tuple[ex.Var, ...]) -> None:
        self.offsets: dict[str, tuple[int, int]] = {}
        pos = 0
        for v in variables:
            if v.lo != 0 or not v.is_plain() or v.hi & (v.hi - 1):
                raise NotApplicableError(f"variable {v.describe()} is not a plain power-of-two range starting at 0")
            k = v.hi.bit_length() - 1
            self.offsets[v.name] = (pos, k)
            pos += k
        self.nbits = pos

    def var(self, v: ex.Var) -> Affine:
        if v.name not in self.offsets:
            raise NotApplicableError(f"variable {v.name!r} is not in the domain")
        pos, k = self.offsets[v.name]
        cols = [0] * self.nbits
        for i in range(k):
            cols[pos + i] = 1 << i
        return Affine(tuple(cols), 0)

    def const(self, c: int) -> Affine:
        return Affine((0,) * self.nbits, c)

    def unpack(self, bits: int) -> dict[str, int]:
        return {name: (bits >> pos) & ((1 << k) - 1) for name, (pos, k) in self.offsets.items()}

    def mask_of(self, names: list[str]) -> int:
        out = 0
        for n in names:
            pos, k = self.offsets[n]
            out |= ((1 << k) - 1) << pos
        return out


def _short(x: Any, limit: int = 80) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _disjoint_sum(a: Affine, b: Affine, node: Any) -> Affine:
    if a.support() & b.support():
        raise NotApplicableError(f"{_short(node)}: the operands may share bits, so a carry is possible")
    return a.xor(b)


def compile_term(node: Any, space: BitSpace, memo: dict[int, Affine] | None = None) -> Affine:
    """The affine GF(2) map of a lowered term, or :class:`NotApplicableError`."""
    memo = {} if memo is None else memo

    def go(n: Any) -> Affine:
        key = id(n)
        if key in memo:
            return memo[key]
        if isinstance(n, ex.Const):
            if n.value < 0:
                raise NotApplicableError(f"negative constant {n.value}")
            out = space.const(n.value)
        elif isinstance(n, ex.Var):
            out = space.var(n)
        elif isinstance(n, ex.BinOp):
            out = _binop(n, go(n.a), go(n.b))
        else:
            raise NotApplicableError(f"{type(n).__name__} is not GF(2)-linear")
        memo[key] = out
        return out

    return go(node)


def _binop(n: ex.BinOp, a: Affine, b: Affine) -> Affine:
    op = n.op
    if op == "^":
        return a.xor(b)
    if op in ("+", "|"):
        return _disjoint_sum(a, b, n)
    if op == "-":
        if b.is_const() and b.const == 0:
            return a
        raise NotApplicableError(f"{_short(n)}: subtraction is not GF(2)-linear")
    if op == "&":
        if b.is_const():
            return a.map(lambda c: c & b.const)
        if a.is_const():
            return b.map(lambda c: c & a.const)
        raise NotApplicableError(f"{_short(n)}: AND of two variable terms")
    if op == "*":
        if a.is_const():
            a, b = b, a
        if not b.is_const():
            raise NotApplicableError(f"{_short(n)}: product of two variable terms")
        c = b.const
        out = Affine((0,) * len(a.cols), 0)
        k = 0
        while c:
            if c & 1:
                out = _disjoint_sum(out, a.map(lambda col, k=k: col << k), n)
            c >>= 1
            k += 1
        return out
    if op in ("<<", ">>", "//", "%"):
        if not b.is_const():
            raise NotApplicableError(f"{_short(n)}: variable shift or divisor")
        c = b.const
        if op in ("//", "%"):
            if c <= 0 or c & (c - 1):
                if a.is_const() and c > 0:
                    return Affine(a.cols, a.const // c if op == "//" else a.const % c)
                raise NotApplicableError(f"{_short(n)}: divisor {c} is not a power of two")
            if op == "%":
                return a.map(lambda col: col & (c - 1))
            c = c.bit_length() - 1
            op = ">>"
        return a.map(lambda col: col << c) if op == "<<" else a.map(lambda col: col >> c)
    raise NotApplicableError(f"{_short(n)}: operator {op} is not GF(2)-linear")


# ------------------------------------------------------------ linear algebra
def _reduce(vectors: list[int]) -> tuple[dict[int, tuple[int, int]], list[int]]:
    """Echelon basis ``lead bit -> (vector, combination)`` and the combinations that reduced to zero."""
    basis: dict[int, tuple[int, int]] = {}
    kernel: list[int] = []
    for j, vec in enumerate(vectors):
        combo = 1 << j
        while vec:
            lead = vec.bit_length() - 1
            if lead not in basis:
                basis[lead] = (vec, combo)
                break
            bvec, bcombo = basis[lead]
            vec ^= bvec
            combo ^= bcombo
        if not vec:
            kernel.append(combo)
    return basis, kernel


def _solve(vectors: list[int], target: int) -> int | None:
    """A combination of ``vectors`` XORing to ``target``, or None."""
    basis, _ = _reduce(vectors)
    combo = 0
    while target:
        lead = target.bit_length() - 1
        if lead not in basis:
            return None
        bvec, bcombo = basis[lead]
        target ^= bvec
        combo ^= bcombo
    return combo


def rank(vectors: list[int]) -> int:
    return len(_reduce(vectors)[0])


def _pack(maps: list[Affine]) -> Affine:
    """Concatenate several outputs into one wide value (output ``i`` at a disjoint bit offset)."""
    shift = 0
    cols = [0] * len(maps[0].cols) if maps else []
    const = 0
    for m in maps:
        cols = [c | (mc << shift) for c, mc in zip(cols, m.cols)]
        const |= m.const << shift
        shift += max(m.support().bit_length(), 1)
    return Affine(tuple(cols), const)


def _pack_pair(fs: list[Affine], gs: list[Affine]) -> tuple[Affine, Affine]:
    """Pack two output tuples with the same offsets (so packed equality is componentwise equality)."""
    shift = 0
    nb = len(fs[0].cols)
    fc, gc = [0] * nb, [0] * nb
    fk = gk = 0
    for f, g in zip(fs, gs):
        fc = [c | (x << shift) for c, x in zip(fc, f.cols)]
        gc = [c | (x << shift) for c, x in zip(gc, g.cols)]
        fk |= f.const << shift
        gk |= g.const << shift
        shift += max(f.support().bit_length(), g.support().bit_length(), 1)
    return Affine(tuple(fc), fk), Affine(tuple(gc), gk)


# ------------------------------------------------------------ decisions
def _zero_everywhere(d: Affine) -> int | None:
    """None if the map is identically zero, else input bits where it is not."""
    if d.const:
        return 0
    for j, c in enumerate(d.cols):
        if c:
            return 1 << j
    return None


def _atoms(pred: Any, space: BitSpace, memo: dict[int, Affine]) -> list[Affine]:
    """The maps that must vanish everywhere for ``pred`` to hold (a conjunction of linear facts)."""
    if isinstance(pred, ex.BoolConst):
        if pred.value:
            return []
        return [space.const(1)]
    if isinstance(pred, ex.BoolOp) and pred.op == "and":
        return [m for a in pred.args for m in _atoms(a, space, memo)]
    if isinstance(pred, ex.Cmp):
        if pred.op == "==":
            return [compile_term(pred.a, space, memo).xor(compile_term(pred.b, space, memo))]
        lhs, rhs, op = pred.a, pred.b, pred.op
        if op in (">", ">="):
            lhs, rhs, op = rhs, lhs, "<" if op == ">" else "<="
        if isinstance(lhs, ex.Const) and op == "<=" and lhs.value <= 0:
            compile_term(rhs, space, memo)  # must itself be linear (so it is >= 0)
            return []
        if isinstance(rhs, ex.Const) and op in ("<", "<="):
            bound = rhs.value + (1 if op == "<=" else 0)
            if bound > 0 and bound & (bound - 1) == 0:
                m = compile_term(lhs, space, memo)
                return [m.map(lambda c: c >> (bound.bit_length() - 1))]
    raise NotApplicableError(f"predicate {_short(pred)} is not a conjunction of GF(2)-linear facts")


def decide(problem: Problem, timeout: float | None = None) -> Outcome:
    if isinstance(problem, Forall):
        space = BitSpace(problem.variables)
        memo: dict[int, Affine] = {}
        for d in _atoms(problem.pred, space, memo):
            bits = _zero_everywhere(d)
            if bits is not None:
                return Outcome("refuted", space.unpack(bits))
        return Outcome("proved", note=f"GF(2) maps over {space.nbits} bits")
    return _collision(problem)


def _collision(problem: Collision) -> Outcome:
    space = BitSpace(problem.all_vars)
    memo: dict[int, Affine] = {}
    if len(problem.f) != len(problem.g):
        raise NotApplicableError("the two functions have different numbers of outputs")
    fs = [compile_term(t, space, memo) for t in problem.f]
    gs = [compile_term(t, space, memo) for t in problem.g]
    if problem.distinct:
        f = _pack(fs)
        xmask = space.mask_of([x.name for x in problem.xs])
        xbits = [j for j in range(space.nbits) if xmask >> j & 1]
        _, kernel = _reduce([f.cols[j] for j in xbits])
        if not kernel:
            return Outcome("proved", note=f"GF(2) rank {len(xbits)} = {len(xbits)} input bits")
        bits = 0
        for i, j in enumerate(xbits):
            if kernel[0] >> i & 1:
                bits |= 1 << j
        env = {name: 0 for name in space.offsets}
        env.update(space.unpack(bits))
        return Outcome("refuted", env)
    f, g = _pack_pair(fs, gs)
    d = f.xor(g)
    combo = _solve(list(d.cols), d.const)
    if combo is None:
        return Outcome("proved", note="GF(2): the difference never vanishes")
    return Outcome("refuted", space.unpack(combo))


__all__ = ["decide", "compile_term", "Affine", "BitSpace", "rank"]
