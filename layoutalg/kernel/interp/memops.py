"""ld / st / ldu in every state space (PTX ISA 8.x, "Data Movement and Conversion Instructions").

* ``.shared`` (and ``::cta``/``::cluster`` with a cluster of one CTA): bytes come from and go to
  the CTA's shared-memory store, so values round-tripped through shared memory stay known;
  every warp-level execution is recorded for the bank model.
* ``.local``: a per-thread byte store (stack arrays, spills), values stay known.
* ``.param``: the kernel's arguments (known).
* ``.const``: bytes of an initialised module ``.const`` variable are its initializer's (the value the
  module is loaded with: a lookup table in ``__constant__`` memory); other ``.const`` bytes are unknown (set
  by the host).
* ``.global``, ``ldu``: loads are unknown; stores have no traced effect.
* generic (no state space): each lane's address is classified by window (:mod:`.spaces`);
  lanes in the shared window are recorded as shared accesses (flagged ``generic``).

A narrower element loaded into a wider register is sign-extended for ``.s`` types and
zero-extended otherwise.  Vector forms ``.v2/.v4/.v8`` access consecutive elements; the
whole vector is one access of ``n * size`` bytes, aligned to that size.  A ``ld.shared`` whose destination is
partly unread is recorded as the narrower accesses ptxas emits for it, or not at all when nothing reads it
(:mod:`.narrowing`); its registers are written in full either way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.decode import Context, Op, builder, type_bits
from layoutalg.kernel.interp.memory import address_reader, checked_shared_lanes, full, load_shared, record, store_shared
from layoutalg.kernel.interp.narrowing import UNDECIDED, Part, narrowed_parts, part_name, undecided
from layoutalg.kernel.interp.spaces import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, classify_generic
from layoutalg.kernel.interp.values import U64, Value, as_s
from layoutalg.kernel.ptx.nodes import TYPE_BYTES, Instruction, Reg, Sink, Vec

SPACES = ("shared", "global", "local", "param", "const")
_LANES = object()  # "write the destination for exactly the lanes accessed"
CANONICAL = {1: "u8", 2: "u16", 4: "b32", 8: "b64", 16: "v4.b32"}
UNDECIDED_PARTS: tuple[Part, ...] = ((-1, -1),)  # shared_load_parts: ptxas's choice depends on context


def state_space(ins: Instruction) -> str | None:
    for p in ins.parts[1:]:
        base = p.split("::")[0]
        if base in SPACES:
            return base
    return None


def element_type(ins: Instruction) -> str:
    for p in reversed(ins.parts[1:]):
        if p in TYPE_BYTES and p != "pred":
            return p
    raise KernelError("no element type", ins.line, ins.opcode)


def vector_count(ins: Instruction) -> int:
    for p in ins.parts:
        if p in ("v2", "v4", "v8"):
            return int(p[1:])
    return 1


def model_text(kind: str, width: int, space: str | None, ins: Instruction) -> str:
    """The bank model's name of a ``width``-byte shared access; a 32-byte access (``.v8.b32``, ``.v4.b64``) is
    refused outside ``.global``, the only state space the PTX ISA gives 256-bit ``ld``/``st`` (sm_100)."""
    if width not in CANONICAL and space != "global":
        raise KernelError(f"a {width}-byte {kind} exists only for .global memory in PTX", ins.line, ins.opcode)
    return f"{kind}.shared.{CANONICAL.get(width, 'v8.b32')}"


def _items(op: Any, n: int, ins: Instruction) -> list[Any]:
    items = list(op.items) if isinstance(op, Vec) else [op]
    if len(items) != n:
        raise KernelError(f"expects {n} register(s) in the vector operand, got {len(items)}", ins.line, ins.opcode)
    return items


def _extend(bits: np.ndarray, t: str) -> np.ndarray:
    w = type_bits(t)
    if t[0] == "s" and w < 64:
        return as_s(bits, w).astype(np.uint64)
    return bits


@builder("ld", "ldu")
def build_ld(ins: Instruction, ctx: Context, idx: int) -> Op:
    space = "global" if ins.root == "ldu" and state_space(ins) is None else state_space(ins)
    t = element_type(ins)
    if t == "b128":
        raise KernelError("128-bit scalar registers (.b128) are not supported", ins.line, ins.opcode)
    ew = TYPE_BYTES[t]
    count = vector_count(ins)
    width = ew * count
    dests = _items(ins.operands[0], count, ins)
    writers = [ctx.writer(d, ins, type_=t) for d in dests]
    read_addr = address_reader(ctx, ins.operands[1], ins)
    constants = ctx.constants if space == "const" else ()
    op = Op(idx, ins, dests=[d for _, ds in writers for d in ds], shared=space in ("shared", None))
    text = model_text("ld", width, space, ins)
    sass_parts = shared_load_parts(ins, ctx, idx, ew, dests) if space == "shared" else None
    refusal = ""
    if sass_parts == UNDECIDED_PARTS:
        sass_parts, refusal = None, UNDECIDED

    def put(m: Any, lanes: Any, get: Any) -> None:
        for j, (w, _) in enumerate(writers):
            bits, known = get(j)
            w(m, _extend(bits, t), known, lanes)

    def from_shared(m: Any, lanes: np.ndarray, addr: Value, generic: bool, wmask: Any = _LANES) -> None:
        ok, a = checked_shared_lanes(m, op, addr, lanes, width, width, False, "shared-memory load", generic)
        if sass_parts is None:
            record(m, op, "ld", text, width, ok, a, generic=generic, issued=None if generic else lanes,
                   refusal=refusal)
        elif not sass_parts:
            m.recorder.removed_by_ptxas(op.index, op.ins.line, op.ins.opcode, int(lanes.reshape(-1, 32).any(axis=1).sum()))
        for offset, part_width in sass_parts or ():
            record(m, op, "ld", model_text("ld", part_width, space, ins), part_width, ok, a + offset, issued=lanes,
                   part=part_name(offset, part_width))
        put(m, lanes if wmask is _LANES else wmask, lambda j: _masked(load_shared(m, ok, a + j * ew, ew), ok))

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        addr = read_addr(m)
        if space == "shared":
            from_shared(m, lanes, addr, False, mask)
        elif space == "param":
            put(m, lanes, lambda j: _param(m, addr, j * ew, ew, ins, lanes))
        elif space == "local":
            put(m, lanes, lambda j: _local_load(m, lanes, addr, j * ew, ew, ins))
        elif space == "const" and constants:
            put(m, lanes, lambda j: _const_load(constants, addr, j * ew, ew, m.n))
        elif space in ("global", "const"):
            put(m, lanes, lambda j: (np.zeros(m.n, dtype=np.uint64), np.zeros(m.n, dtype=bool)))
        else:
            generic_dispatch(m, lanes, addr, from_shared,
                             local=lambda ln, ad: put(m, ln, lambda j: _local_load(m, ln, ad, j * ew, ew, ins)),
                             param=lambda ln, ad: put(m, ln, lambda j: _param(m, ad, j * ew, ew, ins, ln)),
                             other=lambda ln: put(m, ln, lambda j: (np.zeros(m.n, np.uint64), np.zeros(m.n, bool))))

    op.run = run
    return op


def shared_load_parts(ins: Instruction, ctx: Context, idx: int, element_bytes: int, dests: list[Any]
                      ) -> tuple[Part, ...] | None:
    """The SASS accesses ptxas makes of this ``ld.shared`` (:mod:`.narrowing`): None for the whole access as
    written, :data:`UNDECIDED_PARTS` where ptxas's choice depends on context (:func:`.narrowing.undecided`: costed
    as unmodelled), else (offset, bytes) per access (none: ptxas removes the load).  An element is live when some
    instruction may read it (:class:`.liveness.Liveness`; ``_`` never is)."""
    live_words: list[frozenset[int]] = []
    for dest in dests:
        readers = ctx.liveness.readers(idx, dest.name) if isinstance(dest, Reg) else ()
        if not readers:
            live_words.append(frozenset())
        elif element_bytes == 8:
            live_words.append(ctx.liveness.words_read(idx, dest.name))
        else:
            live_words.append(frozenset({0}))
    volatile = "volatile" in ins.parts
    if undecided(element_bytes, live_words, volatile):
        return UNDECIDED_PARTS
    parts = narrowed_parts(element_bytes, live_words, volatile)
    return None if parts == ((0, element_bytes * len(dests)),) else parts


def _const_load(constants: tuple[tuple[int, bytes], ...], addr: Value, extra: int, width: int, n: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Bytes ``extra..extra+width`` past each lane's address where they lie inside one initialised ``.const``
    variable (known there), unknown elsewhere."""
    a = full(addr.bits, n).astype(np.int64) + extra
    known_addr = np.broadcast_to(np.asarray(addr.known), (n,))
    bits = np.zeros(n, dtype=np.uint64)
    known = np.zeros(n, dtype=bool)
    for base, data in constants:
        inside = known_addr & (a >= base) & (a + width <= base + len(data))
        if not inside.any():
            continue
        buf = np.frombuffer(data, dtype=np.uint8)
        offs = np.where(inside, a - base, 0)
        val = np.zeros(n, dtype=np.uint64)
        for k in range(width):
            val |= buf[offs + k].astype(np.uint64) << U64(8 * k)
        bits = np.where(inside, val, bits)
        known |= inside
    return bits, known


