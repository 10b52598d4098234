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

**Width.**  Columns are packed side by side in one integer, each in a slot of
``slot`` bits.  Every map carries a sound bound on its columns' bit length
(exact for a variable, ``+k`` for ``<< k``, the smaller for ``&``, ...); the
slot starts at ``max(64, widest variable + 1)`` and an operation whose columns
could outgrow it raises :class:`WideColumns`, on which :func:`decide` compiles
again with a wide enough slot.  So a column never spills into its neighbour
and any width is exact; constants are kept apart from the columns (any width).
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import describe
from layoutalg.prove import budget
from layoutalg.prove import expr as ex
from layoutalg.prove.problem import Collision, Forall, NotApplicableError, Outcome, Problem

MIN_SLOT = 64


class WideColumns(Exception):  # noqa: N818 - a signal to recompile, not an error
    """A column could need ``bits`` bits, more than the packing's slot: compile again with a wider slot."""

    def __init__(self, bits: int) -> None:
        super().__init__(f"columns may need {bits} bits")
        self.bits = bits


def first_slot(variables: tuple[ex.Var, ...]) -> int:
    """The slot to try first: 64 bits, or one more than the widest variable."""
    return max([MIN_SLOT] + [v.hi.bit_length() + 1 for v in variables])


class Affine:
    """``x -> XOR_j (bit j of x) * col_j  XOR  const`` over the global input bits of a :class:`BitSpace`.

    The columns are packed into one integer, column ``j`` in bits ``[s j, s j + s)`` with ``s`` the
    space's slot width, so XOR, masking and shifting all columns is one big-integer operation.  ``width``
    bounds the bit length of every column; an operation that would push a column past ``s`` bits raises
    NotApplicableError (so a packed column can never spill into its neighbour).
    """

    __slots__ = ("space", "packed", "const", "width")

    def __init__(self, space: "BitSpace", packed: int, const: int, width: int) -> None:
        self.space, self.packed, self.const, self.width = space, packed, const, width

    @property
    def cols(self) -> tuple[int, ...]:
        slot = self.space.slot
        mask = (1 << slot) - 1
        return tuple((self.packed >> (j * slot)) & mask for j in range(self.space.nbits))

    def support(self) -> int:
        slot = self.space.slot
        s, step, total = self.packed, slot, self.space.nbits * slot
        while step < total:
            s |= s >> step
            step *= 2
        return (s & ((1 << slot) - 1)) | self.const

    def xor(self, other: "Affine") -> "Affine":
        return Affine(self.space, self.packed ^ other.packed, self.const ^ other.const, max(self.width, other.width))

    def band(self, c: int) -> "Affine":
        return Affine(self.space, self.packed & self.space.rep(c), self.const & c, min(self.width, c.bit_length()))

    def shl(self, k: int) -> "Affine":
        if self.width + k > self.space.slot:
            raise WideColumns(self.width + k)
        return Affine(self.space, self.packed << k, self.const << k, self.width + k)

    def shr(self, k: int) -> "Affine":
        slot = self.space.slot
        if k >= slot:
            return Affine(self.space, 0, self.const >> k, 0)
        return Affine(self.space, (self.packed >> k) & self.space.rep((1 << (slot - k)) - 1), self.const >> k, max(0, self.width - k))

    def is_const(self) -> bool:
        return self.packed == 0

    def at(self, bits: int) -> int:
        out = self.const
        cols = self.cols
        j = 0
        while bits:
            if bits & 1:
                out ^= cols[j]
            bits >>= 1
            j += 1
        return out


def _repunit(count: int, width: int) -> int:
    """``sum(1 << (j * width) for j in range(count))`` in closed form (a geometric series: linear, not quadratic,
    in the bits of the answer)."""
    return ((1 << (count * width)) - 1) // ((1 << width) - 1) if count else 0


