"""``layoutalg gpu-check``: run the whole hardware suite, write a recording, replay it.

The recording (``tests/data/gpu_recording_<device>.json``) holds raw facts
only: the device, the date, and for every case the inputs and what the
hardware returned.  The verdicts come from :mod:`layoutalg.gpu.replay`, which
compares the recording with the models and also runs, GPU-less, in CI.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from layoutalg.core.validate import describe
from layoutalg.errors import LayoutError

FORMAT = "layoutalg-gpu-recording/1"

CONVENTIONS = {
    "smem": "16 KiB dynamic shared memory per case, 1024-byte aligned base (smem_base_mod_1024 records it); "
            "lane_byte_addresses are byte offsets into it",
    "index_image": "ldmatrix and ld.shared cases: 16-bit unit h of shared memory holds h",
    "stmatrix_codes": "stmatrix: register i of lane l holds l*8+2*i+1 (low 16 bits) and l*8+2*i+2 (high); "
                      "smem_writes = [unit, value] of every nonzero 16-bit unit after the store (zero image)",
    "movmatrix_codes": "movmatrix: lane l's input holds 2*l+1 (low) and 2*l+2 (high)",
    "cp_async": "global source unit h (16-bit) holds h; smem image 0xFFFF; smem_writes = [unit, value] of every "
                "unit that changed",
    "st_shared": "lane l stores bytes (l*16 + j) % 251 + 1, j = 0..bytes-1, over a zero image",
    "mma_slots": "slot = lane * elems_per_lane + e; element e sits in 32-bit register e // (32/bits) at bit "
                 "(e % (32/bits)) * bits (f64: 64-bit register e)",
    "mma_triples": "[a_slot, b_slot, d_slot]: with A one-hot at a_slot, D slot d_slot came back holding B slot "
                   "b_slot's value (decoded from digit runs)",
    "mma_c_to_d": "[c_slot, d_slot]: C one-hot at c_slot, A = B = 0, D slot d_slot came back nonzero",
    "schemes": "ldmatrix.x4 A + ldmatrix.x2[.trans] B + mma.m16n8k16.f32.f16.f16.f32 from one smem image; "
               "d[lane][i] are the f32 D registers; a_sub (16x16) and b_sub (16x8, [k][n]) are the operands",
    "banks": "wavefronts per case, measured as 'method' says (ncu counters, or a clock64 estimate)",
}


def device_slug(name: str) -> str:
    """``NVIDIA H100 80GB HBM3`` -> ``nvidia_h100_80gb_hbm3``."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "unknown"


