"""Numerical checks of a corpus kernel's output against its launch.json ``verify`` relation (numpy).

The launcher dumps every buffer before (``buf<ID>.in``) and after (``buf<ID>.out``) the measured
launch; the reference is computed in float64 from the ``.in`` contents, so nothing depends on
reproducing the launcher's random numbers.  Kinds:
- ``gemm``: C = alpha * A @ B + beta * C_in, each matrix an (rows, cols) view with element strides
  (A = M x K, B = K x N, C = M x N); passes when every C element is finite and within
  ``atol + rtol * |ref|``.  A failure lists how many elements are wrong and the first few (m, n).
- ``transpose``: out == in^T exactly.  ``block_sum``: out[b] == sum of block b, within atol.
- ``softmax``: row softmax within atol.  ``histogram``: out == bincount(in & mask) exactly.
- ``gather``: out == table[idx & mask] exactly.
- ``reference``: one output buffer against a named function of the input buffers and ``params``
  (``REFERENCES`` in :mod:`verify_refs`): exact for integers and where ``atol`` is 0, else within atol;
  only the elements the function marks as written are compared.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import verify_refs

NP_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "u8": np.uint8, "i8": np.int8,
             "u16": np.uint16, "i16": np.int16, "u32": np.uint32, "i32": np.int32, "u64": np.uint64,
             "i64": np.int64}


def _load(dump: str, ids: dict[str, int], arg: int, dtype: str, which: str) -> np.ndarray:
    path = os.path.join(dump, f"buf{ids[str(arg)]}.{which}")
    return np.fromfile(path, dtype=NP_DTYPES[dtype])


def _view(flat: np.ndarray, spec: dict) -> np.ndarray:
    r, c = spec["shape"]
    sr, sc = spec["stride"]
    idx = np.arange(r)[:, None] * sr + np.arange(c)[None, :] * sc
    if idx.max() >= flat.size:
        raise ValueError(f"matrix view {spec['layout'] if 'layout' in spec else spec} exceeds its buffer")
    return flat[idx].astype(np.float64)


def _wrong_report(bad: np.ndarray, ref: np.ndarray, got: np.ndarray, limit: int = 8) -> dict[str, Any]:
    where = np.argwhere(bad)
    first = [{"coord": [int(x) for x in w], "expected": float(ref[tuple(w)]), "got": float(got[tuple(w)])}
             for w in where[:limit]]
    return {"wrong": int(bad.sum()), "of": int(bad.size), "first_wrong": first}


def _close(out: np.ndarray, ref: np.ndarray, atol: float) -> dict[str, Any]:
    finite = np.isfinite(out)
    err = np.abs(out - ref)[finite]
    ok = bool(finite.all() and (err <= atol).all())
    return {"ok": ok, "max_abs_err": float(err.max()) if err.size else None, "not_finite": int((~finite).sum()),
            "atol": atol}


def check(verify: dict, dump: str, ids: dict[str, int]) -> dict[str, Any]:
    """The result of one kernel's relation: ``ok`` plus the figures behind it."""
    kind = verify["kind"]
    if kind == "gemm":
        a = _view(_load(dump, ids, verify["A"]["arg"], verify["A"]["dtype"], "in"), verify["A"])
        b = _view(_load(dump, ids, verify["B"]["arg"], verify["B"]["dtype"], "in"), verify["B"])
        c_spec = verify["C"]
        c_out = _view(_load(dump, ids, c_spec["arg"], c_spec["dtype"], "out"), c_spec)
        ref = verify["alpha"] * (a @ b)
        if verify["beta"]:
            ref = ref + verify["beta"] * _view(_load(dump, ids, c_spec["arg"], c_spec["dtype"], "in"), c_spec)
        with np.errstate(invalid="ignore"):
            err = np.abs(c_out - ref)
            bad = ~(np.isfinite(c_out) & (err <= verify["atol"] + verify.get("rtol", 0.0) * np.abs(ref)))
        finite = np.isfinite(c_out)
        res = {"ok": not bad.any(), "max_abs_err": float(err[finite].max()) if finite.any() else None,
               "not_finite": int((~finite).sum()), "atol": verify["atol"], "ref_max_abs": float(np.abs(ref).max())}
        if bad.any():
            res.update(_wrong_report(bad, ref, c_out))
        return res
    if kind == "transpose":
        src = _view(_load(dump, ids, verify["in"]["arg"], verify["in"]["dtype"], "in"), verify["in"])
        out = _view(_load(dump, ids, verify["out"]["arg"], verify["out"]["dtype"], "out"), verify["out"])
        bad = ~(out == src.T)
        return {"ok": not bad.any(), **(_wrong_report(bad, src.T, out) if bad.any() else {})}
    if kind == "block_sum":
        src = _load(dump, ids, verify["in"]["arg"], verify["in"]["dtype"], "in").astype(np.float64)
        out = _load(dump, ids, verify["out"]["arg"], verify["out"]["dtype"], "out").astype(np.float64)
        ref = src.reshape(-1, verify["block"]).sum(axis=1)
        return _close(out, ref, verify["atol"])
    if kind == "softmax":
        x = _view(_load(dump, ids, verify["in"]["arg"], verify["in"]["dtype"], "in"), verify["in"])
        out = _view(_load(dump, ids, verify["out"]["arg"], verify["out"]["dtype"], "out"), verify["out"])
        e = np.exp(x - x.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        return _close(out, ref, verify["atol"])
    if kind == "histogram":
        data = _load(dump, ids, verify["in"]["arg"], verify["in"]["dtype"], "in")
        out = _load(dump, ids, verify["out"]["arg"], verify["out"]["dtype"], "out")
        before = _load(dump, ids, verify["out"]["arg"], verify["out"]["dtype"], "in")
        ref = before.astype(np.int64) + np.bincount((data & verify["mask"]).astype(np.int64),
                                                    minlength=out.size)[: out.size]
        bad = out.astype(np.int64) != ref
        return {"ok": not bad.any(), "wrong": int(bad.sum()), "total": int(out.sum())}
    if kind == "gather":
        table = _load(dump, ids, verify["table"]["arg"], verify["table"]["dtype"], "in")
        idx = _load(dump, ids, verify["idx"]["arg"], verify["idx"]["dtype"], "in")
        out = _load(dump, ids, verify["out"]["arg"], verify["out"]["dtype"], "out")
        ref = table[(idx & verify["mask"]).astype(np.int64)]
        bad = ~(out == ref)
        return {"ok": not bad.any(), "wrong": int(bad.sum())}
    if kind == "reference":
        ins = {name: _load(dump, ids, spec["arg"], spec["dtype"], "in") for name, spec in verify["inputs"].items()}
        o = verify["out"]
        out = _load(dump, ids, o["arg"], o["dtype"], "out")
        ref, mask = verify_refs.REFERENCES[verify["function"]](ins, verify.get("params", {}), out.size)
        got = out[mask]
        want = ref[mask]
        if np.issubdtype(out.dtype, np.integer) or not verify.get("atol"):
            bad = ~((got == want) | (np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))))
            return {"ok": not bad.any(), "wrong": int(bad.sum()), "of": int(bad.size),
                    **({"first_wrong": [int(i) for i in np.flatnonzero(mask)[bad][:8]]} if bad.any() else {})}
        return _close(got.astype(np.float64), want.astype(np.float64), verify["atol"])
    raise ValueError(f"unknown verify kind {kind!r}")


