"""Record every input PyCuTe's unit tests exercise, with the file and line, into a JSON case file.

    python3 tools/extract_pycute_cases.py PYCUTE_TEST_DIR [tests/data/pycute_cases.json] [--sources DIR]
        [--api-reference FILE]

``--sources DIR`` (DIR holds ``pycute/**.py``) adds the examples documented in PyCuTe's docstrings, which its
``test/test_docstring_examples.py`` evaluates (``tools/pycute_doc_examples.py``); their cases name the source file
and line.  ``--api-reference FILE`` adds the examples of PyCuTe's generated ``docs/08_api_reference.md`` (the
version the index holds, file id 57644126546; it documents typedefs.py and swizzle.py, whose newer sources the
index does not name) as ``doc`` cases.

PYCUTE_TEST_DIR holds the ``test_*.py`` files of NVIDIA's pure-Python CuTe reference
(github.com/NVlabs/CuTe, ``test/``).  Nothing of PyCuTe is imported or needed: each test
file is parsed, rewritten and run against a *recording stand-in* for the ``pycute``
package (this file), in which every PyCuTe name builds an expression instead of
computing.  What gets written:

* ``call`` cases: every call of a value-producing operation (``composition``,
  ``nullspace``, ``layout_add``, ...), its arguments rendered in PyCuTe's own notation;
  ``derived`` when an argument is itself the result of an operation;
* ``compare`` / ``truth`` cases: every ``assert`` (and ``assertEqual``...) that involves
  an operation, as ``lhs OP rhs`` or ``expr`` expected true/false;
* ``raises``: set on calls and statements inside ``pytest.raises(X)``.

Loops run for real (a size of a literal layout is computed), so every iteration's input
is recorded; a statement whose control flow needs an operation's *result* (``for i in
range(size(R))``) is skipped.  The checker is ``tests/test_pycute_parity.py``.
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
import os
import re
import sys
import types
from fractions import Fraction
from typing import Any, Callable

VALUE_OPS = {
    "coalesce", "coalesce_z", "composition", "complement", "logical_divide", "zipped_divide",
    "logical_product", "blocked_product", "raked_product", "right_inverse", "left_inverse", "nullspace",
    "layout_add", "greatest_common_domain", "make_layout", "make_layout_like", "make_ordered_layout",
    "tiler_to_layout", "recast", "common_refinement", "common_coarsening", "product_each", "prefix_product",
    "idx2crd", "crd2idx", "make_tensor", "identity_tensor", "_coalesce", "_complement", "_offset_and_slice",
}
OTHER_OPS = {
    "size", "shape", "stride", "rank", "depth", "compatible", "congruent", "weakly_congruent", "product",
    "inner_product", "flatten", "unflatten", "wrap", "unwrap", "get", "lift", "select", "take", "slice_", "dice_",
    "transform_leaf", "transform_apply_leaf", "repeat_like", "leaves", "coshape", "coprofile", "is_tuple", "is_int",
    "is_layout", "is_tensor", "is_stride_scalar", "basis_repr", "is_basis", "proj", "unit", "as_tuple",
    "make_basis_like", "coordinates", "profile", "replace", "zip_leaves", "fold_leaf", "in_bounds",
}
#: The version of each PyCuTe test file the cases were recorded from (github.com/NVlabs/CuTe).
COMMITS = {
    "test_alg_copy.py": "2e12e571c3882c5be669f8d326d630853a3571aa",
    "test_atuple.py": "02e137e305f0205cbf2534444cf7b40b9471dc26",
    "test_blocked_raked.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_coalesce.py": "02e137e305f0205cbf2534444cf7b40b9471dc26",
    "test_coalesce_z.py": "02e137e305f0205cbf2534444cf7b40b9471dc26",
    "test_compatibility.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_complement.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_composition.py": "f1c01997862f2d439840f32868e0d0dfa26d9dbb",
    "test_greatest_common_domain.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_htuple.py": "02e137e305f0205cbf2534444cf7b40b9471dc26",
    "test_inverse_left.py": "13af37e389dcec007cda32c6c0f3361cdc453b68",
    "test_inverse_right.py": "eb530435472d9b7af53ee3e8883d4e504a963ea5",
    "test_layout.py": "5c2a113b95a223647e2d6f707ddd66c5f531dd91",
    "test_layout_add.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_logical_divide.py": "2f1e813fad75146f57c138181c8f9a3ea413c06c",
    "test_logical_product.py": "f46131c7346292b4202a40a6759d6801125f11ff",
    "test_make_layout.py": "2f1e813fad75146f57c138181c8f9a3ea413c06c",
    "test_nullspace.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_recast.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_swizzle.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
    "test_tensor.py": "ca80a0bd4feebbd677379c784d867847b7a0ab9a",
    "test_alg_gemm.py": "b984906279d654e62c916149fda4fd3b9cbdbc83 (imports pycute.alg.ref.gemm: skipped, no layout inputs of its own)",
    "test_docs_exports.py": "9b4e5c0010b7b207bb34a6f1e9308754e350602d (imports PyCuTe's scripts/: skipped)",
    "test_docstring_examples.py": "9b4e5c0010b7b207bb34a6f1e9308754e350602d (imports PyCuTe's scripts/; its inputs, "
                                  "the documented examples, are recorded from the sources: SOURCE_COMMITS)",
    "test_typing.py": "f46131c7346292b4202a40a6759d6801125f11ff (TestTyping only)",
}
#: The version of each PyCuTe source file whose documented examples were recorded (``--sources``): the one with
#: the most examples of those the index holds, the newest where several tie (commits the index does not name
#: are given by its file id).  Versions from before test_docstring_examples.py (9b4e5c0) did not run their
#: examples and hold some that never ran (``Layout((4, 5), (1@0, 1@1))``), so they are not used.
SOURCE_COMMITS = {
    "pycute/accessor.py": "111253d17e2f0f8631f43999b43ac4afa5954b04",
    "pycute/algebra.py": "the newest the index holds (file id 57353001058; its commit is not named)",
    "pycute/atuple.py": "9b4e5c0010b7b207bb34a6f1e9308754e350602d",
    "pycute/htuple.py": "9b4e5c0010b7b207bb34a6f1e9308754e350602d",
    "pycute/layout.py": "111253d17e2f0f8631f43999b43ac4afa5954b04",
    "pycute/shape.py": "111253d17e2f0f8631f43999b43ac4afa5954b04",
    "pycute/stride.py": "9b4e5c0010b7b207bb34a6f1e9308754e350602d",
    "pycute/swizzle.py": "5c2a113b95a223647e2d6f707ddd66c5f531dd91",
    "pycute/tensor.py": "9b4e5c0010b7b207bb34a6f1e9308754e350602d",
    "pycute/typedefs.py": "1a4a2cd49ec55bc0854706ab5b88945614bdcfb3",
}
CONSTRUCTORS = {"Layout", "E", "ArithTuple", "ScaledBasis", "F2", "Swizzle", "V"}


#: At most this many distinct cases of one kind are kept per source line (a loop of 57,600 ArithTuple
#: comparisons in test_atuple.py is the one line over it); the rest are counted in "dropped".
PER_LINE = 256


class Recorder:
    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []
        self.seen: set[tuple[Any, ...]] = set()
        self.file = ""
        self.raises: list[str] = []
        self.per_line: dict[tuple[str, int, str], int] = {}
        self.dropped: dict[str, int] = {}

    def where(self) -> tuple[int, str, str]:
        """(line in the test_* method, that method, innermost function:line) of the current call."""
        frame = sys._getframe(1)
        inner = outer = None
        while frame is not None:
            if frame.f_code.co_filename == self.file and not frame.f_code.co_name.startswith("<"):
                inner = inner or frame
                if frame.f_code.co_name.startswith("test"):
                    outer = frame
            frame = frame.f_back
        top = outer or inner
        if top is None:
            return 0, "", ""
        at = f"{inner.f_code.co_name}:{inner.f_lineno}" if inner is not None and inner is not top else ""
        return top.f_lineno, top.f_code.co_name, at

    def add(self, kind: str, pointwise: bool = False, **fields: Any) -> None:
        line, test, at = self.where()
        if pointwise and at:
            return  # a helper's pointwise post-condition: the checker tests the whole function instead
        key = (self.file, line, kind, json.dumps(fields, sort_keys=True))
        if key in self.seen:
            return
        per_line = (self.file, line, kind)
        if self.per_line.get(per_line, 0) >= PER_LINE:
            self.dropped[f"{self.file}:{line}"] = self.dropped.get(f"{self.file}:{line}", 0) + 1
            return
        self.per_line[per_line] = self.per_line.get(per_line, 0) + 1
        self.seen.add(key)
        case = {"file": self.file, "line": line, "test": test, "kind": kind, **fields}
        if at:
            case["at"] = at
        if self.raises:
            case["raises"] = self.raises[-1]
        self.cases.append(case)


REC = Recorder()
SYMBOLS: set[str] = set()


def render(x: Any) -> str:
    """PyCuTe source text for a value of the sandbox."""
    if isinstance(x, Expr):
        return render(x.value) if x.concrete else x.src
    if isinstance(x, LitLayout):
        return x.src
    if isinstance(x, bool) or x is None:
        return repr(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, Fraction):
        return f"Fraction({x.numerator}, {x.denominator})"
    if isinstance(x, tuple):
        inner = ", ".join(render(e) for e in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    if isinstance(x, list):
        return "[" + ", ".join(render(e) for e in x) + "]"
    if isinstance(x, str):
        return repr(x)
    if isinstance(x, range):
        return repr(x)
    mod = type(x).__module__ or ""
    if mod.startswith("sympy"):
        SYMBOLS.update(str(s) for s in x.free_symbols)
        return f"({x})"
    raise TypeError(f"cannot render {type(x).__name__}")


def evaluates(x: Any) -> bool:
    if isinstance(x, Expr):
        return x.evals
    if isinstance(x, (tuple, list)):
        return any(evaluates(e) for e in x)
    return False


def derived(x: Any) -> bool:
    if isinstance(x, Expr):
        return x.derived
    if isinstance(x, (tuple, list)):
        return any(derived(e) for e in x)
    return False


def value_of(x: Any) -> Any:
    """The concrete value where it is known without an operation's semantics, else raise."""
    if isinstance(x, Atom):
        return x
    if isinstance(x, Expr):
        if x.value is _NONE:
            raise TypeError(f"{x.src} has no concrete value")
        return x.value
    if isinstance(x, (tuple, list)):
        return type(x)(value_of(e) for e in x)
    return x


