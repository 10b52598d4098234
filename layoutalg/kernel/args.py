"""Kernel arguments: from ``--arg NAME=VALUE`` (or the API's ``args={...}``) to the parameter block.

NAME is the parameter's name in the PTX or its 0-based index.  VALUE is

* an integer: a scalar parameter, or an aggregate (``.b8 name[K]``) of 1, 2, 4 or 8 bytes
  filled as one little-endian value (a ``half_t`` alpha as its bits, ``15360``);
* ``buf``: a distinct symbolic global buffer (64-bit parameters, or an 8-byte aggregate);
  every 64-bit parameter not given is a ``buf``;
* a comma-separated list (the API also takes a Python list) filling an aggregate ``.b8``
  parameter as consecutive little-endian 32-bit words, where an element may be ``buf``
  (a 64-bit pointer, 8 bytes) or ``i64:N`` (8 bytes); the last word fills only the bytes
  that remain and its excess bits must be zero.  The list must fill the aggregate exactly.

One-byte aggregates (CuTe's static types) default to zero; any other parameter not given
is an error naming it.  The API also accepts a Python float for a float parameter.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.interp.spaces import align_up, buffer_base, check_buffer_count
from layoutalg.kernel.ptx.nodes import Variable
from layoutalg.kernel.ptx.operands import parse_int


class ArgumentError(KernelError):
    """A kernel argument that is missing, unknown or malformed (the message names the parameter)."""


@dataclass
class ParamBlock:
    """The packed parameters, each parameter's offset, and the buffers handed out (param name per buffer)."""

    data: bytes
    offsets: dict[str, int]
    buffers: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)


def _label(p: Variable, i: int) -> str:
    return f"parameter {i} ({p.name}, .{p.type}{f'[{p.count}]' if p.count != 1 or p.type == 'b8' else ''})"


def _lookup(args: Mapping[Any, Any], params: list[Variable]) -> dict[int, Any]:
    by_name = {p.name: i for i, p in enumerate(params)}
    out: dict[int, Any] = {}
    for key, value in args.items():
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            i = int(key)
        elif isinstance(key, str) and key.strip().isascii() and key.strip().isdigit():
            digits = key.strip().lstrip("0") or "0"
            i = int(digits) if len(digits) <= 20 else 1 << 64  # an index past any kernel's parameters
        elif isinstance(key, str) and key in by_name:
            i = by_name[key]
        else:
            names = ", ".join(f"{k}:{p.name}" for k, p in enumerate(params)) or "none"
            raise ArgumentError(f"no kernel parameter {describe(key)}; parameters (index:name): {names}")
        if not 0 <= i < len(params):
            raise ArgumentError(f"parameter index {describe(key)} out of range: the kernel has {len(params)} parameters")
        if i in out:
            raise ArgumentError(f"{_label(params[i], i)} is given twice")
        out[i] = value
    return out


def _int_bytes(value: int, size: int, what: str) -> bytes:
    if not -(1 << (8 * size - 1)) <= value < (1 << (8 * size)):
        raise ArgumentError(f"{what}: {describe(value)} does not fit in {size} bytes")
    return (value % (1 << (8 * size))).to_bytes(size, "little")


def _float_bytes(value: float, t: str, what: str) -> bytes:
    if t == "f32":
        return struct.pack("<f", value)
    if t == "f64":
        return struct.pack("<d", value)
    if t == "f16":
        return np.array([value], dtype=np.float16).tobytes()
    raise ArgumentError(f"{what}: a float value for a .{t} parameter")


def _scalar_text(text: str) -> Any:
    t = text.strip()
    if t == "buf":
        return "buf"
    v = parse_int(t)
    if v is not None:
        return v
    try:
        return float(t)
    except ValueError:
        pass
    if "," in t:
        return [x.strip() for x in t.split(",")]
    if t.startswith("i64:"):
        return [t]
    raise ArgumentError(f"cannot read value {describe(text)}: expected an integer, buf, or a comma-separated list")


