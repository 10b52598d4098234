"""Measure the kernel corpus with Nsight Compute on the GPU machine (or check it without one).

    python3 tools/measure_kernels.py OUT [--build build_kernels] [--budget-s 400] [--only A,B]
                                         [--chunk 9] [--dry-run] [--no-jit] [--ncu PATH]

For every tests/data/kernels/<name>/launch.json:
1. writes the launcher's launch.txt from launch.json and the PTX (argument bytes checked against
   the PTX .param declarations);
2. runs the kernel once without ncu (2 launches, buffers dumped) and checks its output with numpy
   (tools/kernel_corpus/verify.py); kernels whose PTX targets sm_80 are also JIT-loaded from PTX;
3. runs ``ncu --csv --page raw --cache-control all`` twice over all kernels that ran, one ncu and
   launcher process per chunk of --chunk kernels (warm-up launches of every kernel of the chunk,
   then the measured ones; ``--launch-skip`` drops the warm-ups), falling back to plainer ncu
   flags, then to the issue's core metrics, then to one ncu process per kernel for any kernel a
   chunk did not report;
4. (budget allowing) one more ncu run over the sm_80 kernels JIT-loaded from their PTX.
The work goes to a scratch folder; after every stage OUT/kernels_ncu.tar.gz is rewritten from it
(so a run cut short still leaves its results) together with OUT/summary.json and OUT/log.txt.
Metrics: the wanted list below, less the names this ncu does not know (``ncu --query-metrics``),
which are logged.  Every subprocess has a timeout; the whole run stops starting new work when
--budget-s is spent.

--dry-run (no GPU needed): everything but the launcher and ncu: files present, arguments packed
to the PTX parameter sizes, buffer slots matched, and the numerical checks exercised on
synthetic outputs (numpy).  Exit 1 if anything is wrong.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "kernel_corpus"))

import launchspec  # noqa: E402

CORPUS = os.path.join(ROOT, "tests", "data", "kernels")

WANTED_METRICS = [
    # the counters layoutalg predicts (issue 14)
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum",
    # totals and the other shared-memory operations
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_cmd_read.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_cmd_write.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
    # per-SASS-instruction-class views
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
    "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "smsp__sass_inst_executed_op_shared.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_stsm.sum",
    "smsp__sass_inst_executed_op_ldgsts_cache_access.sum",
    "smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_stsm.sum",
    "smsp__inst_executed_op_ldgsts.sum",
    "sm__sass_data_bytes_mem_shared.sum",
    "sm__sass_data_bytes_mem_shared_op_ld.sum",
    "sm__sass_data_bytes_mem_shared_op_st.sum",
    "sm__sass_data_bytes_mem_shared_op_atom.sum",
    "sm__sass_data_bytes_mem_shared_op_ldsm.sum",
    "sm__sass_data_bytes_mem_shared_op_stsm.sum",
    "sm__sass_data_bytes_mem_shared_op_ldgsts.sum",
    # sanity: global traffic, instruction totals, the launch as ncu saw it
    "smsp__sass_inst_executed_op_global_ld.sum",
    "smsp__sass_inst_executed_op_global_st.sum",
    "smsp__sass_inst_executed.sum",
    "smsp__inst_executed.sum",
    "launch__grid_size",
    "launch__block_size",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_static",
    "launch__registers_per_thread",
]


class Run:
    """The scratch folder, the log, the time budget and the packing into OUT."""

    def __init__(self, out: str, budget_s: float) -> None:
        self.out = os.path.abspath(out)
        os.makedirs(self.out, exist_ok=True)
        self.base = tempfile.mkdtemp(prefix="kernels_ncu_")
        self.work = os.path.join(self.base, "kernels_ncu")
        os.makedirs(self.work)
        self.t0 = time.time()
        self.budget = budget_s
        self.summary: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "kernels": {}}

    def left(self) -> float:
        return self.budget - (time.time() - self.t0)

    def log(self, msg: str) -> None:
        line = f"[{time.time() - self.t0:7.1f}s] {msg}"
        print(line, flush=True)
        with open(os.path.join(self.work, "log.txt"), "a") as fh:
            fh.write(line + "\n")

    def path(self, *parts: str) -> str:
        p = os.path.join(self.work, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def sh(self, cmd: list[str], timeout: float, log_name: str | None = None) -> subprocess.CompletedProcess:
        """Run ``cmd`` with a timeout (never past the budget by more than 30 s); output kept in logs/."""
        timeout = max(5.0, min(timeout, self.left() + 30))
        t = time.time()
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            def text(b: object) -> str:
                return b.decode(errors="replace") if isinstance(b, bytes) else str(b or "")
            res = subprocess.CompletedProcess(cmd, 124, text(exc.stdout), text(exc.stderr) + f"\nTIMEOUT {timeout:.0f}s")
        except OSError as exc:
            res = subprocess.CompletedProcess(cmd, 127, "", f"cannot run: {exc}")
        if log_name:
            with open(self.path("logs", log_name + ".log"), "w") as fh:
                fh.write(f"$ {' '.join(cmd)}\nrc={res.returncode} {time.time() - t:.1f}s\n--- stdout\n{res.stdout}\n"
                         f"--- stderr\n{res.stderr}\n")
        return res

    def pack(self) -> None:
        """Rewrite OUT/kernels_ncu.tar.gz (atomically) and OUT/summary.json, OUT/log.txt."""
        self.summary["elapsed_s"] = round(time.time() - self.t0, 1)
        with open(self.path("summary.json"), "w") as fh:
            json.dump(self.summary, fh, indent=1)
        tmp = os.path.join(self.out, "kernels_ncu.tar.gz.tmp")
        with tarfile.open(tmp, "w:gz") as tar:
            tar.add(self.work, arcname="kernels_ncu")
        os.replace(tmp, os.path.join(self.out, "kernels_ncu.tar.gz"))
        shutil.copyfile(self.path("summary.json"), os.path.join(self.out, "summary.json"))
        if os.path.exists(self.path("log.txt")):
            shutil.copyfile(self.path("log.txt"), os.path.join(self.out, "log.txt"))


def sha256(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def load_corpus(build: str, only: set[str]) -> list[dict]:
    """Every corpus kernel with its launch, PTX, launch.txt text and module paths; errors listed."""
    kernels = []
    for name in sorted(os.listdir(CORPUS)):
        d = os.path.join(CORPUS, name)
        if only and name not in only or not os.path.exists(os.path.join(d, "launch.json")):
            continue
        k: dict = {"name": name, "dir": d, "errors": []}
        try:
            with open(os.path.join(d, "launch.json")) as fh:
                launch = json.load(fh)
            k["launch"] = launch
            ptx_path = os.path.normpath(os.path.join(d, launch["ptx"]))
            with open(ptx_path) as fh:
                ptx = fh.read()
            k["ptx_path"] = ptx_path
            k["ptx_sha256"] = hashlib.sha256(ptx.encode()).hexdigest()
            primary = os.path.basename(os.path.dirname(ptx_path))
            k["cubin"] = os.path.join(build, primary, "kernel.cubin")
            if not os.path.exists(k["cubin"]):
                k["errors"].append(f"missing cubin {k['cubin']}")
            else:
                k["cubin_sha256"] = sha256(k["cubin"])
            k["ptx_target"] = re.search(r"^\s*\.target\s+(\w+)", ptx, re.M).group(1)  # type: ignore[union-attr]
            ps = launchspec.params(ptx, launch["kernel"])
            packed = launchspec.pack_all(ps, launch["args"])
            for p, pk in zip(ps, packed):
                if len(pk.data) != p.size:
                    k["errors"].append(f"parameter {p.index}: {len(pk.data)} bytes packed for {p.size}")
            if [p.describe() for p in ps] != launch["params"]:
                k["errors"].append("launch.json params differ from the PTX .param declarations")
            k["spec_text"] = launchspec.launch_text(launch, ptx)
            k["buffer_ids"] = launchspec.buffer_ids(launch, ptx)
            k["param_bytes"] = [len(pk.data) for pk in packed]
        except Exception as exc:  # noqa: BLE001 - every failure is reported per kernel
            k["errors"].append(f"{type(exc).__name__}: {exc}")
        kernels.append(k)
    return kernels


def find_ncu() -> str:
    """ncu from PATH, else the usual CUDA toolkit and Nsight Compute install folders."""
    import glob
    found = shutil.which("ncu")
    if found:
        return found
    cands = ["/usr/local/cuda/bin/ncu"] + sorted(glob.glob("/usr/local/cuda*/bin/ncu")) + \
        sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu")) + sorted(glob.glob("/usr/local/NVIDIA-Nsight-Compute*/ncu"))
    return next((c for c in cands if os.access(c, os.X_OK)), "ncu")


def find_launcher(run: Run, build: str) -> str | None:
    """The prebuilt launcher if it starts here (usage exit 2), else one rebuilt from source."""
    pre = os.path.join(build, "kernel_launcher")
    if os.path.exists(pre):
        res = run.sh([pre], 20, "launcher_probe")
        if res.returncode == 2:
            return pre
        run.log(f"prebuilt launcher does not start here (rc {res.returncode}): {res.stderr.strip()[:300]}")
    src = os.path.join(ROOT, "tools", "kernel_corpus", "launcher.cpp")
    exe = run.path("bin", "kernel_launcher")
    inc = [c for c in (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include"),
                       "/usr/local/cuda/include") if os.path.exists(os.path.join(c, "cuda.h"))]
    for cxx in ("g++", "c++", "nvcc"):
        if shutil.which(cxx) is None or not inc:
            continue
        res = run.sh([cxx, "-O2", "-std=c++17", "-I", inc[0], "-o", exe, src, "-ldl"], 180, f"launcher_build_{cxx}")
        if res.returncode == 0:
            run.log(f"launcher rebuilt with {cxx}")
            return exe
    run.log("error: no working launcher")
    return None


def environment(run: Run, ncu: str) -> dict:
    env: dict = {"host": platform.node(), "python": platform.python_version()}
    res = run.sh(["nvidia-smi", "--query-gpu=name,driver_version,pci.bus_id,compute_cap,clocks.max.sm,"
                  "clocks.max.mem,memory.total", "--format=csv,noheader"], 30, "nvidia_smi_query")
    env["gpu"] = res.stdout.strip()
    res = run.sh(["nvidia-smi", "-q"], 30, "nvidia_smi_q")
    with open(run.path("env", "nvidia-smi-q.txt"), "w") as fh:
        fh.write(res.stdout)
    env["nvidia_smi_q_head"] = "\n".join(res.stdout.splitlines()[:40])
    res = run.sh([ncu, "--version"], 30, "ncu_version")
    env["ncu_version"] = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else f"rc {res.returncode}"
    return env


def choose_metrics(run: Run, ncu: str) -> list[str]:
    res = run.sh([ncu, "--query-metrics"], 120, "ncu_query_metrics")
    with open(run.path("env", "query_metrics.txt"), "w") as fh:
        fh.write(res.stdout)
    known = set(re.findall(r"^([a-z][\w]*__[\w]+)", res.stdout, flags=re.M))
    if not known:
        run.log("warning: ncu --query-metrics gave no names; using the first 10 (issue 14's list) unchecked")
        return WANTED_METRICS[:10]
    keep = [m for m in WANTED_METRICS if m.split(".")[0] in known]
    dropped = [m for m in WANTED_METRICS if m not in keep]
    run.log(f"metrics: {len(keep)} kept, {len(dropped)} unknown to this ncu: {dropped}")
    run.summary["metrics_dropped"] = dropped
    return keep


PLAIN_FLAGS = ["--csv", "--page", "raw", "--cache-control", "all"]


def ncu_flags(run: Run, ncu: str) -> list[str]:
    help_text = run.sh([ncu, "--help"], 30, "ncu_help").stdout
    flags = list(PLAIN_FLAGS)
    for opt, val in (("--print-units", "base"), ("--print-kernel-base", "mangled")):
        if opt in help_text:
            flags += [opt, val]
        else:
            run.log(f"note: this ncu has no {opt}")
    return flags


def parse_csv(text: str) -> tuple[list[str], list[str], list[dict[str, str]]]:
    """ncu raw CSV: (header, units row, one dict per profiled launch, in launch order)."""
    start = text.find('"ID"')
    if start < 0:
        return [], [], []
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    units = rows[1] if len(rows) > 1 and not rows[1][0].strip().isdigit() else []
    data = [dict(zip(header, r)) for r in rows[1:] if r and r[0].strip().isdigit()]
    return header, units, data


def write_kernel_csv(path: str, header: list[str], units: list[str], rows: list[dict[str, str]]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(header)
        if units:
            w.writerow(units)
        for r in rows:
            w.writerow([r.get(h, "") for h in header])


def numbers(row: dict[str, str], metrics: list[str]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for m in metrics:
        v = row.get(m, "").replace(",", "").strip()
        try:
            out[m] = float(v)
        except ValueError:
            out[m] = None
    return out


def name_matches(k: dict, row: dict[str, str]) -> bool:
    """The CSV row's kernel name is this kernel's (mangled, demangled or base name)."""
    got = row.get("Kernel Name", "")
    return got in ("", k["launch"]["kernel"]) or k["launch"]["kernel_substring"] in got


def profile(run: Run, ncu: str, settings: dict, app: list[str], skip: int, count: int, log: str,
            log_name: str, timeout: float) -> tuple[subprocess.CompletedProcess, list[str], list[str], list[dict]]:
    if os.path.exists(log):
        os.remove(log)
    cmd = [ncu, *settings["flags"], "--metrics", ",".join(settings["metrics"]), "--launch-skip", str(skip),
           "--launch-count", str(count), "--log-file", log, *app]
    res = run.sh(cmd, timeout, log_name)
    header, units, rows = parse_csv(open(log).read()) if os.path.exists(log) else ([], [], [])
    return res, header, units, rows


def ncu_batch(run: Run, ncu: str, settings: dict, launcher: str, ks: list[dict], tag: str, chunk: int,
              jit: bool = False) -> None:
    """``ncu_chunk`` over ``ks`` in chunks of ``chunk`` kernels, packing the results after each."""
    for i in range(0, len(ks), chunk):
        if run.left() < 20:
            for k in ks[i:]:
                run.summary["kernels"][k["name"]][tag] = {"error": "budget spent before its ncu run"}
            run.log(f"ncu {tag}: budget spent, {len(ks) - i} kernels not profiled")
            break
        ncu_chunk(run, ncu, settings, launcher, ks[i:i + chunk], f"{tag}", i // chunk, jit)
        run.pack()


def ncu_chunk(run: Run, ncu: str, settings: dict, launcher: str, ks: list[dict], tag: str, part: int,
              jit: bool = False) -> None:
    """One ncu process over the measured launches of ``ks``; per-kernel fallback for any it missed.

    If the batch reports nothing, it is retried with ncu's plainest flags, then also with only the
    issue's core metrics; the settings that worked are kept (``settings`` is updated in place)."""
    if not ks:
        return
    lst = run.path("specs", f"batch_{tag}_{part}.txt")
    with open(lst, "w") as fh:
        for k in ks:
            fh.write(f"{k['name']} {k['spec']} {k['ptx_path'] if jit else k['cubin']} {'ptx' if jit else 'cubin'}\n")
    log = run.path("ncu", f"{tag}_batch{part}.csv")
    app = [launcher, "--batch", lst]
    timeout = min(240.0, 60 + 15 * len(ks))
    run.log(f"ncu {tag}: batch {part} of {len(ks)} kernels")
    res, header, units, rows = profile(run, ncu, settings, app, len(ks), len(ks), log, f"ncu_{tag}_batch{part}",
                                       timeout)
    fallbacks = [{"flags": PLAIN_FLAGS, "metrics": settings["metrics"]},
                 {"flags": PLAIN_FLAGS, "metrics": [m for m in settings["metrics"] if m in WANTED_METRICS[:10]]}]
    for alt in fallbacks:
        if rows or res.returncode == 0 or run.left() < 40:
            break
        if alt == {key: settings[key] for key in alt}:
            continue
        run.log(f"ncu {tag}: rc {res.returncode} with nothing reported ({res.stderr.strip()[-300:]}); "
                f"retrying with flags {alt['flags']} and {len(alt['metrics'])} metrics")
        res, header, units, rows = profile(run, ncu, alt, app, len(ks), len(ks), log, f"ncu_{tag}_batch{part}_retry",
                                           timeout)
        if rows:
            settings.update(alt)
            run.summary["ncu_flags"], run.summary["metrics"] = alt["flags"], alt["metrics"]
    run.log(f"ncu {tag}: rc {res.returncode}, {len(rows)} launches reported")
    got: dict[str, dict[str, str]] = {}
    for k, row in zip(ks, rows):   # in launch order, up to the first row that is not this kernel's
        if not name_matches(k, row):
            run.log(f"ncu {tag}: row {row.get('ID')} is {row.get('Kernel Name', '')[:60]!r}, expected {k['name']}")
            break
        got[k["name"]] = row
    for k in ks:
        rec = run.summary["kernels"][k["name"]]
        if k["name"] in got:
            write_kernel_csv(run.path("ncu", k["name"], f"{tag}.csv"), header, units, [got[k["name"]]])
            rec[tag] = {"source": "batch", "counters": numbers(got[k["name"]], settings["metrics"])}
            continue
        if run.left() < 20:
            rec[tag] = {"error": "not reported by the batch; no budget left for a single run"}
            continue
        single_log = run.path("ncu", k["name"], f"{tag}_single.csv")
        module = k["ptx_path"] if jit else k["cubin"]
        app1 = [launcher, k["spec"], module, "--name", k["name"]] + (["--ptx"] if jit else [])
        r, h, u, rs = profile(run, ncu, settings, app1, 1, 1, single_log, f"ncu_{tag}_{k['name']}", 90)
        if rs and name_matches(k, rs[0]):
            write_kernel_csv(run.path("ncu", k["name"], f"{tag}.csv"), h, u, rs[:1])
            rec[tag] = {"source": "single", "counters": numbers(rs[0], settings["metrics"])}
        else:
            rec[tag] = {"error": f"ncu single run rc {r.returncode}: {r.stderr.strip()[-300:]}"}
        run.log(f"ncu {tag} single {k['name']}: {'ok' if tag in rec and 'counters' in rec[tag] else 'FAILED'}")


