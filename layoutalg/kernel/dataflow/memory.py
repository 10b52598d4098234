"""Rules of the memory instructions: ld/st in every state space, cp.async and its groups, atomics,
and the instructions whose memory effects the model does not follow.

* global loads tag each unit with (buffer, byte offset); a load whose address is unknown, or of
  memory this launch already wrote, gives OPAQUE units; global stores go to the consumer;
* shared loads/stores/cp.async go through :class:`~.shared.SharedTags` (tags and the race check);
  cp.async writes are pending until their group is waited for;
* local memory (spills, stack arrays) keeps per-thread tags;
* atomics, TMA, ``wgmma``/``tcgen05``, ``mbarrier``: results OPAQUE, shared memory they may write
  OPAQUE, and the synchronisation they may carry is listed (a race found then makes the verdict
  "unknown" rather than "refuted").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.rules import Rule, default_rule, rule
from layoutalg.kernel.interp.decode import Context, Op
from layoutalg.kernel.interp.memops import element_type, state_space, vector_count
from layoutalg.kernel.interp.memory import address_reader
from layoutalg.kernel.interp.spaces import (
    LOCAL_WINDOW,
    PARAM_WINDOW,
    SHARED_WINDOW,
    SMEM_BASE,
    classify_generic,
    decode_global,
)
from layoutalg.kernel.ptx.nodes import TYPE_BYTES, Imm, Instruction, Reg, Sink, Vec


class GlobalWrites:
    """Which 2-byte units of each global buffer this launch has stored to (a growing bitmap per buffer),
    and which thread loaded each unit (0 none, -1 several, else 1 + the launch-wide thread id)."""

    def __init__(self) -> None:
        self.maps: dict[int, np.ndarray] = {}
        self.loaders: dict[int, np.ndarray] = {}

    def note_loads(self, buf: np.ndarray, off: np.ndarray, thread: np.ndarray) -> None:
        for b in np.unique(buf):
            if b < 0:
                continue
            sel = buf == b
            u, who = off[sel] >> 1, thread[sel] + 1
            keep = u >= 0
            u, who = u[keep], who[keep]
            if u.size == 0:
                continue
            cur = _grown(self.loaders.get(int(b)), int(u.max()) + 1, np.int64)
            old = cur[u]
            cur[u] = np.where((old == 0) | (old == who), who, -1)
            dup_first, dup_other = _collisions(u, who)
            cur[dup_first] = np.where(dup_other, -1, cur[dup_first])
            self.loaders[int(b)] = cur

    def loaded_by_others(self, buf: np.ndarray, off: np.ndarray, thread: np.ndarray) -> bool:
        for b, loaders in self.loaders.items():
            sel = buf == b
            if sel.any():
                u = off[sel] >> 1
                inside = (u >= 0) & (u < loaders.size)
                who = loaders[np.where(inside, u, 0)]
                if (inside & (who != 0) & (who != thread[sel] + 1)).any():
                    return True
        return False

    def add(self, buf: np.ndarray, off: np.ndarray) -> None:
        for b in np.unique(buf):
            if b < 0:
                continue
            u = off[buf == b] >> 1
            u = u[u >= 0]
            if u.size == 0:
                continue
            cur = self.maps.get(int(b), np.zeros(0, dtype=bool))
            top = int(u.max()) + 1
            if top > cur.size:
                grown = np.zeros(max(top, 2 * cur.size), dtype=bool)
                grown[:cur.size] = cur
                cur = grown
            cur[u] = True
            self.maps[int(b)] = cur

    def hit(self, buf: np.ndarray, off: np.ndarray) -> np.ndarray:
        out = np.zeros(buf.shape, dtype=bool)
        for b, bitmap in self.maps.items():
            sel = buf == b
            if sel.any():
                u = off[sel] >> 1
                inside = (u >= 0) & (u < bitmap.size)
                out[sel] = inside & bitmap[np.where(inside, u, 0)]
        return out


def _grown(arr: np.ndarray | None, top: int, dtype: Any) -> np.ndarray:
    cur = np.zeros(0, dtype=dtype) if arr is None else arr
    if top > cur.size:
        grown = np.zeros(max(top, 2 * cur.size), dtype=dtype)
        grown[:cur.size] = cur
        cur = grown
    return cur


def _collisions(u: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Units loaded by several threads within one instruction: (unit, True) for each such unit."""
    order = np.lexsort((who, u))
    us, ws = u[order], who[order]
    same_unit = us[1:] == us[:-1]
    other = same_unit & (ws[1:] != ws[:-1])
    return us[1:][other], np.ones(int(other.sum()), dtype=bool)


def _items(op_: Any) -> list[Any]:
    return list(op_.items) if isinstance(op_, Vec) else [op_]


