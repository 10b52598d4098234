"""``layoutalg.kernel.trace``: run a kernel's PTX for one launch and cost every shared-memory access.

Every CTA of the grid is traced by default (vectorised: CTAs are traced together in batches
of up to ``batch_threads`` threads, which changes nothing but memory use, since the trace
models no communication between CTAs); ``ctas=[(x, y, z), ...]`` traces only those.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any, Mapping, Sequence

from layoutalg.atoms.arch import get_arch
from layoutalg.core.validate import describe
from layoutalg.errors import KernelError
from layoutalg.kernel.args import pack_params
from layoutalg.kernel.costing import cost_records
from layoutalg.kernel.interp.geometry import Geometry, all_ctas, check_ctas, dim3
from layoutalg.kernel.interp.machine import DEFAULT_STEP_BUDGET
from layoutalg.kernel.interp.program import build_image, run
from layoutalg.kernel.ptx.nodes import Module
from layoutalg.kernel.ptx.parser import parse_module
from layoutalg.kernel.records import Recorder
from layoutalg.kernel.result import InstructionStats, Trace
from layoutalg.kernel.source import load_ptx, read_text_file, select_entry

DEFAULT_BATCH_THREADS = 1 << 15


def _arch_family(ins: Any) -> str | None:
    """The :mod:`layoutalg.atoms.arch` family of a shared-memory instruction whose existence depends on the
    architecture (the ones the bank model costs), else None."""
    if ins.root in ("ldmatrix", "stmatrix", "movmatrix"):
        return str(ins.root)
    if ins.root == "cp" and "async" in ins.parts and ("ca" in ins.parts or "cg" in ins.parts):
        return "cp.async"
    return None


def _check_instruction_families(fn: Any, arch: Any) -> None:
    """Refuse, at its line, an instruction the traced architecture lacks (``stmatrix`` before sm_90, ``cp.async``
    before sm_80: PTX ISA, each instruction's "Target ISA notes"; ptxas rejects the module, so it never runs).
    Every instruction of the kernel counts, executed or not, as for ptxas."""
    from layoutalg.banks.limits import first_arch_with

    for ins in fn.body:
        family = _arch_family(ins)
        if family is not None and not arch.supports(family):
            first = first_arch_with(family)
            raise KernelError(f"{family} does not exist on {arch.name}" + (f"; it needs {first} or later" if first
                                                                            else ""), ins.line, ins.opcode)


def _check_launch(fn: Any, block: tuple[int, int, int], image: Any, arch_name: str, dynamic_smem: int) -> None:
    threads = block[0] * block[1] * block[2]
    if "maxntid" in fn.directives:
        limit = 1
        for v in fn.directives["maxntid"]:
            limit *= v
        if threads > limit:
            raise KernelError(f"block {block} has {threads} threads but the kernel declares .maxntid "
                              f"{fn.directives['maxntid']} ({limit}); the launch would fail", fn.line)
    if "reqntid" in fn.directives:
        req = tuple(fn.directives["reqntid"]) + (1,) * (3 - len(fn.directives["reqntid"]))
        if tuple(block) != req:
            raise KernelError(f"block {block} differs from the kernel's .reqntid {req}; the launch would fail",
                              fn.line)
    arch = get_arch(arch_name)
    _check_instruction_families(fn, arch)
    if image.shared.size > arch.smem_per_block_bytes:
        raise KernelError(f"{image.shared.size} bytes of shared memory (static + dynamic_smem={dynamic_smem}) exceed "
                          f"{arch.name}'s {arch.smem_per_block_bytes} per block")
    if dynamic_smem < 0:
        raise KernelError(f"dynamic_smem must be >= 0, got {dynamic_smem}")


def trace(ptx: str | os.PathLike[str] | Module, kernel: str | None = None, grid: int | Sequence[int] = 1,
          block: int | Sequence[int] = 128, args: Mapping[Any, Any] | None = None, dynamic_smem: int = 0,
          arch: str = "sm_90", ctas: Sequence[Any] | None = None, step_budget: int = DEFAULT_STEP_BUDGET,
          keep_accesses: bool = True, batch_threads: int = DEFAULT_BATCH_THREADS,
          nvcc_flags: Sequence[str] = (), sass: str | os.PathLike[str] | None = None) -> Trace:
    """Trace one launch of ``kernel`` and return its :class:`~layoutalg.kernel.result.Trace`.

    ``ptx``: PTX text, a path to a ``.ptx`` or ``.cu`` file (compiled with ``nvcc -ptx -lineinfo``), or a
    module from :func:`layoutalg.kernel.ptx.parse_module` (to trace one file many times).
    ``args``: parameter name or 0-based index -> value (:mod:`layoutalg.kernel.args`).
    ``ctas``: trace only these CTAs (``(x, y, z)`` each); counters then cover those CTAs only.
    ``step_budget``: instruction executions allowed per batch before a runaway loop is reported.
    ``sass``: ``cuobjdump -sass`` text (or a file) of the same build; kinds whose SASS shared-memory
    instructions differ from the PTX ones are listed as unmodelled (:mod:`layoutalg.kernel.sass`).
    """
    # The cyclic garbage collector would rescan the parsed module's many objects again and again while
    # the interpreter allocates; nothing here needs it until the trace is done.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _trace(ptx, kernel, grid, block, args, dynamic_smem, arch, ctas, step_budget, keep_accesses,
                      batch_threads, nvcc_flags, sass)
    finally:
        if was_enabled:
            gc.enable()


def _trace(ptx: Any, kernel: Any, grid: Any, block: Any, args: Any, dynamic_smem: int, arch: str, ctas: Any,
           step_budget: int, keep_accesses: bool, batch_threads: int, nvcc_flags: Sequence[str], sass: Any) -> Trace:
    start = time.perf_counter()
    if isinstance(ptx, Module):
        module = ptx
    else:
        text, _name = load_ptx(ptx, arch, tuple(nvcc_flags))
        module = parse_module(text)
    fn = select_entry(module, kernel)
    g, b = dim3(grid, "grid"), dim3(block, "block")
    if isinstance(dynamic_smem, bool) or not isinstance(dynamic_smem, int):
        raise KernelError(f"dynamic_smem must be an int number of bytes, got {describe(dynamic_smem)}")
    if isinstance(step_budget, bool) or not isinstance(step_budget, int) or step_budget < 1:
        raise KernelError(f"step_budget must be a positive int, got {describe(step_budget)}")
    params = pack_params(fn.params, args)
    image = build_image(module, fn, params.data, params.offsets, len(params.buffers), dynamic_smem)
    _check_launch(fn, b, image, arch, dynamic_smem)
    chosen = check_ctas(ctas, g) if ctas is not None else all_ctas(g, b)
    threads_per_cta = 32 * -(-(b[0] * b[1] * b[2]) // 32)
    per_batch = max(1, batch_threads // threads_per_cta)
    stats: dict[tuple[int, str], InstructionStats] = {}
    data_dep: dict[tuple[int, str], Any] = {}
    not_lsu: dict[int, Any] = {}
    removed: dict[int, Any] = {}
    accesses = []
    steps = 0
    for first in range(0, len(chosen), per_batch):
        batch = chosen[first: first + per_batch]
        geom = Geometry(g, b, batch)
        rec = Recorder()
        machine = run(image, geom, rec, step_budget)
        steps = max(steps, machine.steps)
        warp_offset = first * geom.warps_per_cta
        for r, costs in zip(rec.accesses, cost_records(rec.accesses)):
            if warp_offset:
                r.warps = r.warps + warp_offset
            s = stats.get((r.index, r.part))
            if s is None:
                ins = fn.body[r.index]
                s = stats[(r.index, r.part)] = InstructionStats(r.index, ins.line, ins.opcode, r.kind, r.model_text,
                                                                ins.loc, ins.site, part=r.part)
            s.add(r, costs)
            if keep_accesses:
                accesses.append(r)
        for idx, count in rec.predicated_off.items():
            key = next((k for k in stats if k[0] == idx), (idx, ""))
            if key not in stats:
                ins = fn.body[idx]
                stats[key] = InstructionStats(idx, ins.line, ins.opcode, _kind_of(ins), _model_text_of(ins),
                                              ins.loc, ins.site)
            stats[key].predicated_off += count
        _merge(data_dep, rec.data_dependent, key=True)
        _merge(not_lsu, rec.not_lsu, key=False)
        _merge(removed, rec.removed, key=False)
    for inc in data_dep.values():
        inc.counter_kind = _counter_kind_of(fn.body[inc.index])
    result = Trace(
        kernel=fn.name, grid=g, block=b, ctas=list(chosen) if ctas is not None else None,
        instructions=sorted(stats.values(), key=lambda s: (s.line, s.part)),
        data_dependent=sorted(data_dep.values(), key=lambda d: d.line),
        not_lsu=sorted(not_lsu.values(), key=lambda d: d.line),
        removed=sorted(removed.values(), key=lambda d: d.line),
        accesses=accesses, shared_layout=dict(image.shared.addresses), shared_bytes=image.shared.size,
        args=dict(params.values), buffers=list(params.buffers), steps=steps)
    from layoutalg.kernel.dataflow.flow import Launch

    result.launch = Launch(module, fn.name, g, b, dict(args or {}), dynamic_smem, arch,
                           list(chosen) if ctas is not None else None, step_budget)
    _check_sass(result, fn, sass)
    from layoutalg.kernel.suggest import annotate_suggestions

    annotate_suggestions(result)
    result.seconds = time.perf_counter() - start
    return result


def _check_sass(result: Trace, fn: Any, sass: Any) -> None:
    """Without SASS, merge candidates as notes; with SASS, every kind whose instructions differ becomes unmodelled
    (a merge shows there as a width on one side only or fewer SASS accesses of a width, so the notes' "pass the
    SASS to check" is done and they are not repeated)."""
    from layoutalg.kernel.sass import compare, merge_candidates

    if sass is None:
        for a, b in merge_candidates(fn):
            result.notes.append(f"PTX lines {a} and {b} are adjacent accesses ptxas may merge into one wider SASS "
                                "instruction; they are counted as two (pass the SASS to check)")
        return
    text = str(sass)
    if "\n" not in text:  # one line: a file name (cuobjdump's output is never one line)
        text = read_text_file(text, "SASS")
    try:
        findings = compare(fn, text)
    except ValueError as exc:
        raise KernelError(str(exc)) from None
    for f in findings:
        for s in result.instructions:
            if s.kind == f.kind:
                s.unmodelled["SASS differs: " + f.reason] = s.executions
                s.sass_mismatch = True


def _merge(into: dict[Any, Any], new: dict[Any, Any], key: bool) -> None:
    for k, inc in new.items():
        old = into.get(k)
        if old is None:
            into[k] = inc
        else:
            old.count += inc.count
            old.lanes += inc.lanes


def _counter_kind_of(ins: Any) -> str:
    """The instruction's key in counters.COUNTER_MAP, or "" if it feeds none (a branch, a global access)."""
    from layoutalg.kernel.counters import counter_kind

    if ins.root not in ("ld", "st", "ldu", "ldmatrix", "stmatrix", "cp", "atom", "red", "wmma", "tensormap"):
        return ""
    if ins.root == "tensormap":
        return "ld" if "cp_fenceproxy" in ins.parts else "tensormap"  # one LDS; an STS (+ an LDS if RMW)
    return counter_kind(_kind_of(ins), _model_text_of(ins))


def _kind_of(ins: Any) -> str:
    root = ins.root
    if root == "cp":
        return "cp.async"
    return root if root in ("ldmatrix", "stmatrix", "atom", "red", "wmma") else ("st" if root == "st" else "ld")


def _model_text_of(ins: Any) -> str:
    from layoutalg.kernel.interp.memops import CANONICAL, element_type, vector_count
    from layoutalg.kernel.ptx.nodes import TYPE_BYTES

    kind = _kind_of(ins)
    if kind in ("ld", "st"):
        width = TYPE_BYTES[element_type(ins)] * vector_count(ins)
        return f"{kind}.shared.{CANONICAL.get(width, 'b32')}"
    if kind == "cp.async":
        size = ins.operands[2].value  # an immediate: the interpreter refused any other cp-size when it decoded ins
        return "cp.async.cg.shared.global" if "cg" in ins.parts else f"cp.async.ca.shared.global, {size}"
    if kind in ("ldmatrix", "stmatrix"):
        count = next((p for p in ins.parts if p in ("x1", "x2", "x4")), "x1")
        return f"{kind}.sync.aligned.m8n8.{count}{'.trans' if 'trans' in ins.parts else ''}.shared.b16"
    return ins.opcode
