"""What ``test_fuzz_api.py`` calls and with what: the public targets, hostile values, and a per-call watchdog.

Targets: every callable ``layoutalg`` and ``layoutalg.swizzle`` export (the
exception classes aside: they are the contract, not input handlers), the public
functions and classes of ``layoutalg.atoms`` (its lazily loaded tiled
partitioning included), and every public method of ``Layout``,
``ComposedLayout`` and ``Swizzle`` (dunders a user reaches by syntax too:
call, index, iterate, compare, hash, print).

Values mix well-formed input (small layouts, composed layouts, swizzles, layout
text, atom names) with hostile input: huge integers (past 64 bits, past 4,300
digits), numpy integers and arrays, NaN and infinities, empty and deeply
nested tuples, unhashable containers, strings, ``None``, and objects whose
``__index__`` or ``__repr__`` raise.
"""

from __future__ import annotations

import inspect
import math
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

import layoutalg as la
import layoutalg.atoms as atoms
import layoutalg.atoms.tiled as tiled
import layoutalg.banks as banks
import layoutalg.prove as prove
import layoutalg.swizzle as sw
from layoutalg import ComposedLayout, Layout, LayoutError, Swizzle

# ---------------------------------------------------------------------------
# targets


@dataclass(frozen=True)
class Target:
    name: str
    fn: Callable[..., Any] | None  # None: a method, looked up on the receiver
    method: str = ""
    receiver: type | None = None


def _is_exception_class(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, BaseException)


def _module_targets(prefix: str, module: Any, names: list[str]) -> list[Target]:
    out = []
    for name in names:
        obj = getattr(module, name)
        if callable(obj) and not _is_exception_class(obj) and not inspect.ismodule(obj):
            out.append(Target(f"{prefix}.{name}", obj))
    return out


def _atoms_names() -> list[str]:
    names = [n for n in dir(atoms) if not n.startswith("_") and not inspect.ismodule(getattr(atoms, n))]
    return sorted(set(names) | set(tiled.__all__))


METHODS = {
    Layout: ["__call__", "__getitem__", "__iter__", "__len__", "__eq__", "__hash__", "__str__", "__repr__",
             "cosize", "depth", "evaluate_indices", "flat", "formula", "get", "modes", "rank", "size",
             "to_numpy", "values"],
    ComposedLayout: ["__call__", "__getitem__", "__iter__", "__len__", "__eq__", "__hash__", "__str__", "__repr__",
                     "cosize", "depth", "flat", "formula", "get", "modes", "rank", "size", "to_numpy", "values",
                     "with_inner"],
    Swizzle: ["__call__", "__eq__", "__hash__", "__str__", "__repr__", "apply", "inverse", "is_identity",
              "period"],
}


# Not fuzzed: the prove CLI's entry point (reads files named by its arguments), a decorator that records its
# argument, and a context manager that only stores settings.
_NOT_INPUT_HANDLERS = ("run_cli", "theorem", "settings")


def all_targets() -> list[Target]:
    targets = _module_targets("layoutalg", la, list(la.__all__))
    targets += _module_targets("layoutalg.swizzle", sw, list(sw.__all__))
    targets += [Target(f"layoutalg.atoms.{n}", getattr(atoms, n)) for n in _atoms_names()
                if callable(getattr(atoms, n)) and not _is_exception_class(getattr(atoms, n))]
    targets += [Target("Layout.right", Layout.right), Target("Swizzle.from_masks", Swizzle.from_masks)]
    targets += _module_targets("layoutalg.prove", prove, [n for n in prove.__all__ if n not in _NOT_INPUT_HANDLERS])
    targets += _module_targets("layoutalg.banks", banks, list(banks.__all__))
    for cls, names in METHODS.items():
        targets += [Target(f"{cls.__name__}.{m}", None, m, cls) for m in names]
    return targets


# ---------------------------------------------------------------------------
# values


class RaisingIndex:
    """An object whose ``__index__`` raises something other than TypeError."""

    def __index__(self) -> int:
        raise RuntimeError("__index__ exploded")


