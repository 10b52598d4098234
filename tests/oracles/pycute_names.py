"""PyCuTe's spellings, answered by layoutalg: the namespace the recorded PyCuTe cases are evaluated in.

Each PyCuTe name maps to the layoutalg call with the same meaning (argument order,
promotions such as an int tiler ``N`` meaning ``N:1``, ``op[i, j](A, ...)`` acting on
mode ``(i, j)``).  A name or an input kind layoutalg does not have raises
:class:`MissingFeatureError`, so the parity test can count it apart from a wrong answer.
Test-only: layoutalg's own API is the one documented in the package.
"""

from __future__ import annotations

import ast
import functools
from fractions import Fraction
from typing import Any, Callable

import layoutalg as la
from layoutalg.core import int_tuple as it


class MissingFeatureError(Exception):
    """An operation, argument kind or stride kind that layoutalg does not (yet) offer."""


def need(name: str) -> Callable[..., Any]:
    """layoutalg's function ``name`` (top level first), or MissingFeatureError."""
    for mod in (la, la.core):
        fn = getattr(mod, name, None)
        if fn is not None:
            return fn  # type: ignore[no-any-return]
    raise MissingFeatureError(f"layoutalg has no {name}")


def _expand(shape: Any, stride: Any) -> Any:
    """PyCuTe's constructor: an int stride ``k`` for a tuple shape is ``prefix_product(shape, k)``."""
    if isinstance(shape, tuple):
        if isinstance(stride, tuple):
            return tuple(_expand(s, d) for s, d in zip(shape, stride))
        return it.prefix_product(shape, stride)
    return stride


def _leaves_are_ints(t: Any) -> bool:
    return isinstance(t, int) or (isinstance(t, tuple) and all(_leaves_are_ints(e) for e in t))


def _has_sympy(t: Any) -> bool:
    if isinstance(t, tuple):
        return any(_has_sympy(e) for e in t)
    return type(t).__module__.startswith("sympy")


def _expand_symbolic(shape: Any, stride: Any) -> Any:
    if isinstance(shape, tuple):
        if isinstance(stride, tuple):
            return tuple(_expand_symbolic(s, d) for s, d in zip(shape, stride))
        from layoutalg.core.symbolic import prefix_product

        return prefix_product(shape, stride)
    return stride


def Layout(shape: Any, stride: Any = 1) -> Any:
    if _has_sympy(shape) or _has_sympy(stride):  # PyCuTe's sympy shapes/strides
        return la.symbolic_layout(shape, _expand_symbolic(shape, stride))
    if not _leaves_are_ints(stride):
        return need("stride_layout")(shape, stride)  # E / ArithTuple / F2 strides
    return la.Layout(shape, _expand(shape, stride))


def _stride_kind(name: str) -> Callable[..., Any]:
    def build(*args: Any) -> Any:
        return need(name)(*args)

    return build


E = _stride_kind("E")
ArithTuple = _stride_kind("ArithTuple")
ScaledBasis = _stride_kind("ScaledBasis")
F2 = _stride_kind("F2")


def Swizzle(bits: int, base: int, shift: int) -> Any:
    return la.Swizzle(bits, base, shift)


def _is_layout(x: Any) -> bool:
    return isinstance(x, (la.Layout, la.ComposedLayout, la.SymbolicLayout)) or type(x).__name__ == "StrideLayout"


def _get(x: Any, path: tuple[int, ...]) -> Any:
    if isinstance(x, la.Tensor):  # a mode of a tensor is a mode of its layout
        return x.with_layout(_get(x.layout, path))
    for i in path:
        x = x[i]
    return x


def _replace(x: Any, path: tuple[int, ...], value: Any) -> Any:
    """``x`` with its mode at ``path`` replaced (layouts are rebuilt from their modes)."""
    if not path:
        return value
    if isinstance(x, la.Tensor):
        return x.with_layout(_replace(x.layout, path, value.layout if isinstance(value, la.Tensor) else value))
    modes = list(x) if _is_layout(x) else list(x)
    if not 0 <= path[0] < len(modes):
        raise la.CoordinateError(f"mode {path[0]} out of range")
    modes[path[0]] = _replace(modes[path[0]], path[1:], value)
    return la.make_layout(*modes) if _is_layout(x) else tuple(modes)


