"""A one-warp PTX kernel run through the data-flow model in milliseconds, for the dataflow contract tests.

Thread ``t`` has ``%rd4`` = pA + 16 t and ``%rd5`` = pC + 16 t (``%r1`` = ``%tid.x``): it loads from its own
16 bytes of A (buffer 0) and stores to its own 16 bytes of C (buffer 1).  :func:`c_units` returns the tag
of every 16-bit unit thread ``t`` stored (unit ``u`` = C bytes 16 t + 2 u, + 1), and :func:`what` reads a
tag back as ``("A", byte offset)`` (``("A", offset, "derived")`` after element-wise arithmetic), ``"zero"``, ``"none"`` or ``("opaque", why code)`` through the field
layout the tags module documents (its own contract tests check that layout bit by bit).
"""

from __future__ import annotations

from typing import Any

from layoutalg.kernel.dataflow import flow, launch_of
from layoutalg.kernel.dataflow import tags as tg
from layoutalg.kernel.ptx import parse_module

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
DECLS = [".reg .pred %p<8>;", ".reg .b8 %c<8>;", ".reg .b16 %h<16>;", ".reg .b32 %r<32>;", ".reg .b64 %rd<32>;",
         ".reg .f32 %f<16>;", ".reg .f64 %fd<8>;",
         ".shared .align 16 .b8 sm[1024];", ".local .align 16 .b8 loc[64];"]


def kernel(body: list[str], decls: tuple[str, ...] = ()) -> str:
    lines = [HEADER, ".visible .entry k(.param .u64 pA, .param .u64 pC)", "{", *DECLS, *decls,
             "ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd2, [pC];", "mov.u32 %r1, %tid.x;",
             "mul.wide.u32 %rd3, %r1, 16;", "add.s64 %rd4, %rd1, %rd3;", "add.s64 %rd5, %rd2, %rd3;",
             *body, "ret;", "}", ""]
    return "\n".join(lines)


class StoreRecorder:
    """A flow consumer keeping the tag of every unit stored to global memory: (buffer, byte offset) -> tag."""

    def __init__(self) -> None:
        self.units: dict[tuple[int, int], int] = {}

    def begin(self, fn: Any, params: Any, launch: Any) -> None:
        pass

    def batch(self, state: Any, first: Any) -> None:
        pass

    def end(self) -> None:
        pass

    def operand_buffers(self) -> set:
        return set()

    def fma(self, *args: Any) -> None:
        return None  # no k-product checker: every fma is element-wise

    def global_store(self, m: Any, op: Any, threads: Any, buf: Any, offs: Any, vals: Any, ew: Any) -> None:
        for b, row, tags in zip(buf.tolist(), offs.tolist(), vals.tolist()):
            for off, tag in zip(row, tags):
                self.units[(b, off)] = tag


def run(body: list[str], block: int = 32, decls: tuple[str, ...] = (), grid: int = 1) -> tuple[StoreRecorder, Any]:
    rec = StoreRecorder()
    result = flow(launch_of(parse_module(kernel(body, decls)), grid=grid, block=block), rec)
    return rec, result


def c_units(body: list[str], block: int = 32, decls: tuple[str, ...] = (), grid: int = 1) -> list[list[int | None]]:
    """Per thread, the tags of the 8 units of its 16 bytes of C (None: not stored; with several CTAs, the last
    CTA's store)."""
    rec, _ = run(body, block, decls, grid)
    return [[rec.units.get((1, 16 * t + 2 * u)) for u in range(8)] for t in range(block)]


def what(tag: int | None) -> Any:
    if tag is None:
        return None
    if tag == -2:
        return "zero"
    if tag == -1:
        return "none"
    k = int(tg.kind(tag))
    if k == tg.K_GLOBAL:
        where = ("A" if int(tg.glob_buf(tag)) == 0 else int(tg.glob_buf(tag)), int(tg.glob_off(tag)))
        return where + ("derived",) if int(tg.glob_derived(tag)) else where
    if k == tg.K_OPAQUE:
        return ("opaque", int(tg.opaque_fields(tag)[1]))
    return ("acc", tuple(int(x) for x in tg.acc_fields(tag)))


def lane_units(body: list[str], block: int = 32, units: int = 2, grid: int = 1) -> list[list[Any]]:
    """:func:`what` of the first ``units`` stored units of each thread."""
    return [[what(x) for x in row[:units]] for row in c_units(body, block, grid=grid)]


# a scalar GEMM (see gemm): A 4 x 2 row-major, B 2 x 8, C 4 x 8 row-major
SPECS = {"a": "pA@(4,2):(2,1)", "b": "pB@(2,8):(8,1)", "c": "pC@(4,8):(8,1)"}
STORE = "st.global.f32 [%rd5], {acc};"


def gemm(k_products: tuple[int, ...] = (0, 1), store: str = STORE, tail: tuple[str, ...] = (),
         warp1: tuple[str, ...] = ()) -> str:
    """Warp 0 accumulates the products of ``k_products`` (in order; K = 2 in A and B), runs ``tail`` and
    ``store`` (``{acc}`` = the accumulator); threads 32.. (warp 1) run ``warp1``.  %rd5 = &C[lane]."""
    lines = [HEADER, ".visible .entry g(.param .u64 pA, .param .u64 pB, .param .u64 pC)", "{",
             ".reg .pred %p<8>;", ".reg .b16 %h<8>;", ".reg .b32 %r<64>;", ".reg .f32 %f<64>;", ".reg .b64 %rd<64>;",
             "ld.param.u64 %rd1, [pA];", "ld.param.u64 %rd2, [pB];", "ld.param.u64 %rd3, [pC];",
             "mov.u32 %r1, %tid.x;", "and.b32 %r2, %r1, 31;", "shr.u32 %r3, %r2, 3;", "and.b32 %r4, %r2, 7;",
             "mul.wide.u32 %rd4, %r2, 4;", "add.s64 %rd5, %rd3, %rd4;",
             "setp.ge.u32 %p1, %r1, 32;", "@%p1 bra W1;", "mov.f32 %f0, 0f00000000;"]
    acc = "%f0"
    for i, k in enumerate(k_products):
        lines += [f"mad.lo.u32 %r10, %r3, 2, {k};", "mul.wide.u32 %rd6, %r10, 4;", "add.s64 %rd7, %rd1, %rd6;",
                  f"ld.global.f32 %f{10 + i}, [%rd7];", f"add.u32 %r11, %r4, {8 * k};", "mul.wide.u32 %rd8, %r11, 4;",
                  "add.s64 %rd9, %rd2, %rd8;", f"ld.global.f32 %f{20 + i}, [%rd9];",
                  f"fma.rn.f32 %f{30 + i}, %f{10 + i}, %f{20 + i}, {acc};"]
        acc = f"%f{30 + i}"
    lines += [*tail, store.format(acc=acc), "bra END;", "W1:", *warp1, "END:", "ret;", "}", ""]
    return "\n".join(lines)
