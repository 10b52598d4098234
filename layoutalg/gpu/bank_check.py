"""Bank check: measure shared-memory wavefronts on the GPU and compare with ``banks.wavefronts``.

Measurement: Nsight Compute counters through :mod:`layoutalg.gpu.banks_ncu`
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``, one warp, one
instruction per launch) when ``ncu`` is on the PATH.  Without ``ncu``, a
``clock64`` estimate: the instruction runs in a loop, and its cycles per
execution divided by those of a one-wavefront access (every lane on one
word) give an approximate count.  The result says which (``method``), since
an estimate is not a measurement.

The suite's patterns: the 142 calibration patterns (``layoutalg/data/
h200_smem_wavefronts_calibration.json``, package data) plus :func:`generated_patterns`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

from layoutalg.errors import LayoutError
from layoutalg.gpu.suite import swizzle

CALIBRATION = "h200_smem_wavefronts_calibration.json"
"""The calibration recording, shipped as package data (``layoutalg/data/``)."""

LD = {1: "ld.shared.u8", 2: "ld.shared.u16", 4: "ld.shared.b32", 8: "ld.shared.v2.b32", 16: "ld.shared.v4.b32"}
ST = {w: s.replace("ld.", "st.") for w, s in LD.items()}
CP_ASYNC = {(4, "ca"): "cp.async.ca.shared.global, 4", (8, "ca"): "cp.async.ca.shared.global, 8",
            (16, "ca"): "cp.async.ca.shared.global, 16", (16, "cg"): "cp.async.cg.shared.global"}


def _matrix(kind: str, num: int, trans: bool) -> str:
    return f"{kind}.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"


def package_data(name: str) -> str:
    """The text of ``layoutalg/data/<name>``; a LayoutError naming the file if the install lacks it."""
    from importlib.resources import files

    resource = files("layoutalg").joinpath("data").joinpath(name)
    if not resource.is_file():
        raise LayoutError(f"layoutalg's data file data/{name} is missing from this install ({resource}); "
                          "reinstall layoutalg (the file is package data)")
    return resource.read_text(encoding="utf-8")


def calibration_patterns(path: Path | None = None) -> list[dict[str, Any]]:
    """The calibration recording's 142 patterns (name, instruction, lane_byte_addresses).

    ``path`` defaults to the copy shipped in the package; a missing file is a LayoutError, never an empty list.
    """
    if path is None:
        text = package_data(CALIBRATION)
    elif not Path(path).is_file():
        raise LayoutError(f"calibration file {path} does not exist")
    else:
        text = Path(path).read_text(encoding="utf-8")
    data = json.loads(text)
    return [{"name": f"calibration: {c['name']}", "instruction": c["instruction"],
             "lane_byte_addresses": list(c["lane_byte_addresses"]), "global_byte_addresses": None}
            for c in data["cases"]]


def generated_patterns(seed: int = 2026) -> list[dict[str, Any]]:
    """Seeded patterns beyond the calibration set: strides, broadcasts, swizzles, padding, random."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []

    def add(name: str, ins: str, addrs: list[int], glob: list[int] | None = None) -> None:
        out.append({"name": name, "instruction": ins, "lane_byte_addresses": [int(a) for a in addrs],
                    "global_byte_addresses": glob})

    for w in (1, 2, 4, 8, 16):
        for op, table in (("ld", LD), ("st", ST)):
            ins = table[w]
            for s in (1, 2, 3, 4, 5, 8, 16, 17, 32, 33):
                add(f"{op}{w} stride {s} elements", ins, [lane * w * s for lane in range(32)])
            add(f"{op}{w} broadcast one address", ins, [64 * w] * 32)
            add(f"{op}{w} pairs share an address", ins, [(lane // 2) * w * 8 for lane in range(32)])
            for r in range(3):
                slots = rng.choice(16384 // w, size=32, replace=(op == "ld"))
                add(f"{op}{w} random #{r}", ins, [int(s) * w for s in slots])
    for kind in ("ldmatrix", "stmatrix"):
        for num in (1, 2, 4):
            for trans in (False, True):
                ins = _matrix(kind, num, trans)
                for pitch in (16, 32, 64, 80, 128, 144, 256, 272):
                    add(f"{kind}.x{num}{'.t' if trans else ''} pitch {pitch}B", ins,
                        [lane * pitch for lane in range(32)])
                for bits in (1, 2, 3):  # Swizzle<bits,4,3> on bytes of a 128-byte-row tile, column 0 of rows
                    add(f"{kind}.x{num}{'.t' if trans else ''} Swizzle<{bits},4,3> rows", ins,
                        [swizzle(bits, 4, 3, lane * 128) for lane in range(32)])
                for r in range(2):
                    rows = rng.choice(1024, size=32, replace=False)
                    add(f"{kind}.x{num}{'.t' if trans else ''} random rows #{r}", ins, [int(x) * 16 for x in rows])
    for (nbytes, cache), ins in CP_ASYNC.items():
        glob = [lane * nbytes for lane in range(32)]
        add(f"cp.async.{cache}{nbytes} contiguous", ins, [lane * nbytes for lane in range(32)], glob)
        add(f"cp.async.{cache}{nbytes} stride 128B", ins, [lane * 128 for lane in range(32)], glob)
        add(f"cp.async.{cache}{nbytes} Swizzle<3,4,3> column", ins,
            [swizzle(3, 4, 3, lane * 128) for lane in range(32)], glob)
        add(f"cp.async.{cache}{nbytes} rows of 128B at pitch 144B", ins,
            [(lane * nbytes) // 128 * 144 + (lane * nbytes) % 128 for lane in range(32)], glob)
        slots = rng.choice(16384 // nbytes, size=32, replace=False)
        add(f"cp.async.{cache}{nbytes} random", ins, [int(s) * nbytes for s in slots], glob)
    return out


def suite_patterns() -> list[dict[str, Any]]:
    return calibration_patterns() + generated_patterns()


def measure_ncu(patterns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Measure with Nsight Compute via BANK's harness; each result has ``method: "ncu"``."""
    from layoutalg.gpu import banks_ncu

    cases = [banks_ncu.Case(p["name"], p["instruction"], tuple(p["lane_byte_addresses"]),
                            tuple(p["global_byte_addresses"]) if p.get("global_byte_addresses") else None)
             for p in patterns]
    results = banks_ncu.measure(cases)
    for r in results:
        r["method"] = "ncu"
    return results


def record_bank_cases(patterns: list[dict[str, Any]] | None = None,
                      progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Measure every suite pattern: ncu when present, else the clock64 estimate (said in ``method``)."""
    pats = patterns if patterns is not None else suite_patterns()
    say = progress or (lambda s: None)
    if shutil.which("ncu"):
        out = measure_ncu(pats)
        say(f"banks: {len(out)} patterns measured with ncu")
        return out
    say("banks: ncu not found; clock64 estimates only")
    return [dict(p, wavefronts=clock64_estimate(p["instruction"], p["lane_byte_addresses"]),
                 method="clock64-estimate") for p in pats]


_LDST_BODY = {  # access bytes -> (PTX type, registers)
    1: ("u8", 1), 2: ("u16", 1), 4: ("b32", 1), 8: ("v2.b32", 2), 16: ("v4.b32", 4),
}


def _clock_kernel_source(instruction: str) -> tuple[str, str]:
    """A kernel executing ``instruction`` ``reps`` times between two clock64 reads (ld/st/ldmatrix/stmatrix)."""
    from layoutalg.banks.instruction import parse_instruction

    ins = parse_instruction(instruction)
    name = "clk_" + "".join(ch if ch.isalnum() else "_" for ch in ins.canonical)
    if ins.kind in ("ldmatrix", "stmatrix"):
        n, mnemonic = ins.matrices, ins.canonical
    else:
        ptx_type, n = _LDST_BODY[ins.access_bytes]
        mnemonic = f"{ins.kind}.shared.{ptx_type}"
    if ins.kind in ("ldmatrix", "ld"):
        outs = ", ".join(f'"=r"(v[{i}])' for i in range(n))
        regs = ", ".join(f"%{i}" for i in range(n))
        regs = regs if n == 1 and ins.kind == "ld" else "{" + regs + "}"
        body = f'asm volatile("{mnemonic} {regs}, [%{n}];" : {outs} : "r"(a)); acc ^= v[0];'
    else:
        regs = ", ".join(f"%{i + 1}" for i in range(n))
        regs = regs if n == 1 and ins.kind == "st" else "{" + regs + "}"
        args = ", ".join(f'"r"(acc + {i}u)' for i in range(n))
        body = f'asm volatile("{mnemonic} [%0], {regs};" :: "r"(a), {args} : "memory");'
    src = f"""
extern "C" __global__ void {name}(const unsigned* lane_addr, long long* cycles, unsigned* sink, int reps,
                                  unsigned zero) {{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned a0 = (unsigned)__cvta_generic_to_shared(smem_raw) + lane_addr[threadIdx.x];
    unsigned acc = threadIdx.x;
    unsigned v[4] = {{0, 0, 0, 0}};
    for (int i = threadIdx.x; i < 12288; i += 32) ((unsigned*)smem_raw)[i] = 0u;
    __syncwarp();
    long long t0 = clock64();
    for (int r = 0; r < reps; ++r) {{
        const unsigned a = a0 + ((acc ^ v[0]) & zero);  // each access waits for the previous one
        {body}
    }}
    __syncwarp();
    long long t1 = clock64();
    sink[threadIdx.x] = acc ^ v[0];
    if (threadIdx.x == 0) cycles[0] = t1 - t0;
}}
"""
    return name, src


def clock64_estimate(instruction: str, lane_byte_addresses: list[int], reps: int = 256) -> int:
    """Approximate wavefronts from cycles of a dependent chain of ``reps`` executions.

    ``1 + (cycles(pattern) - cycles(all lanes on address 0)) / cycles_per_wavefront``, where
    ``cycles_per_wavefront`` comes from ``ld.shared.b32`` over one 4-byte column of 32 rows
    (32 wavefronts) against its broadcast (1).  An estimate, not a measurement: pipelining and
    issue overheads blur it; cp.async is not supported (raises).
    """
    from layoutalg.banks.instruction import parse_instruction

    if parse_instruction(instruction).kind == "cp.async":
        from layoutalg.errors import InstructionError

        raise InstructionError("clock64 estimates cover ld/st/ldmatrix/stmatrix, not cp.async; install ncu")
    column = [128 * lane for lane in range(32)]
    per_wavefront = max(1e-9, (_chain_cycles("ld.shared.b32", column, reps)
                               - _chain_cycles("ld.shared.b32", [0] * 32, reps)) / 31)
    extra = _chain_cycles(instruction, list(lane_byte_addresses), reps) - _chain_cycles(instruction, [0] * 32, reps)
    return max(1, int(round(1 + extra / per_wavefront)))


def _chain_cycles(instruction: str, addrs: list[int], reps: int) -> float:
    """Fewest clock64 cycles per execution over 3 launches."""
    import numpy as np

    from layoutalg.gpu.runner import compile_kernels, launch

    name, src = _clock_kernel_source(instruction)
    kernel = compile_kernels([(name, src)])[name]
    best = float("inf")
    for _ in range(3):
        out = launch(kernel, 1, [np.array(addrs, dtype=np.uint32), np.zeros(1, dtype=np.int64),
                                 np.zeros(32, dtype=np.uint32), reps, 0], [1], smem=48 * 1024)[0]
        best = min(best, float(out[0]) / reps)
    return best


def bank_check(instruction: str, lane_byte_addresses: list[int]) -> dict[str, Any]:
    """Measure one pattern and compare with ``banks.wavefronts``: ``{measured, method, model, agree}``."""
    from layoutalg.banks import wavefronts  # type: ignore[attr-defined]

    pattern = {"name": "user pattern", "instruction": instruction,
               "lane_byte_addresses": list(lane_byte_addresses), "global_byte_addresses": None}
    measured = record_bank_cases([pattern])[0]
    model = wavefronts(instruction, list(lane_byte_addresses))
    return {"instruction": instruction, "measured": measured["wavefronts"], "method": measured["method"],
            "model": model, "agree": measured["wavefronts"] == model}
