"""Compile small Gluon kernels on the CPU for sm_90 (TTGIR -> LLVM IR -> PTX -> cubin with Triton's ptxas).

* :func:`compile_distributed` builds one kernel that materialises ``idx = m * N + n`` in each given distributed
  layout and stores its sum to global memory (a reduction keeps the code, and ptxas's time, small);
* :func:`compile_shared` builds one kernel that stores ``idx`` into a shared buffer of each given shared layout
  (each from its own source line, so :mod:`oracles.triton_llir` can tell the buffers apart), then loads them back.

The kernel source is generated into a scratch module (Gluon needs a real source file).  A layout Triton rejects
makes ``triton.compile`` raise; a few invalid ones abort the process inside MLIR (``LLVM ERROR``), so callers
compile only what layoutalg exported as valid, or run the compile in a subprocess.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Sequence

_SCRATCH = tempfile.mkdtemp(prefix="layoutalg-gluon-")
os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(_SCRATCH, "cache"))
_counter = itertools.count()

_INT = {8: "int8", 16: "int16", 32: "int32", 64: "int64"}


@dataclass
class Compiled:
    asm: dict[str, str]
    lines: dict[str, list[int]]  # buffer name -> source lines of its stores (lo byte first for 8-bit)
    num_warps: int


def _load(source: str, name: str) -> Any:
    path = os.path.join(_SCRATCH, f"{name}.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compile(fn: Any, constexprs: dict[str, Any], num_warps: int) -> dict[str, str]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    signature = {"out_ptr": "*i32", **{k: "constexpr" for k in constexprs}}
    kernel = triton.compile(GluonASTSource(fn, signature, constexprs=constexprs),
                            target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
    return dict(kernel.asm)


HEADER = "from triton.experimental import gluon\nfrom triton.experimental.gluon import language as gl\n\n\n"


def compile_distributed(layouts: Sequence[tuple[Any, Sequence[int]]], num_warps: int) -> Compiled:
    """One kernel holding ``idx`` in every ``(layout, (M, N))``; every layout must span ``num_warps`` warps."""
    params = ", ".join(f"L{k}: gl.constexpr" for k in range(len(layouts)))
    body = []
    for k, (_, (m, n)) in enumerate(layouts):
        body += [f"    r{k} = gl.arange(0, {m}, layout=gl.SliceLayout(1, L{k}))",
                 f"    c{k} = gl.arange(0, {n}, layout=gl.SliceLayout(0, L{k}))",
                 f"    i{k} = gl.expand_dims(r{k}, 1) * {n} + gl.expand_dims(c{k}, 0)",
                 f"    gl.store(out_ptr + {k}, gl.sum(gl.sum(i{k}, axis=1), axis=0))"]
    source = HEADER + f"@gluon.jit\ndef kernel(out_ptr, {params}):\n" + "\n".join(body) + "\n"
    module = _load(source, f"dist{next(_counter)}")
    asm = _compile(module.kernel, {f"L{k}": lay for k, (lay, _) in enumerate(layouts)}, num_warps)
    return Compiled(asm, {}, num_warps)


def compile_shared(layouts: Sequence[tuple[Any, Sequence[int], int]], num_warps: int = 4) -> Compiled:
    """One kernel storing ``idx`` into a buffer of every ``(shared layout, (M, N), element bits)``.

    8-bit buffers get a twin: the low byte of ``idx`` goes to the buffer, the high byte to a second buffer of
    the same layout, so indices past 255 stay readable.
    """
    params = ", ".join(["R: gl.constexpr"] + [f"S{k}: gl.constexpr" for k in range(len(layouts))])
    stores, loads = [], []
    lines: dict[str, list[int]] = {}
    prefix = HEADER.count("\n") + 2  # the header, the decorator and the def line come before the body
    body: list[str] = []
    for k, (_, (m, n), _bits) in enumerate(layouts):
        body += [f"    r{k} = gl.arange(0, {m}, layout=gl.SliceLayout(1, R))",
                 f"    c{k} = gl.arange(0, {n}, layout=gl.SliceLayout(0, R))",
                 f"    i{k} = gl.expand_dims(r{k}, 1) * {n} + gl.expand_dims(c{k}, 0)"]
    for k, (_, (m, n), bits) in enumerate(layouts):
        t = _INT[bits]
        parts = [("", f"i{k}")] if bits > 8 else [("", f"i{k} & 255"), ("h", f"i{k} >> 8")]
        for suffix, value in parts:
            name = f"b{k}{suffix}"
            stores.append(f"    {name} = gl.allocate_shared_memory(gl.{t}, [{m}, {n}], S{k})")
            stores.append(f"    {name}.store(({value}).to(gl.{t}))")
            lines.setdefault(f"b{k}", []).append(len(stores))
            loads.append(f"    gl.store(out_ptr + i{k}, {name}.load(R).to(gl.int32))")
    body_start = prefix + len(body)
    lines = {key: [body_start + v for v in values] for key, values in lines.items()}
    source = HEADER + f"@gluon.jit\ndef kernel(out_ptr, {params}):\n" + "\n".join(body + stores + loads) + "\n"
    module = _load(source, f"shared{next(_counter)}")
    from triton.experimental.gluon import language as gl

    register = gl.BlockedLayout([1, 1], [1, 32], [num_warps, 1], [1, 0])
    constexprs: dict[str, Any] = {"R": register, **{f"S{k}": lay for k, (lay, _, _) in enumerate(layouts)}}
    asm = _compile(module.kernel, constexprs, num_warps)
    return Compiled(asm, lines, num_warps)


def ttgir_attributes(ttgir: str) -> list[str]:
    """The ``#name = #ttg...`` attribute aliases at the top of a TTGIR module, as their ``#ttg...`` text."""
    out = []
    for line in ttgir.splitlines():
        if line.startswith("#") and " = #ttg." in line:
            out.append(line.split(" = ", 1)[1])
    return out


