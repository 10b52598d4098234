"""cp.async, atomics, and the Hopper instructions that bypass the LSU shared-memory pipe.

* ``cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}``:
  one record per warp execution with each lane's shared destination and global source
  (buffer, offset); the destination bytes become unknown (global data), the zero-filled tail
  (``src-size < cp-size``, or ``ignore-src`` true) known zeros.  ``commit_group`` /
  ``wait_group`` / ``wait_all`` cost nothing here.
* ``atom``/``red`` on ``.shared``: recorded (kind ``atom``/``red``) for the bank model, which does
  not model them (they are then listed as unmodelled).  Results and memory are exact where the
  integer operation is exact and no two lanes of a CTA hit the same address; otherwise unknown.
  On other spaces the result is unknown.
* ``wgmma``, ``cp.async.bulk`` (TMA), ``mbarrier``, ``tcgen05``, ``st.async``/``red.async`` are
  listed as "not through the LSU shared pipe" (never counted); their shared-memory writes make
  the bytes they may touch unknown; ``mbarrier.try_wait``/``test_wait`` report completion
  (the trace does not model time, so a wait always ends); ``mma``/``wgmma`` results are unknown.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder, type_bits
from layoutalg.kernel.interp.memops import element_type, state_space
from layoutalg.kernel.interp.memory import address_reader, checked_shared_lanes, full, load_shared, record, store_shared
from layoutalg.kernel.interp.spaces import decode_global
from layoutalg.kernel.interp.values import MASKS, U64, as_s, known_and
from layoutalg.kernel.ptx.nodes import Imm, Instruction, Reg, Sink, Vec

NOT_LSU = "does not go through the LSU shared-memory pipe (not in the shared wavefront counters)"


def outside_op(ins: Instruction, idx: int, reason: str) -> Op:
    """An op that only lists itself as outside the LSU pipe and forgets the CTA's shared bytes it may write."""
    op = Op(idx, ins, writes_shared=True)

    def run(m: Any, mask: Any) -> None:
        _outside(m, op, mask, reason)
        m.smem.forget_rows(m.geom.cta_index[m.active(mask)])

    op.run = run
    return op


def _outside(m: Any, op: Op, mask: Any, reason: str = NOT_LSU) -> None:
    lanes = m.active(mask)
    m.recorder.outside_lsu(op.index, op.ins.line, op.ins.opcode, reason,
                           int(lanes.reshape(-1, 32).any(axis=1).sum()))


def cp_async_source_readers(ins: Instruction, ctx: Context) -> tuple[Any, Any]:
    """Readers of cp.async's optional operands after cp-size: ``(src_size, ignore_src)``, each None when absent.

    PTX: ``cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size}{, cache-policy}`` or
    ``..., cp-size{, ignore-src}{, cache-policy}`` (a predicate); the trailing cache policy of
    ``.L2::cache_hint`` is not a source operand.
    """
    extra = list(ins.operands[3:])
    if any("cache_hint" in p for p in ins.parts) and extra:
        extra = extra[:-1]
    if not extra:
        return None, None
    x = extra[0]
    if isinstance(x, Reg) and ctx.registers.get(x.name) == "pred":
        return None, ctx.reader(x, "pred", ins)
    return ctx.reader(x, "u32", ins), None


