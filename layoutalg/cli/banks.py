"""``layoutalg banks`` and ``layoutalg suggest-swizzle``: wavefront reports and swizzle synthesis."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any

from layoutalg.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    check_text,
    dtype_bits,
    emit_json,
    option_errors,
    parse_extents,
    parse_layout,
    rank2_extents,
    require_offsets,
    tiled,
    write_picture,
)
from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError


def expand_access(text: str, element_bytes: int) -> str:
    """The full PTX mnemonic for a short ``--access`` spelling: the Python API's own short forms
    (:func:`layoutalg.banks.instruction.expand_short_form`: ``ldmatrix.x4.trans``, ``cp.async.cg.16``,
    ``ld.shared.v4``, ``ld.shared`` = one ``--dtype`` element, ...)."""
    from layoutalg.banks.instruction import expand_short_form

    words = text.strip().lower().split(".")
    if words[0] in ("ldmatrix", "stmatrix") and "shared" not in words and not any(w in ("x1", "x2", "x4") for w in words):
        raise UsageError(f"--access {describe(text)}: say how many matrices", f"e.g. --access {words[0]}.x4 or {words[0]}.x4.trans")
    try:
        return expand_short_form(text, element_bytes)
    except LayoutError as exc:
        raise UsageError(f"--access {describe(text)}: {exc}", "e.g. --access ldmatrix.x4.trans, cp.async.cg, ld.shared.v4 "
                                                      "or ld.shared.b32") from exc


def _access_bytes(instruction: str) -> tuple[int, str]:
    from layoutalg.banks.instruction import parse_instruction

    ins = parse_instruction(instruction)
    return ins.access_bytes, ins.kind


ACCESS_HINT = ("use a full PTX mnemonic or a short form: --access ldmatrix.x4, ldmatrix.x2.trans, stmatrix.x4, "
               "ld.shared.v4, st.shared.b32, ld.shared (one element of --dtype) or cp.async.cg")


def arch_option(text: str) -> Any:
    """``--arch`` as an :class:`~layoutalg.atoms.arch.Arch` (UsageError naming the nearest valid name)."""
    from layoutalg.atoms.arch import ARCHES, get_arch

    check_text(text, "--arch", "--arch sm_90", 32)
    try:
        return get_arch(text)
    except LayoutError as exc:
        close = difflib.get_close_matches(text.strip().lower(), list(ARCHES), n=1)
        raise UsageError(f"--arch {describe(text)}: unknown architecture",
                         (f"did you mean --arch {close[0]}? " if close else "") + "use --arch " + ", ".join(ARCHES)) \
            from exc


def _size_hint(elements: int, element_bytes: int, arch: Any, dtype: str) -> str:
    """What to do about a tile too large for ``arch``: a smaller tile, or the architectures it fits."""
    from layoutalg.atoms.arch import ARCHES

    hint = f"use a tile of at most {arch.smem_per_block_bytes // element_bytes} elements of --dtype {dtype}"
    roomier = [f"--arch {name}" for name, a in ARCHES.items() if a.smem_per_block_bytes >= elements * element_bytes]
    return hint + (f", or target {' or '.join(roomier)}" if roomier else "")


def element_bytes_option(dtype: str) -> int:
    """Bytes of one ``--dtype`` element for a bank analysis (sub-byte types are refused with a hint)."""
    bits = dtype_bits(dtype)
    if bits % 8:
        raise UsageError(f"--dtype {dtype}: {bits}-bit elements have no byte address of their own",
                         "give the tile in whole-byte elements, e.g. --dtype u8 (two 4-bit values per element)")
    return bits // 8


def _canonical_dtype(text: str) -> str:
    """``--dtype`` in the dtype table's canonical (PTX) spelling: ``torch.float16`` -> ``f16``."""
    from layoutalg.core.dtypes import dtype

    return dtype(text).name


def parse_access(text: str, element_bytes: int, arch: Any) -> Any:
    """``--access`` as a parsed :class:`~layoutalg.banks.instruction.Instruction` that exists on ``arch``."""
    from layoutalg.banks.instruction import parse_instruction
    from layoutalg.banks.limits import first_arch_with, require_instruction

    check_text(text, "--access", "--access ldmatrix.x4", 200)
    with option_errors(f"--access {text!r}", ACCESS_HINT):
        ins = parse_instruction(expand_access(text, element_bytes))
    family = {"ld": "ld.shared", "st": "st.shared"}.get(ins.kind, ins.kind)
    first = first_arch_with(family)
    with option_errors(f"--access {text!r}", f"pass --arch {first} (or later) if you target it" if first else
                       "pick an instruction the architecture has"):
        require_instruction(ins, arch)
    return ins