def compile_shared_3d(layouts: Sequence[tuple[Any, Sequence[int], int]], num_warps: int = 4) -> Compiled:
    """As :func:`compile_shared`, for rank-3 shared layouts ``(layout, (A, B, C), element bits)`` (16 or 32 bits):
    each buffer holds ``idx = (a * B + b) * C + c`` at element ``(a, b, c)``."""
    params = ", ".join(["R: gl.constexpr"] + [f"S{k}: gl.constexpr" for k in range(len(layouts))])
    body: list[str] = []
    stores: list[str] = []
    prefix = HEADER.count("\n") + 2
    for k, ((_, (a, b, c), bits)) in enumerate(layouts):
        if bits not in (16, 32):
            raise ValueError("compile_shared_3d stores 16- or 32-bit elements")
        body += [f"    x{k} = gl.arange(0, {a}, layout=gl.SliceLayout(1, gl.SliceLayout(2, R)))",
                 f"    y{k} = gl.arange(0, {b}, layout=gl.SliceLayout(0, gl.SliceLayout(2, R)))",
                 f"    z{k} = gl.arange(0, {c}, layout=gl.SliceLayout(0, gl.SliceLayout(1, R)))",
                 f"    i{k} = (gl.expand_dims(gl.expand_dims(x{k}, 1), 2) * {b} + "
                 f"gl.expand_dims(gl.expand_dims(y{k}, 0), 2)) * {c} + gl.expand_dims(gl.expand_dims(z{k}, 0), 1)"]
    lines: dict[str, list[int]] = {}
    loads: list[str] = []
    for k, ((_, (a, b, c), bits)) in enumerate(layouts):
        t = _INT[bits]
        stores.append(f"    b{k} = gl.allocate_shared_memory(gl.{t}, [{a}, {b}, {c}], S{k})")
        stores.append(f"    b{k}.store(i{k}.to(gl.{t}))")
        lines[f"b{k}"] = [prefix + len(body) + len(stores)]
        loads.append(f"    gl.store(out_ptr + i{k}, b{k}.load(R).to(gl.int32))")
    source = HEADER + f"@gluon.jit\ndef kernel(out_ptr, {params}):\n" + "\n".join(body + stores + loads) + "\n"
    module = _load(source, f"shared3d{next(_counter)}")
    from triton.experimental.gluon import language as gl

    register = gl.BlockedLayout([1, 1, 1], [1, 1, 32], [num_warps, 1, 1], [2, 1, 0])
    constexprs: dict[str, Any] = {"R": register, **{f"S{k}": lay for k, (lay, _, _) in enumerate(layouts)}}
    asm = _compile(module.kernel, constexprs, num_warps)
    return Compiled(asm, lines, num_warps)


def compile_distributed_3d(layouts: Sequence[tuple[Any, Sequence[int]]], num_warps: int) -> Compiled:
    """As :func:`compile_distributed`, for rank-3 distributed layouts ``(layout, (A, B, C))``."""
    params = ", ".join(f"L{k}: gl.constexpr" for k in range(len(layouts)))
    body = []
    for k, (_, (a, b, c)) in enumerate(layouts):
        body += [f"    x{k} = gl.arange(0, {a}, layout=gl.SliceLayout(1, gl.SliceLayout(2, L{k})))",
                 f"    y{k} = gl.arange(0, {b}, layout=gl.SliceLayout(0, gl.SliceLayout(2, L{k})))",
                 f"    z{k} = gl.arange(0, {c}, layout=gl.SliceLayout(0, gl.SliceLayout(1, L{k})))",
                 f"    i{k} = (gl.expand_dims(gl.expand_dims(x{k}, 1), 2) * {b} + "
                 f"gl.expand_dims(gl.expand_dims(y{k}, 0), 2)) * {c} + gl.expand_dims(gl.expand_dims(z{k}, 0), 1)",
                 f"    gl.store(out_ptr + {k}, gl.sum(gl.sum(gl.sum(i{k}, axis=2), axis=1), axis=0))"]
    source = HEADER + f"@gluon.jit\ndef kernel(out_ptr, {params}):\n" + "\n".join(body) + "\n"
    module = _load(source, f"dist3d{next(_counter)}")
    asm = _compile(module.kernel, {f"L{k}": lay for k, (lay, _) in enumerate(layouts)}, num_warps)
    return Compiled(asm, {}, num_warps)