class RaisingRepr:
    def __repr__(self) -> str:
        raise RuntimeError("__repr__ exploded")


class HugeIndex:
    def __index__(self) -> int:
        return 10**5000


def _nested(depth: int) -> Any:
    value: Any = 2
    for _ in range(depth):
        value = (value,)
    return value


HUGE_INT = 10**5000  # past Python's 4,300-digit printing limit
CONSTANTS: list[Any] = [
    0, 1, -1, 2, 3, 4, 8, 16, 32, 64, 128, 2**31, 2**63, 2**64, 2**65, -(2**70), 2**4095, 2**4096, HUGE_INT, -HUGE_INT,
    np.int64(4), np.int32(8), np.uint8(2), np.int64(-3), np.bool_(True), np.float64(2.0), np.array(4),
    np.array([4, 8]), np.array([[1, 2], [3, 4]]), np.array([], dtype=np.int64), np.array([1.5]), np.arange(6),
    0.5, 2.0, math.nan, math.inf, -math.inf, 1j,
    None, True, False,
    (), (()), ((),), (1, ()), (None,), (None, 3), (3, None), (None, None), (0, (None, 1)),
    _nested(70), _nested(3000), (2, _nested(200)), [4, 8], [[2, 2], 4], [],
    {}, {1: 2}, set(), {2, 4}, bytearray(b"8"), b"8:1", slice(0, 2), object(), RaisingIndex(), RaisingRepr(),
    HugeIndex(), lambda x: x, "1" * 5000, "(" * 3000, "",
]
TEXTS = [
    "(4,8):(1,4)", "8:1", "(8,64):(64,1)", "Sw<3,3,3> o _0 o (8,64):(64,1)", "Sw<3,4,3>", "((2,4),8):((1,16),2)",
    "SM80_16x8x16_F32F16F16F32_TN", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "SM75_U32x4_LDSM_N",
    "m16n8k16", "f16", "f32", "bf16", "tf32", "s8", "x4", "trans", "ca", "cg", "SS", "RS", "A", "B", "C",
    "Layout_K_SW128_Atom", "1" * 4400 + ":1", "(" + "1" * 4400 + ")", "(2,2):(1," + "9" * 5000 + ")",
    "(" * 70 + "1" + ")" * 70, "Sw<99,99,99> o 8:1", "#ttg.linear<{register = [[0, 1]]}>", "nan", "inf",
    "register = [[0, 1]]", "lane = [[1, 0]]",
]

small_ints = st.integers(-4, 70)
DOMAINS: list[Any] = [None, {"i": 8}, {"r": 4, "c": 8}, {"lane": 32, "i": 4}, {"i": 2**65}, {"i": 0}, {"i": -1},
                      {"i": math.nan}, {"__2": 4, "x": 4}, [prove.var("i", 8)], [prove.var("x", 4), prove.var("x__2", 4)],
                      {"i": np.int64(8)}, {"i": np.array([8])}, {"i": 10**5000}, [], {}, "i", 8]
ACCESS_TEXTS = ["ldmatrix.x4", "ldmatrix.x2.trans", "ld.shared.b32", "ld.shared.v4.b32", "st.shared.b64", "stmatrix.x4",
                "cp.async.cg.shared.global, 16", "cp.async.ca.shared.global, 4", "ldmatrix.x4.trans", "ld.global.b32",
                "x" * 300, "", "ldmatrix.x3"]


def constant(k: int) -> Any:
    """``CONSTANTS[k]``, drawn by index: hypothesis prints strategies, and some constants refuse to be printed."""
    return CONSTANTS[k]


@st.composite
def layouts(draw: st.DrawFn) -> Layout:
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.sampled_from([1, 2, 3, 4, 8, 16, (2, 4), (2, (2, 2))])) for _ in range(rank))
    def strides(s: Any) -> Any:
        if isinstance(s, tuple):
            return tuple(strides(e) for e in s)
        return draw(st.integers(-3, 80))
    stride = strides(shape)
    return Layout(shape if rank > 1 else shape[0], stride if rank > 1 else stride[0])


