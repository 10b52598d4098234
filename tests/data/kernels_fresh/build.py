"""Build the fresh data-flow kernels: one PTX (stored as NAME.ptx.gz) per entry of ``ENTRIES`` from fresh_gemm.cu, and
manifest.json (the launch, the ``--check-mma`` arguments and the expected verdict of each).

    python tests/data/kernels_fresh/build.py [--manifest-only] [NAME_PREFIX ...]

Needs ``nvcc`` (``nvcc -ptx -arch=sm_90`` needs no GPU); the test replays the committed PTX.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

#: correct configurations (see the switches in fresh_gemm.cu)
BASE = {
    "c1_f16_k16_ldsm_perm_trans_x2_sw232_cpasync2_v2f32":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=0),
    "c2_bf16_k16_lds32_kmajor_padded_1stage_smemepi_lda136":
        dict(FR_BF16=1, FR_MMAK=16, FR_ALOAD=1, FR_BKMAJOR=1, FR_BLOAD=1, FR_SWZ=0, FR_STAGES=1, FR_EPI=1),
    "c3_f16_k8_ldsm_x2_kmajor_sw232_cpasync2_f16out":
        dict(FR_BF16=0, FR_MMAK=8, FR_ALOAD=0, FR_BKMAJOR=1, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=2),
    "c4_bf16_k8_lds32_x1trans_padded_cpasync2_smemepi":
        dict(FR_BF16=1, FR_MMAK=8, FR_ALOAD=1, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=0, FR_STAGES=2, FR_EPI=1),
    "c5_f16_k16_ldsm_u16pack_sw232_1stage_f16out_grid2x4":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=1, FR_SWZ=1, FR_STAGES=1, FR_EPI=2),
    "c6_bf16_k16_ldsm_kmajor_x4_sw232_cpasync2_v2f32":
        dict(FR_BF16=1, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=1, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=0),
    "c7_f16_k8_ldsm_x2_x1trans_ignored_lanes_in_flight_cpasync2":
        dict(FR_BF16=0, FR_MMAK=8, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=0, FR_JUNK=1),
    "c8_f16_k16_ldsm_u16prmt_padded_1stage_kreverse":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=1, FR_PACK=1, FR_SWZ=0, FR_STAGES=1, FR_EPI=0,
             FR_KREV=1),
    "c9_f16_k16_lds32_u16shlor_sw232_cpasync2_stmatrix_trans_colmajor_c":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=1, FR_BKMAJOR=0, FR_BLOAD=1, FR_PACK=2, FR_SWZ=1, FR_STAGES=2, FR_EPI=3),
    "c10_f16_k16_kmajor_guarded_48x48x80_cpasync_zfill":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=1, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=0, FR_GUARD=1),
    "c11_bf16_k8_guarded_40x56x48_1stage_zero_store":
        dict(FR_BF16=1, FR_MMAK=8, FR_ALOAD=1, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=0, FR_STAGES=1, FR_EPI=0, FR_GUARD=1),
    "c12_f16_k16_c_plus_ab_cinit_cpasync2":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=0, FR_CINIT=1),
    "c13_f16_k16_8warps_2x4_x2trans_sw_cpasync2_smemepi":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=1, FR_STAGES=2, FR_EPI=1, FR_WN=4),
    "c14_bf16_k8_8warps_2x4_kmajor_lds32_padded_1stage_v2f32":
        dict(FR_BF16=1, FR_MMAK=8, FR_ALOAD=1, FR_BKMAJOR=1, FR_BLOAD=1, FR_SWZ=0, FR_STAGES=1, FR_EPI=0, FR_WN=4),
}

#: configurations the check must answer "unknown" for (the reason names what it does not follow)
UNKNOWN = {
    "u1_f16_a_converted_from_f32":
        dict(FR_BF16=0, FR_MMAK=16, FR_ALOAD=0, FR_BKMAJOR=0, FR_BLOAD=0, FR_SWZ=0, FR_STAGES=1, FR_EPI=0, FR_ACONV=1),
}

#: problem shapes other than M = N = 64, K = 128 (M, N, K)
SHAPES = {"c5": (128, 64, 128), "c10": (48, 48, 80), "c11": (40, 56, 48), "c13": (64, 128, 128), "c14": (64, 128, 64)}

#: planted bugs: (name, base, macro, expected verdict, expected counterexample kind)
BUGS = [
    ("b_missing_trans_x2", "c1", "BUG_MISSING_TRANS", "refuted", "operand"),
    ("b_missing_trans_x1", "c4", "BUG_MISSING_TRANS", "refuted", "operand"),
    ("b_swizzle_write_only", "c1", "BUG_SWZ_WRITE_ONLY", "refuted", "operand"),
    ("b_swizzle_write_only_k8", "c3", "BUG_SWZ_WRITE_ONLY", "refuted", "operand"),
    ("b_swapped_rows", "c1", "BUG_SWAP_ROWS", "refuted", "operand"),
    ("b_epi_colswap", "c1", "BUG_EPI_COLSWAP", "refuted", "store"),
    ("b_epi_colswap_f16out", "c3", "BUG_EPI_COLSWAP", "refuted", "store"),
    ("b_epi_rowswap_staged", "c2", "BUG_EPI_ROWSWAP", "refuted", "store"),
    ("b_epi_rowswap_direct", "c6", "BUG_EPI_ROWSWAP", "refuted", "store"),
    ("b_no_barsync", "c2", "BUG_NO_BARSYNC", "refuted", "race"),
    ("b_no_wait_group", "c1", "BUG_NO_WAIT", "refuted", "race"),
    ("b_no_trailing_sync", "c3", "BUG_NO_TRAILING_SYNC", "refuted", "race"),
    ("b_epi_nosync", "c4", "BUG_EPI_NOSYNC", "refuted", "race"),
    ("b_ktile_twice_1stage", "c2", "BUG_KTILE_TWICE", "refuted", "duplicate"),
    ("b_ktile_twice_cpasync", "c1", "BUG_KTILE_TWICE", "refuted", "duplicate"),
    ("b_ktile_skip", "c6", "BUG_KTILE_SKIP", "refuted", "store"),
    ("b_ab_swapped", "c1", "BUG_AB_SWAP", "refuted", "operand"),
    ("b_k_off_by_one", "c5", "BUG_K_OFF_BY_ONE", "refuted", "operand"),
    ("b_b_ktile_ahead", "c3", "BUG_B_KTILE_AHEAD", "refuted", "operand"),
    ("b_c_operand_swapped", "c1", "BUG_C_SWAP", "refuted", "accumulator"),
    ("b_c_operand_swapped_k8", "c3", "BUG_C_SWAP", "refuted", "accumulator"),
    ("b_a_register_order", "c1", "BUG_A_REG_ORDER", "refuted", "operand"),
    ("b_prmt_halves_swapped", "c8", "BUG_PACK_SWAP", "refuted", "operand"),
    ("b_no_k_guard", "c10", "BUG_NO_KGUARD", "refuted", "operand"),
    ("b_stmatrix_no_trans", "c9", "BUG_STMATRIX_NO_TRANS", "refuted", "store"),
    ("b_guard_zero_fills_a_rows", "c10", "BUG_GUARD_A_ROWS", "refuted", "store"),
    ("b_guard_zero_fills_b_k", "c10", "BUG_GUARD_B_K", "refuted", "store"),
    ("b_cinit_rows_swapped", "c12", "BUG_CINIT_ROW", "refuted", "accumulator"),
    ("b_8warps_no_wait_group", "c13", "BUG_NO_WAIT", "refuted", "race"),
    ("b_8warps_swapped_rows", "c13", "BUG_SWAP_ROWS", "refuted", "operand"),
    ("b_8warps_no_barsync", "c14", "BUG_NO_BARSYNC", "refuted", "race"),
    ("b_8warps_epi_colswap", "c14", "BUG_EPI_COLSWAP", "refuted", "store"),
]


def launch(name: str, d: dict, square: bool = False) -> dict:
    """Grid, arguments and --check-mma specs of a configuration."""
    m, n, k = (64, 64, 64) if square else SHAPES.get(name.split("_")[0], (64, 64, 128))
    lda = k + 8 if "lda136" in name else k
    b = f"1@({k},{n}):(1,{k})" if d["FR_BKMAJOR"] else f"1@({k},{n}):({n},1)"
    c = f"2@({m},{n}):(1,{m})" if d["FR_EPI"] == 3 else f"2@({m},{n}):({n},1)"
    bn = 16 * d.get("FR_WN", 2)
    return {"grid": [-(-n // bn), -(-m // 32), 1], "block": [4 * bn, 1, 1],
            "args": {"3": m, "4": n, "5": k, "6": lda},
            "check_mma": [f"A=0@({m},{k}):({lda},1)", f"B={b}", f"C={c}"]}


def entries() -> dict:
    out = {}
    for name, d in BASE.items():
        out[name] = {"defines": d, **launch(name, d), "expect": {"verdict": "proved"}}
    for name, d in UNKNOWN.items():
        out[name] = {"defines": d, **launch(name, d), "expect": {"verdict": "unknown"}}
    for name, base, macro, verdict, kind in BUGS:
        bname = next(k for k in BASE if k.startswith(base + "_"))
        d = dict(BASE[bname], **{macro: 1})
        out[name] = {"defines": d, "base": bname, "bug": macro, **launch(bname, d, square=macro == "BUG_AB_SWAP"),
                     "expect": {"verdict": verdict, "kind": kind}}
    return out


def compile_one(name: str, e: dict, nvcc: str) -> None:
    flags = [f"-D{k}={v}" for k, v in e["defines"].items()] + [f"-DKERNEL_NAME={name}"]
    cmd = [nvcc, "-ptx", "-lineinfo", "-arch=sm_90", "-std=c++17", *flags, "fresh_gemm.cu", "-o", name + ".ptx"]
    subprocess.run(cmd, cwd=HERE, check=True)
    gzip_ptx(os.path.join(HERE, name + ".ptx"))


def gzip_ptx(path: str) -> None:
    """PATH.ptx -> PATH.ptx.gz (no name or time stamp in the header, so a rebuild changes no bytes)."""
    with open(path, "rb") as src, open(path + ".gz", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
            out.write(src.read())
    os.remove(path)


def main() -> None:
    es = entries()
    with open(os.path.join(HERE, "manifest.json"), "w") as fh:
        json.dump(es, fh, indent=1, sort_keys=True)
        fh.write("\n")
    if "--manifest-only" in sys.argv:
        return
    nvcc = shutil.which("nvcc") or "/usr/local/bin/nvcc"
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    todo = [(k, v) for k, v in es.items() if not only or any(k.startswith(o) for o in only)]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda kv: compile_one(kv[0], kv[1], nvcc), todo))


if __name__ == "__main__":
    main()
