"""CuTe's print notation for plain layouts: parse, print, and C++ type spelling.

Grammar (spaces allowed between any two tokens)::

    layout    := int_tuple [":" stride]         # no stride: compact column-major
    int_tuple := integer | "(" [int_tuple ("," int_tuple)* [","]] ")"
    integer   := ["-"] ["_"] digits | "_-" digits | "_m" digits   # "_8" is CuTe's static 8; "_-5" (as CuTe
                                                               # prints it) and "_m5" are -5
    stride    := int_tuple whose leaves may also be:
                 (integer | "F" digits) ("@" digits)*          # "1@0", "_1@1", "2@0@1": a scaled basis
                                                               # vector, path innermost first; "F3": an F2
                                                               # stride; "F1@1" both
               | "E" digits                                    # E1 == 1@1
    (a tuple stride where the shape has an int is an ArithTuple: "(4,3):((1,1),1@1)")

``(4)`` is a 1-tuple, as CuTe prints it, so ``parse(str(x)) == x`` for every
layout, the coordinate and F2 layouts (:class:`~layoutalg.core.stride_layout.StrideLayout`,
printed as CuTe prints basis strides: ``(4,8):(1@0,1@1)``) included.  ``str(layout)`` prints without underscores (values carry no
static/dynamic distinction here).  The building blocks are public so that the
swizzle layer's parser (``Sw<3,4,3> o _0 o (8,64):(64,1)``) reuses them:
:func:`parse_int_tuple_at` and :func:`parse_layout_at` read from a position and
return where they stopped; :func:`skip_spaces` and :func:`fail` do the rest.
Every failure is a :class:`~layoutalg.errors.ParseError` carrying the 1-based
column.
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

from layoutalg.core import int_tuple as it
from layoutalg.core.int_tuple import IntTuple
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import stride_layout
from layoutalg.core.stride_scalars import F2, ScaledBasis
from layoutalg.core.validate import MAX_INT_BITS
from layoutalg.errors import LayoutError, ParseError

#: Deepest nesting the parser accepts (deeper text is refused, not recursed into).
MAX_DEPTH = 64
#: The most decimal digits an integer below ``2**MAX_INT_BITS`` can have.
_MAX_DIGITS = len(str(1 << MAX_INT_BITS))

#: CuTe's predefined static integer aliases that ``to_cpp`` spells as ``_N``.
#: The non-negative integral-constant aliases every CuTe C++ release defines (``cute/numeric/integral_constant.hpp``:
#: ``_0`` .. ``_10``, ``_12``, ``_16``, ``_24``, ``_32``, ``_64``, ``_96``, ``_128``, ``_192``, ``_256``, ``_384``,
#: ``_512``, ``_768`` and the powers of two 1024 .. 524288); any other value is written ``Int<N>`` (``_11`` would
#: not compile).
CUTE_ALIASES = frozenset(range(0, 11)) | {12, 16, 24, 32, 64, 96, 128, 192, 256, 384, 512, 768} | {
    1 << k for k in range(10, 20)
}




def fail(message: str, text: str, pos: int) -> NoReturn:
    """Raise a ParseError for ``text`` at 0-based ``pos`` (reported 1-based)."""
    raise ParseError(message, text, pos + 1)


def skip_spaces(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def parse_integer_at(text: str, pos: int) -> tuple[int, int]:
    """An integer token (``12``, ``-3``, ``_8``, ``_-5``, ``_m1``) at ``pos``; returns ``(value, end)``."""
    pos = skip_spaces(text, pos)
    start = pos
    negative = False
    if text.startswith("-", pos):
        negative = True
        pos += 1
    if text.startswith("_", pos):
        pos += 1
        if (text.startswith("m", pos) or text.startswith("-", pos)) and not negative:
            negative = True  # CuTe C++ prints a static -5 as "_-5"; "_m5" is the same
            pos += 1
    digits_start = pos
    while pos < len(text) and text[pos] in "0123456789":
        pos += 1
    if pos == digits_start:
        fail("expected an integer", text, start if pos == start else pos)
    if pos - digits_start > _MAX_DIGITS:  # checked before int(): Python refuses to read more than 4300 digits
        fail(f"integer of {pos - digits_start} digits is too large (integers are limited to {MAX_INT_BITS} bits)",
             text, digits_start)
    value = (-1 if negative else 1) * int(text[digits_start:pos])
    if not -(1 << MAX_INT_BITS) < value < 1 << MAX_INT_BITS:
        fail(f"integer of {pos - digits_start} digits is too large (integers are limited to {MAX_INT_BITS} bits)",
             text, digits_start)
    return value, pos


def parse_stride_leaf_at(text: str, pos: int) -> tuple[Any, int]:
    """A stride leaf at ``pos``: an integer, an F2 stride ``F<bits>``, either scaled onto a basis vector by ``@i``
    suffixes (CuTe prints ``ScaledBasis`` as ``value@path``, the innermost index first: ``2@0@1`` is 2 at
    ``(1, 0)``), or ``E<i>`` (``1@i``); returns ``(value, end)``."""
    pos = skip_spaces(text, pos)
    if text.startswith("E", pos):
        axis, end = _parse_index_at(text, pos + 1, "a basis axis after 'E'")
        return ScaledBasis(1, (axis,)), end
    value: Any
    if text.startswith("F", pos):
        bits, pos = _parse_index_at(text, pos + 1, "the bits of an F2 stride after 'F'")
        value = F2(bits)
    else:
        value, pos = parse_integer_at(text, pos)
    path: list[int] = []
    while text.startswith("@", skip_spaces(text, pos)):
        if len(path) >= MAX_DEPTH:
            fail(f"a basis path deeper than {MAX_DEPTH}", text, pos)
        index, pos = _parse_index_at(text, skip_spaces(text, pos) + 1, "a basis index after '@'")
        path.append(index)
    return (ScaledBasis(value, tuple(reversed(path))) if path else value), pos


def _parse_index_at(text: str, pos: int, what: str) -> tuple[int, int]:
    start = skip_spaces(text, pos)
    value, end = parse_integer_at(text, start)
    if value < 0:
        fail(f"{what} must be non-negative", text, start)
    return value, end


def parse_int_tuple_at(text: str, pos: int,
                       leaf: Callable[[str, int], tuple[Any, int]] | None = None) -> tuple[IntTuple, int]:
    """An int tuple (``((2,4),8)``, ``_8``, ``(4)``) at ``pos``; returns ``(value, end)``.  ``leaf`` reads one
    leaf (default :func:`parse_integer_at`; a stride's :func:`parse_stride_leaf_at`).

    Iterative, so deep nesting cannot exhaust the stack; nesting beyond
    :data:`MAX_DEPTH` is a ParseError.
    """
    stack: list[list[IntTuple]] = []
    pos = skip_spaces(text, pos)
    while True:
        pos = skip_spaces(text, pos)
        if text.startswith("(", pos):
            if len(stack) >= MAX_DEPTH:
                fail(f"nesting deeper than {MAX_DEPTH}", text, pos)
            stack.append([])
            pos += 1
            pos = skip_spaces(text, pos)
            if text.startswith(")", pos):
                value: IntTuple = ()
                stack.pop()
                pos += 1
            else:
                continue
        else:
            value, pos = (leaf or parse_integer_at)(text, pos)
        # value complete: attach to the enclosing tuple, closing as many as end here
        while True:
            if not stack:
                return value, pos
            stack[-1].append(value)
            pos = skip_spaces(text, pos)
            if text.startswith(",", pos):
                pos = skip_spaces(text, pos + 1)
                if text.startswith(")", pos):
                    value = tuple(stack.pop())
                    pos += 1
                    continue
                break
            if text.startswith(")", pos):
                value = tuple(stack.pop())
                pos += 1
                continue
            fail("expected ',' or ')'", text, pos)


def parse_layout_at(text: str, pos: int) -> tuple[Any, int]:
    """A layout ``shape[:stride]`` at ``pos``; returns ``(layout, end)``: a :class:`Layout`, or a
    :class:`~layoutalg.core.stride_layout.StrideLayout` where a stride is a basis vector, an F2 or a tuple at an
    int of the shape (``(4,8):(1@0,1@1)``)."""
    shape_pos = skip_spaces(text, pos)
    shape, pos = parse_int_tuple_at(text, shape_pos)
    after = skip_spaces(text, pos)
    stride = None
    if text.startswith(":", after):
        stride_pos = skip_spaces(text, after + 1)
        stride, pos = parse_int_tuple_at(text, stride_pos, parse_stride_leaf_at)
    else:
        stride_pos = shape_pos
    try:
        if stride is not None and (not it.congruent(shape, stride)  # a tuple at an int: an ArithTuple stride
                                   or any(type(d) is not int for d in it.flatten(stride))):
            return stride_layout(shape, stride), pos
        return Layout(shape, stride), pos
    except LayoutError as err:
        if stride is not None and not it.congruent(shape, stride):
            fail(f"stride is not congruent to the shape ({err})", text, stride_pos)
        fail(str(err), text, shape_pos)


def parse_int_tuple(text: str) -> IntTuple:
    """The whole of ``text`` as one int tuple."""
    _require_str(text)
    value, pos = parse_int_tuple_at(text, 0)
    _expect_end(text, pos)
    return value


def parse_layout(text: str) -> Layout:
    """The whole of ``text`` as one plain layout, e.g. ``parse_layout("((2,4),8):((1,16),2)")``."""
    _require_str(text)
    layout, pos = parse_layout_at(text, 0)
    _expect_end(text, pos)
    return layout


def _require_str(text: object) -> None:
    if not isinstance(text, str):
        raise ParseError(f"layout notation must be a str, got {type(text).__name__}")


def _expect_end(text: str, pos: int) -> None:
    pos = skip_spaces(text, pos)
    if pos != len(text):
        fail("unexpected text after the layout", text, pos)


def to_str(layout: Layout) -> str:
    """CuTe's print notation, ``str(layout)``: ``((2,4),8):((1,16),2)``."""
    return str(layout)


def _cpp_int(v: int) -> str:
    return f"_{v}" if v in CUTE_ALIASES else f"Int<{v}>"


def _cpp_tuple(t: IntTuple, kind: str) -> str:
    if it.is_tuple(t):
        return f"{kind}<" + ",".join(_cpp_tuple(e, kind) for e in t) + ">"  # type: ignore[union-attr]
    return _cpp_int(t)  # type: ignore[arg-type]


def to_cpp(layout: Layout) -> str:
    """The CuTe C++ type of a static layout: ``Layout<Shape<_2,_4>,Stride<_1,_16>>``.

    Ints every CuTe release predefines (:data:`CUTE_ALIASES`) use the alias, others
    ``Int<N>``; an int shape is bare (``Layout<_8,_1>``).
    """
    if not isinstance(layout, Layout):
        raise LayoutError(f"to_cpp takes a Layout, got {type(layout).__name__}")
    return f"Layout<{_cpp_tuple(layout.shape, 'Shape')},{_cpp_tuple(layout.stride, 'Stride')}>"


__all__ = [
    "MAX_DEPTH",
    "fail",
    "skip_spaces",
    "parse_integer_at",
    "parse_int_tuple_at",
    "parse_stride_leaf_at",
    "parse_layout_at",
    "parse_int_tuple",
    "parse_layout",
    "to_str",
    "to_cpp",
]

#: ``parse`` for plain layouts (the swizzle layer's parser also reads swizzles and composed layouts).
parse = parse_layout
__all__.append("parse")
