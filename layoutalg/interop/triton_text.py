"""The ``#ttg.*`` attribute text of Triton's IR dumps, written and read without Triton installed.

Written exactly as Triton 3.6 prints them (the tests compare with the TTGIR of compiled kernels)::

    #ttg.linear<{register = [[0, 1]], lane = [[0, 2], ...], warp = [], block = []}>
    #ttg.shared_linear<{offset = [[0, 1], ...]}, alignment = 16>
    #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>    (", rank = 3" at rank 3)
    #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    #ttg.padded_shared<[64:+8] {offset = [[0, 1], ...], block = []}>
    #ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64, 64]}>     (an identity unpadded order)

and read back, together with ``#ttg.blocked<{...}>`` and ``#ttg.nvidia_mma<{...}>`` (whose functions only
Triton computes: :mod:`layoutalg.interop.triton` hands those to Triton).  :func:`parse_ttg` returns
``(kind, fields)``: ``kind`` is the attribute name and ``fields`` a dict of its parameters.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Sequence

from layoutalg.core.validate import describe
from layoutalg.errors import ParseError

_ATTR = re.compile(r"^\s*#ttg\.(\w+)\s*<(.*)>\s*$", re.S)
_CAMEL = {"sizePerThread": "size_per_thread", "threadsPerWarp": "threads_per_warp", "warpsPerCTA": "warps_per_cta",
          "versionMajor": "version_major", "versionMinor": "version_minor", "instrShape": "instr_shape",
          "swizzlingByteWidth": "swizzle_byte_width", "elementBitWidth": "element_bitwidth",
          "perPhase": "per_phase", "maxPhase": "max_phase", "CTAsPerCGA": "ctas_per_cga",
          "CTASplitNum": "cta_split_num", "CTAOrder": "cta_order", "CGALayout": "cga_layout",
          "fp4Padded": "fp4_padded"}

# What each field holds: an int, a bool, a list of ints, or a list of bases (lists of ints).
_INT, _BOOL, _INTS, _BASES = "an integer", "true or false", "a list of integers", "a list of [..] bases"
_CTA_FIELDS = {"ctas_per_cga": _INTS, "cta_split_num": _INTS, "cta_order": _INTS, "cga_layout": _BASES}
#: The fields of each attribute read here (Triton 3.6's prints, and the CTA fields of older ones): kind ->
#: ({field: what it holds}, required fields).
SCHEMA: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "linear": ({"register": _BASES, "lane": _BASES, "warp": _BASES, "block": _BASES}, ()),
    "blocked": ({"size_per_thread": _INTS, "threads_per_warp": _INTS, "warps_per_cta": _INTS, "order": _INTS,
                 **_CTA_FIELDS}, ("size_per_thread", "threads_per_warp", "warps_per_cta", "order")),
    "nvidia_mma": ({"version_major": _INT, "version_minor": _INT, "warps_per_cta": _INTS, "instr_shape": _INTS,
                    **_CTA_FIELDS}, ("version_major", "warps_per_cta", "instr_shape")),
    "shared_linear": ({"offset": _BASES, "block": _BASES, "alignment": _INT}, ("offset",)),
    "nvmma_shared": ({"swizzle_byte_width": _INT, "transposed": _BOOL, "element_bitwidth": _INT,
                      "fp4_padded": _BOOL, "rank": _INT, **_CTA_FIELDS}, ("swizzle_byte_width", "element_bitwidth")),
    "swizzled_shared": ({"vec": _INT, "per_phase": _INT, "max_phase": _INT, "order": _INTS, **_CTA_FIELDS},
                        ("vec", "per_phase", "max_phase", "order")),
    "padded_shared": ({"interval_padding_pairs": _BASES, "offset": _BASES, "block": _BASES, "order": _INTS,
                       "shape": _INTS, **_CTA_FIELDS}, ()),
}


_DIALECTS = ("#ttg.", "#triton_gpu.")  # Triton 3.2 renamed the TritonGPU dialect's prefix triton_gpu -> ttg


def ttg_attribute(text: str) -> str | None:
    """The ``#ttg.KIND<...>`` attribute ``text`` holds, as IR dumps print it, or None when it holds none:
    an alias definition from a module's header (``#blocked = #ttg.blocked<{...}>``) gives its right side, and
    the dialect's prefix before Triton 3.2 (``#triton_gpu.blocked<...>``) is read as ``#ttg.``."""
    stripped = text.strip()
    name, equals, value = stripped.partition("=")
    if equals and name.strip().startswith("#") and value.strip().startswith(_DIALECTS) and "<" not in name:
        stripped = value.strip()
    for prefix in _DIALECTS:
        if stripped.startswith(prefix):
            return "#ttg." + stripped[len(prefix):]
    return None


