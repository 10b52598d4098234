"""Terms as z3 bit-vector expressions, with a width at which no operation can overflow.

Every layout, swizzle and composed layout is first lowered to primitive
operators (:func:`layoutalg.prove.expr.lower`): a layout ``S:D`` applied to a
1-D index ``i`` becomes ``sum_k ((i // p_k) % s_k) * d_k`` (``p_k`` the
colexicographic prefix products, no ``%`` on the last leaf, as CuTe's
``crd2idx``), with ``>>``/``&`` when ``p_k``/``s_k`` are powers of two; a
swizzle ``Swizzle<B,M,S>`` becomes ``x ^ ((x & yyy_mask) >> S)``; a
``ComposedLayout(outer, offset, inner)`` becomes ``outer(offset + inner(x))``.
Tiled partitions and TV layouts are layouts, so they need nothing more.

**No overflow, and how it is guaranteed.**  :func:`layoutalg.prove.expr.interval`
computes, bottom-up, sound integer bounds ``[lo, hi]`` of every sub-term from
the ranges of the variables (interval arithmetic: ``+ - *`` by corners, ``//``
by corners for a divisor of one sign, ``%`` within the divisor's range,
bitwise operators within the next power of two of the operands' magnitude).
The bit width ``W`` is one more than the largest two's-complement width any
sub-term or variable bound needs.  Each sub-term's exact integer value then
lies in ``[-2**(W-1), 2**(W-1))``, so the modular bit-vector result of every
operation equals the integer result (induction over the term: equal inputs,
representable output), and signed comparisons are exact.  Floor ``//`` and
``%`` are encoded as unsigned division when both operands are known
non-negative, else with ``bvsdiv`` corrected towards minus infinity and
``bvsmod`` (the sign of the divisor, Python's ``%``).  A divisor whose range
contains zero is rejected (``ProofError``) before any solving.

Variables carry their ranges and constraints (``lo <= v < hi``, ``v % m == 0``,
``v`` a power of two) as assumptions returned next to the term.  Each variable
(by :attr:`~layoutalg.prove.variables.Var.key`, so a generated variable is never
confused with a user's) gets its own z3 constant, named by the encoder with a
running number, so no two variables can share one whatever their names.

Constant-only sub-terms arrive folded (:func:`~layoutalg.prove.expr.lower`), and a
shift amount is always a ``Const``; both encoders encode it as that exact integer.
"""

from __future__ import annotations

from typing import Any

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex


class _TermEncoder:
    """What both encoders share: memoised dispatch over lowered term nodes, variables, and predicates.

    Subclasses give ``const``, ``_make`` (a fresh z3 constant) and ``_binop`` for their z3 sort.
    """

    z3: Any
    memo: dict[int, Any]
    vars: dict[Any, Any]

    def const(self, value: int) -> Any:
        raise NotImplementedError

    def _make(self, label: str) -> Any:
        raise NotImplementedError

    def fresh_name(self, label: str) -> str:
        """A z3 name used by no other constant of this encoder (the running number makes it unique)."""
        self._count = getattr(self, "_count", 0) + 1
        return f"{label}!{self._count}"

    def variable(self, v: ex.Var) -> Any:
        """The z3 constant of ``v`` (one per key)."""
        if v.key not in self.vars:
            self.vars[v.key] = self._make(v.name)
        return self.vars[v.key]

    def _binop(self, node: ex.BinOp) -> Any:
        raise NotImplementedError

    def term(self, node: Any) -> Any:
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        z3 = self.z3
        if isinstance(node, ex.Const):
            out = self.const(node.value)
        elif isinstance(node, ex.Var):
            out = self.variable(node)
        elif isinstance(node, ex.BinOp):
            out = self._binop(node)
        elif isinstance(node, ex.Ite):
            out = z3.If(self.pred(node.cond), self.term(node.a), self.term(node.b))
        else:
            raise ProofError(f"cannot encode {describe(node)}: lower() it first")
        self.memo[key] = out
        return out

    def pred(self, p: Any) -> Any:
        return encode_pred(self, p)