_NONE = object()


class Expr:
    """A value of the sandbox: PyCuTe source text, and the concrete value when it is known."""

    def __init__(self, src: str, value: Any = _NONE, is_derived: bool = False, concrete: bool = False) -> None:
        self.src, self.value, self.derived, self.concrete = src, value, is_derived, concrete
        self.evals = False  # evaluates a layout at a point (a pointwise post-condition)

    def __repr__(self) -> str:
        return self.src

    def __index__(self) -> int:
        v = value_of(self)
        if isinstance(v, int):
            return v
        raise TypeError("not an int")

    def __bool__(self) -> bool:
        v = value_of(self)
        return bool(v)

    def __len__(self) -> int:
        return len(value_of(self))

    def __iter__(self) -> Any:
        v = value_of(self)
        if isinstance(v, LitLayout):
            v = v.modes()
        for i in range(len(v)):
            yield self[i]

    def __getitem__(self, key: Any) -> Expr:
        v = self.value
        if isinstance(v, LitLayout) and isinstance(key, int):
            mode = v.mode(key)
            return Expr(mode.src, mode)
        if isinstance(v, tuple) and isinstance(key, int) and not isinstance(self, Atom):
            return Expr(f"{self.src}[{key}]", v[key], self.derived, concrete=True)
        return Expr(f"{self.src}[{render(key)}]", _NONE, True)

    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__"):
            raise AttributeError(name)
        v = self.value
        if name in VALUE_OPS:
            return _Method(self, name)
        if isinstance(v, LitLayout) and name in ("shape", "stride"):
            return Expr(f"{self.src}.{name}", getattr(v, name), False, concrete=True)
        return Expr(f"{self.src}.{name}", _NONE, True)

    def __call__(self, *args: Any, **kwargs: Any) -> Expr:
        text = ", ".join([render(a) for a in args] + [f"{k}={render(v)}" for k, v in kwargs.items()])
        out = Expr(f"{self.src}({text})", _NONE, True)
        out.evals = True
        return out

    def _binop(self, other: Any, op: str, swap: bool = False) -> Expr:
        a, b = (other, self) if swap else (self, other)
        src = f"({render(a)} {op} {render(b)})"
        va, vb = _lit(a), _lit(b)
        if isinstance(va, Atom) or isinstance(vb, Atom):
            return Atom(src) if va is not _NONE and vb is not _NONE else Expr(src, _NONE, True)
        try:
            value = eval(f"a {op} b", {"a": va, "b": vb}) if va is not _NONE and vb is not _NONE else _NONE
        except Exception:
            value = _NONE
        out = Expr(src, value, derived(a) or derived(b), concrete=value is not _NONE and not isinstance(value, LitLayout))
        out.evals = evaluates(a) or evaluates(b)
        return out

    def __add__(self, o: Any) -> Expr: return self._binop(o, "+")
    def __radd__(self, o: Any) -> Expr: return self._binop(o, "+", True)
    def __sub__(self, o: Any) -> Expr: return self._binop(o, "-")
    def __rsub__(self, o: Any) -> Expr: return self._binop(o, "-", True)
    def __mul__(self, o: Any) -> Expr: return self._binop(o, "*")
    def __rmul__(self, o: Any) -> Expr: return self._binop(o, "*", True)
    def __floordiv__(self, o: Any) -> Expr: return self._binop(o, "//")
    def __mod__(self, o: Any) -> Expr: return self._binop(o, "%")
    def __neg__(self) -> Expr: return Expr(f"(-{self.src})", _NONE, self.derived)

    def __eq__(self, o: Any) -> bool:  # type: ignore[override]
        raise TypeError("comparison outside an assert")

    def _order(self, o: Any, op: str) -> bool:
        """``<``-style comparisons outside an assert (``if rank(A) < rank(B): continue``): decided where both sides
        are known, else TypeError (the guard then ends the loop iteration)."""
        a, b = _lit(self), _lit(o)
        if a is _NONE or b is _NONE or isinstance(a, Atom) or isinstance(b, Atom):
            raise TypeError("an order on values known only to PyCuTe")
        return bool(eval(f"a {op} b", {"a": a, "b": b}))

    def __lt__(self, o: Any) -> bool: return self._order(o, "<")
    def __le__(self, o: Any) -> bool: return self._order(o, "<=")
    def __gt__(self, o: Any) -> bool: return self._order(o, ">")
    def __ge__(self, o: Any) -> bool: return self._order(o, ">=")

    __hash__ = None  # type: ignore[assignment]


