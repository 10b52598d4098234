"""``layoutalg prove`` and ``layoutalg gpu-check``: the work is done by :mod:`layoutalg.prove.runner` and
:mod:`layoutalg.gpu.check`; this module turns their errors into the CLI's messages and hints."""

from __future__ import annotations

import argparse

from layoutalg.cli.common import UsageError, first_line
from layoutalg.errors import LayoutError


def _cmd_prove(args: argparse.Namespace) -> int:
    if args.timeout is not None and not args.timeout > 0:  # inf: no limit, as prove-fragment and the Python API
        raise UsageError(f"--timeout {args.timeout}: must be a positive number of seconds (inf for no limit)",
                         "e.g. --timeout 10, or leave it out for z3's default")
    try:
        from layoutalg.prove import runner
    except ImportError as exc:
        raise UsageError(f"layoutalg prove needs the prover: {exc}", "pip install layoutalg (it brings z3-solver)") \
            from exc
    try:
        return runner.run(args.paths, as_json=args.json, timeout=args.timeout, cross_check=args.cross_check,
                          progress=args.progress, verbose=args.verbose, select=args.select)
    except LayoutError as exc:
        message = first_line(exc)
        if message.startswith("no such file"):
            hint = "give an existing theorem file or folder, e.g. layoutalg prove proofs/"
        elif args.select:
            hint = "drop -k, or pass -k part of a name that layoutalg prove PATH lists"
        else:
            hint = ("name theorem files thm_*.py or *_thm.py, put them under a folder named proofs, or pass the "
                    "files themselves: layoutalg prove FILE.py")
        raise UsageError(f"prove: {message}", hint) from exc


def _cmd_gpu_check(args: argparse.Namespace) -> int:
    from layoutalg.gpu import check

    try:
        return check.run(args)
    except check.NoGpuError as exc:
        raise UsageError(f"gpu-check: {first_line(exc)}",
                         "install CuPy on a machine with an NVIDIA GPU (pip install 'layoutalg[gpu]'), or compare "
                         "an existing recording with --replay FILE") from exc
    except check.RecordingError as exc:
        raise UsageError(f"gpu-check --replay: {first_line(exc)}",
                         "pass a recording written by layoutalg gpu-check, e.g. "
                         "--replay tests/data/gpu_recording_nvidia_h200.json") from exc
    except check.RecordingWriteError as exc:
        raise UsageError(f"gpu-check: {first_line(exc)}", "pass --out FILE in a writable folder") from exc
