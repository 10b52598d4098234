"""The full parser: plain layouts, swizzles and composed layouts as CuTe prints them.

Grammar (spaces allowed between tokens; plain layouts by :mod:`layoutalg.core.notation`)::

    value    := swizzle | layout | outer "o" [offset "o"] layout
    outer    := swizzle | layout
    swizzle  := ("Sw" | "S") "<" integer "," integer "," integer ">"   # C++ prints Sw<..>, CuTe DSL S<..>
    offset   := integer                                                 # "_0", "0", "_32"
              | "smem_ptr[" bits "b]" ["(" anything ")"]                # CUTLASS's smem_ptr_flag_bits

``Sw<3,4,3> o _0 o (8,64):(64,1)`` is the ComposedLayout ``outer(offset + inner(c))``.

``smem_ptr[Nb](unset)`` is how CuTe prints ``smem_ptr_flag_bits<N>``: there the
swizzle acts on the *byte* address of an ``N``-bit element pointer (e.g.
CUTLASS's GMMA atoms, ``Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)``).
The parser turns it into the equivalent element-offset function: the byte
swizzle ``Sw<B,M,S>`` is ``Sw<B, M + 3 - log2(N), S>`` on element offsets (the
swizzle never touches bits below ``M``), with offset 0 and the same layout.
"""

from __future__ import annotations

import re
from typing import Union

from layoutalg.core.layout import Layout
from layoutalg.core.notation import fail, parse_integer_at, parse_layout_at, skip_spaces
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError, ParseError
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

Parsed = Union[Layout, Swizzle, ComposedLayout]


def _parse_swizzle_at(text: str, pos: int) -> tuple[Swizzle, int]:
    start = pos
    pos += 2 if text.startswith("Sw<", pos) else 1
    pos += 1  # the '<'
    values = []
    for k in range(3):
        value, pos = parse_integer_at(text, pos)
        values.append(value)
        pos = skip_spaces(text, pos)
        expected = ">" if k == 2 else ","
        if not text.startswith(expected, pos):
            fail(f"expected '{expected}' in a swizzle Sw<B,M,S>", text, pos)
        pos += 1
    try:
        return Swizzle(*values), pos
    except LayoutError as err:
        fail(str(err), text, start)


def _is_swizzle_at(text: str, pos: int) -> bool:
    return text.startswith("Sw<", pos) or text.startswith("S<", pos)


def _parse_outer_at(text: str, pos: int) -> tuple[Union[Swizzle, Layout], int]:
    pos = skip_spaces(text, pos)
    if _is_swizzle_at(text, pos):
        return _parse_swizzle_at(text, pos)
    return parse_layout_at(text, pos)


def _at_compose(text: str, pos: int) -> int | None:
    """Position after an ``o`` composition operator at ``pos`` (after spaces), else None."""
    pos = skip_spaces(text, pos)
    if text.startswith("o", pos) and (pos + 1 == len(text) or not text[pos + 1].isalnum() or text[pos + 1] == "_"):
        return pos + 1
    return None


def _parse_smem_ptr_at(text: str, pos: int) -> tuple[int, int]:
    """``smem_ptr[16b](unset)`` -> (16, end)."""
    pos += len("smem_ptr[")
    bits, pos = parse_integer_at(text, pos)
    if not text.startswith("b]", pos):
        fail("expected 'b]' after the smem_ptr element width", text, pos)
    pos += 2
    if text.startswith("(", pos):
        close = text.find(")", pos)
        if close < 0:
            fail("unclosed '(' after smem_ptr[...]", text, pos)
        pos = close + 1
    if bits <= 0 or bits & (bits - 1):
        fail(f"smem_ptr element width {bits} is not a power of two", text, pos)
    return bits, pos


def _element_swizzle(byte_swizzle: Swizzle, bits: int, text: str, pos: int) -> Swizzle:
    if byte_swizzle.is_identity():
        return byte_swizzle
    base = byte_swizzle.base + 3 - (bits.bit_length() - 1)
    if base < 0:
        fail(f"{byte_swizzle} on byte addresses splits {bits}-bit elements", text, pos)
    return Swizzle(byte_swizzle.bits, base, byte_swizzle.shift)


#: A CuTe C++ type (``Layout<...>``, ``cute::ComposedLayout<...>``, ``Swizzle<3,3,3>``): read by :mod:`.cpp`.
_CPP_TYPE = re.compile(r"^\s*(?:[A-Za-z_]\w*::)*(?:Layout|ComposedLayout|Swizzle)\s*<")


def parse(text: str) -> Parsed:
    """Parse a plain layout, a swizzle, or a composed layout (see the module grammar), or a CuTe C++ type
    (``Layout<Shape<_8,_64>,Stride<_64,_1>>``, read by :func:`layoutalg.swizzle.cpp.from_cpp`)."""
    if not isinstance(text, str):
        raise ParseError(f"layout notation must be a str, got {type(text).__name__}")
    if _CPP_TYPE.match(text):  # a C++ type as source writes it or a compiler prints it
        from layoutalg.swizzle.cpp import from_cpp

        return from_cpp(text.strip())  # type: ignore[no-any-return]
    outer, pos = _parse_outer_at(text, 0)
    after = _at_compose(text, pos)
    if after is None:
        _expect_end(text, pos)
        return outer
    pos = skip_spaces(text, after)
    offset = 0
    ptr_bits = None
    if text.startswith("smem_ptr[", pos):
        ptr_pos = pos
        ptr_bits, pos = _parse_smem_ptr_at(text, pos)
        after = _at_compose(text, pos)
        if after is None:
            fail("expected 'o' and a layout after smem_ptr[...]", text, pos)
        if not isinstance(outer, Swizzle):
            fail("smem_ptr[...] needs a swizzle as the outer function", text, ptr_pos)
        outer = _element_swizzle(outer, ptr_bits, text, ptr_pos)
        pos = after
    else:
        try:
            value, end = parse_integer_at(text, pos)
        except ParseError:
            value, end = 0, -1
        if end >= 0 and text[pos] != "(":
            again = _at_compose(text, end)
            if again is not None:
                offset = value
                pos = again
    inner, pos = parse_layout_at(text, pos)
    _expect_end(text, pos)
    return ComposedLayout(outer, offset, inner)


def _expect_end(text: str, pos: int) -> None:
    pos = skip_spaces(text, pos)
    if pos != len(text):
        fail("unexpected text after the layout", text, pos)


def to_str(x: Parsed) -> str:
    """CuTe's printed form (``Sw<3,4,3> o _0 o (8,64):(64,1)``); ``parse(to_str(x)) == x``."""
    if not isinstance(x, (Layout, Swizzle, ComposedLayout)):
        raise LayoutError(f"to_str takes a Layout, Swizzle or ComposedLayout, got {describe(x)}")
    return str(x)


__all__ = ["parse", "to_str"]