def sweep(instruction: str, rows: int, cols: int, element_bytes: int, by: str | None, arch: Any) -> Any:
    """The :class:`~layoutalg.banks.access.Access` of one sweep of the ``rows x cols`` tile (see ``banks --help``).

    The sweep is :func:`layoutalg.banks.access.tile_access` (ldmatrix/stmatrix in 16-row blocks, lane ``l`` at
    row ``l % 16``, column ``(l / 16) * E``; ld/st lanes walking the rows, or down the columns with ``--by column``).
    """
    from layoutalg.banks.access import tile_access

    with option_errors(f"{instruction} over a {rows}x{cols} tile",
                       "ldmatrix/stmatrix .x4 sweep 16x(16 bytes) blocks, .x2 16-row and .x1 8-row blocks; ld/st "
                       "sweep 32 vectors per instruction (--by column: 32 rows); use a tile that divides, or "
                       "--tile-to MxN to repeat an atom to a larger tile"):
        return tile_access(instruction, (rows, cols), 8 * element_bytes, by or "row", arch=arch)


def _check_global_ld(global_ld: int, rows: int, cols: int, element_bytes: int, copy_bytes: int) -> None:
    """``--global-ld``: positive, below 2^40, at least the tile's row, and (for more than one row) a whole number of
    the copy's ``copy_bytes`` per row, so that every global row starts aligned as cp.async requires."""
    hint = "give the global matrix's leading dimension in elements, e.g. --global-ld 4096"
    if not 0 < global_ld < 1 << 40:
        raise UsageError(f"--global-ld {global_ld}: must be a positive number of elements below 2^40", hint)
    if global_ld < cols:
        raise UsageError(f"--global-ld {global_ld} is smaller than the tile's row of {cols} elements (global rows "
                         "would overlap)", f"give --global-ld {cols} or more: the global matrix's elements per row")
    if rows > 1 and global_ld * element_bytes % copy_bytes:
        step = copy_bytes // element_bytes or 1
        raise UsageError(f"--global-ld {global_ld}: global row 1 starts at byte {global_ld * element_bytes}, "
                         f"misaligned for a {copy_bytes}-byte cp.async",
                         f"give a leading dimension that is a multiple of {step} elements, e.g. --global-ld "
                         f"{-(-global_ld // step) * step}")