def functional(run: Run, launcher: str, ks: list[dict], verify_mod: object | None) -> list[dict]:
    """Run each kernel once without ncu (dumping its buffers), check its output; the kernels that ran."""
    ok = []
    for k in ks:
        rec = run.summary["kernels"][k["name"]]
        if run.left() < 30:
            rec["run"] = {"error": "budget spent before the functional run"}
            continue
        dump = os.path.join(run.work, "dumps", k["name"])
        os.makedirs(dump, exist_ok=True)
        r = run.sh([launcher, k["spec"], k["cubin"], "--dump", dump, "--name", k["name"]], 30, f"run_{k['name']}")
        rec["run"] = {"rc": r.returncode, "stderr": r.stderr.strip()[-500:]}
        if r.returncode == 0:
            ok.append(k)
            if verify_mod is not None:
                try:
                    rec["verify"] = verify_mod.check(k["launch"]["verify"], dump, k["buffer_ids"])  # type: ignore[attr-defined]
                except Exception as exc:  # noqa: BLE001
                    rec["verify"] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-800:]}
        if k["ptx_target"] == "sm_80":
            j = run.sh([launcher, k["spec"], k["ptx_path"], "--ptx", "--name", k["name"]], 90, f"jit_{k['name']}")
            rec["jit_run"] = {"rc": j.returncode, "stderr": j.stderr.strip()[-500:]}
        v = rec.get("verify", {})
        verdict = "" if not v else ", output ok" if v.get("ok") else ", output WRONG " + json.dumps(
            {key: v[key] for key in ("wrong", "of", "not_finite", "max_abs_err", "error") if key in v})
        run.log(f"run {k['name']}: rc {r.returncode}{verdict}"
                + (f", JIT rc {rec['jit_run']['rc']}" if "jit_run" in rec else "")
                + (f" {r.stderr.strip()[-200:]}" if r.returncode else ""))
    return ok