class Atom(Expr):
    """A literal stride scalar (``E(1)``, ``2*E(0)``, ``F2(3)``): known as source text, its own value."""

    def __init__(self, src: str) -> None:
        super().__init__(src, _NONE, False)
        self.value = self


class _Method(Expr):
    def __init__(self, obj: Expr, name: str) -> None:
        super().__init__(f"{obj.src}.{name}", _NONE, obj.derived)
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Expr:
        out = Expr.__call__(self, *args, **kwargs)
        REC.add("call", op=self.name, src=out.src, derived=derived(list(args) + list(kwargs.values())) or self.derived)
        return out


def _prefix(shape: Any, init: Any) -> Any:
    if isinstance(shape, tuple):
        out, run = [], init
        for s in shape:
            out.append(_prefix(s, run))
            run = run * _product(s)
        return tuple(out)
    return init


def _product(t: Any) -> Any:
    return math.prod(_product(e) for e in t) if isinstance(t, tuple) else t


def _expand(shape: Any, stride: Any) -> Any:
    """PyCuTe's constructor: an int stride for a tuple shape means the prefix products scaled by it."""
    if isinstance(shape, tuple):
        if isinstance(stride, tuple):
            return tuple(_expand(s, d) for s, d in zip(shape, stride))
        return _prefix(shape, stride)
    return stride


