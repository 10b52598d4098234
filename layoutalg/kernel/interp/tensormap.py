"""``tensormap.replace`` and ``tensormap.cp_fenceproxy`` on a tensor-map in shared memory (PTX ISA 8.3+).

Triton builds TMA descriptors on the device: it zeroes a 128-byte tensor-map in shared memory,
writes its fields with ``tensormap.replace.tile.<field>.shared::cta.b1024``, and copies it to
global memory with ``tensormap.cp_fenceproxy``.  ptxas turns these into ordinary LDS/STS, which
Nsight counts with every other shared access (tests/data/kernels/triton_matmul_tma_sm90: its
33 LDS and 45 STS per CTA are exactly what this module records):

* a field that fills whole 32-bit words is one STS per word run (``global_address``: one STS.64
  at byte 0; ``global_dim[i]``: an STS at ``0x20 + 4i``; the low word of ``global_stride[i]``
  at ``0xc + 4i``);
* a field that fills part of a word is a read-modify-write of that word, one LDS and one STS,
  never merged with a neighbouring ``tensormap.replace`` (the flag word ``0x8``: ``rank``,
  ``elemtype``, ``interleave_layout``, ``swizzle_mode``, ``fill_mode``; ``0x1c``, the high bits of
  ``global_stride[i]``; ``0x34``, ``element_stride[i]``; the byte ``0x37 + i`` of ``box_dim[i]``);
* ``tensormap.cp_fenceproxy ... .sync.aligned [dst], [src], 128``: one LDS.32 by the whole warp,
  lane ``i`` reading ``src + 4i`` (the global side is an ATOMG per lane).

The word offsets are those of the corpus SASS for the ordinals a 2-D map uses; other ordinals
follow the same packing.  The counts depend only on whether a word is written whole or
read-modified-written, and an offset moves every lane of an instruction alike, so the bank costs
do not depend on it either.  ``swizzle_atomicity`` (sm_100) is not in the corpus and is refused.
The written bytes become unknown (the tracer does not model the descriptor's encoding), so a field's
value does not change what is recorded (ptxas 13.0 on sm_100a: ``.elemtype`` 1, 13 and 15 are the same
LDS/LOP3/STS of word 0x8, only the LOP3's immediate differs).
Both instructions are read by their ISA syntax (:func:`replace_form`, :func:`check_copy_form`),
modifiers in any order as ptxas reads them; any other form is refused, naming the line.  What the module's
``.target``/``.version`` must give a ``tensormap.replace`` (:data:`REPLACE_SUPPORT`) is checked when it is
decoded (:func:`check_support`).
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder
from layoutalg.kernel.interp.memory import address_reader, checked_shared_lanes, full, record
from layoutalg.kernel.ptx.nodes import Addr, Imm, Instruction
from layoutalg.kernel.ptx.target import Support, Target

TENSORMAP_BYTES = 128
FLAG_WORD = 0x8
FLAG_FIELDS = ("rank", "elemtype", "interleave_layout", "swizzle_mode", "fill_mode")
MAX_RANK = 5

Access = tuple[int, int, bool]  # (byte offset, bytes, read-modify-write)


def field_accesses(field: str, ordinal: int | None) -> list[Access]:
    """The LDS/STS word accesses one ``tensormap.replace`` of ``field`` (and ``ordinal``) becomes."""
    if field == "global_address":
        return [(0, 8, False)]
    if field in FLAG_FIELDS:
        return [(FLAG_WORD, 4, True)]
    if ordinal is None or not 0 <= ordinal < MAX_RANK:
        raise ValueError(f"{field} needs an ordinal 0..{MAX_RANK - 1}")
    if field == "global_stride" and ordinal < MAX_RANK - 1:
        return [(0xC + 4 * ordinal, 4, False), (0x1C, 4, True)]
    if field == "global_dim":
        return [(0x20 + 4 * ordinal, 4, False)]
    if field == "element_stride":
        return [(0x34, 4, True)]
    if field == "box_dim":
        return [((0x37 + ordinal) // 4 * 4, 4, True)]
    raise ValueError(f"tensormap field {field}" + (f" ordinal {ordinal}" if ordinal is not None else ""))


#: field -> (its .type, whether it takes an ordinal, whether its value must be an immediate): the ISA's
#: ``.field1`` (no ordinal), ``.field2`` (``[addr], ord, new_val``) and ``.field3`` (immediate values)
REPLACE_FIELDS: dict[str, tuple[str, bool, bool]] = {
    "global_address": ("b64", False, False), "rank": ("b32", False, False),
    "box_dim": ("b32", True, False), "global_dim": ("b32", True, False), "global_stride": ("b64", True, False),
    "element_stride": ("b32", True, False), "elemtype": ("b32", False, True),
    "interleave_layout": ("b32", False, True), "swizzle_mode": ("b32", False, True),
    "swizzle_atomicity": ("b32", False, True), "fill_mode": ("b32", False, True),
}
#: PTX ISA "tensormap.replace", Table "Tensormap new_val validity": the immediate values of each ``.field3``
#: field, 0..n-1 (ptxas 13.0: "value 'v' expected to be in range [0..n-1]", n smaller where the module's target
#: lacks the last values, :data:`VALUE_SUPPORT`; ``.rank``, ``.field2`` values and ``.global_address`` have no
#: range, and ptxas takes any immediate for them)
FIELD3_VALUES = {"elemtype": 16, "interleave_layout": 3, "swizzle_mode": 5, "swizzle_atomicity": 4, "fill_mode": 2}
_LATER_ARCHS = frozenset({100, 101, 110, 120})  # sm_101a is sm_110a from PTX ISA 9.0
_FAMILIES = frozenset({100, 110, 120})
#: PTX ISA "tensormap.replace", PTX ISA Notes and Target ISA Notes: the instruction, its ``.swizzle_atomicity``
#: field, and the ``.field3`` values only later targets and versions take (``.elemtype`` 13..15: .b4x16,
#: .b4x16_p64, .b6x16_p32; ``.swizzle_mode`` 4: 96B swizzling); ptxas 13.0 refuses each where the module's
#: ``.target``/``.version`` lacks it (tests/data/ptxas_reader_verdicts.json)
REPLACE_SUPPORT = Support("tensormap.replace", (8, 3), frozenset({90}) | _LATER_ARCHS, _FAMILIES)
FIELD_SUPPORT = {"swizzle_atomicity": Support("tensormap.replace.swizzle_atomicity", (8, 6), _LATER_ARCHS, _FAMILIES)}
VALUE_SUPPORT = {**{("elemtype", v): Support(".elemtype value 13..15", (8, 7), _LATER_ARCHS, _FAMILIES)
                    for v in range(13, 16)},
                 ("swizzle_mode", 4): Support(".swizzle_mode value 4", (8, 8), frozenset({103}))}
REPLACE_SYNTAX = "tensormap.replace.tile.field{.global|.shared::cta}.b1024.type [addr], {ord,} new_val"
COPY_SCOPES = ("cta", "cluster", "gpu", "sys")
COPY_SYNTAX = "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], 128"
_SPACE_NAMES = ("global", "shared", "local", "const", "param")


def _modifiers(ins: Instruction, syntax: str) -> tuple[list[str], Callable[[str], NoReturn]]:
    """The modifiers after ``tensormap.<op>`` and a function refusing the instruction with a reason.  ptxas
    reads them as a set (any order) and refuses one given twice ("Multiple .x modifiers specified")."""
    mods = list(ins.parts[2:])

    def refuse(why: str) -> NoReturn:
        raise KernelError(f"{ins.parts[0]}.{ins.parts[1]}: {why} (ISA: {syntax})", ins.line, ins.opcode)

    for m in mods:
        if mods.count(m) > 1:
            refuse(f".{m} is given twice")
    return mods, refuse


def replace_form(ins: Instruction) -> tuple[str, str | None, int | None]:
    """(field, state space or None for generic addressing, ordinal) of a ``tensormap.replace``.

    PTX ISA "tensormap.replace": ``.tile``, one field, at most one of ``.global``/``.shared::cta``,
    ``.b1024`` and the field's type (``.b64`` for global_address and global_stride, ``.b32`` otherwise);
    ``[addr], new_val``, with an immediate ordinal 0..4 before new_val for box_dim, global_dim,
    global_stride and element_stride, and an immediate new_val for the ``.field3`` fields, one the ISA's table
    "Tensormap new_val validity" gives (:data:`FIELD3_VALUES`).  ptxas 13.0 accepts these modifiers in any
    order and refuses everything else (tests/data/ptxas_reader_verdicts.json)."""
    mods, refuse = _modifiers(ins, REPLACE_SYNTAX)
    fields = [m for m in mods if m in REPLACE_FIELDS]
    spaces = [m for m in mods if m.split("::")[0] in _SPACE_NAMES]
    types = [m for m in mods if m in ("b32", "b64")]
    for m in mods:
        if m not in fields + spaces + types + ["tile", "b1024"]:
            refuse(f"unknown modifier .{m}")
    for need, what in (("tile", ".tile"), ("b1024", ".b1024")):
        if need not in mods:
            refuse(f"{what} is required")
    if len(fields) != 1 or len(types) != 1:
        refuse(f"one field and one type are required, not {len(fields)} and {len(types)}")
    field = fields[0]
    type_ = REPLACE_FIELDS[field][0]
    if types[0] != type_:
        refuse(f".{field} is .{type_}, not .{types[0]}")
    if len(spaces) > 1 or (spaces and spaces[0] not in ("global", "shared::cta")):
        refuse(f"state space {'.' + '.'.join(spaces)}: the map is in .global or .shared::cta (or generic)")
    return field, (spaces[0] if spaces else None), _replace_ordinal(ins, field, refuse)


def _replace_ordinal(ins: Instruction, field: str, refuse: Callable[[str], NoReturn]) -> int | None:
    """The ordinal of a ``tensormap.replace`` of ``field`` (None if it takes none), its operands checked."""
    _, takes_ordinal, immediate = REPLACE_FIELDS[field]
    if len(ins.operands) != (3 if takes_ordinal else 2):
        refuse(f".{field} takes {'[addr], ord, new_val' if takes_ordinal else '[addr], new_val'}")
    if immediate:
        _check_field3_value(ins.operands[-1], field, refuse)
    if not takes_ordinal:
        return None
    if not isinstance(ins.operands[1], Imm):
        refuse("the ordinal must be an immediate")
    if not 0 <= ins.operands[1].value < MAX_RANK:
        refuse(f"ordinal {ins.operands[1].value} is not in 0..{MAX_RANK - 1}")
    return ins.operands[1].value


def _check_field3_value(value: object, field: str, refuse: Callable[[str], NoReturn]) -> None:
    """Refuse a ``.field3`` value that is no immediate or is outside the ISA's table (:data:`FIELD3_VALUES`)."""
    if not isinstance(value, Imm):
        refuse(f"the value of .{field} must be an immediate")
    if not 0 <= value.value < FIELD3_VALUES[field]:
        refuse(f".{field} value {value.value} is not in 0..{FIELD3_VALUES[field] - 1}")


