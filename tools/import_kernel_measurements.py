"""Import a measure_kernels.py tarball into the corpus: raw ncu CSVs and measured.json per kernel.

    python tools/import_kernel_measurements.py kernels_ncu.tar.gz [--force]

For every kernel in the tarball's summary.json whose PTX is still the one measured (sha256 of the
PTX; --force imports anyway and records the mismatch):
- tests/data/kernels/<name>/ncu_run1.csv, ncu_run2.csv (and ncu_jit.csv for the JIT-loaded sm_80
  PTX run): the raw ``ncu --csv --page raw`` rows, committed as they came;
- tests/data/kernels/<name>/measured.json: the device, driver, ncu version and flags, the counters
  of each run parsed from those CSVs, whether the two runs agree (every metric equal), the
  numerical check of the output (redone here from the dumped buffers when they are in the
  tarball, else the device's), and the expectations from launch.json for comparison.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import shutil
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "kernel_corpus"))
CORPUS = os.path.join(ROOT, "tests", "data", "kernels")

RUNS = ("ncu_run1", "ncu_run2", "ncu_jit")


MODELLED_COUNTERS = frozenset({
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass",
    "smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed_op_shared_st", "smsp__inst_executed_op_ldsm",
    "smsp__sass_inst_executed_op_ldgsts",
})
"""The counters layoutalg predicts (issue 14's list): the two runs must agree on these; timings may drift."""


def counters(csv_path: str) -> dict[str, float | None]:
    """The metric columns of the single data row of a per-kernel ncu CSV, as numbers."""
    with open(csv_path, newline="") as fh:
        rows = list(csv.reader(fh))
    header, data = rows[0], [r for r in rows[1:] if r and r[0].strip().isdigit()]
    if len(data) != 1:
        raise ValueError(f"{csv_path}: {len(data)} data rows, expected 1")
    out: dict[str, float | None] = {}
    for h, v in zip(header, data[0]):
        if "__" not in h:
            continue
        try:
            out[h] = float(v.replace(",", ""))
        except ValueError:
            out[h] = None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tarball")
    ap.add_argument("--force", action="store_true", help="import even where the PTX changed since")
    ap.add_argument("--corpus", default=CORPUS, help="the corpus folder (default tests/data/kernels)")
    a = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="kernels_import_")
    try:
        with tarfile.open(a.tarball) as tar:
            tar.extractall(tmp, filter="data") if sys.version_info >= (3, 12) else tar.extractall(tmp)
        work = os.path.join(tmp, "kernels_ncu")
        with open(os.path.join(work, "summary.json")) as fh:
            summary = json.load(fh)
        return import_all(work, summary, a.force, a.corpus)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def import_all(work: str, summary: dict, force: bool, corpus: str) -> int:
    try:
        import verify as verify_mod
    except ImportError:
        verify_mod = None  # type: ignore[assignment]
    env = summary.get("environment", {})
    problems = 0
    print(f"device: {env.get('gpu')}; {env.get('ncu_version')}; measured {summary.get('started')}")
    for name, rec in sorted(summary["kernels"].items()):
        d = os.path.join(corpus, name)
        if not os.path.exists(os.path.join(d, "launch.json")):
            print(f"{name}: not in the corpus, skipped")
            continue
        with open(os.path.join(d, "launch.json")) as fh:
            launch = json.load(fh)
        with open(os.path.normpath(os.path.join(d, launch["ptx"]))) as fh:
            ptx_sha = hashlib.sha256(fh.read().encode()).hexdigest()
        same_ptx = ptx_sha == rec.get("ptx_sha256")
        if not same_ptx and not force:
            print(f"{name}: PTX changed since it was measured; skipped (--force imports)")
            problems += 1
            continue
        runs: dict[str, dict] = {}
        for tag in RUNS:
            src = os.path.join(work, "ncu", name, f"{tag}.csv")
            if os.path.exists(src):
                shutil.copyfile(src, os.path.join(d, f"{tag}.csv"))
                runs[tag] = counters(src)
            elif tag in rec:
                runs[tag] = {"error": rec[tag].get("error", "no CSV")}  # type: ignore[dict-item]
        a, b = runs.get("ncu_run1"), runs.get("ncu_run2")
        agree = None
        differ: dict[str, list] = {}
        if a and b and "error" not in a and "error" not in b:
            differ = {m: [a.get(m), b.get(m)] for m in sorted(set(a) | set(b)) if a.get(m) != b.get(m)}
            agree = not any(m.split(".")[0] in MODELLED_COUNTERS for m in differ)
        check = rec.get("verify")
        dump = os.path.join(work, "dumps", name)
        if verify_mod is not None and os.path.isdir(dump):
            from launchspec import buffer_ids
            with open(os.path.normpath(os.path.join(d, launch["ptx"]))) as fh:
                ids = buffer_ids(launch, fh.read())
            check = {**verify_mod.check(launch["verify"], dump, ids), "checked": "here, from the dumped buffers"}
        measured = {
            "device": env.get("gpu"),
            "ncu_version": env.get("ncu_version"),
            "measured": summary.get("started"),
            "taken_by": "tools/measure_kernels.py (launcher: tools/kernel_corpus/launcher.cpp; the measured "
                        "launch is the second of two, buffers re-uploaded before each)",
            "ncu_flags": summary.get("ncu_flags"),
            "ptx_sha256": rec.get("ptx_sha256"),
            "ptx_unchanged": same_ptx,
            "cubin_sha256": rec.get("cubin_sha256"),
            "runs": runs,
            "runs_agree": agree,  # on the modelled counters; runs_differ lists every metric that moved
            **({"runs_differ": differ} if differ else {}),
            "functional_run": rec.get("run"),
            **({"jit_run": rec["jit_run"]} if "jit_run" in rec else {}),
            "verify": check,
            "expect": launch.get("expect"),
        }
        with open(os.path.join(d, "measured.json"), "w") as fh:
            json.dump(measured, fh, indent=1)
            fh.write("\n")
        ok = check.get("ok") if isinstance(check, dict) else None
        expect_numerics = (launch.get("expect") or {}).get("numerics", "")
        numerics_as_expected = ok is None or (ok and expect_numerics == "correct") or \
            (not ok and expect_numerics == "wrong") or expect_numerics.startswith("either")
        problems += (agree is not True) + (not numerics_as_expected)
        print(f"{name:34s} runs {'agree' if agree else 'DIFFER' if agree is False else 'missing'}; "
              f"output {'ok' if ok else 'wrong' if ok is False else '?'} (expected {expect_numerics or '?'})")
    print(f"{problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