class LitLayout:
    """A layout written with literals only (its modes and sizes are known without any semantics)."""

    def __init__(self, shape: Any, stride: Any) -> None:
        self.shape, self.stride = shape, stride
        self.src = f"Layout({render(shape)}, {render(stride)})"

    def modes(self) -> list[LitLayout]:
        if isinstance(self.shape, tuple):
            full = _expand(self.shape, self.stride)
            return [LitLayout(s, d) for s, d in zip(self.shape, full)]
        return [self]

    def mode(self, i: int) -> LitLayout:
        return self.modes()[i]


def _lit(value: Any) -> Any:
    """Concrete value of every argument, or _NONE if any is unknown."""
    try:
        return value_of(value)
    except TypeError:
        return _NONE


def make_constructor(name: str) -> Callable[..., Expr]:
    def build(*args: Any, **kwargs: Any) -> Expr:
        text = ", ".join([render(a) for a in args] + [f"{k}={render(v)}" for k, v in kwargs.items()])
        vals = _lit(list(args) + list(kwargs.values()))
        src = f"{name}({text})"
        if vals is _NONE:
            return Expr(src, _NONE, True)
        if name == "Layout" and not kwargs:
            layout = LitLayout(vals[0], vals[1] if len(vals) > 1 else 1)
            return Expr(layout.src, layout)
        return Atom(src)

    return build