def check_support(ins: Instruction, field: str, isa: Target) -> None:
    """Refuse a ``tensormap.replace`` of ``field`` that the module's ``.target``/``.version`` (``isa``) lacks:
    the instruction itself, its field, or its ``.field3`` value (:data:`REPLACE_SUPPORT`), naming the line."""
    value = ins.operands[-1]
    supports = [REPLACE_SUPPORT, FIELD_SUPPORT.get(field)]
    if isinstance(value, Imm):
        supports.append(VALUE_SUPPORT.get((field, value.value)))
    for support in supports:
        why = support.refusal(isa) if support is not None else None
        if why is not None:
            raise KernelError(why, ins.line, ins.opcode)


def check_copy_form(ins: Instruction) -> None:
    """Refuse a ``tensormap.cp_fenceproxy`` that is not the ISA's one form (see :data:`COPY_SYNTAX`): to
    ``.global`` from ``.shared::cta``, in that order, with ``.tensormap::generic``, ``.release``, one scope,
    ``.sync`` and ``.aligned`` (ptxas 13.0 accepts these last in any order), copying 128 bytes."""
    mods, refuse = _modifiers(ins, COPY_SYNTAX)
    spaces = [m for m in mods if m.split("::")[0] in _SPACE_NAMES]
    if spaces != ["global", "shared::cta"]:
        refuse(f"the state spaces are .global.shared::cta (to global from shared::cta); got "
               f"{'.' + '.'.join(spaces) if spaces else 'none'}")
    for m in mods:
        if m not in spaces + ["tensormap::generic", "release", "sync", "aligned", *COPY_SCOPES]:
            refuse(f"unknown modifier .{m}")
    for need in ("tensormap::generic", "release", "sync", "aligned"):
        if need not in mods:
            refuse(f".{need} is required")
    if len([m for m in mods if m in COPY_SCOPES]) != 1:
        refuse("one scope (.cta, .cluster, .gpu or .sys) is required")
    if len(ins.operands) != 3 or not all(isinstance(op, Addr) for op in ins.operands[:2]):
        refuse("expected [dst], [src], size")
    size = ins.operands[2]
    if not isinstance(size, Imm) or size.value != TENSORMAP_BYTES:
        refuse(f"the copy is of {TENSORMAP_BYTES} bytes")


