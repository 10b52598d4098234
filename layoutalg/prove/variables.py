"""Variables of the term language: a user's ``var``/``param`` (keyed by name) and the prover's own (keyed by identity).

A user's variable is identified by its name, a Python identifier.  A variable the prover generates (the second
copy of a domain in ``injective``, the run and element indices of ``contiguous``, the lanes and words of a bank
proof) is identified by a :class:`Fresh` object instead, so it lives in a separate namespace: no user name and no
other generated variable can ever denote it.  Every engine, the evaluator and substitution look variables up by
``Var.key``; ``Var.name`` is only what a counterexample shows.
"""

from __future__ import annotations

from typing import Any, Iterable, Union

from layoutalg.core.validate import describe
from layoutalg.errors import ProofError
from layoutalg.prove.terms import Expr


class Fresh:
    """The identity of a variable the prover generates (a second copy of a domain, a run index, a lane).

    Variables are looked up by their *key*: a user's variable's key is its name (a Python identifier),
    a generated variable's key is a :class:`Fresh` object, equal only to itself.  So a generated variable
    can never be confused with a user's variable, whatever either is called, nor with another generated
    one: the two namespaces are disjoint by type, not by a naming convention.  ``label`` is only for display.
    """

    __slots__ = ("label",)

    def __init__(self, label: str) -> None:
        self.label = label

    def __repr__(self) -> str:
        return f"<fresh {self.label} at {id(self):#x}>"


VarKey = Union[str, Fresh]