def _bases(vectors: Sequence[Sequence[int]]) -> str:
    return "[" + ", ".join("[" + ", ".join(str(int(v)) for v in vec) + "]" for vec in vectors) + "]"


def linear_text(reg: Any, lane: Any, warp: Any, block: Any) -> str:
    return (f"#ttg.linear<{{register = {_bases(reg)}, lane = {_bases(lane)}, warp = {_bases(warp)}, "
            f"block = {_bases(block)}}}>")


def shared_linear_text(offset: Any, alignment: int = 16, block: Any = ()) -> str:
    block_part = f", block = {_bases(block)}" if block else ""
    return f"#ttg.shared_linear<{{offset = {_bases(offset)}{block_part}}}, alignment = {int(alignment)}>"


def nvmma_shared_text(swizzle_byte_width: int, transposed: bool, element_bitwidth: int, rank: int = 2) -> str:
    """Triton prints the rank only where it is not 2."""
    rank_part = f", rank = {int(rank)}" if rank != 2 else ""
    return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle_byte_width}, transposed = "
            f"{'true' if transposed else 'false'}, elementBitWidth = {element_bitwidth}{rank_part}}}>")


def swizzled_shared_text(vec: int, per_phase: int, max_phase: int, order: Sequence[int]) -> str:
    return (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
            f"order = [{', '.join(str(o) for o in order)}]}}>")


def padded_shared_text(pairs: Sequence[Sequence[int]], offset: Any, block: Any = ()) -> str:
    intervals = ", ".join(f"{i}:+{p}" for i, p in pairs)
    return f"#ttg.padded_shared<[{intervals}] {{offset = {_bases(offset)}, block = {_bases(block)}}}>"


def padded_identity_text(pairs: Sequence[Sequence[int]], order: Sequence[int], shape: Sequence[int]) -> str:
    """How Triton prints a padded layout whose unpadded order is the identity in ``order``."""
    intervals = ", ".join(f"{i}:+{p}" for i, p in pairs)
    return (f"#ttg.padded_shared<[{intervals}] {{order = [{', '.join(map(str, order))}], "
            f"shape = [{', '.join(map(str, shape))}]}}>")


def _value(text: str, whole: str) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        value = None
    if not _int_lists(value):
        raise ParseError(f"cannot read the value {describe(text)}: its entries are not integers (expected an integer, "
                         "true/false or nested [...] lists of integers)", whole, max(1, whole.find(text) + 1))
    return value


def _small_int(text: str) -> bool:
    """Whether ``text`` is a decimal of at most 18 digits (a string test, no regular expression)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def _int_lists(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is an int or a nested list of ints (what every field of a Triton layout holds)."""
    if isinstance(value, int):
        return True
    return isinstance(value, list) and depth < 16 and all(_int_lists(v, depth + 1) for v in value)


def _fields(body: str, whole: str) -> dict[str, Any]:
    """``name = value`` pairs separated by top-level commas (values are ints, bools or nested int lists)."""
    out: dict[str, Any] = {}
    depth, start = 0, 0
    parts = []
    for k, ch in enumerate(body):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:k])
            start = k + 1
    parts.append(body[start:])
    for part in parts:
        if not part.strip():
            continue
        name, eq, value = part.partition("=")
        if not eq:
            raise ParseError(f"expected name = value, found {describe(part.strip())}", whole, max(1, whole.find(part) + 1))
        key = name.strip()
        if value.strip().startswith("#"):
            raise ParseError(f"the field {describe(key)} holds a nested attribute, which is not read here (a dot operand's "
                             "parent, an older print's CTA layout): write the layout itself", whole,
                             max(1, whole.find(part) + 1))
        out[_CAMEL.get(key, key)] = _value(value, whole)
    return out


