"""One-thread PTX kernels for instruction contract tests: set registers with ``mov`` immediates, run the
interpreter, read a destination register's bits (or ``None`` where the tracer says the value is unknown)."""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutalg.kernel.args import pack_params
from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.program import build_image, run
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.records import Recorder

REGS = ".reg .b16 %h<8>; .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<8>;"


def kernel(lines: list[str], regs: str = REGS) -> str:
    return (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + regs + "\n"
            + "\n".join(lines) + "\nret;\n}\n")


def run_lines(lines: list[str], regs: str = REGS) -> Any:
    module = parse_module(kernel(lines, regs))
    fn = module.entries["k"]
    block = pack_params(fn.params, {})
    image = build_image(module, fn, block.data, block.offsets, 0, 0)
    return run(image, Geometry((1, 1, 1), (1, 1, 1), [(0, 0, 0)]), Recorder(), 10_000)


def value(machine: Any, name: str) -> int | None:
    """The register's bits in thread 0, or None where they are unknown."""
    v = machine.regs[name]
    known = v.known if isinstance(v.known, bool) else bool(np.broadcast_to(v.known, (machine.n,))[0])
    if not known:
        return None
    return int(np.broadcast_to(np.asarray(v.bits), (machine.n,))[0])


def op(text: str, srcs: list[int], width: int = 32, dest: str | None = None) -> int | None:
    """``text d, s1, s2, ...`` with sources moved in as ``width``-bit immediates; the destination's bits."""
    reg = {16: "%h", 32: "%r", 64: "%rd"}[width]
    lines = [f"mov.b{width} {reg}{k + 1}, {v};" for k, v in enumerate(srcs)]
    d = dest or f"{reg}7"
    names = ", ".join(f"{reg}{k + 1}" for k in range(len(srcs)))
    lines.append(f"{text} {d}, {names};")
    return value(run_lines(lines), d)