def dump_recording(recording: dict[str, Any], path: Path) -> None:
    """Write JSON with one case per line (small diffs, readable)."""
    lines = ["{"]
    keys = list(recording)
    for i, key in enumerate(keys):
        value = recording[key]
        end = "," if i < len(keys) - 1 else ""
        if isinstance(value, list):
            lines.append(f"{json.dumps(key)}: [")
            lines += [json.dumps(v, separators=(",", ":")) + ("," if j < len(value) - 1 else "")
                      for j, v in enumerate(value)]
            lines.append("]" + end)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{end}")
    lines.append("}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def make_recording(fragments: bool = True, banks: bool = True, progress: Any = None) -> dict[str, Any]:
    """Run the hardware suite on the current GPU; return the recording (raw facts only)."""
    from layoutalg.gpu.record import record_all
    from layoutalg.gpu.runner import device_info

    say = progress or (lambda s: None)
    rec: dict[str, Any] = {"format": FORMAT,
                           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                           "conventions": CONVENTIONS}
    if fragments:
        rec.update(record_all(say))
    else:
        rec["device"] = device_info()
    if banks:
        from layoutalg.gpu.bank_check import record_bank_cases

        rec["banks"] = record_bank_cases(progress=say)
    return rec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``layoutalg gpu-check`` (shared by the CLI's parser and :func:`run_cli`)."""
    parser.add_argument("--json", action="store_true", help="print the replay report as JSON")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help="recording path (default tests/data/gpu_recording_<device>.json)")
    parser.add_argument("--no-banks", action="store_true", help="skip the bank-conflict measurements")
    parser.add_argument("--no-fragments", action="store_true", help="skip the fragment experiments")
    parser.add_argument("--no-replay", action="store_true", help="only record; compare with the models later")
    parser.add_argument("--replay", type=Path, default=None, metavar="FILE",
                        help="compare an existing recording with the models (no GPU needed)")


SECTIONS = ("ldmatrix", "stmatrix", "movmatrix", "mma", "cp_async", "ld_shared", "st_shared", "schemes",
            "pipelines", "wgmma", "banks")


class RecordingError(LayoutError):
    """A ``--replay`` file that is missing, unreadable or not a gpu-check recording."""


def load_recording(path: Path) -> dict[str, Any]:
    """A recording written by ``gpu-check`` (see :data:`FORMAT`), or :class:`RecordingError` saying what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordingError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(f"cannot read {path}: {exc}") from None
    try:
        recording = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordingError(f"{path} is not JSON: {exc}") from None
    if not isinstance(recording, dict) or recording.get("format") != FORMAT:
        found = recording.get("format") if isinstance(recording, dict) else type(recording).__name__
        raise RecordingError(f"{path} is not a gpu-check recording (format {describe(found)}, expected {describe(FORMAT)})")
    for section in SECTIONS:
        cases = recording.get(section, [])
        if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
            raise RecordingError(f"{path}: section {describe(section)} must be a list of cases (objects)")
    return recording


def replay_file(path: Path) -> dict[str, Any]:
    """The replay report of the recording at ``path``; a malformed case is a :class:`RecordingError`."""
    from layoutalg.gpu.replay import replay_recording

    recording = load_recording(path)
    try:
        return replay_recording(recording)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:  # the file's data, not our code
        raise RecordingError(f"{path}: a case is malformed ({type(exc).__name__}: {exc})") from None


def run(args: argparse.Namespace) -> int:
    """``layoutalg gpu-check``: 0 all agree, 1 a mismatch, 3 no case could be checked; raises LayoutError for a
    bad --replay file or no GPU."""
    if args.replay is not None:
        report = replay_file(args.replay)
    else:
        from layoutalg.gpu import gpu_available

        reason = gpu_available()
        if reason:
            raise NoGpuError(f"no usable GPU: {reason}")
        recording = make_recording(not args.no_fragments, not args.no_banks,
                                   progress=None if args.json else (lambda s: print(f"  {s}", file=sys.stderr)))
        out = args.out or Path("tests/data") / f"gpu_recording_{device_slug(recording['device']['name'])}.json"
        try:
            dump_recording(recording, out)
        except OSError as exc:
            raise RecordingWriteError(f"cannot write the recording to {out}: {exc}") from exc
        if not args.json:
            print(f"gpu-check: recording written to {out}", file=sys.stderr)
        if args.no_replay:
            return 0
        from layoutalg.gpu.replay import replay_recording

        report = replay_recording(recording)
    checked = report["agree"] + report["mismatches"]
    if not checked:  # nothing compared is no pass: say so, exit 3 (undecided)
        report["error"] = (f"gpu-check: none of the recording's {report['cases']} cases could be checked "
                           f"({report['not_checked']} not checked: malformed, or not modelled)")
        report["hint"] = ("pass a recording written by layoutalg gpu-check, e.g. "
                          "--replay tests/data/gpu_recording_nvidia_h200.json")
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for line in report_lines(report):
            print(line)
        if not checked:
            print(f"layoutalg: error: {report['error']}\n  hint: {report['hint']}", file=sys.stderr)
    if not checked:
        return 3
    return 0 if report["mismatches"] == 0 else 1


class NoGpuError(LayoutError):
    """gpu-check without a usable GPU (CuPy missing or no CUDA device)."""


class RecordingWriteError(LayoutError):
    """The recording could not be written (``--out`` in a folder that cannot be written)."""


def run_cli(argv: Sequence[str] | None = None) -> int:
    """``python -m layoutalg.gpu.check``: the same as ``layoutalg gpu-check``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="layoutalg gpu-check", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        return run(args)
    except LayoutError as exc:
        print(f"gpu-check: {exc}", file=sys.stderr)
        return 2


def report_lines(report: dict[str, Any]) -> list[str]:
    """A short text summary of a replay report."""
    lines = [f"device: {report['device']}", f"cases: {report['cases']}  agree: {report['agree']}  "
             f"mismatches: {report['mismatches']}  not checked: {report['not_checked']}"]
    for section, s in report["sections"].items():
        lines.append(f"  {section:<10} {s['agree']:>5} agree {s['mismatch']:>4} mismatch {s['not_checked']:>4} "
                     f"not checked{'  (' + s['note'] + ')' if s.get('note') else ''}")
    for m in report["details"][:40]:
        lines.append(f"  MISMATCH {m}")
    return lines


if __name__ == "__main__":
    raise SystemExit(run_cli())