def _place(value: Any, path: tuple[int, ...]) -> Any:
    """A layout with ``value`` at mode ``path`` and ``1:0`` in every mode before it on the way
    (PyCuTe's ``composition[1](None, 12) == make_layout([Layout(1, 0), Layout(12, 1)])``)."""
    for i in reversed(path):
        value = la.make_layout(*([la.Layout(1, 0)] * i + [value]))
    return value


def _path(mode: Any) -> tuple[int, ...]:
    if mode is None:
        return ()
    return tuple(mode) if isinstance(mode, (tuple, list)) else (mode,)


class ModeOp:
    """``op(x, ..., mode=path)`` and ``op[path](x, ...)``.

    ``kind="transform"``: apply to the mode at ``path`` of the first argument and put the
    result back (composition, coalesce, the divides); ``"access"``: apply to that mode and
    return what it gives (shape, size, rank, ...).
    """

    def __init__(self, fn: Callable[..., Any], kind: str, path: tuple[Any, ...] = ()) -> None:
        self.fn, self.kind, self.path = fn, kind, path

    def __getitem__(self, key: Any) -> ModeOp:
        return ModeOp(self.fn, self.kind, self.path + (key if isinstance(key, tuple) else (key,)))

    def __call__(self, x: Any, *args: Any, mode: Any = None, **kwargs: Any) -> Any:
        path = self.path + _path(mode)
        if self.kind == "access":
            return self.fn(_get(x, path), *args, **kwargs)
        if not path:
            return self.fn(x, *args, **kwargs)
        if x is None:  # PyCuTe: None has no modes to select, so the mode places the result (1:0 before it)
            return _place(self.fn(None, *args, **kwargs), path)
        return _replace(x, path, self.fn(_get(x, path), *args, **kwargs))


class Indexed:
    """``select[i, j](x)``, ``take[b, e](x)``, ``lift[path](v)``: the subscript is the op's argument."""

    def __init__(self, fn: Callable[..., Any], index: tuple[Any, ...] = ()) -> None:
        self.fn, self.index = fn, index

    def __getitem__(self, key: Any) -> Indexed:
        return Indexed(self.fn, self.index + (key if isinstance(key, tuple) else (key,)))

    def __call__(self, x: Any, *args: Any, mode: Any = None, **kwargs: Any) -> Any:
        return self.fn(x, *args, mode=self.index + _path(mode), **kwargs)


# ---------------------------------------------------------------------------
# promotions PyCuTe applies to arguments
# ---------------------------------------------------------------------------
def tiler_layout(x: Any) -> Any:
    """PyCuTe promotes an int or a shape to ``tiler_to_layout`` of it."""
    if _is_layout(x) or isinstance(x, la.Tensor):
        return x
    if x is None:
        raise MissingFeatureError("a None layout argument (PyCuTe's identity tiler needs basis strides)")
    return tiler_to_layout(x)


def tiler_to_layout(x: Any, e: Any = 1) -> Any:
    return need("tiler_to_layout")(x) if type(e) is int and e == 1 else need("tiler_to_layout")(x, e)


def _shape_of(x: Any) -> Any:
    return x.shape if _is_layout(x) else x


def _htuple(x: Any) -> Any:
    """PyCuTe treats a Layout inside an HTuple relation as a leaf."""
    return 0 if _is_layout(x) else x


def _divide(name: str) -> Callable[..., Any]:
    def op(a: Any, b: Any) -> Any:
        if b is None:
            return a
        return need(name)(None if a is None else tiler_layout(a), b)

    return op


def _product_op(name: str) -> Callable[..., Any]:
    def op(a: Any, b: Any) -> Any:
        if a is None:  # PyCuTe raises for a None layout, whatever the tiler
            return need(name)(None, b)
        if b is None:
            return a
        return need(name)(tiler_layout(a), b)

    return op


def _composition(a: Any, b: Any) -> Any:
    """A swizzle composed with a layout is CuTe's ``ComposedLayout`` (C++'s spelling; PyCuTe writes F2 strides)."""
    if a is None:  # PyCuTe's identity of unknown extents: the coordinates B walks
        return la.composition(None, b)
    return la.composition(a if isinstance(a, la.Swizzle) else tiler_layout(a), b)


