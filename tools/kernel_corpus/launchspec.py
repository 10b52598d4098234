"""Kernel parameters from PTX, and launch.json arguments packed into their bytes (stdlib only).

Used on this machine (tools/build_kernels.py) and on the GPU machine (tools/measure_kernels.py), so
it needs nothing but the standard library.

Argument forms (issue 14, the CLI's ``--arg NAME=VALUE``):
- an integer: a scalar parameter (two's complement, little-endian, its own size), or an aggregate
  ``.b8`` parameter of 1, 2, 4 or 8 bytes filled as one little-endian value.  A float parameter takes
  its bits as an integer (1.0f is 1065353216).
- ``buf``: a distinct global buffer, for a 64-bit parameter.
- a comma-separated list: an aggregate's bytes as consecutive little-endian 32-bit words; an element
  may be ``buf`` (a 64-bit pointer) or ``i64:N``; the last word fills only the bytes that remain and
  its excess bits must be zero.

A pointer slot is named by the parameter index, and for a slot inside an aggregate by
``INDEX.WORD`` (WORD the position of its element in the list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TYPE_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


class SpecError(ValueError):
    """A launch specification that does not fit the kernel it names."""


@dataclass(frozen=True)
class Param:
    """One ``.param`` of an ``.entry``: its name, PTX type, byte size and alignment."""

    index: int
    name: str
    ptx_type: str          # e.g. "u64", "b8", "f32"
    size: int              # bytes
    align: int
    is_array: bool
    is_ptr: bool           # Triton's ``.ptr`` annotation

    def describe(self) -> dict[str, object]:
        return {"index": self.index, "type": "." + self.ptx_type + ("[]" if self.is_array else ""),
                "size": self.size, "align": self.align}


@dataclass
class Packed:
    """The bytes of one parameter and the pointer slots in it: (byte offset, slot key)."""

    data: bytearray
    pointers: list[tuple[int, str]] = field(default_factory=list)


_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$.]+)\s*\(", re.M)
_PARAM = re.compile(
    r"\.param\s+(?:\.align\s+(\d+)\s+)?\.([a-z]+)(\d+)\s+"
    r"(\.ptr\s+(?:\.(?:global|shared|const|local)\s+)?(?:\.align\s+\d+\s+)?)?"
    r"([\w$.]+)(?:\s*\[\s*(\d+)\s*\])?")


def entries(ptx: str) -> list[str]:
    """The ``.entry`` names of a PTX module, in order."""
    return _ENTRY.findall(ptx)


def find_entry(ptx: str, substring: str) -> str:
    """The one entry whose name contains ``substring`` (exact name wins)."""
    names = entries(ptx)
    if substring in names:
        return substring
    hits = [n for n in names if substring in n]
    if len(hits) != 1:
        raise SpecError(f"{len(hits)} entries contain {substring!r}: {[h[:60] for h in hits]}")
    return hits[0]


def params(ptx: str, entry: str) -> list[Param]:
    """The parameters of ``entry``, parsed from its ``.entry NAME( ... )`` header."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(", ptx)
    if m is None:
        raise SpecError(f"no .entry {entry[:80]}")
    close = ptx.find(")", m.end())
    body = ptx[m.end():close]
    out = []
    for i, decl in enumerate(d for d in body.split(",") if d.strip()):
        pm = _PARAM.search(decl)
        if pm is None:
            raise SpecError(f"cannot parse parameter {i}: {decl.strip()[:120]}")
        align, kind, bits, ptr, name, count = pm.groups()
        if bits not in TYPE_BYTES:
            raise SpecError(f"parameter {i}: unsupported type .{kind}{bits}")
        elem = TYPE_BYTES[bits]
        size = elem * int(count) if count is not None else elem
        out.append(Param(i, name, kind + bits, size, int(align) if align else elem, count is not None,
                         ptr is not None))
    return out