def _aggregate(items: list[Any], size: int, what: str, new_buffer: Any) -> bytes:
    out = bytearray()
    for pos, item in enumerate(items):
        if isinstance(item, str):
            s = item.strip()
            if s == "buf":
                out += new_buffer().to_bytes(8, "little")
                continue
            if s.startswith("i64:"):
                v = parse_int(s[4:])
                if v is None:
                    raise ArgumentError(f"{what}: element {pos} {describe(s)} is not i64:<integer>")
                out += _int_bytes(v, 8, f"{what} element {pos}")
                continue
            v = parse_int(s)
            if v is None:
                raise ArgumentError(f"{what}: element {pos} {describe(s)} is not an integer, buf or i64:N")
            item = v
        if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
            raise ArgumentError(f"{what}: element {pos} {describe(item)} is not an integer, 'buf' or 'i64:N'")
        remaining = size - len(out)
        if remaining <= 0:
            raise ArgumentError(f"{what}: the list has more elements than the {size} bytes hold (element {pos})")
        word = _int_bytes(int(item), 4, f"{what} element {pos}")
        if remaining < 4:
            if int.from_bytes(word[remaining:], "little"):
                raise ArgumentError(f"{what}: the last element {item} has bits beyond the {remaining} remaining "
                                    "byte(s)")
            word = word[:remaining]
        out += word
    if len(out) != size:
        raise ArgumentError(f"{what}: the list fills {len(out)} of its {size} bytes; give every word "
                            "(the last one may be partial)")
    return bytes(out)


def pack_params(params: list[Variable], args: Mapping[Any, Any] | None) -> ParamBlock:
    """The parameter block of a launch (see the module doc); raises ArgumentError naming the parameter."""
    if args is not None and not isinstance(args, Mapping):
        raise ArgumentError(f"args maps parameter names or indices to values (a dict), got {describe(args)}")
    given = _lookup(args or {}, params)
    block = ParamBlock(b"", {})
    data = bytearray()

    def new_buffer(name: str) -> Any:
        def make() -> int:
            block.buffers.append(name)
            check_buffer_count(len(block.buffers))
            return buffer_base(len(block.buffers) - 1)
        return make

    for i, p in enumerate(params):
        what = _label(p, i)
        size = p.size
        at = align_up(len(data), p.align)
        data += bytes(at - len(data))
        block.offsets[p.name] = at
        aggregate = p.type == "b8"
        value = given.get(i)
        if isinstance(value, str):
            value = _scalar_text(value)
        if value is None:
            if size == 8:
                value = "buf"
            elif aggregate and size == 1:
                value = 0
            else:
                raise ArgumentError(f"{what} is not given; pass it as --arg {p.name}=VALUE or --arg {i}=VALUE "
                                    "(an integer, buf, or a comma-separated list of 32-bit words)")
        if value == "buf":
            if size != 8:
                raise ArgumentError(f"{what}: buf is a 64-bit pointer but the parameter has {size} bytes")
            raw = new_buffer(p.name)().to_bytes(8, "little")
            block.values[p.name] = "buf"
        elif isinstance(value, (list, tuple)):
            if not aggregate:
                raise ArgumentError(f"{what}: a list fills an aggregate .b8 parameter, not a .{p.type}")
            raw = _aggregate(list(value), size, what, new_buffer(p.name))
            block.values[p.name] = ",".join(str(x) for x in value)
        elif isinstance(value, float):
            raw = _float_bytes(value, p.type, what)
            block.values[p.name] = repr(value)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            if aggregate and size not in (1, 2, 4, 8):
                raise ArgumentError(f"{what}: an integer fills an aggregate of 1, 2, 4 or 8 bytes; this one has "
                                    f"{size}: give a comma-separated list of 32-bit words")
            raw = _int_bytes(int(value), size, what)
            block.values[p.name] = str(int(value))
        else:
            raise ArgumentError(f"{what}: cannot use {describe(value)}; expected an integer, 'buf' or a list")
        data += raw
    block.data = bytes(data)
    return block
