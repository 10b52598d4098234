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
The written bytes become unknown (the tracer does not model the descriptor's encoding).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder
from layoutalg.kernel.interp.memory import address_reader, checked_shared_lanes, full, record
from layoutalg.kernel.ptx.nodes import Imm, Instruction

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


def _space(ins: Instruction) -> str | None:
    for p in ins.parts:
        base = p.split("::")[0]
        if base in ("shared", "global"):
            return base
    return None


@builder("tensormap")
def build_tensormap(ins: Instruction, ctx: Context, idx: int) -> Op:
    if len(ins.parts) > 1 and ins.parts[1] == "replace":
        return _replace(ins, ctx, idx)
    if len(ins.parts) > 1 and ins.parts[1] == "cp_fenceproxy":
        return _copy_out(ins, ctx, idx)
    raise KernelError("unknown tensormap instruction", ins.line, ins.opcode)


def _replace(ins: Instruction, ctx: Context, idx: int) -> Op:
    field = ins.parts[3] if len(ins.parts) > 3 else ""
    ordinal = None
    if len(ins.operands) == 3:
        if not isinstance(ins.operands[1], Imm):
            raise KernelError("tensormap.replace: the ordinal must be an immediate", ins.line, ins.opcode)
        ordinal = ins.operands[1].value
    try:
        accesses = field_accesses(field, ordinal)
    except ValueError as exc:
        raise KernelError(f"tensormap.replace: {exc} is not modelled (module layoutalg.kernel.interp.tensormap)",
                          ins.line, ins.opcode) from None
    space = _space(ins)
    if space not in ("shared", "global"):
        raise KernelError("tensormap.replace without .shared::cta or .global (generic addressing) is not supported",
                          ins.line, ins.opcode)
    read_addr = address_reader(ctx, ins.operands[0], ins)
    shared = space == "shared"
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
    if "aligned" not in ins.parts or len(ins.operands) < 3:
        raise KernelError("tensormap.cp_fenceproxy: expected .sync.aligned [dst], [src], size", ins.line, ins.opcode)
    size = ins.operands[2]
    if not isinstance(size, Imm) or size.value != TENSORMAP_BYTES:
        raise KernelError("tensormap.cp_fenceproxy copies 128 bytes", ins.line, ins.opcode)
    src_shared = any(p.split("::")[0] == "shared" for p in ins.parts)
    read_src = address_reader(ctx, ins.operands[1], ins)
    op = Op(idx, ins, shared=src_shared)
    lane_offsets = 4 * np.arange(32, dtype=np.int64)

    def run(m: Any, mask: Any) -> None:
        if not src_shared:
            return
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