def _masked(pair: tuple[np.ndarray, np.ndarray], ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bits, known = pair
    return bits, known & ok


def generic_dispatch(m: Any, lanes: np.ndarray, addr: Value, shared: Any, local: Any, param: Any, other: Any) -> None:
    """Split ``lanes`` by the window each generic address lies in and call the handler of each part."""
    bits = full(addr.bits, m.n)
    if addr.known is not True:  # which window an unknown generic address is in is unknown too
        kn = np.broadcast_to(np.asarray(addr.known), (m.n,))
        unknown = lanes & ~kn
        if unknown.any():
            shared(m, unknown, Value(bits - U64(SHARED_WINDOW), False), True)
        lanes = lanes & kn
    cls = classify_generic(bits)
    for code, handler, base in ((1, "shared", SHARED_WINDOW), (2, "local", LOCAL_WINDOW), (3, "param", PARAM_WINDOW)):
        part = lanes & (cls == code)
        if part.any():
            rel = Value(bits - U64(base), True)
            if handler == "shared":
                shared(m, part, rel, True)
            elif handler == "local":
                local(part, rel)
            else:
                param(part, rel)
    rest = lanes & (cls == 0)
    if rest.any():
        other(rest)


def _param(m: Any, addr: Value, extra: int, width: int, ins: Instruction, lanes: np.ndarray) -> tuple[Any, Any]:
    """Bytes ``extra..extra+width`` past each address; a read by a lane in ``lanes`` outside the parameters is
    refused (other lanes' addresses may be anything: they read zeros)."""
    params = m.params
    a = np.asarray(addr.bits, dtype=np.uint64)
    if a.ndim == 0:
        off = int(a) + extra
        if off < 0 or off + width > len(params):
            raise KernelError(f"parameter read at byte {off} is outside the {len(params)} parameter bytes",
                              ins.line, ins.opcode)
        return U64(int.from_bytes(params[off: off + width], "little")), addr.known
    buf = np.frombuffer(params + bytes(8), dtype=np.uint8)
    offs = a.astype(np.int64) + extra
    outside = lanes & ((offs < 0) | (offs + width > len(params)))
    if outside.any():
        raise KernelError(f"parameter read at byte {int(offs[outside][0])} is outside the {len(params)} parameter "
                          "bytes", ins.line, ins.opcode)
    offs = np.clip(offs, 0, len(params))
    out = np.zeros(a.shape, dtype=np.uint64)
    for k in range(width):
        out |= buf[offs + k].astype(np.uint64) << U64(8 * k)
    return out, addr.known


def _local_check(m: Any, lanes: np.ndarray, addr: Value, width: int, ins: Instruction) -> np.ndarray:
    a = full(addr.bits, m.n).astype(np.int64)
    if addr.known is not True and (lanes & ~np.broadcast_to(np.asarray(addr.known), (m.n,))).any():
        raise KernelError("local-memory address depends on a value unknown at trace time", ins.line, ins.opcode)
    if lanes.any():
        la = a[lanes]
        if la.min() < 0 or la.max() + width > m.local.size:
            raise KernelError(f"local-memory address outside the {m.local.size} bytes of .local variables",
                              ins.line, ins.opcode)
    return a


def _local_load(m: Any, lanes: np.ndarray, addr: Value, extra: int, width: int, ins: Instruction) -> tuple[Any, Any]:
    a = _local_check(m, lanes, addr, extra + width, ins) + extra
    bits = np.zeros(m.n, dtype=np.uint64)
    known = np.zeros(m.n, dtype=bool)
    if lanes.any():
        rows = np.flatnonzero(lanes)
        b, k = m.local.read(rows, a[lanes], width)
        bits[lanes], known[lanes] = b, k
    return bits, known


@builder("st")
def build_st(ins: Instruction, ctx: Context, idx: int) -> Op:
    if "async" in ins.parts or "bulk" in ins.parts:
        from layoutalg.kernel.interp.asyncops import NOT_LSU, outside_op

        return outside_op(ins, idx, f"{ins.root}.{'async' if 'async' in ins.parts else 'bulk'}: " + NOT_LSU)
    space = state_space(ins)
    t = element_type(ins)
    if t == "b128":
        raise KernelError("128-bit scalar registers (.b128) are not supported", ins.line, ins.opcode)
    ew = TYPE_BYTES[t]
    count = vector_count(ins)
    width = ew * count
    read_addr = address_reader(ctx, ins.operands[0], ins)
    srcs = _items(ins.operands[1], count, ins)
    readers = [None if isinstance(s, Sink) else ctx.reader(s, t, ins) for s in srcs]
    op = Op(idx, ins, shared=space in ("shared", None), writes_shared=space in ("shared", None))
    text = model_text("st", width, space, ins)

    def values(m: Any) -> list[tuple[Any, Any]]:
        out: list[tuple[Any, Any]] = []
        for r in readers:
            if r is None:
                out.append((U64(0), False))
            else:
                v = r(m)
                out.append((v.bits, v.known))
        return out

    def to_shared(m: Any, lanes: np.ndarray, addr: Value, generic: bool) -> None:
        ok, a = checked_shared_lanes(m, op, addr, lanes, width, width, True, "shared-memory store", generic)
        record(m, op, "st", text, width, ok, a, generic=generic, issued=None if generic else lanes)
        for j, (bits, known) in enumerate(values(m)):
            store_shared(m, ok, a + j * ew, ew, bits, known)

    def to_local(m: Any, lanes: np.ndarray, addr: Value) -> None:
        a = _local_check(m, lanes, addr, width, ins)
        rows = np.flatnonzero(lanes)
        for j, (bits, known) in enumerate(values(m)):
            m.local.write(rows, a[lanes] + j * ew, ew, full(bits, m.n)[lanes],
                          np.broadcast_to(np.asarray(known), (m.n,))[lanes])

    def run(m: Any, mask: Any) -> None:
        lanes = m.active(mask)
        addr = read_addr(m)
        if space == "shared":
            to_shared(m, lanes, addr, False)
        elif space == "local":
            to_local(m, lanes, addr)
        elif space == "param":
            raise KernelError("st.param outside a call sequence is not supported", ins.line, ins.opcode)
        elif space is None:
            generic_dispatch(m, lanes, addr, to_shared, local=lambda ln, ad: to_local(m, ln, ad),
                             param=lambda ln, ad: None, other=lambda ln: None)

    op.run = run
    return op