def _coalesce(a: Any, profile: Any = 1) -> Any:
    """PyCuTe's default profile 1 is the whole layout; ``None`` is a no-op."""
    return a if profile is None else la.coalesce(a, profile)


def _coalesce_z(a: Any, profile: Any = 1) -> Any:
    """As :func:`_coalesce`."""
    return a if profile is None else need("coalesce_z")(a, profile)


def promote(a: Any) -> Any:
    """PyCuTe's algebra reads an int or a tuple (a tiler) as ``tiler_to_layout`` of it: ``(4, 2)`` is
    ``(4,2):(E(0),E(1))``, not CuTe C++'s compact ``(4,2):(1,4)``; anything else is itself."""
    return tiler_to_layout(a) if isinstance(a, (int, tuple, list)) and not isinstance(a, bool) else a


#: PyCuTe's operations that promote an int or a tuple first argument by ``tiler_to_layout`` (algebra.py: ``if
#: is_int(A) or is_tuple(A): return op(tiler_to_layout(A), ...)``; blocked/raked_product through logical_product,
#: zipped_divide through logical_divide), before a ``mode`` (``op[i](A, ...)``) picks a mode of it.
PROMOTES_FIRST = frozenset({"coalesce", "coalesce_z", "composition", "right_inverse", "left_inverse", "complement",
                            "nullspace", "logical_product", "logical_divide", "zipped_divide", "blocked_product",
                            "raked_product"})


class Promoting:
    """``op`` with its first argument promoted (:func:`promote`); ``Promoting(op)[i]`` is ``Promoting(op[i])``, so
    the promotion comes before the mode is taken, as PyCuTe's ``op[i](A, B)`` is ``op(A, lift(B, mode=i))``."""

    def __init__(self, op: Any) -> None:
        self.op = op

    def __getitem__(self, key: Any) -> Promoting:
        return Promoting(self.op[key])

    def __call__(self, a: Any, *args: Any, **kwargs: Any) -> Any:
        return self.op(promote(a), *args, **kwargs)


def _is_scalar(x: Any) -> bool:
    from layoutalg.core.stride_scalars import is_stride_scalar

    return is_stride_scalar(x)


def _make_layout(layouts: Any) -> Any:
    return la.make_layout(*layouts)


def _recast(layout: Any, scale: Any) -> Any:
    """PyCuTe's ``recast(L, new/old)``: layoutalg's ``recast(L, ratio)`` (before it had that form, this mapped to
    ``recast_layout(new_bits, old_bits, L)``)."""
    try:
        return la.recast(layout, scale)
    except TypeError:
        scale = Fraction(scale)
        return la.core.recast_layout(scale.numerator, scale.denominator, layout)


def _complement(a: Any, extend: Any = None) -> Any:
    """PyCuTe's ``complement(A, extend)`` is the weak one with or without ``extend``: ordered and disjoint from A,
    its rest mode grown to reach ``size(extend)`` ("the *largest* ordered, disjoint layout that fits" where A's
    strides do not chain); CuTe C++'s sized ``complement`` (which must cover ``[0, M)``) refuses there."""
    return need("weak_complement")(a) if extend is None else need("weak_complement")(a, extend)


def _offset_and_slice(a: Any, crd: Any) -> tuple[int, Any]:
    sub, off = la.slice_and_offset(a, crd)
    return off, sub


def _select(x: Any, mode: Any = ()) -> tuple[Any, ...]:
    return tuple(x[i] for i in _path(mode))


def _take(x: Any, mode: Any = ()) -> tuple[Any, ...]:
    """PyCuTe's ``take`` gives a tuple of modes even for a Layout (CuTe's ``take<B,E>`` gives a Layout)."""
    path = _path(mode)
    if len(path) != 2:  # PyCuTe's take[i, j] is a half-open range of two mode indices (it raises otherwise)
        raise la.LayoutError(f"take takes two mode indices [begin, end), got {path}")
    begin, end = path
    taken = need("take")(x, begin, end)
    return tuple(taken) if _is_layout(taken) else taken


def _lift(x: Any, mode: Any = (), pad: Any = 0, make: Any = None) -> Any:
    return need("lift")(x, _path(mode), pad=pad, make=make)