class Encoder(_TermEncoder):
    """Encodes lowered terms at one width ``width`` (see module docstring)."""

    def __init__(self, width: int, intervals: dict[int, ex.Interval]) -> None:
        import z3

        self.z3 = z3
        self.width = width
        self.intervals = intervals
        self.vars: dict[Any, Any] = {}
        self.memo: dict[int, Any] = {}

    # -- variables and their domain constraints -----------------------
    def _make(self, label: str) -> Any:
        return self.z3.BitVec(self.fresh_name(label), self.width)

    def constraints(self, v: ex.Var) -> list[Any]:
        z3 = self.z3
        x = self.variable(v)
        out = [x >= self.const(v.lo), x < self.const(v.hi)]
        if v.multiple_of > 1:
            out.append(z3.SRem(x, self.const(v.multiple_of)) == 0)
        if v.pow2:
            out.append(x > 0)
            out.append(x & (x - 1) == 0)
        return out

    def const(self, value: int) -> Any:
        return self.z3.BitVecVal(value, self.width)

    # -- terms -------------------------------------------------------------

    def _bounds(self, node: Any) -> ex.Interval:
        return ex.interval(node, self.intervals)

    def _binop(self, node: ex.BinOp) -> Any:
        z3 = self.z3
        a, b = self.term(node.a), self.term(node.b)
        op = node.op
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op in ("//", "%"):
            (alo, _), (blo, bhi) = self._bounds(node.a), self._bounds(node.b)
            if blo <= 0 <= bhi:
                raise ProofError(f"the divisor in {describe(node)} may be zero")
            if alo >= 0 and blo > 0:
                return z3.UDiv(a, b) if op == "//" else z3.URem(a, b)
            if op == "%":
                return a % b  # z3py: BitVec % is bvsmod (sign of the divisor)
            q = a / b  # bvsdiv: truncates toward zero
            r = z3.SRem(a, b)
            return z3.If(z3.And(r != 0, (r < 0) != (b < 0)), q - 1, q)
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        if op == "^":
            return a ^ b
        amount = _const_of(node.b)  # lowering leaves only Const shift amounts (never a term's low bits)
        if amount < 0:
            raise ProofError(f"shift amount must be a non-negative constant in {describe(node)}")
        if amount >= self.width:  # the width bounds every value: << leaves 0, >> leaves the sign
            return self.const(0) if op == "<<" else (a >> (self.width - 1))
        return a << amount if op == "<<" else a >> amount



class IntEncoder(_TermEncoder):
    """Encodes lowered terms as z3 *integers* (exact; no width at all) when :func:`int_expressible`.

    ``//`` and ``%`` by a positive divisor are z3's ``div``/``mod`` (Euclidean, which is floor
    division for a positive divisor); by a negative divisor ``a // b = (-a) div (-b)`` and
    ``a % b = a - b * (a // b)`` (Python's sign-of-divisor rule); ``x >> k`` is ``x div 2**k``,
    ``x << k`` is ``x * 2**k`` and ``x & (2**k - 1)`` is ``x mod 2**k``, all exact for every integer.
    Nonlinear products of parameters (``row * lda``) are much easier for z3 here than bit-blasted.
    """

    def __init__(self, intervals: dict[int, ex.Interval]) -> None:
        import z3

        self.z3 = z3
        self.intervals = intervals
        self.vars: dict[Any, Any] = {}
        self.memo: dict[int, Any] = {}

    def _make(self, label: str) -> Any:
        return self.z3.Int(self.fresh_name(label))

    def constraints(self, v: ex.Var) -> list[Any]:
        z3 = self.z3
        x = self.variable(v)
        out = [x >= v.lo, x < v.hi]
        if v.multiple_of > 1:
            out.append(x % v.multiple_of == 0)
        if v.pow2:
            k = self._make(f"log2({v.name})")
            out.extend([k >= 0, k < max(1, v.hi.bit_length()), x == _pow2_term(z3, k, v.hi)])
        return out

    def const(self, value: int) -> Any:
        return self.z3.IntVal(value)


    def _binop(self, node: ex.BinOp) -> Any:
        a, b = self.term(node.a), self.term(node.b)
        op = node.op
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op in ("//", "%"):
            blo, bhi = ex.interval(node.b, self.intervals)
            if blo <= 0 <= bhi:
                raise ProofError(f"the divisor in {describe(node)} may be zero")
            q = a / b if blo > 0 else (-a) / (-b)  # z3 Int '/' is Euclidean: floor for a positive divisor
            return q if op == "//" else a - b * q
        if op in ("<<", ">>"):
            amount = _const_of(node.b)
            if amount < 0:
                raise ProofError(f"shift amount must be a non-negative constant in {describe(node)}")
            return a * (1 << amount) if op == "<<" else a / (1 << amount)
        if op != "&":
            raise ProofError(f"operator {describe(op)} has no exact integer encoding")
        masked = _masked_operand(node)  # '&' with a low mask 2**k - 1 (the same test as int_expressible)
        if masked is None:
            raise ProofError(f"{describe(node)} has no exact integer encoding (no low-mask operand)")
        mask, other = masked
        return self.term(other) % (mask + 1)