def _known_lanes(v: Any, lanes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lanes whose address is known, int64 addresses over all threads)."""
    bits = np.broadcast_to(np.asarray(v.bits, dtype=np.uint64), (n,)).astype(np.int64)
    if v.known is True:
        return lanes, bits
    return lanes & np.broadcast_to(np.asarray(v.known), (n,)), bits


def shared_ok(m: Any, addr: np.ndarray, nbytes: int) -> bool:
    """Every address inside shared memory and aligned (else the interpreter raises right after)."""
    if addr.size == 0:
        return True
    lo, hi = int(addr.min()), int(addr.max())
    return lo >= m.smem.base and hi + nbytes <= m.smem.base + m.smem.size and not (addr % min(nbytes, 2)).any()


def load_units(m: Any, op: Op, threads: np.ndarray, addr: np.ndarray, nbytes: int) -> np.ndarray:
    """Tags (k, nbytes // 2) of shared loads by ``threads`` at window addresses ``addr`` (race-checked)."""
    f = m.flow
    g = f.geom
    u = nbytes // 2
    units = (addr[:, None] - SMEM_BASE) // 2 + np.arange(u)[None, :]
    cta = np.repeat(g.cta_index[threads], u)
    warp = np.repeat(g.warpid[threads], u)
    got = f.shared.read(op.index, cta, warp, units.reshape(-1)).reshape(-1, u)
    f.sample(op.index, threads, units, got)
    return got


def store_units(m: Any, op: Op, threads: np.ndarray, addr: np.ndarray, tags: np.ndarray,
                group: np.ndarray | None = None) -> None:
    """Write tags (k, u) at shared window addresses ``addr`` for ``threads`` (race-checked)."""
    f = m.flow
    g = f.geom
    u = tags.shape[1]
    units = (addr[:, None] - SMEM_BASE) // 2 + np.arange(u)[None, :]
    cta = np.repeat(g.cta_index[threads], u)
    warp = np.repeat(g.warpid[threads], u)
    grp = None if group is None else np.repeat(group, u)
    flat = tags.reshape(-1).copy()
    f.shared.write(op.index, cta, warp, units.reshape(-1), flat, grp)
    f.sample(op.index, threads, units, flat.reshape(-1, u))
    if group is not None:
        for c, w in set(zip(g.cta_index[threads].tolist(), g.warpid[threads].tolist())):
            sel = (g.cta_index[threads] == c) & (g.warpid[threads] == w)
            f.clocks.note_async(c, w, int(group[sel][0]), units[sel].reshape(-1))


def global_tags(m: Any, op: Op, lanes: np.ndarray, addr: Any, nbytes: int) -> np.ndarray:
    """Tags (n, nbytes // 2) of global loads of ``nbytes`` at ``addr`` (a Value) for ``lanes``."""
    f = m.flow
    u = max(1, nbytes // 2)
    ok, a = _known_lanes(addr, lanes, m.n)
    buf, off = decode_global(a.astype(np.uint64))
    tags = tg.glob(buf[:, None], off[:, None] + 2 * np.arange(u)[None, :])
    bad = (tags < 0) | ~ok[:, None] | (buf[:, None] < 0)
    if nbytes == 1:
        bad |= True
    flat_off = (off[:, None] + 2 * np.arange(u)[None, :]).reshape(-1)
    written = f.launch.writes.hit(np.repeat(buf, u), flat_off)
    sel = np.repeat(ok & (buf >= 0), u)
    f.launch.writes.note_loads(np.repeat(buf, u)[sel], flat_off[sel], np.repeat(f.launch_thread, u)[sel])
    tags = np.where(written.reshape(-1, u), tg.opaque(op.index, tg.W_WRITTEN), tags)
    why = tg.W_BYTE if nbytes == 1 else tg.W_GLOBAL_ADDR
    tags = np.where(bad, tg.opaque(op.index, why), tags)
    return np.where(lanes[:, None], tags, tg.NONE)


@rule("ld", "ldu")
def ld_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    space = "global" if ins.root == "ldu" and state_space(ins) is None else state_space(ins)
    t = element_type(ins)
    ew = TYPE_BYTES[t]
    count = vector_count(ins)
    dests = [x.name if isinstance(x, Reg) else None for x in _items(ins.operands[0])]
    read_addr = address_reader(ctx, ins.operands[1], ins)
    signed = t[0] == "s"
    eu = max(1, ew // 2)

    def put(m: Any, got: np.ndarray, lanes: np.ndarray, mask: Any) -> None:
        """got: (n, count * eu) tags; written for ``lanes`` (others keep theirs unless mask is None)."""
        f = m.flow
        for j, nm in enumerate(dests):
            if nm is None:
                continue
            part = got[:, j * eu:(j + 1) * eu]
            if ew == 1:
                part = np.where(part >= 0, tg.opaque(op.index, tg.W_BYTE), tg.NONE)
            if signed and f.regs.units_of(nm) > eu:
                ext = np.where(part[:, -1:] >= 0, tg.opaque(op.index, tg.W_SPLIT), tg.NONE)
                part = np.concatenate([part, np.repeat(ext, f.regs.units_of(nm) - eu, axis=1)], axis=1)
            f.regs.put(nm, part, mask if mask is not None else None)

    def shared_part(m: Any, lanes: np.ndarray, v: Any, base: int, got: np.ndarray) -> bool:
        ok, a = _known_lanes(v, lanes, m.n)
        a = a - base
        th = np.flatnonzero(ok)
        if not shared_ok(m, a[th], ew * count):
            return False
        if ew >= 2:
            got[th] = load_units(m, op, th, a[th], ew * count)
        got[lanes & ~ok] = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
        return True

    def local_part(m: Any, lanes: np.ndarray, v: Any, base: int, got: np.ndarray) -> bool:
        f = m.flow
        ok, a = _known_lanes(v, lanes, m.n)
        a = a - base
        th = np.flatnonzero(ok)
        if th.size and (a[th].min() < 0 or a[th].max() + ew * count > m.local.size):
            return False
        if ew >= 2 and th.size:
            units = a[th][:, None] // 2 + np.arange(eu * count)[None, :]
            got[th] = f.local_tags()[th[:, None], units]
        got[lanes & ~ok] = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
        return True

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        lanes = f.lanes(m, mask)
        v = read_addr(m)
        got = np.full((m.n, eu * count), tg.NONE, dtype=np.int64)
        if space == "shared":
            if not shared_part(m, lanes, v, 0, got):
                return
        elif space == "local":
            if not local_part(m, lanes, v, 0, got):
                return
        elif space in ("global", "const"):
            got = global_tags(m, op, lanes, v, ew * count)
            if ew == 1:
                got = got[:, :1]
        elif space is None:
            bits = np.broadcast_to(np.asarray(v.bits, dtype=np.uint64), (m.n,))
            cls = classify_generic(bits)
            kn = np.ones(m.n, dtype=bool) if v.known is True else np.broadcast_to(np.asarray(v.known), (m.n,))
            for code, base, part in ((1, SHARED_WINDOW, shared_part), (2, LOCAL_WINDOW, local_part)):
                sel = lanes & kn & (cls == code)
                if sel.any() and not part(m, sel, v, base, got):
                    return
            glob = lanes & kn & (cls == 0)
            if glob.any():
                gt = global_tags(m, op, glob, v, ew * count)
                got = np.where(glob[:, None], gt[:, :got.shape[1]], got)
            got[lanes & ~kn] = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
            _ = PARAM_WINDOW
        put(m, got, lanes, mask)
    return run


@rule("st")
def st_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    if "async" in ins.parts or "bulk" in ins.parts:
        return forget_rule(ins, ctx, op)
    space = state_space(ins)
    t = element_type(ins)
    ew = TYPE_BYTES[t]
    count = vector_count(ins)
    srcs = _items(ins.operands[1])
    read_addr = address_reader(ctx, ins.operands[0], ins)
    eu = max(1, ew // 2)

    def values(m: Any) -> np.ndarray:
        f = m.flow
        cols = []
        for s in srcs:
            p = f.regs.get(s.name) if isinstance(s, Reg) else None
            if p is None:
                cols.append(np.full((m.n, eu), tg.NONE, dtype=np.int64))
            else:
                q = p[:, :eu]
                if q.shape[1] < eu:
                    q = np.concatenate([q, np.full((m.n, eu - q.shape[1]), tg.NONE, dtype=np.int64)], axis=1)
                if ew == 1:
                    q = np.where(q >= 0, tg.opaque(op.index, tg.W_BYTE), tg.NONE)
                cols.append(q)
        return np.concatenate(cols, axis=1)

    def shared_part(m: Any, lanes: np.ndarray, v: Any, base: int, vals: np.ndarray) -> bool:
        f = m.flow
        ok, a = _known_lanes(v, lanes, m.n)
        a = a - base
        th = np.flatnonzero(ok)
        if not shared_ok(m, a[th], ew * count):
            return False
        if (lanes & ~ok).any():
            f.shared.forget(op.index, f.geom.cta_index[lanes & ~ok], tg.W_SMEM_WRITE)
        if th.size == 0:
            return True
        if ew == 1:  # a byte store: its unit becomes OPAQUE if either byte was tagged
            units = (a[th] - SMEM_BASE) // 2
            old = f.shared.tag[f.geom.cta_index[th], units]
            new = np.where((old >= 0) | (vals[th, 0] >= 0), tg.opaque(op.index, tg.W_BYTE), tg.NONE)
            store_units(m, op, th, a[th] & ~1, new[:, None])
            return True
        store_units(m, op, th, a[th], vals[th])
        return True

    def local_part(m: Any, lanes: np.ndarray, v: Any, base: int, vals: np.ndarray) -> bool:
        f = m.flow
        ok, a = _known_lanes(v, lanes, m.n)
        a = a - base
        th = np.flatnonzero(ok)
        if th.size and (a[th].min() < 0 or a[th].max() + ew * count > m.local.size):
            return False
        if th.size:
            units = a[th][:, None] // 2 + np.arange(vals.shape[1])[None, :]
            f.local_tags()[th[:, None], units] = vals[th] if ew >= 2 else np.where(
                vals[th] >= 0, tg.opaque(op.index, tg.W_BYTE), tg.NONE)
        return True

    def global_part(m: Any, lanes: np.ndarray, v: Any, vals: np.ndarray) -> None:
        f = m.flow
        ok, a = _known_lanes(v, lanes, m.n)
        th = np.flatnonzero(ok)
        buf, off = decode_global(a[th].astype(np.uint64))
        u = vals.shape[1]
        offs = off[:, None] + 2 * np.arange(u)[None, :]
        if f.launch.writes.loaded_by_others(np.repeat(buf, u), offs.reshape(-1), np.repeat(f.launch_thread[th], u)):
            f.launch.read_then_written(op)
        f.launch.writes.add(np.repeat(buf, u), offs.reshape(-1))
        if f.consumer is not None:
            f.consumer.global_store(m, op, th, buf, offs, vals[th], ew)
        if (lanes & ~ok).any():
            f.launch.unknown_store(op)

    def run(m: Any, mask: Any) -> None:
        f = m.flow
        lanes = f.lanes(m, mask)
        v = read_addr(m)
        vals = values(m)
        if space == "shared":
            shared_part(m, lanes, v, 0, vals)
        elif space == "local":
            local_part(m, lanes, v, 0, vals)
        elif space == "global":
            global_part(m, lanes, v, vals)
        elif space is None:
            bits = np.broadcast_to(np.asarray(v.bits, dtype=np.uint64), (m.n,))
            cls = classify_generic(bits)
            kn = np.ones(m.n, dtype=bool) if v.known is True else np.broadcast_to(np.asarray(v.known), (m.n,))
            if (lanes & ~kn).any():
                f.shared.forget(op.index, f.geom.cta_index[lanes & ~kn], tg.W_SMEM_WRITE)
                f.launch.unknown_store(op)
            for code, base, part in ((1, SHARED_WINDOW, shared_part), (2, LOCAL_WINDOW, local_part)):
                sel = lanes & kn & (cls == code)
                if sel.any() and not part(m, sel, v, base, vals):
                    return
            glob = lanes & kn & (cls == 0)
            if glob.any():
                global_part(m, glob, v, vals)
    _ = Sink
    return run


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
    extra = list(ins.operands[3:])
    if any("cache_hint" in p for p in parts) and extra:
        extra = extra[:-1]
    src_size = ignore = None
    if extra:
        x = extra[0]
        if isinstance(x, Reg) and ctx.registers.get(x.name) == "pred":
            ignore = ctx.reader(x, "pred", ins)
        else:
            src_size = ctx.reader(x, "u32", ins)

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
        if src_size is not None:
            s = src_size(m)
            filled = np.minimum(np.broadcast_to(np.asarray(s.bits, dtype=np.int64), (m.n,)), size)
        if ignore is not None:
            p = ignore(m)
            filled = np.where(np.broadcast_to(np.asarray(p.bits, dtype=bool), (m.n,)), 0, filled)
        u = size // 2
        tail = (2 * np.arange(u))[None, :] >= filled[:, None]
        tags = np.where(tail, tg.ZERO, tags)
        if th.size:
            group = f.clocks.group_of(f.geom.cta_index[th], f.geom.warpid[th])
            store_units(m, op, th, a[th], tags[th], group)
    return run


def forget_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    """An instruction whose shared-memory writes and synchronisation the model does not follow (and whose
    global writes, for atomics and bulk copies to global memory, are listed as unknown stores)."""
    space = state_space(ins)
    spaces = [p.split("::")[0] for p in ins.parts[2:] if p.split("::")[0] in ("shared", "global")]
    writes_global = (ins.root in ("atom", "red") and space in ("global", None)) or \
        (ins.root == "cp" and "bulk" in ins.parts and spaces[:1] == ["global"])
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
