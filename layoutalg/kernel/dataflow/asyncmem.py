"""Rules of cp.async (and its commit / wait groups), and of the instructions whose memory effects the model
does not follow: atomics, mbarriers, TMA / bulk copies, wgmma, tcgen05, wmma (results OPAQUE, shared
memory they may write OPAQUE, their synchronisation listed, their global writes unknown stores)."""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.memory import _known_lanes, global_tags, shared_ok, store_units
from layoutalg.kernel.dataflow.rules import Rule, default_rule, rule
from layoutalg.kernel.interp.asyncops import cp_async_source_readers
from layoutalg.kernel.interp.decode import Context, Op
from layoutalg.kernel.interp.memops import state_space
from layoutalg.kernel.interp.memory import address_reader
from layoutalg.kernel.ptx.nodes import Imm, Instruction


@rule("cp")
def cp_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    parts = ins.parts
    if "bulk" in parts or "mbarrier" in parts:
        return forget_rule(ins, ctx, op)
    if "commit_group" in parts:
        def commit(m: Any, mask: Any) -> None:
            f = m.flow
            rows = np.flatnonzero(f.lanes(m, mask).reshape(-1, 32).any(axis=1))
            f.clocks.commit(rows // f.geom.warps_per_cta, rows % f.geom.warps_per_cta)
        return commit
    if "wait_group" in parts or "wait_all" in parts:
        keep = None
        if "wait_group" in parts:
            n_ = ins.operands[0] if ins.operands else None
            keep = n_.value if isinstance(n_, Imm) else 0

        def wait(m: Any, mask: Any) -> None:
            f = m.flow
            rows = np.flatnonzero(f.lanes(m, mask).reshape(-1, 32).any(axis=1))
            wpc = f.geom.warps_per_cta
            for r in rows.tolist():
                c, w = divmod(r, wpc)
                done = f.clocks.completed(c, w, keep)
                if done:
                    f.shared.complete_async(c, w, done)
        return wait
    if state_space(ins) != "shared" or len(ins.operands) < 3 or not isinstance(ins.operands[2], Imm):
        return default_rule(ins, ctx, op)
    dst = address_reader(ctx, ins.operands[0], ins)
    src = address_reader(ctx, ins.operands[1], ins)
    size = ins.operands[2].value
    src_size, ignore = cp_async_source_readers(ins, ctx)

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        lanes = f.lanes(m, mask)
        ok, a = _known_lanes(dst(m), lanes, m.n)
        th = np.flatnonzero(ok)
        if not shared_ok(m, a[th], size):
            return
        if (lanes & ~ok).any():
            f.shared.forget(op.index, f.geom.cta_index[lanes & ~ok], tg.W_SMEM_WRITE)
        tags = global_tags(m, op, ok, src(m), size)
        filled = np.full(m.n, size, dtype=np.int64)
        cut = np.zeros(m.n, dtype=bool)  # lanes whose copy the tags cannot describe: every unit OPAQUE
        if src_size is not None:
            s = src_size(m)
            asked = np.broadcast_to(np.asarray(s.bits, dtype=np.int64), (m.n,))
            cut |= ~np.broadcast_to(np.asarray(s.known, dtype=bool), (m.n,)) | (asked > size)  # PTX: src-size <= cp-size
            filled = np.minimum(asked, size)
        if ignore is not None:
            p = ignore(m)
            cut |= ~np.broadcast_to(np.asarray(p.known, dtype=bool), (m.n,))
            filled = np.where(np.broadcast_to(np.asarray(p.bits, dtype=bool), (m.n,)), 0, filled)
        u = size // 2
        start = (2 * np.arange(u))[None, :]
        tail = start >= filled[:, None]  # zero-filled units
        split = (start < filled[:, None]) & (start + 2 > filled[:, None])  # a unit half copied, half zeroed
        tags = np.where(tail, tg.ZERO, tags)
        tags = np.where(split | cut[:, None], tg.opaque(op.index, tg.W_SRC_SIZE), tags)
        if th.size:
            group = f.clocks.group_of(f.geom.cta_index[th], f.geom.warpid[th])
            store_units(m, op, th, a[th], tags[th], group)
    return run


def forget_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """An instruction whose shared-memory writes and synchronisation the model does not follow (and whose
    global writes, for atomics, bulk copies to global memory and ``wmma.store`` to global or generic
    addresses, are listed as unknown stores)."""
    space = state_space(ins)
    spaces = [p.split("::")[0] for p in ins.parts[2:] if p.split("::")[0] in ("shared", "global")]
    writes_global = (ins.root in ("atom", "red") and space in ("global", None)) or \
        (ins.root == "cp" and "bulk" in ins.parts and spaces[:1] == ["global"] and "prefetch" not in ins.parts) or \
        (ins.root == "wmma" and "store" in ins.parts and space in ("global", None))
    def run(m: Any, mask: Any) -> None:
        f = m.flow
        lanes = f.lanes(m, mask)
        f.note_unfollowed(op, "its shared-memory effects are not followed")
        f.sync_unmodelled.setdefault(op.index, ins.opcode)
        if writes_global:
            f.launch.unknown_store(op)
        if op.writes_shared:
            f.shared.forget(op.index, f.geom.cta_index[lanes], tg.W_SMEM_WRITE)
        f.regs.set_opaque(list(op.dests), tg.opaque(op.index, tg.W_UNMODELLED), lanes)
    return run


@rule("atom", "red", "mbarrier", "wgmma", "tcgen05", "wmma")
def unfollowed_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """Atomics, mbarriers, wgmma, tcgen05, wmma: results OPAQUE, shared writes forgotten, sync listed."""
    if ins.root in ("wgmma", "tcgen05") and op.kind == "nop":
        return None  # fence / commit_group / wait_group: their results are already OPAQUE
    return forget_rule(ins, ctx, op)