def _holds(value: Any, what: str) -> bool:
    if what == _BOOL:
        return isinstance(value, bool)
    if what == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if not isinstance(value, list):
        return False
    if what == _INTS:
        return all(_holds(v, _INT) for v in value)
    return all(_holds(v, _INTS) for v in value)


_PRINTED = {snake: camel for camel, snake in _CAMEL.items()}


def _camel(field: str) -> str:
    """A field's name as Triton prints it."""
    return _PRINTED.get(field, field)


def check_fields(kind: str, fields: dict[str, Any], text: str) -> None:
    """ParseError naming the field unless ``fields`` are those of a ``#ttg.kind`` read here (see SCHEMA): no
    unknown field (it would be dropped silently), every required one, each holding what it should."""
    if kind not in SCHEMA:
        return
    known, required = SCHEMA[kind]
    for field, value in fields.items():
        name = _camel(field)
        column = max(1, text.find(name) + 1)
        if field not in known:
            raise ParseError(f"#ttg.{kind} has no field {describe(name)} read here (known: "
                             f"{', '.join(_camel(k) for k in known)})", text, column)
        if not _holds(value, known[field]):
            raise ParseError(f"#ttg.{kind} field {describe(name)} holds {known[field]}, got {describe(value)}", text, column)
    missing = [_camel(field) for field in required if field not in fields]
    if missing:
        raise ParseError(f"#ttg.{kind} needs the field(s) {', '.join(missing)}", text, text.find("<") + 2)
    spreading = [f for f in ("ctas_per_cga", "cta_split_num") if any(e != 1 for e in fields.get(f, []))] + \
        [f for f in ("cga_layout", "block") if fields.get(f)]
    if spreading:
        spread = spreading[0]
        raise ParseError(f"this #ttg.{kind} layout is spread over several CTAs ({_camel(spread)} = "
                         f"{fields[spread]}); layoutalg reads single-CTA layouts", text, max(1, text.find(
                             _camel(spread)) + 1))


def parse_ttg(text: str) -> tuple[str, dict[str, Any]]:
    """``#ttg.kind<...>`` as ``(kind, fields)``; ParseError naming the column otherwise."""
    m = _ATTR.match(text)
    if m is None:
        raise ParseError("expected a Triton layout attribute #ttg.name<...>", text, 1)
    kind, body = m.group(1), m.group(2).strip()
    fields: dict[str, Any] = {}
    if kind == "padded_shared":
        pm = re.match(r"^\[([^\]]*)\]\s*(\{.*\})?$", body, re.S)
        if pm is None:
            raise ParseError("expected [interval:+padding, ...] {...}", text, text.find("<") + 2)
        pairs = []
        for item in pm.group(1).split(","):
            interval, colon, padding = item.partition(":")
            interval, padding = interval.strip(), padding.strip()
            padding = padding[1:].strip() if padding.startswith("+") else ""
            if not (colon and _small_int(interval) and _small_int(padding)):
                raise ParseError(f"expected interval:+padding, found {describe(item.strip())}", text, text.find(item) + 1)
            pairs.append([int(interval), int(padding)])
        fields["interval_padding_pairs"] = pairs
        body = (pm.group(2) or "{}").strip()
    if kind == "shared_linear":
        sm = re.match(r"^\{(.*)\}\s*(?:,\s*alignment\s*=\s*(\d+))?$", body, re.S)
        if sm is None:
            raise ParseError("expected {offset = [...]}, alignment = N", text, text.find("<") + 2)
        fields.update(_fields(sm.group(1), text))
        fields["alignment"] = int(sm.group(2) or 16)
        check_fields(kind, fields, text)
        return kind, fields
    if not (body.startswith("{") and body.endswith("}")):
        raise ParseError("expected {name = value, ...}", text, text.find("<") + 2)
    fields.update(_fields(body[1:-1], text))
    check_fields(kind, fields, text)
    return kind, fields


__all__ = ["parse_ttg", "ttg_attribute", "check_fields", "SCHEMA", "linear_text", "shared_linear_text", "nvmma_shared_text", "swizzled_shared_text",
           "padded_shared_text", "padded_identity_text"]
