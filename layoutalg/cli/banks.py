"""``layoutalg banks`` and ``layoutalg suggest-swizzle``: wavefront reports and swizzle synthesis."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layoutalg.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    dtype_bits,
    emit_json,
    parse_extents,
    parse_layout,
    tiled,
    write_picture,
)
from layoutalg.errors import LayoutError


def expand_access(text: str, element_bytes: int) -> str:
    """The full PTX mnemonic for a short ``--access`` spelling: the Python API's own short forms
    (:func:`layoutalg.banks.instruction.expand_short_form`: ``ldmatrix.x4.trans``, ``cp.async.cg.16``,
    ``ld.shared.v4``, ``ld.shared`` = one ``--dtype`` element, ...)."""
    from layoutalg.banks.instruction import expand_short_form

    words = text.strip().lower().split(".")
    if words[0] in ("ldmatrix", "stmatrix") and "shared" not in words and not any(w in ("x1", "x2", "x4") for w in words):
        raise UsageError(f"--access {text!r}: say how many matrices", f"e.g. --access {words[0]}.x4 or {words[0]}.x4.trans")
    try:
        return expand_short_form(text, element_bytes)
    except LayoutError as exc:
        raise UsageError(f"--access {text!r}: {exc}", "e.g. --access ldmatrix.x4.trans, cp.async.cg, ld.shared.v4 "
                                                      "or ld.shared.b32") from exc


def _access_bytes(instruction: str) -> tuple[int, str]:
    from layoutalg.banks.instruction import parse_instruction

    ins = parse_instruction(instruction)
    return ins.access_bytes, ins.kind


def access_pattern(rows: int, cols: int, dtype: str, instruction: str, by: str | None) -> list[list[tuple[int, int]]]:
    """For each warp-wide instruction of one sweep of the ``rows x cols`` tile, the (row, col) each lane addresses.

    The sweep is :func:`layoutalg.banks.access.tile_access` (ldmatrix/stmatrix in 16-row blocks, lane ``l`` at
    row ``l % 16``, column ``(l / 16) * E``; ld/st lanes walking the rows, or down the columns with ``--by column``).
    """
    from layoutalg.banks.access import tile_access

    try:
        access = tile_access(instruction, (rows, cols), dtype, by or "row")
    except LayoutError as exc:
        raise UsageError(str(exc), "pick a tile and access that fit (layoutalg banks --help lists the sweeps); "
                         "--tile-to MxN repeats an atom to a larger tile") from exc
    coords = access.coords.reshape(-1, 32, 2)
    return [[(int(r), int(c)) for r, c in instance] for instance in coords]


def _global_sources(instruction: str, args: argparse.Namespace, element_bytes: int) -> Any:
    """For cp.async: element (row, col) -> its global byte offset (row-major, ``--global-ld`` elements per row)."""
    from layoutalg.banks.instruction import parse_instruction

    ins = parse_instruction(instruction)
    if ins.kind != "cp.async":
        if args.global_ld is not None:
            raise UsageError("--global-ld is for cp.async accesses only", f"drop it for {instruction}")
        return None
    if ins.cache == "ca":
        raise UsageError(f"{instruction}: cp.async.ca wavefronts are not modelled (no exact rule is known)",
                         "use --access cp.async.cg (16 bytes, L1 bypass), or measure with layoutalg gpu-check")
    if args.global_ld is None or args.global_ld <= 0:
        raise UsageError(f"{instruction}: its cost depends on where each lane's data comes from",
                         "give the global matrix's leading dimension in elements, e.g. --global-ld 4096 "
                         "(row-major, tile at a 128-byte-aligned address)")
    ld = args.global_ld
    return lambda r, c: element_bytes * (r * ld + c)


def _element_offsets(layout: Any) -> tuple[list[int], int, int]:
    from layoutalg.viz.grid import _rank2_extents

    rows, cols = _rank2_extents(layout, "LAYOUT")
    return [int(v) for v in layout.to_numpy()], rows, cols


def _cmd_banks(args: argparse.Namespace) -> int:
    from layoutalg.banks import model

    layout = tiled(parse_layout(args.layout, dtype=args.dtype), args.tile_to)
    element_bytes = max(1, dtype_bits(args.dtype) // 8)
    instruction = expand_access(args.access, element_bytes)
    values, rows, cols = _element_offsets(layout)
    sources = _global_sources(instruction, args, element_bytes)
    pattern = access_pattern(rows, cols, args.dtype, instruction, args.by)
    reports = []
    for lanes in pattern:
        addresses = [element_bytes * values[r + rows * c] for r, c in lanes]
        from_global = None if sources is None else [sources(r, c) for r, c in lanes]
        reports.append((lanes, addresses, model.report(instruction, addresses, from_global)))
    total = sum(rep.wavefronts for _, _, rep in reports)
    ideal = sum(rep.ideal for _, _, rep in reports)
    worst_index = max(range(len(reports)), key=lambda k: (reports[k][2].excess, -k))
    worst_lanes, worst_addresses, worst = reports[worst_index]
    picture_args = args if (args.png or args.svg or args.tikz) else None
    if picture_args is not None and sources is not None:
        raise UsageError("the bank heat map shows ld/st phases; a cp.async has none", "drop --png/--svg/--tikz")
    written: list[str] = []
    if picture_args is not None:
        from layoutalg.viz.heatmap import bank_heatmap

        title = f"{layout} {args.dtype} {args.access}: instruction {worst_index}, {worst.wavefronts} wavefronts (ideal {worst.ideal})"
        written = write_picture(bank_heatmap(instruction, worst_addresses, title), args)
    failed = args.expect_conflict_free and total != ideal
    if args.json:
        from layoutalg.viz.heatmap import heatmap_json

        emit_json({
            "layout": str(layout), "dtype": args.dtype, "instruction": instruction,
            "instructions": [
                {"index": k, "lanes": [list(rc) for rc in lanes],
                 "byte_addresses": addresses, "wavefronts": rep.wavefronts, "ideal": rep.ideal, "excess": rep.excess}
                for k, (lanes, addresses, rep) in enumerate(reports)
            ],
            "wavefronts": total, "ideal": ideal, "excess": total - ideal, "conflict_free": total == ideal,
            "worst": {"index": worst_index, "report": str(worst),
                      "phases": heatmap_json(instruction, worst_addresses) if sources is None else []},
            "files": written,
        })
        return EXIT_FAILED if failed else EXIT_OK
    out = [f"{layout}  {args.dtype}  {instruction}",
           f"{len(reports)} instructions: {total} wavefronts, ideal {ideal}, excess {total - ideal}"
           + ("  (conflict-free)" if total == ideal else ""),
           "", f"{'instr':>5}  {'lane 0 (row,col)':>16}  {'wavefronts':>10}  {'ideal':>5}  {'excess':>6}"]
    for k, (lanes, _, rep) in enumerate(reports):
        first = lanes[0]
        out.append(f"{k:>5}  {str(first).replace(' ', ''):>16}  {rep.wavefronts:>10}  {rep.ideal:>5}  {rep.excess:>6}")
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
    import importlib

    rows, cols = parse_extents(args.shape, "--shape")
    element_bytes = max(1, dtype_bits(args.dtype) // 8)
    accesses: list[Any] = [expand_access(a, element_bytes) for a in args.access]
    if args.by == "column":
        accesses = [(a, "column") if a.split(".")[0] in ("ld", "st") else a for a in accesses]
    try:
        suggest = importlib.import_module("layoutalg.banks.suggest").suggest_swizzle
    except (ImportError, AttributeError) as exc:
        raise UsageError("suggest-swizzle needs layoutalg.banks.suggest, which this install lacks",
                         "upgrade layoutalg") from exc
    result = suggest((rows, cols), args.dtype, accesses)
    if args.json:
        emit_json(result.to_json())
    else:
        sys.stdout.write(str(result).rstrip("\n") + "\n")
    return EXIT_OK if result.conflict_free else EXIT_FAILED