class Op:
    """A PyCuTe operation: records the call; ``op[i, j]`` gives the by-mode form."""

    def __init__(self, name: str, path: tuple[Any, ...] = ()) -> None:
        self.name, self.path = name, path

    def __getitem__(self, key: Any) -> Op:
        return Op(self.name, self.path + (key if isinstance(key, tuple) else (key,)))

    def __call__(self, *args: Any, **kwargs: Any) -> Expr:
        head = self.name + "".join(f"[{render(p) if not isinstance(p, tuple) else render(p)[1:-1]}]" for p in self.path)
        text = ", ".join([render(a) for a in args] + [f"{k}={render(v)}" for k, v in kwargs.items()])
        src = f"{head}({text})"
        is_derived = derived(list(args) + list(kwargs.values()))
        value = _NONE if kwargs else self.concrete(args)
        if self.name in VALUE_OPS:
            REC.add("call", op=self.name, src=src, derived=is_derived)
        return Expr(src, value, True, concrete=value is not _NONE)

    def concrete(self, args: tuple[Any, ...]) -> Any:
        """size/shape/rank/depth/product of literal arguments (loops over literal layouts need them)."""
        vals = _lit(list(args))
        if vals is _NONE or len(vals) != 1 or self.name not in ("size", "product", "shape", "rank", "depth"):
            return _NONE
        x = vals[0]
        for i in self.path:
            if isinstance(x, LitLayout):
                x = x.mode(i)
            elif isinstance(x, tuple) and isinstance(i, int):
                x = x[i]
            else:
                return _NONE
        shp = x.shape if isinstance(x, LitLayout) else x
        if self.name == "rank" and isinstance(shp, tuple):  # a tuple of anything (layouts, None): its length
            return len(shp)
        if isinstance(shp, Expr) or not _is_int_tuple(shp):
            return _NONE
        if self.name in ("size", "product"):
            return _product(shp)
        if self.name == "shape":
            return shp
        if self.name == "rank":
            return len(shp) if isinstance(shp, tuple) else 1
        return _depth(shp)


def _is_int_tuple(x: Any) -> bool:
    return isinstance(x, int) or (isinstance(x, tuple) and all(_is_int_tuple(e) for e in x))


def _depth(x: Any) -> int:
    return 1 + max((_depth(e) for e in x), default=0) if isinstance(x, tuple) else 0


def _cmp(line: int, left: Callable[[], Any], rest: list[tuple[str, Callable[[], Any]]]) -> None:
    try:
        values = [left()] + [f() for _, f in rest]
    except Exception:
        return
    for (op, _), a, b in zip(rest, values, values[1:]):
        try:
            la, rb = top(a), top(b)
        except TypeError:
            continue
        if derived_or_op(a) or derived_or_op(b):
            REC.add("compare", pointwise=evaluates(a) or evaluates(b), lhs=la, op=op, rhs=rb)