@builder("cp")
def build_cp(ins: Instruction, ctx: Context, idx: int) -> Op:
    parts = ins.parts
    if parts[:2] != ("cp", "async") and "bulk" not in parts:
        raise KernelError("unknown cp instruction", ins.line, ins.opcode)
    if any(p in parts for p in ("commit_group", "wait_group", "wait_all")) or "mbarrier" in parts:
        return Op(idx, ins, kind="nop")
    if "bulk" in parts:
        return _bulk(ins, ctx, idx)
    cache = [p for p in parts if p in ("ca", "cg")]
    if len(cache) != 1 or state_space(ins) != "shared":
        raise KernelError("cp.async needs .ca or .cg and .shared.global", ins.line, ins.opcode)
    dst = address_reader(ctx, ins.operands[0], ins)
    src = address_reader(ctx, ins.operands[1], ins)
    if len(ins.operands) < 3 or not isinstance(ins.operands[2], Imm):
        raise KernelError("cp.async needs an immediate cp-size (4, 8 or 16)", ins.line, ins.opcode)
    size = ins.operands[2].value
    if size not in (4, 8, 16) or (cache[0] == "cg" and size != 16):
        raise KernelError(f"cp-size {size}: .ca copies 4, 8 or 16 bytes, .cg 16", ins.line, ins.opcode)
    src_size, ignore = cp_async_source_readers(ins, ctx)
    text = "cp.async.cg.shared.global" if cache[0] == "cg" else f"cp.async.ca.shared.global, {size}"
    op = Op(idx, ins, shared=True, writes_shared=True)

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        ok, a = checked_shared_lanes(m, op, dst(m), lanes, size, size, True, "cp.async destination")
        g = src(m)
        if g.known is not True:
            gk = np.broadcast_to(np.asarray(g.known), (m.n,))
            unknown = ok & ~gk
            if unknown.any():
                m.recorder.data_dependence(op.index, ins.line, ins.opcode,
                                           "cp.async global source address unknown at trace time (its wavefronts "
                                           "depend on it)", int(unknown.reshape(-1, 32).any(axis=1).sum()),
                                           int(unknown.sum()))
                m.smem.forget_rows(m.geom.cta_index[unknown])
                ok = ok & gk
        buf, off = decode_global(full(g.bits, m.n))
        filled: Any = None
        if src_size is not None:
            s = src_size(m)
            if s.known is not True:
                unknown = ok & ~np.broadcast_to(np.asarray(s.known), (m.n,))
                if unknown.any():  # how many bytes are read, so the cost, is data-dependent
                    m.recorder.data_dependence(op.index, ins.line, ins.opcode,
                                               "cp.async src-size unknown at trace time (its wavefronts depend on it)",
                                               int(unknown.reshape(-1, 32).any(axis=1).sum()), int(unknown.sum()))
                    m.smem.forget_rows(m.geom.cta_index[unknown])
                    ok = ok & ~unknown
            filled = np.minimum(full(s.bits, m.n).astype(np.int64), size)
        if ignore is not None:
            p = ignore(m)
            filled = np.where(np.broadcast_to(np.asarray(p.bits), (m.n,)), 0, size if filled is None else filled)
        whole = src_size is None and ignore is None
        record(m, op, "cp.async", text, size, ok, a, buf, off, None if whole else filled, issued=lanes)
        every = bool(ok.all())
        if not every and not ok.any():
            return
        if whole:  # global bytes are unknown
            m.smem.forget(m.geom.cta_index if every else m.geom.cta_index[ok], a if every else a[ok], size)
        else:  # ... and the zero-filled tail is known zeros
            zero_tail = filled[ok][:, None] <= np.arange(size)[None, :]
            m.smem.write(m.geom.cta_index[ok], a[ok], size, np.zeros((int(ok.sum()), size), dtype=np.uint8),
                         zero_tail)

    op.run = run
    return op


def _bulk(ins: Instruction, ctx: Context, idx: int) -> Op:
    """cp.async.bulk(.tensor)/cp.reduce.async.bulk: TMA; a shared destination becomes unknown."""
    spaces = [p.split("::")[0] for p in ins.parts[2:] if p.split("::")[0] in ("shared", "global")]
    to_shared = bool(spaces) and spaces[0] == "shared"
    op = Op(idx, ins, writes_shared=to_shared)

    def run(m: Any, mask: Any) -> None:
        _outside(m, op, mask, "TMA / bulk copy: " + NOT_LSU)
        if to_shared:
            m.smem.forget_rows(m.geom.cta_index[m.active(mask)])

    op.run = run
    return op


ATOM_OPS = {"add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec"}


@builder("atom", "red")
def build_atom(ins: Instruction, ctx: Context, idx: int) -> Op:
    if "async" in ins.parts:
        return outside_op(ins, idx, "red.async (distributed shared memory): " + NOT_LSU)
    space = state_space(ins)
    t = element_type(ins)
    ops = [p for p in ins.parts if p in ATOM_OPS]
    is_atom = ins.root == "atom"
    if any(isinstance(x, Vec) for x in ins.operands) or {"v2", "v4", "v8"} & set(ins.parts):
        raise KernelError("vector atomics are not supported", ins.line, ins.opcode)
    dest_w = ctx.writer(ins.operands[0], ins, type_=t) if is_atom else None
    addr_op = ins.operands[1] if is_atom else ins.operands[0]
    read_addr = address_reader(ctx, addr_op, ins)
    srcs = ins.operands[2:] if is_atom else ins.operands[1:]
    readers = [ctx.reader(s, t, ins) for s in srcs]
    width = type_bits(t) // 8
    op = Op(idx, ins, dests=dest_w[1] if dest_w else [], shared=space in ("shared", None),
            writes_shared=space in ("shared", None))
    text = atomic_model_text(ins, ops[0] if ops else "op", t, srcs, lambda: _result_read(ins, ctx, idx))
    exact = bool(ops) and ops[0] in ("add", "min", "max", "and", "or", "xor", "exch", "cas") and t[0] in "usb"

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        if space not in ("shared", None):
            if dest_w:
                dest_w[0](m, U64(0), False, mask)
            return
        addr = read_addr(m)
        if space is None:
            from layoutalg.kernel.interp.spaces import SHARED_WINDOW, classify_generic

            bits = full(addr.bits, m.n)  # an unknown address may lie in the shared window: checked below
            in_shared = (classify_generic(bits) == 1) | ~np.broadcast_to(np.asarray(addr.known), (m.n,))
            if (lanes & ~in_shared).any() and dest_w:
                dest_w[0](m, U64(0), False, lanes & ~in_shared)
            lanes = lanes & in_shared
            from layoutalg.kernel.interp.values import Value

            addr = Value(bits - U64(SHARED_WINDOW), addr.known)
        ok, a = checked_shared_lanes(m, op, addr, lanes, width, width, True, f"{ins.root}.shared", space is None)
        record(m, op, ins.root, text, width, ok, a, generic=space is None, issued=lanes if space else None)
        old, old_known = load_shared(m, ok, a, width)
        vals = [r(m) for r in readers]
        keys = m.geom.cta_index[ok] * (1 << 32) + a[ok]
        distinct = len(np.unique(keys)) == len(keys)
        if exact and distinct:
            new = _atom_result(ops[0], t, old, [full(v.bits, m.n) for v in vals])
            kn = old_known & np.broadcast_to(np.asarray(known_and(*[v.known for v in vals])), (m.n,))
            store_shared(m, ok, a, width, new, kn)
            if dest_w:
                dest_w[0](m, old, old_known, lanes)
        else:
            m.smem.forget(m.geom.cta_index[ok], a[ok], width)
            if dest_w:
                dest_w[0](m, U64(0), False, lanes)

    op.run = run
    return op


