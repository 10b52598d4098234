"""ldmatrix / stmatrix (PTX ISA 8.x, "Warp Level Matrix Load/Store Instructions"), ``.m8n8`` ``.b16``.

Matrix ``j`` (of ``.x1/.x2/.x4``) has its 8 rows at the addresses lanes ``8j .. 8j+7`` supply,
16 bytes (8 halves) per row.  Lane ``t`` holds, in its ``j``-th register, the pair of halves
``(M_j[t/4][2(t%4)], M_j[t/4][2(t%4)+1])`` -- or with ``.trans``
``(M_j[2(t%4)][t/4], M_j[2(t%4)+1][t/4])`` (the ISA's fragment figures).  ldmatrix reads
those bytes, stmatrix writes them.  One record per warp execution carries the 32 row addresses
(lanes past ``8 * count`` are ignored by the bank model).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder
from layoutalg.kernel.interp.memory import address_reader, checked_shared_lanes, record, store_shared
from layoutalg.kernel.interp.values import U64, known_and
from layoutalg.kernel.ptx.nodes import Instruction, Reg, Vec

COUNTS = {"x1": 1, "x2": 2, "x4": 4}
LANE = np.arange(32)


def _shape(ins: Instruction) -> tuple[int, bool]:
    parts = set(ins.parts)
    if "m8n8" not in parts or "b16" not in parts:
        raise KernelError("only the .m8n8 .b16 shape of ldmatrix/stmatrix is supported", ins.line, ins.opcode)
    counts = [COUNTS[p] for p in ins.parts if p in COUNTS]
    if len(counts) != 1:
        raise KernelError("needs exactly one of .x1 .x2 .x4", ins.line, ins.opcode)
    return counts[0], "trans" in parts


def _row_lanes(count: int) -> np.ndarray:
    """Bool (32,): the lanes whose addresses the instruction uses."""
    return LANE < 8 * count


def _gather(addr_rows: np.ndarray, j: int, trans: bool) -> list[tuple[np.ndarray, int]]:
    """Per destination half-pair: [(byte address per (warp, lane), bytes)] for register j."""
    if not trans:
        return [(addr_rows[:, 8 * j + LANE // 4] + 4 * (LANE % 4), 4)]
    return [(addr_rows[:, 8 * j + 2 * (LANE % 4)] + 2 * (LANE // 4), 2),
            (addr_rows[:, 8 * j + 2 * (LANE % 4) + 1] + 2 * (LANE // 4), 2)]


def _warp_rows_ok(m: Any, op: Op, lanes: np.ndarray, ok: np.ndarray, count: int) -> np.ndarray:
    """Warps (bool per warp) whose used row lanes all have known addresses; the rest are data-dependent."""
    used = _row_lanes(count)
    active_rows = lanes.reshape(-1, 32).any(axis=1)
    good = active_rows & (ok.reshape(-1, 32) | ~used).all(axis=1)
    return good


def _warp_starts(m: Any) -> np.ndarray:
    """(1, warps, 1): each warp's CTA row offset in the flat shared store minus the window base (cached on the
    store, which lives as long as the machine)."""
    store = m.smem
    cached = store.__dict__.get("_warp_starts")
    if cached is None:
        cached = store.__dict__["_warp_starts"] = (m.geom.cta_index.reshape(-1, 32)[:, 0] * store.data.shape[1]
                                                   - store.base)[None, :, None]
    return cached  # type: ignore[no-any-return]


def _known_rows(ok: np.ndarray, row_lanes: np.ndarray) -> np.ndarray:
    """Per lane: its warp's executing row lanes all have known addresses (a partial warp is costed as such;
    a warp with an unknown row address is recorded as executed with a data-dependent cost)."""
    return np.repeat((ok | ~row_lanes).reshape(-1, 32).all(axis=1), 32)


@cache
def _sources(count: int, trans: bool) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Per part (one 4-byte part, or two 2-byte parts with .trans): (row lane (count, 32), byte offset (32,), bytes).

    Register ``j`` of lane ``t`` comes from row ``src[j, t]`` of the warp's row addresses, at ``offset[t]``.
    Cached: six shapes in all, read only.
    """
    j = np.arange(count)[:, None]
    if not trans:
        return [(8 * j + LANE // 4, 4 * (LANE % 4), 4)]
    return [(8 * j + 2 * (LANE % 4), 2 * (LANE // 4), 2), (8 * j + 2 * (LANE % 4) + 1, 2 * (LANE // 4), 2)]


@builder("ldmatrix")
def build_ldmatrix(ins: Instruction, ctx: Context, idx: int) -> Op:
    count, trans = _shape(ins)
    dest = ins.operands[0]
    items = list(dest.items) if isinstance(dest, Vec) else [dest]
    if len(items) != count:
        raise KernelError(f"needs {count} destination registers", ins.line, ins.opcode)
    writers = [ctx.writer(d, ins, 32, "b32") for d in items]  # each register receives 32 bits
    read_addr = address_reader(ctx, ins.operands[1], ins)
    op = Op(idx, ins, dests=[d for _, ds in writers for d in ds], shared=True)
    text = f"ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16"
    used = _row_lanes(count)
    sources = _sources(count, trans)
    # ptxas removes an ldmatrix nothing reads (tests/data/ptxas_load_narrowing.json); it never narrows one
    removed = not any(isinstance(d, Reg) and ctx.liveness.readers(idx, d.name) for d in items)
    tiled: dict[int, np.ndarray] = {}

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        if count == 4:
            row_lanes = lanes
        else:
            if m.n not in tiled:
                tiled[m.n] = np.tile(used, m.n // 32)
            row_lanes = lanes & tiled[m.n]
        ok, a = checked_shared_lanes(m, op, read_addr(m), row_lanes, 16, 16, False, "ldmatrix row")
        if removed:
            m.recorder.removed_by_ptxas(op.index, op.ins.line, op.ins.opcode, int(lanes.reshape(-1, 32).any(axis=1).sum()))
        if count == 4 and ok.all():  # every warp whole, every row address known
            if not removed:
                record(m, op, "ldmatrix", text, 16, ok, a)
            every = True
        else:
            good = _warp_rows_ok(m, op, lanes, ok, count)
            if not removed:
                record(m, op, "ldmatrix", text, 16, row_lanes & _known_rows(ok, row_lanes), a, issued=row_lanes)
            every = bool(good.all())
        nw = m.n // 32
        gw = slice(None) if every else np.flatnonzero(good)
        rows = a.reshape(-1, 32)[gw]  # (G, 32) row addresses
        # flat byte offset of each warp's CTA row in the shared store, minus the window base
        if every:
            warp_start = _warp_starts(m)
        else:
            warp_start = (m.geom.cta_index.reshape(-1, 32)[gw, 0] * m.smem.data.shape[1]
                          - m.smem.base)[None, :, None]
        val: Any = None
        kn: Any = None
        shift = 0
        for src, offset, nbytes in sources:
            where = rows[:, src].transpose(1, 0, 2) + offset + warp_start  # (count, G, 32) flat byte offsets
            b, k = m.smem.read_words(where, nbytes)
            val = b if val is None else val | (b << U64(shift))
            kn = k if kn is None else kn & k
            shift += 8 * nbytes
        if not every:
            full_val = np.zeros((count, nw, 32), dtype=np.uint64)
            full_kn = np.zeros((count, nw, 32), dtype=bool)
            full_val[:, gw], full_kn[:, gw] = val, kn
            val, kn = full_val, full_kn
        for j, (w, _) in enumerate(writers):
            w(m, val[j].reshape(-1), kn[j].reshape(-1), mask)

    op.run = run
    return op


@builder("stmatrix")
def build_stmatrix(ins: Instruction, ctx: Context, idx: int) -> Op:
    count, trans = _shape(ins)
    read_addr = address_reader(ctx, ins.operands[0], ins)
    src = ins.operands[1]
    items = list(src.items) if isinstance(src, Vec) else [src]
    if len(items) != count:
        raise KernelError(f"needs {count} source registers", ins.line, ins.opcode)
    readers = [ctx.reader(s, "b32", ins) for s in items]
    op = Op(idx, ins, shared=True, writes_shared=True)
    text = f"stmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16"
    used = _row_lanes(count)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        addr = read_addr(m)
        row_lanes = lanes & np.tile(used, m.n // 32)
        ok, a = checked_shared_lanes(m, op, addr, row_lanes, 16, 16, True, "stmatrix row")
        good = _warp_rows_ok(m, op, lanes, ok, count)
        bad_warps = lanes.reshape(-1, 32).any(axis=1) & ~good
        if bad_warps.any():
            m.smem.forget_rows(m.geom.cta_index.reshape(-1, 32)[bad_warps, 0])
        record(m, op, "stmatrix", text, 16, row_lanes & _known_rows(ok, row_lanes), a, issued=row_lanes)
        rows = a.reshape(-1, 32)
        writer_lanes = lanes & np.repeat(good, 32)
        for j, r in enumerate(readers):
            v = r(m)
            bits = np.broadcast_to(np.asarray(v.bits, dtype=np.uint64), (m.n,))
            known = np.broadcast_to(np.asarray(known_and(v.known, True)), (m.n,))
            shift = 0
            for where, nbytes in _gather(rows, j, trans):
                store_shared(m, writer_lanes, where.reshape(-1), nbytes,
                             (bits >> U64(shift)) & U64((1 << (8 * nbytes)) - 1), known)
                shift += 8 * nbytes

    op.run = run
    return op
