"""A layout's index function as a readable sympy formula (plain text and LaTeX).

``formula(L)`` takes one symbol per top-level mode (``i, j, k, ...`` or the
names given) and writes CuTe's ``crd2idx``: a mode of extent ``s`` and stride
``d`` contributes ``d * c``; a nested mode splits its coordinate
colexicographically, ``c mod s_0``, ``floor(c / s_0) mod s_1``, ..., the last
leaf without ``mod``.  ``formula(L, form="index")`` writes the 1-D index form
``sum_k d_k * (floor(x / p_k) mod s_k)`` over one symbol ``x``.  A
``Swizzle<B,M,S>`` is ``y XOR floor((y AND yyy_mask) / 2**S)`` (a left shift
for ``S < 0``) and a ``ComposedLayout(outer, offset, inner)`` is
``outer(offset + inner(c))``.  Modes of extent 1 and stride-0 modes vanish.

The result is a :class:`Formula`: ``.expr`` (sympy), ``.symbols``,
``str(f)`` (``f(i, j) = 8*i + j``), ``f.latex()`` and ``f(*values)`` (evaluate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove import expr as ex


def _bit_functions() -> tuple[Any, Any]:
    import sympy

    class BitXor(sympy.Function):  # type: ignore[misc]
        """Bitwise XOR of two integers (evaluates on integer arguments)."""

        @classmethod
        def eval(cls, a: Any, b: Any) -> Any:
            if a.is_Integer and b.is_Integer:
                return sympy.Integer(int(a) ^ int(b))
            if b == 0:
                return a
            if a == 0:
                return b
            return None

        def _sympystr(self, printer: Any) -> str:
            a, b = self.args
            return f"({_wrap(printer, a)} XOR {_wrap(printer, b)})"

        def _latex(self, printer: Any) -> str:
            a, b = self.args
            return rf"\left({_wrap(printer, a, True)} \oplus {_wrap(printer, b, True)}\right)"

    class BitAnd(sympy.Function):  # type: ignore[misc]
        """Bitwise AND of two integers (evaluates on integer arguments)."""

        @classmethod
        def eval(cls, a: Any, b: Any) -> Any:
            if a.is_Integer and b.is_Integer:
                return sympy.Integer(int(a) & int(b))
            if a == 0 or b == 0:
                return sympy.Integer(0)
            return None

        def _sympystr(self, printer: Any) -> str:
            a, b = self.args
            return f"({_wrap(printer, a)} AND {_hex(b)})"

        def _latex(self, printer: Any) -> str:
            a, b = self.args
            return rf"\left({_wrap(printer, a, True)} \mathbin{{\&}} \mathtt{{{_hex(b)}}}\right)"

    return BitXor, BitAnd


def _wrap(printer: Any, x: Any, latex: bool = False) -> str:
    text = printer.doprint(x)
    if not getattr(x, "is_Add", False):
        return text
    return rf"\left({text}\right)" if latex else f"({text})"


def _hex(b: Any) -> str:
    try:
        return hex(int(b))
    except TypeError:
        return str(b)


_FUNCS: tuple[Any, Any] | None = None


def _funcs() -> tuple[Any, Any]:
    global _FUNCS
    if _FUNCS is None:
        _FUNCS = _bit_functions()
    return _FUNCS


@dataclass(frozen=True)
class Formula:
    """A rendered index function: ``name(symbols) = expr``."""

    expr: Any
    symbols: tuple[Any, ...]
    name: str = "f"

    def __str__(self) -> str:
        import sympy

        return f"{self.name}({', '.join(str(s) for s in self.symbols)}) = {sympy.sstr(self.expr, order='none')}"

    def latex(self) -> str:
        import sympy

        args = ", ".join(sympy.latex(s) for s in self.symbols)
        return f"{self.name}({args}) = {sympy.latex(self.expr, order='none')}"

    def __call__(self, *values: int) -> int:
        if len(values) != len(self.symbols):
            raise ProofError(f"formula takes {len(self.symbols)} values ({', '.join(map(str, self.symbols))}), got {len(values)}")
        return int(self.expr.subs(dict(zip(self.symbols, values))))


def _split(c: Any, shape: Any, stride: Any) -> Any:
    """crd2idx of a 1-D coordinate term ``c`` into ``shape:stride`` (sympy; the last leaf's digit unbounded)."""
    import sympy

    from layoutalg.core.int_tuple import index_digits

    terms: list[Any] = []
    for running, s, d, is_last in index_digits(shape, stride):
        q = c if running == 1 else sympy.floor(c / running)
        terms.append(d * (q if is_last else sympy.Mod(q, s)))
    return _sum(terms)


def _sum(terms: list[Any]) -> Any:
    """A sum that keeps the modes' order when printed (``order='none'``)."""
    import sympy

    flat: list[Any] = []
    for t in terms:
        flat.extend(t.args if isinstance(t, sympy.Add) else [t])
    terms = [t for t in flat if t != 0]
    if not terms:
        return sympy.Integer(0)
    return terms[0] if len(terms) == 1 else sympy.Add(*terms, evaluate=False)


def _apply(fn: Any, args: Sequence[Any]) -> Any:
    import sympy

    kind = ex.kind_of(fn)
    if kind == "layout":
        if len(args) == 1:
            return _split(args[0], fn.shape, fn.stride)
        modes = fn.shape if isinstance(fn.shape, tuple) else (fn.shape,)
        strides = fn.stride if isinstance(fn.stride, tuple) else (fn.stride,)
        if len(args) != len(modes):
            raise ProofError(f"formula: {fn} has {len(modes)} modes but {len(args)} coordinate names were given")
        return _sum([_split(a, s, d) for a, s, d in zip(args, modes, strides)])
    if kind == "swizzle":
        bit_xor, bit_and = _funcs()
        (y,) = args
        if fn.bits == 0:
            return y
        yyy = ((1 << fn.bits) - 1) << (fn.base + max(0, fn.shift))
        picked = bit_and(y, sympy.Integer(yyy))
        moved = sympy.floor(picked / 2**fn.shift) if fn.shift >= 0 else picked * 2 ** (-fn.shift)
        return bit_xor(y, moved)
    inner = _apply(fn.inner, args)
    return _apply(fn.outer, [_sum([sympy.Integer(fn.offset), inner]) if fn.offset else inner])


def formula(obj: Any, names: Sequence[str] | None = None, form: str = "coord") -> Formula:
    """The index function of a ``Layout``, ``Swizzle`` or ``ComposedLayout`` (see module docstring)."""
    import sympy

    fn = obj.fn if isinstance(obj, ex.Sym) else obj
    kind = ex.kind_of(fn)
    if not isinstance(form, str) or form not in ("coord", "index"):
        raise ProofError(f"formula form must be 'coord' or 'index', got {describe(form)}")
    if names is not None and (isinstance(names, str) or not isinstance(names, (list, tuple))):
        raise ProofError(f"formula: names must be a list of identifiers, got {describe(names)}")
    if kind == "swizzle" or form == "index":
        count = 1
    else:
        shape = fn.shape if kind == "layout" else fn.inner.shape
        count = len(shape) if isinstance(shape, tuple) else 1
    if names is None:
        default = ["x"] if count == 1 and (form == "index" or kind == "swizzle") else list("ijklmn")
        if count > len(default):
            default = [f"c{k}" for k in range(count)]
        names = default[:count]
    if not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise ProofError(f"formula: coordinate names must be identifiers, got {describe(list(names))}")
    if len(names) != count:
        raise ProofError(f"formula: {fn} needs {count} coordinate names, got {list(names)}")
    symbols = tuple(sympy.Symbol(n, integer=True, nonnegative=True) for n in names)
    return Formula(_apply(fn, symbols), symbols)


__all__ = ["formula", "Formula"]