@builder("tensormap")
def build_tensormap(ins: Instruction, ctx: Context, idx: int) -> Op:
    if len(ins.parts) > 1 and ins.parts[1] == "replace":
        return _replace(ins, ctx, idx)
    if len(ins.parts) > 1 and ins.parts[1] == "cp_fenceproxy":
        return _copy_out(ins, ctx, idx)
    raise KernelError("unknown tensormap instruction", ins.line, ins.opcode)


def _replace(ins: Instruction, ctx: Context, idx: int) -> Op:
    field, space, ordinal = replace_form(ins)
    check_support(ins, field, ctx.isa)
    try:
        accesses = field_accesses(field, ordinal)
    except ValueError as exc:
        raise KernelError(f"tensormap.replace: {exc} is not modelled (module layoutalg.kernel.interp.tensormap)",
                          ins.line, ins.opcode) from None
    if space is None:
        raise KernelError("tensormap.replace without .shared::cta or .global (generic addressing) is not supported",
                          ins.line, ins.opcode)
    read_addr = address_reader(ctx, ins.operands[0], ins)
    shared = space == "shared::cta"
    op = Op(idx, ins, shared=shared, writes_shared=shared)

    def run(m: Any, mask: Any) -> None:
        if not shared:
            return
        lanes = m.active(mask)
        ok, a = checked_shared_lanes(m, op, read_addr(m), lanes, TENSORMAP_BYTES, 8, True, "tensormap")
        for off, width, rmw in accesses:
            if rmw:
                record(m, op, "ld", "ld.shared.b32", 4, ok, a + off, issued=lanes, part=f"LDS +{off:#x}")
            text = "st.shared.b64" if width == 8 else "st.shared.b32"
            record(m, op, "st", text, width, ok, a + off, issued=lanes, part=f"STS +{off:#x}")
            if ok.any():
                m.smem.forget(m.geom.cta_index[ok], a[ok] + off, width)

    op.run = run
    return op