class BitSpace:
    """Assigns global input-bit positions to variables (by key), with ``slot`` bits per packed column."""

    def __init__(self, variables: tuple[ex.Var, ...], slot: int | None = None) -> None:
        self.offsets: dict[ex.VarKey, tuple[int, int]] = {}
        self.slot = first_slot(variables) if slot is None else slot
        pos = 0
        for v in variables:
            if v.lo != 0 or not v.is_plain() or v.hi & (v.hi - 1):
                raise NotApplicableError(f"variable {v.describe()} is not a plain power-of-two range starting at 0")
            k = v.hi.bit_length() - 1
            if k >= self.slot:
                raise WideColumns(k + 1)
            self.offsets[v.key] = (pos, k)
            pos += k
        self.nbits = pos
        self._ones = _repunit(pos, self.slot)  # a 1 in the low bit of every slot
        self._reps: dict[int, int] = {}
        self._consts: dict[int, Affine] = {}

    def rep(self, c: int) -> int:
        """``c`` (clipped to a slot) repeated in every column slot."""
        c &= (1 << self.slot) - 1
        out = self._reps.get(c)
        if out is None:
            out = self._reps[c] = c * self._ones
        return out

    def var(self, v: ex.Var) -> Affine:
        if v.key not in self.offsets:
            raise NotApplicableError(f"variable {describe(v.name)} is not in the domain")
        pos, k = self.offsets[v.key]
        packed = _repunit(k, self.slot + 1) << (pos * self.slot)  # bit i of v in slot pos + i, at its bit i
        return Affine(self, packed, 0, k)

    def const(self, c: int) -> Affine:
        out = self._consts.get(c)
        if out is None:
            out = self._consts[c] = Affine(self, 0, c, c.bit_length())
        return out

    def unpack(self, bits: int) -> dict[ex.VarKey, int]:
        return {key: (bits >> pos) & ((1 << k) - 1) for key, (pos, k) in self.offsets.items()}

    def mask_of(self, keys: list[ex.VarKey]) -> int:
        out = 0
        for key in keys:
            pos, k = self.offsets[key]
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
        if isinstance(n, ex.BinOp):
            out = _binop(n, go(n.a), go(n.b))
        elif isinstance(n, ex.Const):
            if n.value < 0:
                raise NotApplicableError(f"negative constant {n.value}")
            out = space.const(n.value)
        elif isinstance(n, ex.Var):
            out = space.var(n)
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
            return a.band(b.const)
        if a.is_const():
            return b.band(a.const)
        raise NotApplicableError(f"{_short(n)}: AND of two variable terms")
    if op == "*":
        if a.is_const():
            a, b = b, a
        if not b.is_const():
            raise NotApplicableError(f"{_short(n)}: product of two variable terms")
        c = b.const
        out = a.space.const(0)
        k = 0
        while c:
            if c & 1:
                out = _disjoint_sum(out, a.shl(k), n)
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
                    return a.space.const(a.const // c if op == "//" else a.const % c)
                raise NotApplicableError(f"{_short(n)}: divisor {c} is not a power of two")
            if op == "%":
                return a.band(c - 1)
            c = c.bit_length() - 1
            op = ">>"
        return a.shl(c) if op == "<<" else a.shr(c)
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


def _pack(maps: list[Affine]) -> tuple[list[int], int]:
    """Concatenate several outputs into one wide value (output ``i`` at a disjoint bit offset): (cols, const)."""
    shift = 0
    cols = [0] * maps[0].space.nbits
    const = 0
    for m in maps:
        cols = [c | (mc << shift) for c, mc in zip(cols, m.cols)]
        const |= m.const << shift
        shift += max(m.support().bit_length(), 1)
    return cols, const


def _pack_pair(fs: list[Affine], gs: list[Affine]) -> tuple[list[int], int]:
    """The difference of two output tuples packed with the same offsets (zero iff componentwise equal)."""
    shift = 0
    nb = fs[0].space.nbits
    dc = [0] * nb
    dk = 0
    for f, g in zip(fs, gs):
        d = f.xor(g)
        dc = [c | (x << shift) for c, x in zip(dc, d.cols)]
        dk |= d.const << shift
        shift += max(f.support().bit_length(), g.support().bit_length(), 1)
    return dc, dk


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
                return [m.shr(bound.bit_length() - 1)]
    raise NotApplicableError(f"predicate {_short(pred)} is not a conjunction of GF(2)-linear facts")


def decide(problem: Problem, deadline: budget.Deadline | None = None) -> Outcome:
    """The GF(2) verdict (polynomial work; the deadline is checked between steps), or NotApplicableError."""
    deadline = budget.current() if deadline is None else deadline
    slot = first_slot(problem.all_vars)
    while True:
        try:
            return _decide_at(problem, slot, deadline)
        except WideColumns as wide:
            slot = max(2 * slot, wide.bits + 1)


def _decide_at(problem: Problem, slot: int, deadline: budget.Deadline) -> Outcome:
    if isinstance(problem, Forall):
        space = BitSpace(problem.variables, slot)
        memo: dict[int, Affine] = {}
        atoms = _atoms(problem.pred, space, memo)
        deadline.check("GF(2): compiled the claim")
        for d in atoms:
            bits = _zero_everywhere(d)
            if bits is not None:
                return Outcome("refuted", space.unpack(bits))
        return Outcome("proved", note=f"GF(2) maps over {space.nbits} bits")
    return _collision(problem, slot, deadline)


def _collision(problem: Collision, slot: int, deadline: budget.Deadline) -> Outcome:
    if len(problem.f) != len(problem.g):
        raise NotApplicableError("the two functions have different numbers of outputs")
    space = BitSpace(problem.all_vars, slot)
    memo: dict[int, Affine] = {}
    fs = [compile_term(t, space, memo) for t in problem.f]
    gs = [compile_term(t, space, memo) for t in problem.g]
    deadline.check("GF(2): compiled the claim")
    if problem.distinct:
        fcols, _ = _pack(fs)
        xmask = space.mask_of([x.key for x in problem.xs])
        xbits = [j for j in range(space.nbits) if xmask >> j & 1]
        _, kernel = _reduce([fcols[j] for j in xbits])
        if not kernel:
            return Outcome("proved", note=f"GF(2) rank {len(xbits)} = {len(xbits)} input bits")
        bits = 0
        for i, j in enumerate(xbits):
            if kernel[0] >> i & 1:
                bits |= 1 << j
        env = {key: 0 for key in space.offsets}
        env.update(space.unpack(bits))
        return Outcome("refuted", env)
    dcols, dconst = _pack_pair(fs, gs)
    combo = _solve(dcols, dconst)
    if combo is None:
        return Outcome("proved", note="GF(2): the difference never vanishes")
    return Outcome("refuted", space.unpack(combo))


__all__ = ["decide", "compile_term", "Affine", "BitSpace", "WideColumns", "rank"]
