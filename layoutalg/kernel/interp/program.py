"""Prepare and run one launch: symbol addresses, the shared-memory layout, decoding, the machine.

Symbols (what a name in an operand evaluates to):

* a kernel parameter: its byte offset in the parameter block (``ld.param [p+8]``);
* a ``.param`` variable declared in the body (a call sequence): a per-thread slot in local memory;
* a ``.shared`` variable: its shared-window address (:class:`~.spaces.SharedLayout`);
* a ``.local`` variable: its offset in the thread's local memory;
* a module ``.global``/``.const`` variable: the base of a global buffer of its own; a ``.const`` one with an
  initializer also gives its bytes (``LaunchImage.constants``: the value the module is loaded with, which
  ``ld.const`` reads; a host ``cudaMemcpyToSymbol`` before the launch is not seen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutalg.errors import KernelError, LayoutError
from layoutalg.kernel.interp import (
    asyncops,
    bitops,
    control,
    convert,
    floatops,
    intops,
    matrixops,
    memops,
    tensormap,
    warpops,
)
from layoutalg.kernel.interp.decode import BUILDERS, Context, Op
from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.machine import Machine
from layoutalg.kernel.interp.operand_counts import check_operand_count
from layoutalg.kernel.interp.operand_types import check_register
from layoutalg.kernel.interp.spaces import SMEM_BASE, SharedLayout, align_up, buffer_base
from layoutalg.kernel.ptx.nodes import (
    Addr,
    Function,
    Instruction,
    MissingOperandError,
    Module,
    Reg,
    Sym,
    TensorAddr,
    Variable,
    Vec,
)
from layoutalg.kernel.records import Recorder

_OP_MODULES = (asyncops, bitops, control, convert, floatops, intops, matrixops, memops, tensormap, warpops)


def referenced_names(fn: Function) -> set[str]:
    """Every symbol name an instruction of ``fn`` mentions (computed once per function)."""
    cached = getattr(fn, "_referenced_names", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    out: set[str] = set()
    pending: list[object] = [op for ins in fn.body for op in ins.operands]
    while pending:  # exact types: operands are the parser's frozen node classes
        op = pending.pop()
        kind = type(op)
        if kind is Sym:
            out.add(op.name)  # type: ignore[attr-defined]
        elif kind is Addr:
            if type(op.base) is Sym:  # type: ignore[attr-defined]
                out.add(op.base.name)  # type: ignore[attr-defined]
        elif kind is Vec:
            pending.extend(op.items)  # type: ignore[attr-defined]
        elif kind is TensorAddr:
            pending.append(op.base)  # type: ignore[attr-defined]
    fn._referenced_names = out  # type: ignore[attr-defined]
    return out


def shared_layout(module: Module, fn: Function, dynamic_smem: int) -> SharedLayout:
    """Addresses of the shared variables ``fn`` uses (see :mod:`.spaces` for the placement rule)."""
    used = referenced_names(fn)
    candidates = [v for v in module.variables if v.space == "shared" and v.name in used]
    candidates += [v for v in fn.variables if v.space == "shared"]
    layout = SharedLayout()
    at = SMEM_BASE
    for v in candidates:
        if v.extern and v.count == 0:  # the dynamic array; a sized .extern is static (ptxas: "ignoring extern")
            continue
        at = align_up(at, v.align)
        layout.addresses[v.name] = at
        at += v.size
    layout.static_end = at
    externs = [v for v in candidates if v.extern and v.count == 0]
    align = max([16] + [v.align for v in externs])
    layout.dynamic_base = align_up(at, align) if externs or dynamic_smem else at
    for v in externs:
        layout.addresses[v.name] = layout.dynamic_base
    layout.end = layout.dynamic_base + dynamic_smem
    return layout


@dataclass
class LaunchImage:
    """Everything about a launch that does not depend on which CTAs are traced."""

    module: Module
    fn: Function
    params: bytes
    param_offsets: dict[str, int]
    n_buffers: int
    shared: SharedLayout
    symbols: dict[str, int]
    local_size: int
    dynamic_smem: int
    global_symbols: dict[str, int]
    constants: tuple[tuple[int, bytes], ...] = ()  # (address, bytes) of every initialised .const variable


def build_image(module: Module, fn: Function, params: bytes, param_offsets: dict[str, int], n_buffers: int,
                dynamic_smem: int) -> LaunchImage:
    check_variables(module.variables + fn.variables)
    shared = shared_layout(module, fn, dynamic_smem)
    symbols: dict[str, int] = dict(param_offsets)
    symbols.update(shared.addresses)
    local = 0
    for v in fn.variables:
        if v.space in ("local", "param"):
            local = align_up(local, v.align)
            symbols[v.name] = local
            local += max(v.size, 1)
    global_symbols: dict[str, int] = {}
    constants: list[tuple[int, bytes]] = []
    k = n_buffers
    for v in module.variables:
        if v.space in ("global", "const"):
            global_symbols[v.name] = buffer_base(k)
            if v.space == "const" and v.initializer is not None:
                constants.append((buffer_base(k), initial_bytes(v)))
            k += 1
    symbols.update(global_symbols)
    return LaunchImage(module, fn, params, param_offsets, k, shared, symbols, local, dynamic_smem, global_symbols,
                       tuple(constants))


def initial_bytes(v: Variable) -> bytes:
    """A variable's bytes from its initializer: each element little-endian in its type's width (bit patterns, as
    the parser reads ``0f``/``0d`` floats), the elements the initializer leaves out zero (PTX ISA, "Array
    Declarations": "... the remaining elements are initialized to zero" for a shorter initializer list)."""
    eb = v.element_bytes
    data = b"".join((x & ((1 << (8 * eb)) - 1)).to_bytes(eb, "little") for x in v.initializer or ())
    return data + bytes(max(0, v.size - len(data)))


def decoder(image: LaunchImage, machine: Machine) -> tuple[list[Op | None], Any]:
    """(ops, decode_one): every opcode is checked now (KernelError naming the first unsupported one);
    each instruction is decoded when it first executes (``decode_one(i)``), so code a launch never
    reaches costs nothing.  Decoded ops depend only on the function and the symbol addresses, never
    on the machine, so they are cached on the function: tracing one parsed module again reuses them."""
    fn = image.fn
    for ins in fn.body:
        if ins.root not in BUILDERS:
            raise KernelError("unsupported instruction (the tracer does not know this opcode)", ins.line, ins.opcode)
    key = tuple(sorted(image.symbols.items()))
    cache: dict[Any, list[Op | None]] = fn.__dict__.setdefault("_decoded", {})
    if key not in cache:
        cache.clear()
        cache[key] = [None] * len(fn.body)
    ops = cache[key]
    ctx = Context(fn.registers, image.symbols, fn.labels, machine.special_value, image.param_offsets, image.module.isa,
                  image.constants, fn.body)
    local_params = {v.name for v in fn.variables if v.space == "param"}

    def decode_one(i: int) -> Op:
        ins = fn.body[i]
        if ins.guard is not None:  # ptxas: "Predicate expression expected" for a guard of another type
            check_register(Reg(ins.guard[0]), fn.registers, "pred", ins)
        if ins.root in ("ld", "st") and "param" in ins.parts and _addresses_local_param(ins, local_params):
            ins = _as_local(ins)  # type: ignore[assignment]
        return build(ins, ctx, i)

    return ops, decode_one


def build(ins: Instruction, ctx: Context, index: int) -> Op:
    """Hand ``ins`` to its builder (:data:`~.decode.BUILDERS`) and hold it to its PTX ISA operand count
    (:mod:`.operand_counts`).

    The builder goes first, so that its own, more specific refusal of a malformed form stands; an instruction
    it accepts must still have the operand count of its ISA form (no operand is silently ignored, and none
    is read at run time that the instruction lacks).  A builder that fails on an instruction without its
    ISA operand count (reading an operand it lacks, :class:`~layoutalg.kernel.ptx.nodes.MissingOperandError`,
    or unpacking too few) is reported as that wrong count, naming the line; any other failure propagates."""
    try:
        op = BUILDERS[ins.root](ins, ctx, index)
    except Exception as exc:
        if isinstance(exc, MissingOperandError) or not isinstance(exc, LayoutError):
            check_operand_count(ins)
        raise
    check_operand_count(ins)
    return op


def decode(image: LaunchImage, machine: Machine, private: bool = False) -> list[Op]:
    """Every instruction decoded now (used by tools that inspect ops; :func:`run` decodes lazily).

    ``private``: new Op objects only, never the ones cached on the function -- for callers that wrap an
    op's ``run`` (the data-flow rules), so that their wrapping neither leaks into later traces of the
    same module nor is applied twice."""
    ops, decode_one = decoder(image, machine)
    return [op if op is not None and not private else decode_one(i) for i, op in enumerate(ops)]


def _addresses_local_param(ins: object, names: set[str]) -> bool:
    for op in getattr(ins, "operands", ()):
        if isinstance(op, Addr) and isinstance(op.base, Sym) and op.base.name in names:
            return True
    return False


def _as_local(ins: object) -> object:
    """``ld.param``/``st.param`` of a call-sequence variable reads/writes the thread's local slot."""
    from layoutalg.kernel.ptx.nodes import Instruction

    assert isinstance(ins, Instruction)
    parts = tuple("local" if p == "param" else p for p in ins.parts)
    return Instruction(".".join(parts), parts, ins.operands, ins.guard, ins.line, ins.loc, ins.text, ins.site)


def run(image: LaunchImage, geometry: Geometry, recorder: Recorder, step_budget: int) -> Machine:
    machine = Machine(geometry, image.shared, image.local_size, image.params, image.dynamic_smem, recorder,
                      step_budget)
    ops, decode_one = decoder(image, machine)
    machine.run(ops, decode_one)
    return machine


def check_variables(variables: list[Variable]) -> None:
    for v in variables:
        if v.count == 0 and (not v.extern or v.space in ("local", "param")):  # ptxas: .extern .local is no syntax
            raise KernelError(f"{v.space} array {v.name}[] without .extern (ptxas: a non-external variable of incomplete "
                              "type); only the .extern .shared array takes its size from dynamic_smem", v.line)


__all__ = ["build_image", "run", "shared_layout", "LaunchImage", "_OP_MODULES"]