class Var(Expr):
    """A universally quantified integer ``lo <= v < hi`` with optional constraints.

    ``kind`` is ``"var"`` (a domain coordinate such as a lane or register) or
    ``"param"`` (a parameter such as a tile index, shared by both copies of
    the domain in :func:`~layoutalg.prove.injective` and ``disjoint``).
    ``multiple_of`` and ``pow2`` restrict the values further.  ``key`` identifies
    the variable (its name, or a :class:`Fresh` for one the prover made, see :meth:`fresh`).
    """

    __slots__ = ("name", "lo", "hi", "multiple_of", "pow2", "kind", "key")

    name: str
    lo: int
    hi: int
    multiple_of: int
    pow2: bool
    kind: str
    key: VarKey

    def __init__(
        self, name: str, lo: int, hi: int, multiple_of: int = 1, pow2: bool = False, kind: str = "var",
        *, key: Fresh | None = None,
    ) -> None:
        if key is None and (not isinstance(name, str) or not name.isidentifier()):
            raise ProofError(f"variable name must be an identifier, got {describe(name)}")
        if key is not None and not (isinstance(key, Fresh) and isinstance(name, str)):
            raise ProofError(f"a generated variable needs a Fresh key and a str label, got {describe(key)}, {describe(name)}")
        for label, bound in (("lo", lo), ("hi", hi), ("multiple_of", multiple_of)):
            if isinstance(bound, bool) or not isinstance(bound, int):
                raise ProofError(f"variable {describe(name)}: {label} must be an int, got {describe(bound)}")
        if hi <= lo:
            raise ProofError(f"variable {describe(name)} has an empty range [{lo}, {hi})")
        if multiple_of < 1:
            raise ProofError(f"variable {describe(name)}: multiple_of must be >= 1, got {multiple_of}")
        if kind not in ("var", "param"):
            raise ProofError(f"variable {describe(name)}: kind must be 'var' or 'param', got {describe(kind)}")
        for slot, v in (
            ("name", name),
            ("lo", int(lo)),
            ("hi", int(hi)),
            ("multiple_of", int(multiple_of)),
            ("pow2", bool(pow2)),
            ("kind", kind),
            ("key", name if key is None else key),
        ):
            object.__setattr__(self, slot, v)
        if not any(True for _ in self.values_iter(limit=1)):
            raise ProofError(f"variable {describe(name)} has no value satisfying its constraints")

    @classmethod
    def fresh(
        cls, label: str, lo: int, hi: int, multiple_of: int = 1, pow2: bool = False, kind: str = "var"
    ) -> "Var":
        """A new variable that no other variable can be confused with (its key is a new :class:`Fresh`).

        ``label`` is shown in counterexamples; it need not be unique or an identifier.
        """
        return cls(label, lo, hi, multiple_of, pow2, kind, key=Fresh(label))

    def fresh_copy(self, label: str | None = None) -> "Var":
        """A generated variable with this one's range and constraints (always kind ``var``)."""
        return Var.fresh(self.name if label is None else label, self.lo, self.hi, self.multiple_of, self.pow2, "var")

    def with_range(self, lo: int, hi: int) -> "Var":
        """The same variable (same key, so terms over it still refer to it) restricted to ``[lo, hi)``."""
        fresh = self.key if isinstance(self.key, Fresh) else None
        return Var(self.name, lo, hi, self.multiple_of, self.pow2, self.kind, key=fresh)

    @property
    def generated(self) -> bool:
        return isinstance(self.key, Fresh)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("terms are immutable")

    @property
    def extent(self) -> int:
        return self.hi - self.lo

    def is_plain(self) -> bool:
        """No constraint beyond the range."""
        return self.multiple_of == 1 and not self.pow2

    def admits(self, value: int) -> bool:
        if not self.lo <= value < self.hi:
            return False
        if value % self.multiple_of:
            return False
        return not self.pow2 or (value > 0 and value & (value - 1) == 0)

    def values_iter(self, limit: int | None = None) -> Iterable[int]:
        count = 0
        if self.pow2:
            v = 1
            while v < self.hi:
                if self.admits(v):
                    yield v
                    count += 1
                    if limit is not None and count >= limit:
                        return
                v <<= 1
            return
        start = self.lo + (-self.lo) % self.multiple_of
        for v in range(start, self.hi, self.multiple_of):
            yield v
            count += 1
            if limit is not None and count >= limit:
                return

    def count(self) -> int:
        """How many values the variable takes."""
        if self.pow2:
            return sum(1 for _ in self.values_iter())
        start = self.lo + (-self.lo) % self.multiple_of
        return max(0, (self.hi - 1 - start) // self.multiple_of + 1)

    def describe(self) -> str:
        extra = ""
        if self.multiple_of > 1:
            extra += f", multiple of {self.multiple_of}"
        if self.pow2:
            extra += ", power of two"
        return f"{self.name} in [{self.lo}, {self.hi}){extra}"

    def same_as(self, other: "Var") -> bool:
        """Same key, range, constraints and kind (one variable, possibly two Python objects)."""
        return (self.key, self.lo, self.hi, self.multiple_of, self.pow2, self.kind) == (
            other.key, other.lo, other.hi, other.multiple_of, other.pow2, other.kind
        )

    def __repr__(self) -> str:
        return self.name


def var(
    name: str,
    extent: int | None = None,
    *,
    lo: int = 0,
    hi: int | None = None,
    multiple_of: int = 1,
    pow2: bool = False,
) -> Var:
    """A domain coordinate: ``var("lane", 32)`` ranges over ``0..31``."""
    return Var(name, lo, _hi(name, extent, lo, hi), multiple_of, pow2, "var")


def param(
    name: str,
    extent: int | None = None,
    *,
    lo: int = 0,
    hi: int | None = None,
    multiple_of: int = 1,
    pow2: bool = False,
) -> Var:
    """A parameter (tile index, k-iteration, leading dimension, ...): ``param("ld", lo=8, hi=4097, multiple_of=8)``."""
    return Var(name, lo, _hi(name, extent, lo, hi), multiple_of, pow2, "param")


def _hi(name: str, extent: int | None, lo: int, hi: int | None) -> int:
    if (extent is None) == (hi is None):
        raise ProofError(f"variable {describe(name)}: give exactly one of extent or hi")
    if extent is not None:
        if isinstance(extent, bool) or not isinstance(extent, int) or extent < 1:
            raise ProofError(f"variable {describe(name)}: extent must be a positive int, got {describe(extent)}")
        return lo + extent
    return hi  # type: ignore[return-value]
