"""Control flow, barriers, and instructions with no traced effect (PTX ISA 8.x, "Control Flow",
"Parallel Synchronization", "Miscellaneous").

``bra`` (``.uni`` or not) jumps to a label; ``ret``/``exit`` end the thread; ``bar.sync``,
``barrier.sync``, ``bar.cta.sync``, ``barrier.cta.sync`` (``.aligned`` or not) wait for the CTA,
``bar.arrive``/``barrier.arrive`` only arrive (the machine implements both); ``bar.warp.sync``,
``fence``, ``membar``, ``prefetch``, ``nanosleep`` and similar have no effect on what is traced.
``mma``/``wmma.mma`` results are unknown (tensor-core arithmetic is not evaluated); ``wmma.load``
/ ``wmma.store`` on shared memory are recorded and listed as unmodelled by the bank model, and the whole
matrix they span (``wmma_footprint``) must lie inside the CTA's shared memory.
Calls to ``.func`` bodies and indirect branches are not supported (a :class:`KernelError` names
them); a ``vprintf`` call has no traced effect, and an ``__assertfail`` call (a failed device-side
``assert``) ends the trace as ``trap`` does: the CUDA runtime halts the kernel there (CUDA C++ Programming
Guide, "Assertion"), so nothing after it happens on the GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder
from layoutalg.kernel.interp.memops import state_space
from layoutalg.kernel.interp.memory import address_reader, checked_shared_lanes, record
from layoutalg.kernel.interp.spaces import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SPAN
from layoutalg.kernel.interp.values import U64, Value
from layoutalg.kernel.interp.wmma_footprint import footprint_bytes, matrix_extent
from layoutalg.kernel.interp.wmma_fragment import fragment_bytes
from layoutalg.kernel.ptx.nodes import Instruction, Reg, Sym, Vec

NO_EFFECT = {"membar", "fence", "prefetch", "prefetchu", "nanosleep", "griddepcontrol", "setmaxnreg", "discard",
             "applypriority", "pmevent", "brkpt"}
HARMLESS_CALLS = {"vprintf"}
ABORTING_CALLS = {"__assertfail": "a device-side assert failed (__assertfail)"}


@builder("bra")
def build_bra(ins: Instruction, ctx: Context, idx: int) -> Op:
    target = ins.operands[-1] if ins.operands else None
    if not isinstance(target, Sym) or target.name not in ctx.labels:
        raise KernelError(f"branch target {describe(target)} is not a label of this function", ins.line, ins.opcode)
    return Op(idx, ins, kind="bra", target=ctx.labels[target.name])


@builder("brx")
def build_brx(ins: Instruction, ctx: Context, idx: int) -> Op:
    raise KernelError("indirect branches (brx.idx) are not supported", ins.line, ins.opcode)


@builder("ret", "exit")
def build_exit(ins: Instruction, ctx: Context, idx: int) -> Op:
    return Op(idx, ins, kind="exit")


@builder("trap")
def build_trap(ins: Instruction, ctx: Context, idx: int) -> Op:
    def run(m: Any, mask: Any) -> None:
        raise KernelError("trap executed: the kernel aborts here for these launch arguments", ins.line, ins.opcode)
    return Op(idx, ins, run)


@builder("bar", "barrier")
def build_bar(ins: Instruction, ctx: Context, idx: int) -> Op:
    parts = set(ins.parts)
    if "warp" in parts:
        return Op(idx, ins, kind="nop")
    if "red" in parts:
        w, dests = ctx.writer(ins.operands[0], ins)
        op = Op(idx, ins, kind="bar", dests=dests)
        op.barrier = (None, None)
        op.run = lambda m, mask: w(m, U64(0), False, mask)
        return op
    mode = "arrive" if "arrive" in parts else "sync"
    ops = list(ins.operands)
    bid = ctx.reader(ops[0], "u32", ins) if ops else None
    count = ctx.reader(ops[1], "u32", ins) if len(ops) > 1 else None
    op = Op(idx, ins, kind="bar", barrier_mode=mode)
    op.barrier = (bid, count)
    return op


@builder(*sorted(NO_EFFECT))
def build_no_effect(ins: Instruction, ctx: Context, idx: int) -> Op:
    return Op(idx, ins, kind="nop")


@builder("createpolicy", "getctarank", "istypep", "suld", "tex", "tld4", "txq", "suq")
def build_unknown_result(ins: Instruction, ctx: Context, idx: int) -> Op:
    """Instructions whose result the trace cannot know: the destination(s) become unknown."""
    d = ins.operands[0] if ins.operands else None
    items = list(d.items) if isinstance(d, Vec) else ([d] if isinstance(d, Reg) else [])
    writers = [ctx.writer(x, ins) for x in items]

    def run(m: Any, mask: Any) -> None:
        for w, _ in writers:
            w(m, U64(0), False, mask)
    return Op(idx, ins, run, dests=[n for _, ds in writers for n in ds])


@builder("sust", "sured")
def build_surface_store(ins: Instruction, ctx: Context, idx: int) -> Op:
    return Op(idx, ins, kind="nop")


@builder("mma", "wmma")
def build_mma(ins: Instruction, ctx: Context, idx: int) -> Op:
    parts = set(ins.parts)
    if ins.root == "wmma" and ("load" in parts or "store" in parts):
        return _wmma_memory(ins, ctx, idx)
    d = ins.operands[0]
    items = list(d.items) if isinstance(d, Vec) else [d]
    writers = [ctx.writer(x, ins, type_=_fragment_type(ins, 0)) for x in items]
    for k, frag in enumerate(ins.operands[1:4], start=1):  # the sources' registers (results are unknown)
        for x in (frag.items if isinstance(frag, Vec) else (frag,)):
            if isinstance(x, Reg) and (t := _fragment_type(ins, k)) is not None:
                ctx.reader(x, t, ins)
    names = [n for _, ds in writers for n in ds]
    unknown = Value(U64(0), False)

    def run(m: Any, mask: Any) -> None:
        if mask is None:  # every live thread: the results are simply unknown (a shared immutable value)
            for name in names:
                m.regs[name] = unknown
            return
        for w, _ in writers:
            w(m, U64(0), False, mask)
    return Op(idx, ins, run, dests=names)


def _fragment_type(ins: Instruction, k: int) -> str | None:
    """The register type of ``mma``'s operand ``k`` (d, a, b, c): ``.f32``/``.f64`` accumulators their own,
    ``.f64`` multiplicands 64 bits, every other fragment register 32 bits (PTX ISA, mma fragments); None
    (not checked) for ``wmma``, whose fragments are typed per shape."""
    types = [p for p in ins.parts if p in ("f64", "f32", "f16", "bf16", "tf32", "s32", "s8", "u8", "s4", "u4",
                                           "b1", "e4m3", "e5m2")]
    if ins.root != "mma" or len(types) < 2:
        return None
    t = types[0] if k == 0 else types[-1] if k == 3 else types[1]
    return t if t in ("f32", "f64") else "b32"


def _wmma_memory(ins: Instruction, ctx: Context, idx: int) -> Op:
    load = "load" in ins.parts
    space = state_space(ins)
    addr_op = ins.operands[1] if load else ins.operands[0]
    read_addr = address_reader(ctx, addr_op, ins)
    d = _load_fragment(ins) if load else ins.operands[0]
    items = list(d.items) if load and isinstance(d, Vec) else []
    writers = [ctx.writer(x, ins) for x in items]
    op = Op(idx, ins, dests=[n for _, ds in writers for n in ds], shared=space == "shared",
            writes_shared=not load and space == "shared")
    extent = matrix_extent(ins.parts, ins.line, ins.opcode)
    lane_bytes = fragment_bytes(ins)  # the fragment a lane holds (PTX ISA 9.7.14.4.1), not a fixed width
    read_stride = ctx.reader(ins.operands[2], "u32", ins) if len(ins.operands) > 2 else None

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        if space == "shared":
            width = _wmma_width(m, extent, read_stride, lanes)
            ok, a = checked_shared_lanes(m, op, read_addr(m), lanes, width, 2, not load, "wmma")
            record(m, op, "wmma", ins.opcode, lane_bytes, ok, a)
            if not load:
                m.smem.forget_rows(m.geom.cta_index[ok])
        for w, _ in writers:
            w(m, U64(0), False, mask)
    op.run = run
    return op


def _wmma_width(m: Any, extent: tuple[int, int, int], read_stride: Any, lanes: np.ndarray) -> int:
    """Bytes the fragment spans from its base (``wmma_footprint``), with the widest stride any active lane
    holds; a stride unknown at trace time counts as packed lines (the least the fragment can span)."""
    if read_stride is None:
        return footprint_bytes(*extent, None)
    stride = read_stride(m)
    known = np.broadcast_to(np.asarray(stride.known), (m.n,)) & lanes
    if not known.any():
        return footprint_bytes(*extent, None)
    widest = int(np.broadcast_to(np.asarray(stride.bits, dtype=np.int64), (m.n,))[known].max())
    return footprint_bytes(*extent, widest)


@builder("isspacep")
def build_isspacep(ins: Instruction, ctx: Context, idx: int) -> Op:
    space = [p for p in ins.parts[1:] if p.split("::")[0] in ("shared", "global", "local", "param", "const")]
    if not space:
        raise KernelError("isspacep needs a state space", ins.line, ins.opcode)
    w, dests = ctx.writer(ins.operands[0], ins, type_="pred")
    ra = ctx.reader(ins.operands[1], "u64", ins, address=True)
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "param": PARAM_WINDOW}.get(space[0].split("::")[0])

    def run(m: Any, mask: Any) -> None:
        a = ra(m)
        bits = np.asarray(a.bits, dtype=np.uint64)
        if base is None:
            inside = bits < U64(SHARED_WINDOW)
        else:
            inside = (bits >= U64(base)) & (bits < U64(base + WINDOW_SPAN))
        w(m, inside, a.known, mask)
    return Op(idx, ins, run, dests=dests)


@builder("mapa")
def build_mapa(ins: Instruction, ctx: Context, idx: int) -> Op:
    """With a cluster of one CTA, rank 0 is the CTA itself: the address maps to itself."""
    t = [p for p in ins.parts if p in ("u32", "u64")]
    w, dests = ctx.writer(ins.operands[0], ins, type_=t[0] if t else None)
    ra = ctx.reader(ins.operands[1], t[0] if t else "u64", ins)
    rr = ctx.reader(ins.operands[2], "u32", ins)

    def run(m: Any, mask: Any) -> None:
        a, r = ra(m), rr(m)
        if r.known is not True or np.any(np.asarray(r.bits) != 0):
            raise KernelError("mapa to another CTA of a cluster: clusters larger than one CTA are not traced",
                              ins.line, ins.opcode)
        w(m, a.bits, a.known, mask)
    return Op(idx, ins, run, dests=dests)


@builder("call")
def build_call(ins: Instruction, ctx: Context, idx: int) -> Op:
    # call (ret-params), callee, (params)[, prototype]: the callee is the first operand that is no list
    callee = next((op for op in ins.operands if not isinstance(op, Vec)), None)
    if not isinstance(callee, Sym):
        raise KernelError("indirect calls are not supported", ins.line, ins.opcode)
    if callee.name in HARMLESS_CALLS:
        return Op(idx, ins, kind="nop")
    if callee.name in ABORTING_CALLS:
        why = ABORTING_CALLS[callee.name]

        def run(m: Any, mask: Any) -> None:
            raise KernelError(f"{why}: the kernel aborts here for these launch arguments", ins.line, ins.opcode)
        return Op(idx, ins, run)
    raise KernelError(f"call to .func {callee.name}: calls are not supported (build with inlining, e.g. "
                      "__forceinline__, or trace the callee's own kernel)", ins.line, ins.opcode)


@builder("dp4a", "dp2a")
def build_dot(ins: Instruction, ctx: Context, idx: int) -> Op:
    from layoutalg.kernel.interp.intops import int_op
    from layoutalg.kernel.interp.values import as_s

    types = [p for p in ins.parts[1:] if p in ("u32", "s32")]
    if len(types) != 2:
        raise KernelError(f"{ins.root} needs .atype.btype", ins.line, ins.opcode)
    four = ins.root == "dp4a"
    hi = "hi" in ins.parts

    def elem(x: Any, t: str, k: int, bits: int) -> Any:
        v = (np.asarray(x, dtype=np.uint64) >> U64(k * bits)) & U64((1 << bits) - 1)
        return as_s(v, bits) if t == "s32" else v.astype(np.int64)

    def f(a: Any, b: Any, c: Any) -> Any:
        acc = as_s(c, 32) if "s32" in types else np.asarray(c, dtype=np.uint64).astype(np.int64)
        if four:
            for k in range(4):
                acc = acc + elem(a, types[0], k, 8) * elem(b, types[1], k, 8)
        else:
            for k in range(2):
                acc = acc + elem(a, types[0], k, 16) * elem(b, types[1], k + (2 if hi else 0), 8)
        return np.asarray(acc).astype(np.int64).astype(np.uint64) & U64(0xFFFFFFFF)
    return int_op(ins, ctx, idx, ["b32", "b32", "b32"], f)


def _load_fragment(ins: Instruction) -> Vec:
    """wmma.load's destination: a vector of registers (ptxas 13.0 refuses a bare register, "Vector expected for
    argument 0"); anything else is refused, never traced as a load that writes nothing."""
    d = ins.operands[0] if ins.operands else None
    if not isinstance(d, Vec):
        raise KernelError(f"{ins.opcode} needs a vector destination {{...}}, got {describe(d)}", ins.line, ins.opcode)
    return d