def _pow2_term(z3: Any, k: Any, hi: int) -> Any:
    """``2**k`` for ``0 <= k < bit_length(hi)`` as a chain of ifs (z3 has no integer power of a variable)."""
    out = z3.IntVal(1)
    for j in range(max(1, hi.bit_length()) - 1, 0, -1):
        out = z3.If(k == j, z3.IntVal(1 << j), out)
    return out


def _const_of(node: Any) -> int:
    if not isinstance(node, ex.Const):
        raise ProofError(f"expected a constant, got {describe(node)}")
    return node.value


def _low_mask(node: Any) -> bool:
    return isinstance(node, ex.Const) and node.value >= 0 and node.value & (node.value + 1) == 0


def _masked_operand(node: ex.BinOp) -> tuple[int, Any] | None:
    """For ``x & m`` or ``m & x`` with ``m = 2**k - 1`` a constant: ``(m, x)``; else None.

    ``x & (2**k - 1) == x mod 2**k`` for every integer ``x`` (two's complement), which is the exact integer
    encoding.  The operand tested is the one returned as the mask, so the two can never disagree.
    """
    if isinstance(node.b, ex.Const) and _low_mask(node.b):
        return node.b.value, node.a
    if isinstance(node.a, ex.Const) and _low_mask(node.a):
        return node.a.value, node.b
    return None


def int_expressible(roots: list[Any]) -> bool:
    """True when every operator has an exact integer-arithmetic encoding (see :class:`IntEncoder`)."""
    for node in ex.subterms(roots):
        if not isinstance(node, ex.BinOp):
            continue
        if node.op in ("|", "^"):
            return False
        if node.op in ("<<", ">>") and not (isinstance(node.b, ex.Const) and node.b.value >= 0):
            return False
        if node.op == "&" and _masked_operand(node) is None:
            return False
    return True


def encode_pred(enc: Any, p: Any) -> Any:
    """A predicate over an encoder's terms (shared by both encodings)."""
    z3 = enc.z3
    if isinstance(p, ex.BoolConst):
        return z3.BoolVal(p.value)
    if isinstance(p, ex.Cmp):
        a, b = enc.term(p.a), enc.term(p.b)
        return {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
        }[p.op]()
    if isinstance(p, ex.BoolOp):
        args = [enc.pred(x) for x in p.args]
        if p.op == "and":
            return z3.And(*args) if args else z3.BoolVal(True)
        if p.op == "or":
            return z3.Or(*args) if args else z3.BoolVal(False)
        if p.op == "not":
            return z3.Not(args[0])
        return z3.Implies(args[0], args[1])
    raise ProofError(f"not a predicate: {describe(p)}")


def width_for(roots: list[Any], variables: list[ex.Var], intervals: dict[int, ex.Interval]) -> int:
    """The overflow-free width for lowered ``roots`` (terms, predicates or tuples of them)."""
    lo, hi = 0, 1
    for v in variables:  # the constraints use lo, hi and multiple_of as constants
        lo, hi = min(lo, v.lo), max(hi, v.hi, v.multiple_of)
    for node in ex.subterms(roots):
        nlo, nhi = ex.interval(node, intervals)
        lo, hi = min(lo, nlo), max(hi, nhi)
    return ex.signed_width(lo, hi) + 1


def encoder_for(roots: list[Any], variables: list[ex.Var]) -> Encoder:
    intervals: dict[int, ex.Interval] = {}
    return Encoder(width_for(roots, variables, intervals), intervals)


def encode(term: Any, variables: list[ex.Var] | None = None) -> tuple[Any, list[Any], Encoder]:
    """``(z3 term, domain constraints, encoder)`` for a term, predicate or tuple of terms (lowered here)."""
    low = ex.lower(term)
    vs = list(ex.free_vars(low).values()) if variables is None else variables
    enc = encoder_for([low], vs)
    if isinstance(low, ex.Pred):
        z = enc.pred(low)
    elif isinstance(low, tuple):
        z = tuple(enc.term(t) for t in low)
    else:
        z = enc.term(low)
    cons = [c for v in vs for c in enc.constraints(v)]
    return z, cons, enc


__all__ = ["Encoder", "encode", "encoder_for", "width_for"]