def _copy_out(ins: Instruction, ctx: Context, idx: int) -> Op:
    check_copy_form(ins)
    read_src = address_reader(ctx, ins.operands[1], ins)
    op = Op(idx, ins, shared=True)
    lane_offsets = 4 * np.arange(32, dtype=np.int64)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        ok, a = checked_shared_lanes(m, op, read_src(m), lanes, TENSORMAP_BYTES, 8, False, "tensormap copy")
        warps_lanes = lanes.reshape(-1, 32)
        executing = warps_lanes.any(axis=1)
        rows = full(a, m.n).reshape(-1, 32)
        known = ok.reshape(-1, 32)
        whole = (warps_lanes.all(axis=1) & known.all(axis=1) & (rows == rows[:, :1]).all(axis=1)) | ~executing
        unknown_warps = executing & ~known.all(axis=1)
        if (~whole & ~unknown_warps).any():
            raise KernelError("tensormap.cp_fenceproxy: the lanes of one warp name different tensor-maps, or only "
                              "part of the warp executes it (.sync.aligned); not supported", ins.line, ins.opcode)
        lane_addr = (rows[:, :1] + lane_offsets[None, :]).reshape(-1)
        record(m, op, "ld", "ld.shared.b32", 4, np.repeat(whole & executing, 32), lane_addr,
               issued=np.repeat(executing, 32), part="LDS (copy to global)")

    op.run = run
    return op
