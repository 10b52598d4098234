"""A tiny launcher for the interpreter's contract tests (tests/test_kernel_interp_*_contract.py).

``launch(body, inputs, active)`` runs one CTA of ``len(inputs)`` threads.  Thread ``t`` first loads its
four 32-bit inputs ``inputs[t]`` into ``%r30..%r33`` from a ``.param`` table (a per-lane address, so
every lane's value is known and chosen by the test), then threads whose ``active[t]`` is false branch
past ``body`` to the label ``DONE`` (they are inactive while ``body`` runs, as in divergent code).
``lanes(machine, reg)`` reads one register per thread: an int, or None where the value is unknown.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from layoutalg.kernel.interp.geometry import Geometry
from layoutalg.kernel.interp.program import build_image, run
from layoutalg.kernel.interp.spaces import buffer_base
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.records import Recorder

REGS = ".reg .b32 %r<40>;\n.reg .b64 %rd<16>;\n.reg .pred %p<16>;"
ROW = 20  # bytes per thread in the table: four input words and the active flag


def ptx_text(body: str, threads: int, decls: str = "", regs: str = REGS, buffers: int = 0,
             tail: str = "DONE:\nret;", target: str = "sm_90", version: str = "8.0") -> str:
    bufs = "".join(f", .param .u64 buf{k}" for k in range(buffers))
    return (f".version {version}\n.target {target}\n.address_size 64\n" + decls + "\n"
            f".visible .entry k(.param .align 8 .b8 tab[{threads * ROW}]{bufs})\n{{\n{regs}\n"
            "mov.u32 %r39, %tid.x;\nmul.wide.u32 %rd15, %r39, 20;\nmov.u64 %rd14, tab;\n"
            "add.u64 %rd14, %rd14, %rd15;\n"
            "ld.param.u32 %r30, [%rd14];\nld.param.u32 %r31, [%rd14+4];\n"
            "ld.param.u32 %r32, [%rd14+8];\nld.param.u32 %r33, [%rd14+12];\n"
            "ld.param.u32 %r34, [%rd14+16];\nsetp.eq.u32 %p15, %r34, 0;\n@%p15 bra DONE;\n"
            + body + "\n" + tail.replace("ret;", observe(regs) + "ret;") + "\n}\n")


def observe(regs: str) -> str:
    """Stores of every declared 16/32/64-bit register to global address 0, run by every thread before ``ret``: the
    test reads registers with :func:`lanes`, so the kernel must read them too, or ptxas -- and the tracer
    (:mod:`layoutalg.kernel.interp.narrowing`) -- would drop the loads that fill them.  Global stores have no
    traced effect."""
    out = []
    for bits, name, count in re.findall(r"\.reg\s+\.[a-z]+?(16|32|64)\s+%(\w+)<(\d+)>", regs):
        for k in range(int(count)):
            out.append(f"st.global.b{bits} [0], %{name}{k};\n")
    return "".join(out)


def launch(body: str, inputs: Sequence[Sequence[int]] | None = None, active: Sequence[bool] | None = None,
           threads: int | None = None, decls: str = "", regs: str = REGS, dynamic_smem: int = 0,
           budget: int = 100_000, recorder: Recorder | None = None, buffers: int = 0,
           tail: str = "DONE:\nret;", target: str = "sm_90", version: str = "8.0") -> Any:
    """Run ``body`` (PTX lines) on one CTA; see the module doc.  ``buffers``: that many global buffer
    pointers ``buf0, buf1, ...`` follow the table among the parameters; ``target``/``version``: the module's
    ``.target``/``.version``.  Returns the finished machine."""
    n = threads if threads is not None else len(inputs) if inputs is not None else \
        len(active) if active is not None else 32
    rows = [list(inputs[t]) if inputs is not None else [] for t in range(n)]
    flags = list(active) if active is not None else [True] * n
    table = bytearray()
    for t in range(n):
        words = (rows[t] + [0, 0, 0, 0])[:4] + [1 if flags[t] else 0]
        for w in words:
            table += (w % (1 << 32)).to_bytes(4, "little")
    offsets = {"tab": 0}
    for k in range(buffers):
        table += bytes(-len(table) % 8)
        offsets[f"buf{k}"] = len(table)
        table += buffer_base(k).to_bytes(8, "little")
    module = parse_module(ptx_text(body, n, decls, regs, buffers, tail, target, version))
    fn = module.entries["k"]
    image = build_image(module, fn, bytes(table), offsets, buffers, dynamic_smem)
    return run(image, Geometry((1, 1, 1), (n, 1, 1), [(0, 0, 0)]), recorder or Recorder(), budget)


def lanes(machine: Any, name: str) -> list[int | None]:
    """Per thread: the register's value as an int, None where it is unknown (or never written)."""
    v = machine.regs.get(name)
    if v is None:
        return [None] * int(machine.geom.valid.sum())
    bits = np.broadcast_to(np.asarray(v.bits), (machine.n,))
    known = np.broadcast_to(np.asarray(v.known), (machine.n,))
    valid = machine.geom.valid  # padding lanes of a partial last warp are no threads
    return [int(b) if k else None for b, k, ok in zip(bits, known, valid) if ok]


def refusal(body: str, needle: str, **kw: Any) -> tuple[Any, int]:
    """(the KernelError ``launch(body)`` raises, the PTX line of the first line containing ``needle``)."""
    from layoutalg.errors import KernelError

    n = kw.get("threads") or len(kw.get("inputs") or kw.get("active") or [0] * 32)
    text = ptx_text(body, n, kw.get("decls", ""), kw.get("regs", REGS), kw.get("buffers", 0),
                    kw.get("tail", "DONE:\nret;"))
    line = next(i for i, s in enumerate(text.splitlines(), 1) if needle in s)
    try:
        launch(body, **kw)
    except KernelError as e:
        return e, line
    raise AssertionError(f"{needle!r} was not refused")
