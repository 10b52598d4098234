"""Rules of the memory instructions: ld/st in every state space (global, shared, local, generic).

* global loads tag each unit with (buffer, byte offset); a load whose address is unknown, or of
  memory this launch already wrote, gives OPAQUE units; global stores go to the consumer;
* shared loads/stores go through :class:`~.shared.SharedTags` (tags and the race check);
* local memory (spills, stack arrays) keeps per-thread tags;
* cp.async and the unfollowed instructions are in :mod:`.asyncmem`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.dataflow.rules import Rule, rule
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
from layoutalg.kernel.ptx.nodes import TYPE_BYTES, Instruction, Reg, Sink, Vec


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


def load_units(m: Any, op: Op, threads: np.ndarray, addr: np.ndarray, nbytes: int, byte: bool = False) -> np.ndarray:
    """Tags (k, nbytes // 2) of shared loads by ``threads`` at window addresses ``addr`` (race-checked; ``byte``:
    a byte load, race-checked on the byte at ``addr`` alone)."""
    f = m.flow
    g = f.geom
    u = nbytes // 2
    units = (addr[:, None] - SMEM_BASE) // 2 + np.arange(u)[None, :]
    cta = np.repeat(g.cta_index[threads], u)
    warp = np.repeat(g.warpid[threads], u)
    got = f.shared.read(op.index, cta, warp, units.reshape(-1), (addr - SMEM_BASE) % 2 if byte else None).reshape(-1, u)
    f.sample(op.index, threads, units, got)
    return got


def store_units(m: Any, op: Op, threads: np.ndarray, addr: np.ndarray, tags: np.ndarray,
                group: np.ndarray | None = None, byte: np.ndarray | None = None) -> None:
    """Write tags (k, u) at shared window addresses ``addr`` for ``threads`` (race-checked; ``byte``: a byte
    store, (k,) 0 or 1, race-checked on that byte of its unit alone)."""
    f = m.flow
    g = f.geom
    u = tags.shape[1]
    units = (addr[:, None] - SMEM_BASE) // 2 + np.arange(u)[None, :]
    cta = np.repeat(g.cta_index[threads], u)
    warp = np.repeat(g.warpid[threads], u)
    grp = None if group is None else np.repeat(group, u)
    flat = tags.reshape(-1).copy()
    f.shared.write(op.index, cta, warp, units.reshape(-1), flat, grp, byte)
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
        else:  # byte j is half of the unit at (a + j) & ~1: read (and race-check) that unit; put makes it OPAQUE
            for j in range(count):
                got[th, j] = load_units(m, op, th, a[th] + j, 2, byte=True)[:, 0]
        got[lanes & ~ok] = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
        return True

    def local_part(m: Any, lanes: np.ndarray, v: Any, base: int, got: np.ndarray) -> bool:
        f = m.flow
        ok, a = _known_lanes(v, lanes, m.n)
        a = a - base
        th = np.flatnonzero(ok)
        if th.size and (a[th].min() < 0 or a[th].max() + ew * count > m.local.size):
            return False
        if th.size:  # a byte access reads the unit holding the byte (put makes it OPAQUE)
            units = (a[th][:, None] + np.arange(count)[None, :]) // 2 if ew == 1 else \
                a[th][:, None] // 2 + np.arange(eu * count)[None, :]
            got[th] = f.local_tags()[th[:, None], units]
        got[lanes & ~ok] = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
        return True

    def global_part(m: Any, lanes: np.ndarray, v: Any) -> np.ndarray:
        """(n, eu * count) tags of a global load: byte j of a byte access lies in unit j // 2 (put makes it OPAQUE)."""
        got = global_tags(m, op, lanes, v, ew * count)
        return got[:, np.arange(count) // 2] if ew == 1 else got

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
            got = global_part(m, lanes, v)
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
                got = np.where(glob[:, None], global_part(m, glob, v), got)
            got[lanes & ~kn] = tg.opaque(op.index, tg.W_GLOBAL_ADDR)
            _ = PARAM_WINDOW
        put(m, got, lanes, mask)
    return run


@rule("st")
def st_rule(ins: Instruction, ctx: Context, op: Op) -> Rule | None:
    if "async" in ins.parts or "bulk" in ins.parts:
        from layoutalg.kernel.dataflow.asyncmem import forget_rule

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
        if ew == 1:  # byte j at a + j: its unit becomes OPAQUE if that unit or the byte was tagged
            for j in range(count):
                old = f.shared.tag[f.geom.cta_index[th], (a[th] + j - SMEM_BASE) // 2]
                new = np.where((old >= 0) | (vals[th, j] >= 0), tg.opaque(op.index, tg.W_BYTE), tg.NONE)
                store_units(m, op, th, (a[th] + j) & ~1, new[:, None], byte=(a[th] + j) & 1)
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
        if th.size and ew >= 2:
            f.local_tags()[th[:, None], a[th][:, None] // 2 + np.arange(vals.shape[1])[None, :]] = vals[th]
        for j in range(count if th.size and ew == 1 else 0):  # byte j at a + j, as in shared memory
            tags, units = f.local_tags(), (a[th] + j) // 2
            tags[th, units] = np.where((tags[th, units] >= 0) | (vals[th, j] >= 0), tg.opaque(op.index, tg.W_BYTE),
                                       tg.NONE)
        return True

    def global_part(m: Any, lanes: np.ndarray, v: Any, vals: np.ndarray) -> None:
        f = m.flow
        ok, a = _known_lanes(v, lanes, m.n)
        th = np.flatnonzero(ok)
        buf, off = decode_global(a[th].astype(np.uint64))
        u = vals.shape[1]
        offs = off[:, None] + (np.arange(u) if ew == 1 else 2 * np.arange(u))[None, :]  # byte j at + j
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