def agreement(run: Run, metrics: list[str]) -> None:
    for rec in run.summary["kernels"].values():
        a, b = rec.get("ncu_run1", {}).get("counters"), rec.get("ncu_run2", {}).get("counters")
        if a and b:
            differ = {m: [a[m], b[m]] for m in metrics if a.get(m) != b.get(m)}
            rec["runs_agree"] = not differ
            if differ:
                rec["runs_differ"] = differ


def dry_run(ks: list[dict], build: str) -> int:
    bad = 0
    try:
        import numpy as np
        import verify as verify_mod
    except ImportError as exc:
        print(f"note: numpy missing ({exc}); numerical checks not exercised")
        np = None  # type: ignore[assignment]
    launcher = os.path.join(build, "kernel_launcher")
    print(f"launcher: {launcher} {'present' if os.access(launcher, os.X_OK) else 'MISSING'}")
    bad += not os.access(launcher, os.X_OK)
    tmp = tempfile.mkdtemp(prefix="kernels_dry_")
    for k in ks:
        msgs = list(k["errors"])
        if not msgs and np is not None:
            try:
                sizes = {key: (b["dtype"], int(b["count"])) for key, b in k["launch"]["buffers"].items()}
                dump = os.path.join(tmp, k["name"])
                verify_mod.synthesize(k["launch"]["verify"], dump, k["buffer_ids"], sizes, np.random.default_rng(0))
                res = verify_mod.check(k["launch"]["verify"], dump, k["buffer_ids"])
                if not res["ok"]:
                    msgs.append(f"verify rejects synthetic correct output: {res}")
            except Exception as exc:  # noqa: BLE001
                msgs.append(f"verify: {type(exc).__name__}: {exc}")
        status = "ok" if not msgs else "ERROR " + "; ".join(msgs)
        bad += bool(msgs)
        nbuf = len(k.get("buffer_ids", {}))
        print(f"{k['name']:34s} {k.get('ptx_target', '?'):7s} params {len(k.get('param_bytes', []))} "
              f"({sum(k.get('param_bytes', []))} B) buffers {nbuf}: {status}")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(ks)} kernels, {bad} problems")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--build", default=os.path.join(ROOT, "build_kernels"))
    ap.add_argument("--budget-s", type=float, default=400.0)
    ap.add_argument("--chunk", type=int, default=9, help="kernels per ncu process")
    ap.add_argument("--only", default="")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--no-jit", action="store_true")
    ap.add_argument("--ncu", default=None, help="the ncu to use (default: PATH, then the CUDA/Nsight folders)")
    a = ap.parse_args(argv)
    build = os.path.abspath(a.build)
    ks = load_corpus(build, set(a.only.split(",")) - {""})
    if a.dry_run:
        return dry_run(ks, build)

    a.ncu = a.ncu or find_ncu()
    run = Run(a.out, a.budget_s)
    try:
        return measure(run, ks, build, a)
    except Exception:  # noqa: BLE001 - keep whatever was measured
        run.log("error: " + traceback.format_exc())
        return 1
    finally:
        run.pack()
        run.log(f"packed {os.path.join(run.out, 'kernels_ncu.tar.gz')}")
        run.pack()