@st.composite
def swizzles(draw: st.DrawFn) -> Swizzle:
    bits = draw(st.integers(0, 3))
    return Swizzle(bits, draw(st.integers(0, 5)), draw(st.sampled_from([-1, 1])) * draw(st.integers(max(bits, 1), 5)))


@st.composite
def composed(draw: st.DrawFn) -> ComposedLayout:
    outer = draw(st.one_of(swizzles(), layouts().filter(lambda x: x.size() > 1)))
    return ComposedLayout(outer, draw(st.integers(0, 40)), draw(layouts()))


def tilers() -> st.SearchStrategy[Any]:
    """By-mode tilers: tuples of None, ints, layouts and (nested, possibly empty) tuples of them."""
    entry = st.one_of(st.none(), st.integers(1, 8), layouts(), st.just(()))
    return st.recursive(st.lists(entry, max_size=3).map(tuple), lambda inner: st.lists(st.one_of(entry, inner), max_size=3).map(tuple), max_leaves=5)


def _values() -> st.SearchStrategy[Any]:
    """One argument: half the time well-formed (so a call gets past its first check), else hostile."""
    well_formed = st.one_of(
        small_ints,
        st.integers(0, 64).map(np.int64),
        tilers(),
        st.sampled_from(TEXTS),
        layouts(),
        composed(),
        swizzles(),
    )
    hostile = st.one_of(
        st.integers(0, len(CONSTANTS) - 1).map(constant),
        st.text(max_size=12),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(),
    )
    base = st.one_of(well_formed, hostile)
    containers = st.recursive(
        base,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3).map(tuple), st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=2)
        ),
        max_leaves=6,
    )
    return st.one_of(well_formed, containers)


VALUES = _values()  # built once: hypothesis validates a strategy on first use, which costs more than a call
_RECEIVERS = {Layout: layouts(), ComposedLayout: composed(), Swizzle: swizzles()}
_ARG_LISTS: dict[tuple[int, int], st.SearchStrategy[list[Any]]] = {}


def values() -> st.SearchStrategy[Any]:
    return VALUES


def arg_lists(low: int, high: int) -> st.SearchStrategy[list[Any]]:
    if (low, high) not in _ARG_LISTS:
        _ARG_LISTS[(low, high)] = st.lists(VALUES, min_size=low, max_size=high)
    return _ARG_LISTS[(low, high)]


def receivers(cls: type) -> st.SearchStrategy[Any]:
    return _RECEIVERS[cls]


@dataclass(frozen=True)
class Arity:
    """How a callable may be called: positional count range and keyword names (wrong arity is Python's
    TypeError, not the library's, so calls are drawn to fit the signature)."""

    low: int
    high: int
    keywords: tuple[str, ...]
    signature: inspect.Signature | None
    positional: tuple[str, ...] = ()  # parameter names, in order ("*" for each extra *args)


def arity(fn: Callable[..., Any]) -> Arity:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return Arity(0, 4, (), None)
    low = high = 0
    keywords = []
    positional: list[str] = []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            high += 1
            low += p.default is p.empty
            positional.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            high = max(high, low) + 4
            positional += ["*"] * 4
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            keywords.append(p.name)
    return Arity(low, min(high, low + 4), tuple(keywords), sig, tuple(positional))


def coordinates() -> st.SearchStrategy[Any]:
    """Coordinates and slices: ints, None, and (nested) tuples of them."""
    leaf = st.one_of(st.integers(-2, 40), st.none(), st.integers(0, 8).map(np.int64))
    return st.recursive(leaf, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=5)


# What a parameter's name suggests it takes: drawn half the time (the other half, anything), so that calls get
# past their first check and reach the code behind it.
_HINTS: dict[str, st.SearchStrategy[Any]] = {}