def top(x: Any) -> str:
    """Like :func:`render`, but an operation's result keeps its operation form (``size(L)``, not ``24``)."""
    if isinstance(x, Expr):
        return x.src
    if isinstance(x, tuple):
        inner = ", ".join(top(e) for e in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    if isinstance(x, list):
        return "[" + ", ".join(top(e) for e in x) + "]"
    return render(x)


def derived_or_op(x: Any) -> bool:
    if isinstance(x, Expr):
        return True
    if isinstance(x, (tuple, list)):
        return any(derived_or_op(e) for e in x)
    return False


def _truth(line: int, f: Callable[[], Any], expect: bool) -> None:
    try:
        v = f()
        if isinstance(v, Expr):
            REC.add("truth", pointwise=v.evals, src=v.src, expect=expect)
    except Exception:
        return


@contextlib.contextmanager
def _raises(line: int, exc: str) -> Any:
    REC.raises.append(exc)
    start = len(REC.cases)
    try:
        yield
    except Exception:
        pass
    finally:
        REC.raises.pop()
        _outermost_raises(REC.cases[start:])


def _outermost_raises(window: list[dict[str, Any]]) -> None:
    """Inside ``pytest.raises``, a call whose result a later call consumed did not raise: only the outer one
    keeps the expectation (``copy(x, make_tensor(L))`` expects the copy to raise, not make_tensor)."""
    calls = [c for c in window if c["kind"] == "call" or (c["kind"] == "truth" and c.get("expect", 0) is None)]
    for k, case in enumerate(calls):
        if case["kind"] == "call" and any(case["src"] in later["src"] for later in calls[k + 1:]):
            case.pop("raises", None)


def _raise_expr(line: int, f: Callable[[], Any]) -> None:
    before = len(REC.cases)
    try:
        v = f()
    except Exception:
        return
    if isinstance(v, Expr) and not (len(REC.cases) > before and REC.cases[-1].get("src") == v.src):
        REC.add("truth", src=v.src, expect=None)


class _Lam:
    def __init__(self, fn: Callable[..., Any], src: str) -> None:
        self.fn, self.src = fn, src

    def __call__(self, *a: Any) -> Any:
        return self.fn(*a)


class Rewriter(ast.NodeTransformer):
    """asserts -> recorders; each statement in a function body -> try/except; raises blocks -> _raises."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        node.body = [self.guard(s) for s in node.body]
        return node

    def guard(self, stmt: ast.stmt, in_loop: bool = False) -> ast.stmt:
        """``stmt`` in a try whose handler passes; an ``if`` that may leave the loop iteration (``if rank(A) <
        rank(B): continue``) and whose test cannot be decided here (it needs an operation's result) ends the
        iteration instead, so nothing after it is recorded that PyCuTe may never run."""
        leaves = isinstance(stmt, ast.If) and any(isinstance(s, (ast.Continue, ast.Break)) for s in stmt.body)
        for field in ("body", "orelse"):
            if isinstance(stmt, (ast.For, ast.If, ast.With, ast.While)) and getattr(stmt, field, None):
                inner = in_loop or isinstance(stmt, (ast.For, ast.While))
                setattr(stmt, field, [self.guard(s, inner) for s in getattr(stmt, field)])
        body: list[ast.stmt] = [ast.Continue()] if in_loop and leaves else [ast.Pass()]
        handler = ast.ExceptHandler(type=ast.Name("Exception", ast.Load()), name=None, body=body)
        return ast.copy_location(ast.Try(body=[stmt], handlers=[handler], orelse=[], finalbody=[]), stmt)

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        self.generic_visit(node)
        test, line = node.test, ast.Constant(node.lineno)
        if isinstance(test, ast.Compare):
            rest = ast.List([ast.Tuple([ast.Constant(_OPS[type(o)]), _lam(c)], ast.Load())
                             for o, c in zip(test.ops, test.comparators)], ast.Load())
            call = _call("_cmp", [line, _lam(test.left), rest])
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            call = _call("_truth", [line, _lam(test.operand), ast.Constant(False)])
        else:
            call = _call("_truth", [line, _lam(test), ast.Constant(True)])
        return ast.copy_location(ast.Expr(call), node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return _call("_Lam", [node, ast.Constant(ast.unparse(node))])

    def visit_With(self, node: ast.With) -> ast.stmt:
        self.generic_visit(node)
        ctx = node.items[0].context_expr
        name = ast.unparse(ctx.func) if isinstance(ctx, ast.Call) else ""
        if name in ("pytest.raises", "self.assertRaises", "self.assertRaisesRegex") and isinstance(ctx, ast.Call):
            exc = ast.unparse(ctx.args[0]) if ctx.args else "Exception"
            node.items = [ast.withitem(_call("_raises", [ast.Constant(node.lineno), ast.Constant(exc)]), None)]
            node.body = [ast.copy_location(ast.Expr(_call("_raise_expr", [ast.Constant(s.lineno), _lam(s.value)])), s)
                         if isinstance(s, ast.Expr) else s for s in node.body]
        return node


_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
        ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}


def _lam(expr: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.Lambda(args, expr)


def _call(name: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), args, [])


# ---------------------------------------------------------------------------
# the stand-in package and the runner
# ---------------------------------------------------------------------------
class _TestCase:
    """unittest.TestCase stand-in: assertions record, raises blocks record."""

    def assertEqual(self, a: Any, b: Any, msg: Any = None) -> None:
        _cmp(0, lambda: a, [("==", lambda: b)])

    def assertNotEqual(self, a: Any, b: Any, msg: Any = None) -> None:
        _cmp(0, lambda: a, [("!=", lambda: b)])

    def assertIn(self, a: Any, b: Any, msg: Any = None) -> None:
        _cmp(0, lambda: a, [("in", lambda: b)])

    def assertNotIn(self, a: Any, b: Any, msg: Any = None) -> None:
        _cmp(0, lambda: a, [("not in", lambda: b)])

    def assertTrue(self, a: Any, msg: Any = None) -> None:
        _truth(0, lambda: a, True)

    def subTest(self, *a: Any, **k: Any) -> Any:
        return contextlib.nullcontext()

    def skipTest(self, reason: str) -> None:
        raise RuntimeError(reason)


def _fake_modules() -> dict[str, types.ModuleType]:
    pycute = types.ModuleType("pycute")
    names: dict[str, Any] = {n: Op(n) for n in VALUE_OPS | OTHER_OPS if not n.startswith("_")}
    names.update({n: make_constructor(n) for n in CONSTRUCTORS})
    for n in ("Tensor", "Array", "Ptr", "ImplicitAccessor", "TransformAccessor"):
        names[n] = Op(n)
    names["MutableAccessor"] = type("MutableAccessor", (), {})
    names["Integer"] = type("Integer", (), {})
    names["StrideScalar"] = type("StrideScalar", (), {})
    names["ModeOpDecorator"] = lambda f: f
    pycute.__dict__.update(names)
    pycute.__all__ = sorted(names)  # type: ignore[attr-defined]
    alg, ref = types.ModuleType("pycute.alg"), types.ModuleType("pycute.alg.ref")
    alg.copy, ref.copy = Op("copy"), Op("copy_ref")  # type: ignore[attr-defined]
    swz, tdefs = types.ModuleType("pycute.swizzle"), types.ModuleType("pycute.typedefs")
    swz.F2 = names["F2"]  # type: ignore[attr-defined]
    tdefs.register_integer_type = lambda *t: None  # type: ignore[attr-defined]
    ut = types.ModuleType("unittest")
    ut.TestCase, ut.main = _TestCase, (lambda *a, **k: None)  # type: ignore[attr-defined]
    pt = types.ModuleType("pytest")
    pt.raises = _raises  # type: ignore[attr-defined]

    def importorskip(name: str) -> Any:
        raise RuntimeError(f"{name} is not part of the recording")

    pt.importorskip = importorskip  # type: ignore[attr-defined]
    return {"pycute": pycute, "pycute.alg": alg, "pycute.alg.ref": ref, "pycute.swizzle": swz,
            "pycute.typedefs": tdefs, "unittest": ut, "pytest": pt}


def run_file(path: str, rel: str) -> None:
    """Execute one PyCuTe test file against the stand-in, calling every test method."""
    run_tree(ast.parse(open(path, encoding="utf-8").read(), rel), path, rel)


def run_doc_examples(path: str, rel: str) -> int:
    """Record the documented examples of one PyCuTe source file (``tools/pycute_doc_examples.py``), each case at
    the file and line of its example; returns how many examples there are."""
    from pycute_doc_examples import example_module

    tree, count = example_module(open(path, encoding="utf-8").read(), rel)
    if count:
        run_tree(tree, path, rel)
    return count


def run_tree(tree: ast.Module, path: str, rel: str) -> None:
    """Execute a parsed test module against the stand-in, calling every test method; cases name ``rel``."""
    tree = Rewriter().visit(tree)
    ast.fix_missing_locations(tree)
    code = compile(tree, rel, "exec")
    namespace: dict[str, Any] = {"__name__": "pycute_test", "__file__": os.path.abspath(path), "_cmp": _cmp, "_truth": _truth,
                                 "_raises": _raises, "_raise_expr": _raise_expr, "_Lam": _Lam}
    REC.file = rel
    saved = {k: sys.modules.get(k) for k in _fake_modules()}
    sys.modules.update(_fake_modules())
    try:
        exec(code, namespace)
        for cls in [v for v in namespace.values() if isinstance(v, type) and v.__module__ == "pycute_test"]:
            for name in [n for n in vars(cls) if n.startswith("test")]:
                try:
                    getattr(cls.__new__(cls), name)()
                except Exception:
                    pass
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def main(argv: list[str]) -> None:
    sources = api_reference = None
    if "--sources" in argv:  # a folder holding pycute/**.py: their documented examples too
        at = argv.index("--sources")
        sources = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    if "--api-reference" in argv:  # PyCuTe's generated docs/08_api_reference.md: the examples it renders
        at = argv.index("--api-reference")
        api_reference = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    src_dir = argv[1]
    out = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "pycute_cases.json")
    for name in sorted(os.listdir(src_dir)):
        if name.startswith("test_") and name.endswith(".py"):
            try:
                run_file(os.path.join(src_dir, name), f"test/{name}")
            except Exception as err:  # a module body the stand-in cannot run (an import of PyCuTe's scripts/)
                print(f"skipped test/{name}: {type(err).__name__}: {err}", file=sys.stderr)
    if sources is not None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        for folder, _, files in sorted(os.walk(os.path.join(sources, "pycute"))):
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    rel = os.path.relpath(path, sources).replace(os.sep, "/")
                    before = len(REC.cases)
                    count = run_doc_examples(path, rel)
                    from pycute_doc_examples import doc_cases

                    REC.cases.extend(doc_cases(open(path, encoding="utf-8").read(), rel))  # each example, run whole
                    print(f"{rel}: {count} documented examples, {len(REC.cases) - before} cases", file=sys.stderr)
    if api_reference is not None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from pycute_doc_examples import api_reference_cases

        REC.cases.extend(api_reference_cases(open(api_reference, encoding="utf-8").read(), "docs/08_api_reference.md"))
    for i, case in enumerate(REC.cases):
        case["id"] = i
        text = json.dumps(case)
        if any(re.search(rf"\b{sym}\b", text) for sym in SYMBOLS):
            case["symbolic"] = True
    doc = {
        "source": "NVlabs/CuTe (PyCuTe) test/*.py, recorded by tools/extract_pycute_cases.py",
        "commits": COMMITS,
        "source_commits": SOURCE_COMMITS if sources is not None else {},
        "kinds": {"call": "an operation called on these arguments", "compare": "lhs OP rhs asserted",
                  "truth": "src asserted true (expect true/false); expect null: src must raise",
                  "doc": "a documented example run whole after its docstring's setup statements: expect true "
                         "(code holds), raises (code raises), setup (code is a statement)"},
        "dropped_per_line": REC.dropped,
        "cases": REC.cases,
    }
    cases = doc.pop("cases")
    for c in cases:  # drop empty fields; one case per line keeps the file diffable
        if not c.get("derived"):
            c.pop("derived", None)
    body = json.dumps(doc, indent=1, ensure_ascii=False)[:-2]
    lines = ",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases)
    with open(out, "w", encoding="utf-8") as f:
        f.write(body + ',\n "cases": [\n' + lines + "\n ]\n}\n")
    counts: dict[str, int] = {}
    for c in REC.cases:
        counts[c["kind"]] = counts.get(c["kind"], 0) + 1
    print(f"{len(REC.cases)} cases {counts} -> {out}")


if __name__ == "__main__":
    main(sys.argv)