def measure(run: Run, ks: list[dict], build: str, a: argparse.Namespace) -> int:
    for k in ks:
        rec = {"ptx_sha256": k.get("ptx_sha256"), "cubin_sha256": k.get("cubin_sha256"),
               "kernel": k.get("launch", {}).get("kernel"), "ptx_target": k.get("ptx_target")}
        if k["errors"]:
            rec["errors"] = k["errors"]
        run.summary["kernels"][k["name"]] = rec
        if not k["errors"]:
            k["spec"] = run.path("specs", k["name"] + ".txt")
            with open(k["spec"], "w") as fh:
                fh.write(k["spec_text"])
    good = [k for k in ks if not k["errors"]]
    run.log(f"{len(good)} of {len(ks)} kernels ready: {[k['name'] for k in ks if k['errors']]} not")
    run.summary["environment"] = environment(run, a.ncu)
    run.log(f"device: {run.summary['environment'].get('gpu')}; {run.summary['environment'].get('ncu_version')}")
    launcher = find_launcher(run, build)
    if launcher is None:
        return 1
    try:
        import verify as verify_mod
    except ImportError as exc:
        run.log(f"note: no numpy ({exc}); outputs dumped but not checked here")
        verify_mod = None  # type: ignore[assignment]
    ran = functional(run, launcher, good, verify_mod)
    run.pack()
    settings = {"metrics": choose_metrics(run, a.ncu), "flags": ncu_flags(run, a.ncu)}
    run.summary["metrics"], run.summary["ncu_flags"] = settings["metrics"], settings["flags"]
    for tag in ("ncu_run1", "ncu_run2"):
        if run.left() < 30:
            run.log(f"budget spent: {tag} skipped")
            break
        ncu_batch(run, a.ncu, settings, launcher, ran, tag, a.chunk)
        agreement(run, settings["metrics"])
        run.pack()
    jit = [k for k in ran if k["ptx_target"] == "sm_80" and run.summary["kernels"][k["name"]].get("jit_run", {}).get("rc") == 0]
    if not a.no_jit and jit and run.left() > 60:
        ncu_batch(run, a.ncu, settings, launcher, jit, "ncu_jit", a.chunk, jit=True)
    metrics = settings["metrics"]
    dumps = run.path("dumps")
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(dumps) for f in fs)
    run.summary["dumps_bytes"] = size
    if size > 10 * 2 ** 20:
        run.log(f"dumps are {size} bytes: dropped from the tarball (verify results kept)")
        shutil.rmtree(dumps, ignore_errors=True)
    agreement(run, metrics)
    n_ok = sum(1 for r in run.summary["kernels"].values() if r.get("runs_agree"))
    run.log(f"done: {n_ok} kernels with two agreeing ncu runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