def _hint(name: str) -> st.SearchStrategy[Any] | None:
    layoutish = st.one_of(layouts(), composed())
    table = {
        ("a", "layout", "x", "tensor", "inner", "thr_layout", "val_layout", "atom_layout", "tile"): layoutish,
        ("b", "tiler", "profile", "mode", "cotarget", "permutations", "order"): st.one_of(tilers(), layoutish, small_ints),
        ("crd", "coord", "coordinate", "path", "*", "indices"): coordinates(),
        ("n", "bits", "old_bits", "new_bits", "num", "nbytes", "begin", "end", "init", "index", "thr_idx", "lane",
         "half", "offset", "i", "idx", "n_bits", "yyy_mask", "zzz_mask", "base", "shift", "word"): st.integers(-2, 130),
        ("outer",): st.one_of(swizzles(), layouts()),
        ("text", "name", "s"): st.sampled_from(TEXTS),
        ("shape",): st.one_of(tilers(), st.sampled_from(["m16n8k16", "m16n8k8", "m8n8k4"])),
        ("f", "g", "smem_layout", "smem", "predicate"): layoutish,
        ("domain", "domain_g"): st.sampled_from(DOMAINS),
        ("access", "accesses", "instruction", "copy"): st.sampled_from(ACCESS_TEXTS),
        ("dtype", "operand", "mma", "method", "arch"): st.sampled_from(TEXTS + ["auto", "z3", "f2", "enum", "sm_80",
                                                                              "sm_90", "mma.m16n8k16.f16", "ldmatrix.x4"]),
        ("timeout", "deadline"): st.sampled_from([None, 1, 0.5, math.inf, math.nan, -1, 0, 10**5000, np.float64(1.0),
                                                  "1", True]),
    }
    for names, strategy in table.items():
        if name in names:
            return strategy
    return None


def argument(name: str) -> st.SearchStrategy[Any]:
    """A value for the parameter called ``name``: its hint or anything, half and half."""
    if name not in _HINTS:
        hint = _hint(name)
        _HINTS[name] = VALUES if hint is None else st.one_of(hint, VALUES)
    return _HINTS[name]


def describe(x: Any, limit: int = 80) -> str:
    """``repr(x)`` cut to ``limit`` characters, safe on anything (the report must not fail on what it reports)."""
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 - a failing __repr__ is itself a fuzz value
        return f"<a {type(x).__name__}>"
    return text if len(text) <= limit else f"{text[: limit - 20]}... ({len(text)} characters, {type(x).__name__})"


# ---------------------------------------------------------------------------
# one watched call


class CallTimeout(BaseException):
    """Raised by the watchdog inside a call past its time bound (a BaseException, so no ``except Exception`` eats it)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise CallTimeout


@dataclass
class Outcome:
    seconds: float
    escape: BaseException | None = None
    hang: bool = False


def watched_call(fn: Callable[[], Any], bound: float) -> Outcome:
    """Run ``fn()`` (and consume/print what it returns) under a SIGALRM watchdog of ``bound`` seconds.

    A LayoutError is the contract; any other exception is an escape; passing the
    bound (interrupted, or returning late from native code) is a hang.
    """
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, bound)
    start = time.perf_counter()
    outcome = Outcome(0.0)
    try:
        result = fn()
        _touch(result)
    except CallTimeout:
        outcome.hang = True
    except LayoutError:
        pass
    except BaseException as exc:  # noqa: BLE001 - that is exactly what the fuzzer looks for
        if isinstance(exc, KeyboardInterrupt):
            raise
        outcome.escape = exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    outcome.seconds = time.perf_counter() - start
    if outcome.seconds > bound:
        outcome.hang = True
    return outcome


def _touch(result: Any) -> None:
    """Consume a returned iterator and print returned layouts: both must work too."""
    if inspect.isgenerator(result):
        for _, item in zip(range(64), result):
            _touch(item)
        return
    if isinstance(result, (Layout, ComposedLayout, Swizzle)):
        str(result)
        repr(result)
    elif isinstance(result, tuple) and len(result) <= 4:
        for item in result:
            if isinstance(item, (Layout, ComposedLayout, Swizzle)):
                str(item)