def _coshape(x: Any) -> Any:
    return need("coshape")(x)


NAMES: dict[str, Any] = {
    "Layout": Layout, "E": E, "ArithTuple": ArithTuple, "ScaledBasis": ScaledBasis, "F2": F2,
    "Swizzle": Swizzle, "Fraction": Fraction,
    "composition": ModeOp(_composition, "transform"),
    "coalesce": ModeOp(_coalesce, "transform"),
    "coalesce_z": ModeOp(_coalesce_z, "transform"),
    "logical_divide": ModeOp(_divide("logical_divide"), "transform"),
    "zipped_divide": ModeOp(_divide("zipped_divide"), "transform"),
    "logical_product": ModeOp(_product_op("logical_product"), "transform"),
    "blocked_product": ModeOp(_product_op("blocked_product"), "transform"),
    "raked_product": ModeOp(_product_op("raked_product"), "transform"),
    "complement": _complement,
    "right_inverse": lambda a: la.right_inverse(a),
    "left_inverse": lambda a: la.left_inverse(a),
    "nullspace": lambda a: need("nullspace")(a),
    "layout_add": lambda a, b: need("layout_add")(a, b),
    "greatest_common_domain": lambda a, b: need("greatest_common_domain")(a, b),
    "make_layout": _make_layout,
    "make_layout_like": lambda a: need("make_layout_like")(a),
    "make_ordered_layout": lambda s, o: need("make_ordered_layout")(s, o),
    "tiler_to_layout": tiler_to_layout,
    "tile_to_shape": lambda block, shape, order=None: need("tile_to_shape")(block, shape, order),
    "recast": _recast,
    "compatible": lambda a, b: need("compatible")(_shape_of(a), _shape_of(b)),
    "common_refinement": lambda a, b: need("common_refinement")(a, b),
    "common_coarsening": lambda a, b: need("common_coarsening")(a, b),
    "congruent": lambda a, b: la.congruent(_htuple(a), _htuple(b)),
    "weakly_congruent": lambda a, b: la.weakly_congruent(_htuple(a), _htuple(b)),
    "product": lambda a: la.product(a),
    "product_each": lambda a: need("product_each")(a),
    "inner_product": lambda a, b: la.inner_product(a, b),
    "prefix_product": lambda a, init=1: la.prefix_product(a, init),
    "idx2crd": la.idx2crd,
    "crd2idx": la.crd2idx,
    "flatten": la.flatten,
    "unflatten": la.unflatten,
    "profile": la.profile, "zip_leaves": la.zip_leaves, "fold_leaf": la.fold_leaf,
    "coordinates": la.coordinates, "in_bounds": la.in_bounds, "V": la.V,
    "Array": la.Array, "TransformAccessor": la.TransformAccessor,
    "replace": Indexed(lambda x, value, mode=(): la.replace(x, value, mode)),
    "leaves": lambda a: iter(la.flatten(a)),
    # PyCuTe's queries take one argument (a mode is chosen by indexing: size[0](L)); layoutalg's take CuTe DSL's mode=
    "shape": ModeOp(lambda x: la.shape(x), "access"), "size": ModeOp(lambda x: la.size(x), "access"),
    "rank": ModeOp(lambda x: la.rank(x), "access"), "depth": ModeOp(lambda x: la.depth(x), "access"),
    "stride": ModeOp(lambda x: la.stride(x), "access"),
    "coshape": ModeOp(_coshape, "access"), "coprofile": ModeOp(_coshape, "access"),
    "get": ModeOp(lambda x: x, "access"),
    "select": Indexed(_select),
    "take": Indexed(_take),
    "lift": Indexed(_lift),
    "is_layout": la.is_layout,
    "is_tensor": la.is_tensor,
    "identity_tensor": lambda shape: la.make_identity_tensor(shape),
    "ImplicitAccessor": lambda origin=0: la.core.CountingEngine(origin),
    "Tensor": lambda engine, layout: la.Tensor(engine, layout),
    "is_tuple": la.is_tuple, "is_int": la.is_int, "is_static": la.is_static, "Integer": la.Integer,
    "register_integer_type": la.register_integer_type, "shiftl": la.shiftl, "shiftr": la.shiftr,
    "is_stride_scalar": lambda x: _is_scalar(x),
    "as_tuple": lambda x: x.as_tuple() if hasattr(x, "as_tuple") else x,
    "_m__coalesce": lambda a: la.coalesce(a),
    "_m__complement": _complement,
    "_m__offset_and_slice": _offset_and_slice,
}