def _int(text: str, where: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise SpecError(f"{where}: {text!r} is not an integer") from None


def _le(value: int, size: int, where: str) -> bytes:
    if not -(1 << (8 * size - 1)) <= value < (1 << (8 * size)):
        raise SpecError(f"{where}: {value} does not fit {size} bytes")
    return (value % (1 << (8 * size))).to_bytes(size, "little")


def pack(param: Param, value: str) -> Packed:
    """The bytes of ``param`` for the CLI-form ``value`` (module docstring), with its pointer slots."""
    where = f"parameter {param.index}"
    value = value.strip()
    if value == "buf" and not param.is_array:
        if param.size != 8:
            raise SpecError(f"{where}: 'buf' needs a 64-bit parameter, this one has {param.size} bytes")
        return Packed(bytearray(8), [(0, str(param.index))])
    single = "," not in value and value != "buf" and not value.startswith("i64:")
    if single and (not param.is_array or param.size in (1, 2, 4, 8)):
        return Packed(bytearray(_le(_int(value, where), param.size, where)))
    if not param.is_array:
        raise SpecError(f"{where}: a word list needs an aggregate .b8 parameter")
    data = bytearray()
    pointers: list[tuple[int, str]] = []
    for w, item in enumerate(v.strip() for v in value.split(",")):
        if item == "buf":
            pointers.append((len(data), f"{param.index}.{w}"))
            data += bytes(8)
        elif item.startswith("i64:"):
            data += _le(_int(item[4:], where), 8, where)
        else:
            data += _le(_int(item, where), 4, where)
    if len(data) < param.size:
        raise SpecError(f"{where}: the list fills {len(data)} of {param.size} bytes")
    if any(data[param.size:]):
        raise SpecError(f"{where}: the last word has non-zero bits past byte {param.size}")
    if len(data) - param.size >= 4:
        raise SpecError(f"{where}: the list has {len(data)} bytes for {param.size}")
    if any(off + 8 > param.size for off, _ in pointers):
        raise SpecError(f"{where}: a buf element runs past the aggregate")
    return Packed(data[:param.size], pointers)


def pack_all(ptx_params: list[Param], args: dict[str, str]) -> list[Packed]:
    """Every parameter packed: given values, else 0 for a 1-byte aggregate, else buf for 64 bits."""
    unknown = set(args) - {str(p.index) for p in ptx_params}
    if unknown:
        raise SpecError(f"arguments for parameters that do not exist: {sorted(unknown)}")
    out = []
    for p in ptx_params:
        value = args.get(str(p.index))
        if value is None:
            if p.is_array and p.size == 1:
                value = "0"
            elif p.size == 8:
                value = "buf"
            else:
                raise SpecError(f"parameter {p.index} ({p.size} bytes) has no argument")
        out.append(pack(p, value))
    return out


DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "u8": 1, "i8": 1, "u16": 2, "i16": 2,
               "u32": 4, "i32": 4, "u64": 8, "i64": 8}


def launch_text(launch: dict, ptx: str) -> str:
    """The launcher's launch.txt for a corpus launch.json (see tools/kernel_corpus/launcher.cpp)."""
    ps = params(ptx, launch["kernel"])
    packed = pack_all(ps, launch["args"])
    buffers = launch.get("buffers", {})
    slots = [key for pk in packed for _, key in pk.pointers]
    missing = [k for k in slots if k not in buffers]
    if missing:
        raise SpecError(f"pointer slots without a buffer description: {missing}")
    extra = set(buffers) - set(slots)
    if extra:
        raise SpecError(f"buffer descriptions for no pointer slot: {sorted(extra)}")
    ids = {key: i for i, key in enumerate(slots)}
    lines = [f"kernel {launch['kernel']}",
             "grid {} {} {}".format(*launch["grid"]),
             "block {} {} {}".format(*launch["block"]),
             f"smem {launch['dynamic_smem']}"]
    for key in slots:
        b = buffers[key]
        if b["dtype"] not in DTYPE_BYTES:
            raise SpecError(f"buffer {key}: unknown dtype {b['dtype']}")
        nbytes = int(b["count"]) * DTYPE_BYTES[b["dtype"]]
        lo, hi = b.get("range", [0, 0])
        lines.append(f"buffer {ids[key]} {nbytes} {b['dtype']} {b['init']} {lo} {hi} {int(b.get('seed', 1))}")
    for pk in packed:
        hexs = pk.data.hex() if pk.data else "-"
        slots_text = "".join(f" {off} {ids[key]}" for off, key in pk.pointers)
        lines.append(f"param {len(pk.data)} {hexs} {len(pk.pointers)}{slots_text}")
    return "\n".join(lines) + "\n"


def buffer_ids(launch: dict, ptx: str) -> dict[str, int]:
    """Slot key -> the launcher's buffer id (the order of pointer slots in the parameter list)."""
    packed = pack_all(params(ptx, launch["kernel"]), launch["args"])
    return {key: i for i, key in enumerate(key for pk in packed for _, key in pk.pointers)}
