"""pycute (``nvidia-cutlass`` 4.2) as an oracle: call by name with plain arguments, get plain results.

``call("composition", Lay((8,2),(1,4)), Lay(4,2))`` returns ``Result`` like
:mod:`oracles.cute_dsl`.  pycute uses bare ``assert`` on bad input and floors
divisions that do not come out even, so every exception is caught and
reported; judge its answers by their function.  It has no ``blocked_product``,
``raked_product``, ``upcast``/``downcast``.
"""

from __future__ import annotations

from typing import Any

import pycute

from oracles.cute_dsl import Lay, LayoutValue, Result


def build(x: Any) -> Any:
    if isinstance(x, Lay):
        return pycute.Layout(x.shape, x.stride) if x.stride is not None else pycute.Layout(x.shape)
    if isinstance(x, (tuple, list)):
        return tuple(build(e) for e in x)
    return x


def plain(x: Any) -> Any:
    if isinstance(x, pycute.Layout):
        return LayoutValue(plain(x.shape), plain(x.stride))
    if isinstance(x, tuple):
        return tuple(plain(e) for e in x)
    return int(x)


def call(name: str, *args: Any) -> Result:
    fn = getattr(pycute, name, None)
    if fn is None:
        return Result(False, error=f"pycute has no {name}")
    try:
        return Result(True, plain(fn(*(build(a) for a in args))))
    except RecursionError:
        return Result(False, error="RecursionError")
    except Exception as err:  # pycute asserts and floors; every failure is data
        return Result(False, error=f"{type(err).__name__}: {err}"[:300])


__all__ = ["call", "build", "plain"]