for _name in PROMOTES_FIRST:
    NAMES[_name] = Promoting(NAMES[_name])
for _name, _op in NAMES.items():  # PyCuTe's decorated operations keep their names (size.__name__ == 'size')
    if isinstance(_op, (ModeOp, Indexed, Promoting)):
        _op.__name__ = _name  # type: ignore[union-attr]

for _name in ("wrap", "unwrap", "slice_", "dice_", "repeat_like", "transform_leaf",
              "transform_apply_leaf", "make_tensor", "Array", "Ptr",
              "copy", "copy_ref", "is_basis", "basis_repr",
              "proj", "unit", "make_basis_like", "coordinates"):
    NAMES.setdefault(_name, _stride_kind(_name) if _name[0].isupper() else (lambda n: lambda *a, **k: need(n)(*a, **k))(_name))


class _Methods(ast.NodeTransformer):
    """``x._coalesce(...)`` -> ``_m__coalesce(x, ...)`` (PyCuTe's private Layout methods the tests call)."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr.startswith("_"):
            return ast.Call(ast.Name(f"_m_{f.attr}", ast.Load()), [f.value, *node.args], node.keywords)
        return node


@functools.cache
def compile_src(src: str) -> Any:
    tree = _Methods().visit(ast.parse(src, mode="eval"))
    return compile(ast.fix_missing_locations(tree), "<case>", "eval")


def evaluate(src: str) -> Any:
    """Evaluate a recorded PyCuTe expression with layoutalg; NameError (a sympy symbol) -> MissingFeatureError.

    Results (and errors) are remembered per expression: the cases repeat sub-expressions a lot.
    """
    ok, value = _evaluate(src)
    if ok and hasattr(value, "__next__"):  # an iterator is consumed once: a remembered one may be empty
        ok, value = _evaluate.__wrapped__(src)
    if ok:
        return value
    raise value


class _Symbols(dict):  # type: ignore[type-arg]
    """Names a case leaves free: PyCuTe's tests declare them ``sympy.symbols(..., positive=True, integer=True)``
    (the recorder keeps only the expression), and sympy's ``floor``/``ceiling`` print in its stated answers."""

    def __missing__(self, name: str) -> Any:
        import builtins

        import sympy

        if name in NAMES or hasattr(builtins, name):
            raise KeyError(name)
        if name in ("floor", "ceiling", "Min", "Max"):
            return getattr(sympy, name)
        if name.isidentifier() and name[0].isupper():
            return sympy.Symbol(name, positive=True, integer=True)
        raise KeyError(name)


def doc_namespace() -> tuple[dict[str, Any], Any]:
    """Fresh ``(globals, locals)`` for one docstring's examples: PyCuTe's names, and a local scope that its
    setup statements fill and later examples read (free capitalised names are sympy symbols)."""
    import array
    import ctypes

    return dict(NAMES, array=array, ctypes=ctypes, Fraction=Fraction), _Symbols()  # PyCuTe's runner's PRELUDE


def run_doc(code: str, scope: tuple[dict[str, Any], Any], mode: str) -> Any:
    """Run one documented example (``mode`` ``exec`` for a statement, ``eval`` for an expression) in ``scope``;
    a NameError (a name no stand-in provides) is a MissingFeatureError."""
    tree = _Methods().visit(ast.parse(code, mode=mode))
    compiled = compile(ast.fix_missing_locations(tree), "<doc>", mode)
    try:
        return eval(compiled, scope[0], scope[1])  # exec-mode code evaluates to None
    except NameError as err:
        raise MissingFeatureError(f"a name the stand-in lacks ({err})") from None


@functools.lru_cache(maxsize=65536)
def _evaluate(src: str) -> tuple[bool, Any]:
    try:
        return True, eval(compile_src(src), dict(NAMES), _Symbols())
    except NameError as err:
        return False, MissingFeatureError(f"symbolic shapes/strides ({err})")
    except Exception as err:
        return False, err
