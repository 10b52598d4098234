"""Run every fresh data-flow kernel once on the GPU and compare its C with A @ B (issue 15's numerical check).

    python tools/verify_fresh_numerics.py OUT.json        # on a machine with CuPy and a CUDA GPU

Each kernel of ``tests/data/kernels_fresh/manifest.json`` and ``.../triton/triton.json`` is loaded from
its committed PTX (``cupy.RawModule``) and launched as its manifest says.  The matrices are laid out in
their buffers by the manifest's own ``--check-mma`` layouts (``X=PARAM@LAYOUT``), filled with small
integers (exact in f16, bf16 and tf32, and their sums exact in f32), so the comparison is exact.  A
kernel's output agrees or it does not; the data-flow verdict (proved or refuted) is recorded beside it.
A racy kernel (a planted missing barrier) may happen to agree: a race is a refutation whatever one run
printed.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent.parent / "tests" / "data" / "kernels_fresh"


def _params(ptx: str, kernel: str) -> list[str]:
    """The PTX parameter types of ``kernel``, in order (u64 / u32 / s32 ...)."""
    head = ptx[ptx.index(f".entry {kernel}("):]
    head = head[: head.index(")")]
    return re.findall(r"\.param\s+\.(\w+)", head)


def _read_ptx(path: Path) -> str:
    """The PTX text of ``path``, or of ``path`` + ``.gz`` (the committed kernels are gzipped)."""
    if path.exists():
        return path.read_text()
    return gzip.decompress(Path(str(path) + ".gz").read_bytes()).decode()


def _to_device_bits(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "f16":
        return values.astype(np.float16)
    if dtype == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return values.astype(np.float32)


def _from_device_bits(raw: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "f16":
        return raw.view(np.float16).astype(np.float64)
    if dtype == "bf16":
        return (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.view(np.float32).astype(np.float64)


def _nbytes(dtype: str) -> int:
    return 4 if dtype in ("f32", "tf32") else 2


def _types(name: str, entry: dict[str, Any]) -> tuple[str, str, str]:
    """(A element, B element, C element) of one kernel, from its build defines (fresh) or its name (Triton)."""
    defines = entry.get("defines")
    if defines is None:  # Triton: t1 f16 -> f16 out, t2 bf16 -> bf16 out, t3 tf32 -> f32 out
        elem = "bf16" if "_bf16_" in name else ("f32" if "_tf32_" in name else "f16")
        return elem, elem, elem
    elem = "bf16" if defines.get("FR_BF16") else "f16"
    a = "f32" if defines.get("FR_ACONV") else elem
    c = elem if defines.get("FR_EPI") in (2, 3) else "f32"
    return a, elem, c


def run_one(name: str, entry: dict[str, Any], ptx_path: Path, rng: np.random.Generator) -> dict[str, Any]:
    import cupy as cp

    from layoutalg import parse

    ptx = _read_ptx(ptx_path)
    kernel = entry.get("kernel", name)
    params = _params(ptx, kernel)
    specs = {}
    for spec in entry["check_mma"]:
        role, rest = spec.split("=", 1)
        index, layout_text = rest.split("@", 1)
        specs[role] = (int(index), parse(layout_text))
    a_t, b_t, c_t = _types(name, entry)
    (ia, la), (ib, lb), (ic, lc) = specs["A"], specs["B"], specs["C"]
    m, k = la.shape[0], la.shape[1]
    n = lb.shape[1]
    A = rng.integers(-2, 3, size=(m, k)).astype(np.float64)
    B = rng.integers(-2, 3, size=(k, n)).astype(np.float64)
    cinit = bool((entry.get("defines") or {}).get("FR_CINIT"))
    C0 = rng.integers(-2, 3, size=(m, n)).astype(np.float64) if cinit else np.zeros((m, n))

    def buffer(layout: Any, values: np.ndarray, dtype: str) -> np.ndarray:
        size = max(int(layout(i, j)) for i in range(values.shape[0]) for j in range(values.shape[1])) + 1
        flat = np.zeros(size + 64, dtype=np.float64)  # slack: a wrong kernel may read a little past the matrix
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                flat[int(layout(i, j))] = values[i, j]
        return _to_device_bits(flat, dtype)

    host = {ia: buffer(la, A, a_t), ib: buffer(lb, B, b_t), ic: buffer(lc, C0, c_t)}
    device = {i: cp.asarray(h) for i, h in host.items()}
    scratch = cp.zeros(1 << 20, dtype=cp.uint8)
    args: list[Any] = []
    for i, kind in enumerate(params):
        if i in device:
            args.append(device[i])
        elif kind in ("u64", "b64", "s64"):
            args.append(scratch)
        else:
            args.append(np.int32(entry["args"][str(i)]))
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as handle:  # RawModule loads PTX by path
        handle.write(ptx)
    module = cp.RawModule(path=handle.name)
    fn = module.get_function(kernel)
    smem = int(entry.get("dynamic_smem", 0))
    if smem > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = smem
    fn(tuple(entry["grid"]), tuple(entry["block"]), tuple(args), shared_mem=smem)
    cp.cuda.Device().synchronize()
    raw = cp.asnumpy(device[ic])
    got = _from_device_bits(raw, c_t)
    want = A @ B + C0
    wrong = [(i, j) for i in range(m) for j in range(n) if got[int(lc(i, j))] != want[i, j]]
    return {"kernel": name, "verdict_expected": entry["expect"]["verdict"] if "expect" in entry else "proved",
            "elements": m * n, "wrong_elements": len(wrong), "first_wrong": wrong[:3],
            "types": [a_t, b_t, c_t]}


def main(out: str) -> int:
    rng = np.random.default_rng(15)
    rows = []
    fresh = json.loads((HERE / "manifest.json").read_text())
    for name, entry in sorted(fresh.items()):
        path = HERE / f"{name}.ptx"
        if path.exists() or Path(str(path) + ".gz").exists():
            rows.append(_guarded(run_one, name, entry, path, rng))
    triton = json.loads((HERE / "triton" / "triton.json").read_text())
    for name, entry in sorted(triton.items()):
        rows.append(_guarded(run_one, name, entry, HERE / "triton" / f"{name}.ptx", rng))
    Path(out).write_text(json.dumps({"rows": rows}, indent=1))
    for r in rows:
        print(f"{r['kernel']:70s} {r.get('verdict_expected', '?'):8s} wrong {r.get('wrong_elements', r.get('error'))}")
    return 0


def _guarded(fn: Any, *args: Any) -> dict[str, Any]:
    try:
        return fn(*args)  # type: ignore[no-any-return]
    except Exception as exc:  # noqa: BLE001 - one kernel's failure is recorded, the rest still run
        return {"kernel": args[0], "error": f"{type(exc).__name__}: {exc}"[:400]}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