def _result_read(ins: Instruction, ctx: Context, idx: int) -> bool:
    """Whether anything may read the atomic's result: never for ``red`` or a sink ``_`` destination; for a register,
    :meth:`~layoutalg.kernel.interp.decode.Context.result_read` (any other destination counts as read)."""
    if ins.root == "red" or isinstance(ins.operands[0], Sink):
        return False
    dest = ins.operands[0]
    return not isinstance(dest, Reg) or ctx.result_read(idx, dest.name)


def atomic_model_text(ins: Instruction, op_name: str, t: str, srcs: Any, result_read: Callable[[], bool]) -> str:
    """The bank model's name of an atomic.  An ``add.u32`` of the immediate 1 whose result nothing reads (a ``red``,
    or an ``atom`` whose destination is ``_`` or a register overwritten or never mentioned before any read,
    :meth:`~layoutalg.kernel.interp.decode.Context.result_read`: what ``atomicAdd(p, 1)`` with its result unused
    compiles to) is ``red.shared.add.u32, 1``: ptxas 13.0 makes it ATOMS.POPC.INC, whose cost differs
    (:mod:`layoutalg.banks.model` rule 6).  Any other atom keeps its result: ATOMS.ADD."""
    if op_name == "add" and t == "u32" and srcs and isinstance(srcs[0], Imm) and srcs[0].value == 1 \
            and not result_read():
        return "red.shared.add.u32, 1"
    return f"{ins.root}.shared.{op_name}.{t}"


def _atom_result(name: str, t: str, old: np.ndarray, srcs: list[np.ndarray]) -> np.ndarray:
    w = type_bits(t)
    mask = U64(MASKS[w])
    b = srcs[0]
    if name == "add":
        return (old + b) & mask
    if name in ("min", "max"):
        pick = np.minimum if name == "min" else np.maximum
        if t[0] == "s":
            return pick(as_s(old, w), as_s(b, w)).astype(np.int64).astype(np.uint64) & mask
        return pick(old & mask, b & mask)
    if name == "and":
        return old & b
    if name == "or":
        return old | b
    if name == "xor":
        return old ^ b
    if name == "exch":
        return b & mask
    if name == "cas":
        return np.where((old & mask) == (b & mask), srcs[1] & mask, old)
    raise ValueError(name)


@builder("mbarrier")
def build_mbarrier(ins: Instruction, ctx: Context, idx: int) -> Op:
    parts = set(ins.parts)
    waits = "try_wait" in parts or "test_wait" in parts
    dest = ins.operands[0] if ins.operands and isinstance(ins.operands[0], Reg) else None
    writer = ctx.writer(dest, ins) if dest is not None else None
    op = Op(idx, ins, dests=writer[1] if writer else [])

    def run(m: Any, mask: Any) -> None:
        _outside(m, op, mask, "mbarrier: " + NOT_LSU)
        if writer:
            if waits:
                writer[0](m, np.ones(m.n, dtype=bool), True, mask)
            else:
                writer[0](m, U64(0), False, mask)

    op.run = run
    return op


@builder("wgmma", "tcgen05")
def build_wgmma(ins: Instruction, ctx: Context, idx: int) -> Op:
    parts = set(ins.parts)
    if parts & {"fence", "commit_group", "wait_group"}:
        return Op(idx, ins, kind="nop")
    dest = ins.operands[0] if ins.operands else None
    items = list(dest.items) if isinstance(dest, Vec) else ([dest] if isinstance(dest, Reg) else [])
    writers = [ctx.writer(d, ins) for d in items]
    op = Op(idx, ins, dests=[d for _, ds in writers for d in ds])

    def run(m: Any, mask: Any) -> None:
        _outside(m, op, mask, "wgmma/tcgen05 operands from shared memory: " + NOT_LSU)
        for w, _ in writers:
            w(m, U64(0), False, mask)

    op.run = run
    return op
