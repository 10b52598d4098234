"""Rebuild the kernel corpus: sources, PTX, SASS and launch.json under tests/data/kernels/, cubins and
the launcher under build_kernels/ (ignored by git).

    python tools/build_kernels.py [--only NAME[,NAME...]] [--jobs N] [--launcher-only] [--no-compile]

Per entry of tools/kernel_corpus/specs.py:
- CUDA C++: the source with its macros written at the top -> kernel.cu;
  ``nvcc -ptx -lineinfo -arch=sm_90 -std=c++17 [-I CUTLASS]`` -> kernel.ptx.
- Triton: the source -> kernel.py; ``python kernel.py DIR --arch A`` (CPU-only compile for an
  explicit target) -> kernel.ptx and triton_meta.json.
- ``ptxas -arch=sm_90 (sm_90a for sm_90a PTX) --generate-line-info kernel.ptx`` ->
  build_kernels/NAME/kernel.cubin (the binary that is measured); ``cuobjdump -sass`` of it ->
  kernel.sass (encoding comments dropped).
- launch.json: the launch, the PTX parameters, the packed-argument check, static counts of the
  shared-memory instructions in the PTX and the SASS, the build commands.
--no-compile reuses the PTX already in the corpus (ptxas, SASS and launch.json are redone).
Tools: nvcc/ptxas from PATH; cuobjdump from PATH or the nvidia-cuda-cuobjdump wheel; CUTLASS headers
from the nvidia-cutlass wheel (cutlass_library/source/include) or $CUTLASS_INCLUDE.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "kernel_corpus"))

import launchspec  # noqa: E402
import sass_counts  # noqa: E402
import specs  # noqa: E402

SRC = os.path.join(ROOT, "tools", "kernel_corpus")
CORPUS = os.path.join(ROOT, "tests", "data", "kernels")
BUILD = os.path.join(ROOT, "build_kernels")
PY = sys.executable


def tool(name: str) -> str:
    """A CUDA tool from PATH, else from the pip wheels next to this Python."""
    found = shutil.which(name)
    if found:
        return found
    import site
    for sp in site.getsitepackages():
        for sub in ("nvidia/cu13/bin", "nvidia/cuda_nvcc/bin", "triton/backends/nvidia/bin"):
            cand = os.path.join(sp, sub, name)
            if os.path.exists(cand):
                return cand
    raise SystemExit(f"error: {name} not found (PATH or the nvidia-cuda-{name} wheel)")


def cutlass_include() -> str:
    env = os.environ.get("CUTLASS_INCLUDE")
    if env:
        return env
    import cutlass_library  # type: ignore[import-not-found]
    return os.path.join(os.path.dirname(cutlass_library.__file__), "source", "include")


def run(cmd: list[str], cwd: str | None = None) -> str:
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)[:300]}\n{res.stderr[-4000:]}")
    return res.stdout


def tool_version(path: str) -> str:
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return out[-1] if out else "?"


def write_cuda_source(e: dict, d: str) -> None:
    with open(os.path.join(SRC, e["source"])) as fh:
        text = fh.read()
    head = [f"// Kernel corpus entry {e['name']}: tools/kernel_corpus/{e['source']} with the macros below",
            "// (written by tools/build_kernels.py; edit the source there, not this copy)."]
    head += [f"#define {k} {v}" for k, v in e["defines"].items()]
    with open(os.path.join(d, "kernel.cu"), "w") as fh:
        fh.write("\n".join(head) + "\n" + text)


def compile_ptx(e: dict, d: str) -> dict:
    """Source copy + PTX for one entry; returns the compile record for launch.json."""
    if e["source"].endswith(".py"):
        shutil.copyfile(os.path.join(SRC, e["source"]), os.path.join(d, "kernel.py"))
        cmd = [PY, "kernel.py", ".", "--arch", str(e["triton_arch"])]
        if "triton_kind" in e:  # one source holding several kernels (triton_hunt.py)
            cmd += ["--kind", e["triton_kind"]]
        run(cmd, cwd=d)
        import triton  # type: ignore[import-not-found]
        return {"tool": f"triton {triton.__version__}", "command": " ".join(["python"] + cmd[1:])}
    write_cuda_source(e, d)
    nvcc = tool("nvcc")
    cmd = [nvcc, "-ptx", "-lineinfo", "-arch=sm_90", "-std=c++17"]
    if e.get("cutlass"):
        cmd += ["-I", cutlass_include()]
    cmd += ["kernel.cu", "-o", "kernel.ptx"]
    run(cmd, cwd=d)
    shown = ["nvcc"] + cmd[1:]
    if e.get("cutlass"):
        shown[shown.index("-I") + 1] = "<nvidia-cutlass 4.2.0>/cutlass_library/source/include"
    return {"tool": "nvcc " + tool_version(nvcc), "command": " ".join(shown)}


def ptx_target(ptx: str) -> str:
    m = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    if m is None:
        raise SystemExit("error: PTX without .target")
    return m.group(1)


def strip_sass(text: str) -> str:
    """cuobjdump -sass without the hex encodings (the instruction text is kept line for line)."""
    out = []
    for line in text.splitlines():
        s = re.sub(r"\s*/\* 0x[0-9a-f]{16} \*/\s*$", "", line)
        if s.strip() == "" and line.strip() != "":
            continue
        out.append(s.rstrip())
    return "\n".join(out) + "\n"


def build_entry(e: dict, no_compile: bool = False) -> str:
    name = e["name"]
    d = os.path.join(CORPUS, name)
    b = os.path.join(BUILD, name)
    os.makedirs(d, exist_ok=True)
    os.makedirs(b, exist_ok=True)
    primary = e["same_kernel_as"] or name
    pd = os.path.join(CORPUS, primary)
    old: dict = {}
    if os.path.exists(os.path.join(d, "launch.json")):
        with open(os.path.join(d, "launch.json")) as fh:
            old = json.load(fh)
    if e["same_kernel_as"] is None:
        if no_compile and os.path.exists(os.path.join(d, "kernel.ptx")):
            compile_rec = old.get("compile", {})
        else:
            compile_rec = compile_ptx(e, d)
        with open(os.path.join(d, "kernel.ptx")) as fh:
            ptx = fh.read()
        target = ptx_target(ptx)
        arch = "sm_90a" if target == "sm_90a" else "sm_90"
        ptxas = tool("ptxas")
        cubin = os.path.join(b, "kernel.cubin")
        run([ptxas, f"-arch={arch}", "--generate-line-info", os.path.join(d, "kernel.ptx"), "-o", cubin])
        sass = strip_sass(run([tool("cuobjdump"), "-sass", cubin]))
        with open(os.path.join(d, "kernel.sass"), "w") as fh:
            fh.write(sass)
        compile_rec = {**compile_rec, "ptx_target": target, "cubin": f"ptxas -arch={arch} --generate-line-info "
                       "kernel.ptx (" + tool_version(ptxas) + ")", "sass": "cuobjdump -sass kernel.cubin, "
                       "encoding comments dropped"}
    else:
        with open(os.path.join(pd, "launch.json")) as fh:
            compile_rec = json.load(fh)["compile"]
        with open(os.path.join(pd, "kernel.ptx")) as fh:
            ptx = fh.read()
        with open(os.path.join(pd, "kernel.sass")) as fh:
            sass = fh.read()
    rel = "" if primary == name else f"../{primary}/"
    entry = launchspec.find_entry(ptx, e["entry"])
    launch = make_launch(e, entry, ptx, sass, rel, compile_rec, pd)
    with open(os.path.join(d, "launch.json"), "w") as fh:
        json.dump(launch, fh, indent=1)
        fh.write("\n")
    # check the packing now, so a wrong argument fails the build and not the GPU run
    launchspec.launch_text(launch, ptx)
    return name


def make_launch(e: dict, entry: str, ptx: str, sass: str, rel: str, compile_rec: dict, pd: str) -> dict:
    ps = launchspec.params(ptx, entry)
    dyn = e["dynamic_smem"]
    buffers = json.loads(json.dumps(e["buffers"]))
    if dyn == "triton" or any(bf["count"] == "triton_scratch" for bf in buffers.values()):
        with open(os.path.join(pd, "triton_meta.json")) as fh:
            meta = json.load(fh)
        if dyn == "triton":
            dyn = int(meta["shared"])
        for bf in buffers.values():
            if bf["count"] == "triton_scratch":
                programs = e["grid"][0] * e["grid"][1] * e["grid"][2]
                bf["count"] = max(1, int(meta["global_scratch_size"]) * programs)
    short = e["entry"]
    cli = ["layoutalg", "kernel", "kernel.ptx" if not rel else rel + "kernel.ptx", "--kernel", short,
           "--grid", ",".join(map(str, e["grid"])), "--block", ",".join(map(str, e["block"]))]
    for i in sorted(e["args"], key=int):
        cli += ["--arg", f"{i}={e['args'][i]}"]
    if dyn:
        cli += ["--dynamic-smem", str(dyn)]
    cli += ["--arch", "sm_90"]
    for chk in e.get("mma_check", []):
        cli += ["--check-mma", f"'{chk}'"]
    source = "kernel.py" if e["source"].endswith(".py") else "kernel.cu"
    launch = {
        "name": e["name"],
        "description": e["description"],
        "source": rel + source,
        "ptx": rel + "kernel.ptx",
        "sass": rel + "kernel.sass",
        "compile": compile_rec,
        "kernel": entry,
        "kernel_substring": e["entry"],
        "grid": e["grid"],
        "block": e["block"],
        "dynamic_smem": dyn,
        "params": [p.describe() for p in ps],
        "args": {k: e["args"][k] for k in sorted(e["args"], key=int)},
        **({"arg_notes": e["arg_notes"]} if "arg_notes" in e else {}),
        "buffers": buffers,
        "mma_check": e.get("mma_check", []),
        "verify": e["verify"],
        "expect": e["expect"],
        "cli": " ".join(cli),
        "static_counts": {"ptx": sass_counts.ptx_counts(ptx, entry), "sass": sass_counts.sass_counts(sass)},
    }
    return launch


def cuda_include() -> str:
    """The folder holding cuda.h: $CUDA_HOME, /usr/local/cuda, or next to nvcc."""
    cands = [os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "include"), "/usr/local/cuda/include"]
    cands.append(os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(tool("nvcc")))), "include"))
    for c in cands:
        if os.path.exists(os.path.join(c, "cuda.h")):
            return c
    raise SystemExit(f"error: cuda.h not found in {cands}")


def build_launcher() -> str:
    os.makedirs(BUILD, exist_ok=True)
    out = os.path.join(BUILD, "kernel_launcher")
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        raise SystemExit("error: no C++ compiler")
    inc = cuda_include()
    run([cxx, "-O2", "-std=c++17", "-Wall", "-Wextra", "-I", inc, "-o", out,
         os.path.join(SRC, "launcher.cpp"), "-ldl"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated entry names")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--launcher-only", action="store_true")
    ap.add_argument("--no-compile", action="store_true", help="reuse the corpus PTX")
    a = ap.parse_args(argv)
    print("launcher:", build_launcher())
    if a.launcher_only:
        return 0
    entries = specs.corpus()
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {e["name"] for e in entries}
        if unknown:
            raise SystemExit(f"error: unknown entries {sorted(unknown)}")
        entries = [e for e in entries if e["name"] in want]
    primaries = [e for e in entries if e["same_kernel_as"] is None]
    variants = [e for e in entries if e["same_kernel_as"] is not None]
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for name in pool.map(lambda e: build_entry(e, a.no_compile), primaries):
            print("built", name, flush=True)
    for e in variants:
        print("built", build_entry(e, a.no_compile), flush=True)
    names = {e["name"] for e in specs.corpus()}
    stale = [n for n in os.listdir(CORPUS) if n not in names] if os.path.isdir(CORPUS) else []
    if stale:
        print("note: corpus folders not in specs.py:", stale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