def synthesize(verify: dict, dump: str, ids: dict[str, int], sizes: dict[str, tuple[str, int]],
               rng: np.random.Generator) -> None:
    """Write dumps that satisfy ``verify`` (inputs random, outputs the reference): a dry-run check
    that the relation, the views and the buffer ids fit together.  ``sizes``: slot -> (dtype, count)."""
    os.makedirs(dump, exist_ok=True)
    arrays: dict[str, np.ndarray] = {}
    for key, (dtype, count) in sizes.items():
        dt = NP_DTYPES[dtype]
        if np.issubdtype(dt, np.floating):
            arrays[key] = rng.uniform(-1, 1, count).astype(dt)
        else:
            arrays[key] = rng.integers(0, np.iinfo(dt).max, count, dtype=dt, endpoint=True)
    outs = {k: v.copy() for k, v in arrays.items()}
    kind = verify["kind"]

    def put(spec: dict, value: np.ndarray) -> None:
        flat = outs[str(spec["arg"])]
        r, c = spec["shape"]
        idx = np.arange(r)[:, None] * spec["stride"][0] + np.arange(c)[None, :] * spec["stride"][1]
        flat[idx] = value.astype(flat.dtype)

    def get(spec: dict) -> np.ndarray:
        return _view(arrays[str(spec["arg"])], spec)

    if kind == "gemm":
        ref = verify["alpha"] * (get(verify["A"]) @ get(verify["B"])) + verify["beta"] * get(verify["C"])
        put(verify["C"], ref)
    elif kind == "transpose":
        put(verify["out"], get(verify["in"]).T)
    elif kind == "block_sum":
        src = arrays[str(verify["in"]["arg"])].astype(np.float64)
        outs[str(verify["out"]["arg"])][:] = src.reshape(-1, verify["block"]).sum(axis=1)
    elif kind == "softmax":
        x = get(verify["in"])
        e = np.exp(x - x.max(axis=1, keepdims=True))
        put(verify["out"], e / e.sum(axis=1, keepdims=True))
    elif kind == "histogram":
        data = arrays[str(verify["in"]["arg"])]
        o = outs[str(verify["out"]["arg"])]
        o[:] = arrays[str(verify["out"]["arg"])] + np.bincount(
            (data & verify["mask"]).astype(np.int64), minlength=o.size)[: o.size].astype(o.dtype)
    elif kind == "gather":
        outs[str(verify["out"]["arg"])][:] = arrays[str(verify["table"]["arg"])][
            (arrays[str(verify["idx"]["arg"])] & verify["mask"]).astype(np.int64)]
    elif kind == "reference":
        ins = {name: arrays[str(spec["arg"])] for name, spec in verify["inputs"].items()}
        o = outs[str(verify["out"]["arg"])]
        ref, mask = verify_refs.REFERENCES[verify["function"]](ins, verify.get("params", {}), o.size)
        o[mask] = ref[mask].astype(o.dtype)
    for key, arr in arrays.items():
        arr.tofile(os.path.join(dump, f"buf{ids[key]}.in"))
        outs[key].tofile(os.path.join(dump, f"buf{ids[key]}.out"))