def _global_layout(ins: Any, args: argparse.Namespace, rows: int, cols: int) -> Any:
    """For cp.async: the tile's global sources, a row-major ``rows x cols`` block with ``--global-ld`` per row."""
    from layoutalg.core.layout import Layout

    if ins.kind != "cp.async":
        if args.global_ld is not None:
            raise UsageError("--global-ld is for cp.async accesses only", f"drop it for --access {args.access}")
        return None
    if args.global_ld is None:
        raise UsageError(f"{ins.canonical}: its cost depends on where each lane's data comes from",
                         "give the global matrix's leading dimension in elements, e.g. --global-ld 4096 "
                         "(row-major, tile at a 128-byte-aligned address)")
    _check_global_ld(args.global_ld, rows, cols, dtype_bits(args.dtype) // 8, ins.access_bytes)
    return Layout((rows, cols), (args.global_ld, 1))



def _cmd_banks(args: argparse.Namespace) -> int:
    from layoutalg.banks import model
    from layoutalg.banks.analyze import analyze
    from layoutalg.banks.limits import check_sweep_size

    args.by = "column" if args.by == "col" else args.by  # --by col is --by column

    arch = arch_option(args.arch)
    element_bytes = element_bytes_option(args.dtype)
    args.dtype = _canonical_dtype(args.dtype)  # the report names the type as PTX does, whatever spelling was typed
    layout = tiled(parse_layout(args.layout, dtype=args.dtype, shape=args.tile_to, shape_option="--tile-to"),
                   args.tile_to)
    require_offsets(layout, "LAYOUT")
    rows, cols = rank2_extents(layout, "LAYOUT")
    if not isinstance(layout.shape, tuple) or len(layout.shape) != 2:  # the sweep's coordinates are (row, col)
        raise UsageError(f"LAYOUT {layout} has one mode; banks sweeps a tile of rows and columns",
                         f"write LAYOUT with two modes, e.g. '(1,{rows}):(0,1)' for one row or '({rows},1):(1,0)' for "
                         "one column")
    with option_errors("LAYOUT", _size_hint(rows * cols, element_bytes, arch, args.dtype)):
        check_sweep_size(rows * cols, element_bytes, arch, f"{layout}")
    ins = parse_access(args.access, element_bytes, arch)
    # the cg form is printed without its only size; ca keeps its 4/8/16
    instruction = "cp.async.cg.shared.global" if ins.kind == "cp.async" and ins.cache == "cg" else ins.canonical
    global_layout = _global_layout(ins, args, rows, cols)
    if global_layout is not None and (args.png or args.svg or args.tikz):
        raise UsageError("the bank heat map shows ld/st phases; a cp.async has none", "drop --png/--svg/--tikz")
    access = sweep(instruction, rows, cols, element_bytes, args.by, arch)
    with option_errors("LAYOUT", f"every lane's elements must be contiguous, its address aligned to the access and "
                                 f"within shared memory "
                                 f"({arch.smem_per_block_bytes} bytes on --arch {arch.name}); check the layout's "
                                 "strides and offset"):
        analysis = analyze(layout, access, 8 * element_bytes, global_layout=global_layout, arch=arch)
    addresses = analysis.addresses.reshape(-1, 32)
    sources = None if analysis.global_addresses is None else analysis.global_addresses.reshape(-1, 32)
    lanes_of = access.coords.reshape(-1, 32, 2)
    wavefronts, ideals = analysis.wavefronts.ravel(), analysis.ideal.ravel()
    total, ideal = int(wavefronts.sum()), int(ideals.sum())
    excess = wavefronts - ideals
    worst_index = int(excess.argmax())  # the first instruction with the most excess
    worst_addresses = [int(a) for a in addresses[worst_index]]
    worst = model.report(instruction, worst_addresses,
                         None if sources is None else [int(g) for g in sources[worst_index]], arch=arch)
    written: list[str] = []
    if args.png or args.svg or args.tikz:
        from layoutalg.viz.heatmap import bank_heatmap

        title = f"{layout} {args.dtype} {args.access}: instruction {worst_index}, {worst.wavefronts} wavefronts (ideal {worst.ideal})"
        written = write_picture(bank_heatmap(instruction, worst_addresses, title), args)
    failed = args.expect_conflict_free and total != ideal
    if args.json:
        from layoutalg.viz.heatmap import heatmap_json

        emit_json({
            "layout": str(layout), "dtype": args.dtype, "instruction": instruction, "arch": arch.name,
            "instructions": [
                {"index": k, "lanes": lanes_of[k].tolist(), "byte_addresses": addresses[k].tolist(),
                 "wavefronts": int(wavefronts[k]), "ideal": int(ideals[k]), "excess": int(excess[k])}
                for k in range(len(wavefronts))
            ],
            # the totals under Analysis.to_json()'s names; "wavefronts"/"ideal" are kept as aliases of them
            # (the only spelling before; scripts read it)
            "total": total, "total_ideal": ideal, "excess": total - ideal, "conflict_free": total == ideal,
            "wavefronts": total, "ideal": ideal,
            "worst": {"index": worst_index, "report": str(worst),
                      "phases": heatmap_json(instruction, worst_addresses) if sources is None else []},
            "files": written,
        })
        return EXIT_FAILED if failed else EXIT_OK
    out = [f"{layout}  {args.dtype}  {instruction}",
           f"{len(wavefronts)} instructions: {total} wavefronts, ideal {ideal}, excess {total - ideal}"
           + ("  (conflict-free)" if total == ideal else ""),
           "", f"{'instr':>5}  {'lane 0 (row,col)':>16}  {'wavefronts':>10}  {'ideal':>5}  {'excess':>6}"]
    for k in range(len(wavefronts)):
        first = f"({int(lanes_of[k, 0, 0])},{int(lanes_of[k, 0, 1])})"
        out.append(f"{k:>5}  {first:>16}  {int(wavefronts[k]):>10}  {int(ideals[k]):>5}  {int(excess[k]):>6}")
    out += ["", f"worst: instruction {worst_index}"]
    out += [str(worst)] if args.detail else _condensed_report(worst)
    sys.stdout.write("\n".join(out) + "\n")
    for path in written:
        sys.stdout.write(f"wrote {path}\n")
    return EXIT_FAILED if failed else EXIT_OK


def conflict_bits(report: Any) -> list[int]:
    """Byte-address bits in which the words that collide in one bank differ (all above bit 6).

    Two words share a bank when their byte addresses agree in bits 2..6; the bits
    where colliding words differ are the ones a swizzle must XOR into bits 2..6.
    """
    mask = 0
    for phase in report.phases:
        for use in phase.conflicts:
            first = use.words[0] * 4
            for word in use.words[1:]:
                mask |= first ^ (word * 4)
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def _condensed_report(report: Any) -> list[str]:
    lines = [f"{report.instruction}: {report.wavefronts} wavefronts, ideal {report.ideal}, excess {report.excess}"]
    lines += [f"  {note}" for note in report.notes]  # cp.async: the global side of the cost
    for k, phase in enumerate(report.phases):
        line = f"  phase {k} (lanes {phase.lanes[0]}-{phase.lanes[-1]}): {phase.wavefronts} wavefronts (ideal {phase.ideal})"
        if phase.conflicts:
            use = max(phase.conflicts, key=lambda u: u.ways)
            lanes = sorted({lane for group in use.lanes for lane in group})
            line += f"; bank {use.bank} is {use.ways}-way: lanes {lanes}"
            if len(phase.conflicts) > 1:
                line += f" (and {len(phase.conflicts) - 1} more banks)"
        lines.append(line)
    bits = conflict_bits(report)
    if bits:
        width, _ = _access_bytes(report.instruction)
        low = min(6, max(2, width.bit_length() - 1))  # XOR below the access width would split one lane's bytes
        lines.append(f"  colliding words differ in address bits {bits}; the bank is bits 2-6, so a swizzle must "
                     f"XOR bits {bits} into bits {low}-6 to spread them (or pad the rows)")
    lines.append("  (--detail lists every colliding word and lane)")
    return lines


def _cmd_suggest(args: argparse.Namespace) -> int:
    args.by = "column" if args.by == "col" else args.by  # --by col is --by column
    import importlib

    from layoutalg.banks.limits import check_sweep_size

    arch = arch_option(args.arch)
    rows, cols = parse_extents(args.shape, "--shape")
    element_bytes = element_bytes_option(args.dtype)
    with option_errors("--shape", _size_hint(rows * cols, element_bytes, arch, args.dtype)):
        check_sweep_size(rows * cols, element_bytes, arch, f"a {rows}x{cols} tile")
    accesses: list[Any] = []
    copies: list[Any] = []  # the cp.async accesses, parsed (any spelling: CP.ASYNC.CG is one too)
    for text in args.access:
        ins = parse_access(text, element_bytes, arch)
        canonical = ins.canonical
        swept = ins.kind in ("ld", "st", "cp.async")
        sweep(canonical, rows, cols, element_bytes, args.by if swept else None, arch)
        accesses.append((canonical, "column") if args.by == "column" and swept else canonical)
        if ins.kind == "cp.async":
            copies.append(ins)
    if copies and args.global_ld is None:
        raise UsageError(f"{copies[0].canonical}: its cost depends on where each lane's data comes from",
                         "give the global matrix's leading dimension in elements, e.g. --global-ld 4096")
    if args.global_ld is not None:
        if not copies:
            raise UsageError("--global-ld is for cp.async accesses only", "drop it, or add --access cp.async.cg")
        _check_global_ld(args.global_ld, rows, cols, element_bytes, max(c.access_bytes for c in copies))
    try:
        suggest = importlib.import_module("layoutalg.banks.suggest").suggest_swizzle
    except (ImportError, AttributeError) as exc:
        raise UsageError("suggest-swizzle needs layoutalg.banks.suggest, which this install lacks",
                         "upgrade layoutalg") from exc
    with option_errors("suggest-swizzle", "try a smaller --shape, another --dtype or --access, or --arch sm_90"):
        result = suggest((rows, cols), 8 * element_bytes, accesses, global_ld=args.global_ld, arch=arch)
    if args.json:
        emit_json(result.to_json())
    else:
        sys.stdout.write(str(result).rstrip("\n") + "\n")
    return EXIT_OK if result.conflict_free else EXIT_FAILED
