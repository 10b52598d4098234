"""Build the hunt kernels (hunt_gemm.cu): one PTX (NAME.ptx.gz, ``nvcc -ptx -arch=sm_80``) per entry of ``CORRECT``
and ``BUGS``, and hunt.json (launch, ``--check-mma`` arguments, expected verdict and counterexample kind).

    python tests/data/kernels_fresh/hunt/build_hunt.py [--manifest-only]

Unlike fresh_gemm.cu: a 64 x 64 CTA tile with 32 x 32 (or 32 x 16) warp tiles, k-tiles of 128 bytes of K in
64 rows of 128-byte shared rows, Swizzle<3,4,3>, <2,4,3> and <3,5,3> on byte offsets (CuTe's Sw<3,3,3>,
Sw<2,3,3>, Sw<3,4,3> on f16 elements) or 16-byte padding, 3-stage cp.async, a column-major A through
ldmatrix.x4.trans, tf32 through ldmatrix, an s8 m16n8k32 (expected unknown), stmatrix.x4 epilogues.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from build import gzip_ptx  # noqa: E402  (tests/data/kernels_fresh/build.py)

#: correct configurations (switches in hunt_gemm.cu) and their expected verdict
CORRECT = {
    "h1_f16_tn_sw333_cp3": ({"HW_DT": 0}, "proved"),
    "h2_bf16_nn_trans_sw233_cp2_wn4": ({"HW_DT": 1, "HW_BKMAJOR": 0, "HW_SWB": 2, "HW_SWM": 4, "HW_SWS": 3,
                                        "HW_STAGES": 2, "HW_WN": 4}, "proved"),
    "h3_f16_acol_btrans_sw343_ldst_epi1": ({"HW_DT": 0, "HW_ACOL": 1, "HW_BKMAJOR": 0, "HW_SWB": 3, "HW_SWM": 5,
                                            "HW_SWS": 3, "HW_STAGES": 1, "HW_EPI": 1}, "proved"),
    "h4_tf32_tn_ldsm_sw333_cp3": ({"HW_DT": 2}, "proved"),
    "h5_tf32_tn_lds32_pad_cp2_epi1": ({"HW_DT": 2, "HW_SWB": 0, "HW_PAD": 16, "HW_STAGES": 2, "HW_FRAG": 1,
                                       "HW_EPI": 1}, "proved"),
    "h6_s8_tn_sw333_cp3": ({"HW_DT": 3}, "unknown"),
    "h7_f16_tn_lds32_pad_ldst_stsm": ({"HW_DT": 0, "HW_SWB": 0, "HW_PAD": 16, "HW_STAGES": 1, "HW_FRAG": 1,
                                       "HW_EPI": 2}, "proved"),
    "h8_bf16_acol_bkmaj_sw333_cp3_wn4_stsm": ({"HW_DT": 1, "HW_ACOL": 1, "HW_WN": 4, "HW_EPI": 2}, "proved"),
}

#: planted bugs: name -> (base, macro, expected verdict, expected counterexample kind)
BUGS = {
    "x01_swz_write_only": ("h1", "BUG_SWZ_WRITE_ONLY", "refuted", "operand"),
    "x02_wrong_xor": ("h2s3", "BUG_WRONG_XOR", "refuted", "operand"),
    "x03_pad_off": ("h7", "BUG_PAD_OFF", "refuted", "operand"),
    "x04_ldsm_lane": ("h1", "BUG_LDSM_LANE", "refuted", "operand"),
    "x05_no_trans": ("h2", "BUG_NO_TRANS", "refuted", "operand"),
    "x06_breg_swap": ("h1", "BUG_AB_REG_SWAP", "refuted", "operand"),
    "x07_breg_swap_tf32": ("h4", "BUG_AB_REG_SWAP", "refuted", "operand"),
    "x08_next_stage": ("h1", "BUG_NEXT_STAGE", "refuted", "duplicate"),
    "x09_no_wait": ("h1", "BUG_NO_WAIT", "refuted", "race"),
    "x10_no_sync_cp": ("h4", "BUG_NO_SYNC", "refuted", "race"),
    "x11_no_sync_ldst": ("h3", "BUG_NO_SYNC", "refuted", "race"),
    "x12_c_perm": ("h1", "BUG_C_PERM", "refuted", "accumulator"),
    "x13_c_perm_tf32": ("h5", "BUG_C_PERM", "refuted", "accumulator"),
    "x14_gstride_row": ("h1", "BUG_GSTRIDE_ROW", "refuted", "operand"),
    "x15_unloaded_reg": ("h1", "BUG_UNLOADED_REG", "refuted", "operand"),
    "x16_b_next_ktile": ("h8", "BUG_B_NEXT_KTILE", "refuted", "operand"),
    "x17_epi_nosync": ("h5", "BUG_EPI_NOSYNC", "refuted", "race"),
    "x18_stsm_lane": ("h1e2", "BUG_STSM_LANE", "refuted", "store"),
    "x19_epi_row": ("h1", "BUG_EPI_ROW", "refuted", "store"),
    "x20_swz_write_only_acol": ("h3", "BUG_SWZ_WRITE_ONLY", "refuted", "operand"),
    "x21_wrong_xor_tf32": ("h4", "BUG_WRONG_XOR", "refuted", "operand"),
    "x22_ldsm_lane_tf32": ("h4", "BUG_LDSM_LANE", "refuted", "operand"),
    "x23_no_wait_2stage": ("h2", "BUG_NO_WAIT", "refuted", "race"),
    "x24_s8_swz_write_only": ("h6", "BUG_SWZ_WRITE_ONLY", "unknown", ""),
    "x25_acc_reset": ("h1", "BUG_ACC_RESET", "refuted", "store"),
    "x26_epi_presync": ("h1e1", "BUG_EPI_PRESYNC", "refuted", "race"),
    "x27_cvt_swap": ("h1e2", "BUG_CVT_SWAP", "refuted", "store"),
    "x30_prefetch_early_3st": ("h1", "BUG_PREFETCH_EARLY", "refuted", "race"),
    "x31_prefetch_early_2st": ("h2", "BUG_PREFETCH_EARLY", "refuted", "race"),
    "x32_no_trail_ldst": ("h3", "BUG_NO_TRAIL", "refuted", "race"),
    "x33_b_nt_swap": ("h4", "BUG_B_NT_SWAP", "refuted", "store"),
    "x34_b_nt_swap_f16": ("h7", "BUG_B_NT_SWAP", "refuted", "store"),
}

#: other bases: h1 with another epilogue; h2's N-major B with 2 stages and Swizzle<3,4,3> (two XOR bits of three
#: are then the wrong swizzle, where with h2's Swizzle<2,4,3> they are the right one)
VARIANTS = {"h1e1": {"HW_DT": 0, "HW_EPI": 1}, "h1e2": {"HW_DT": 0, "HW_EPI": 2},
            "h2s3": {"HW_DT": 1, "HW_BKMAJOR": 0, "HW_STAGES": 2}}


def launch(d: dict) -> dict:
    """Grid, arguments and --check-mma specs: M = N = 128, K = four k-tiles of 128 bytes."""
    m = n = 128
    k = 4 * (128 // {0: 2, 1: 2, 2: 4, 3: 1}[d.get("HW_DT", 0)])
    a = f"0@({m},{k}):(1,{m})" if d.get("HW_ACOL", 0) else f"0@({m},{k}):({k},1)"
    b = f"1@({k},{n}):(1,{k})" if d.get("HW_BKMAJOR", 1) else f"1@({k},{n}):({n},1)"
    return {"grid": [n // 64, m // 64, 1], "block": [64 * d.get("HW_WN", 2), 1, 1], "args": {"3": m, "4": n, "5": k},
            "check_mma": [f"A={a}", f"B={b}", f"C=2@({m},{n}):({n},1)"]}


def entries() -> dict:
    out = {}
    for name, (d, verdict) in CORRECT.items():
        out[name] = {"defines": d, **launch(d), "expect": {"verdict": verdict}}
    for name, (base, macro, verdict, kind) in BUGS.items():
        d = dict(VARIANTS.get(base) or next(v for k, (v, _) in CORRECT.items() if k.startswith(base + "_")))
        d[macro] = 1
        out[name] = {"defines": d, "base": base, "bug": macro, **launch(d), "expect": {"verdict": verdict, "kind": kind}}
    return out


def main() -> None:
    es = entries()
    with open(os.path.join(HERE, "hunt.json"), "w") as fh:
        json.dump(es, fh, indent=1, sort_keys=True)
        fh.write("\n")
    if "--manifest-only" in sys.argv:
        return
    nvcc = shutil.which("nvcc") or "/usr/local/bin/nvcc"
    for name, e in es.items():
        flags = [f"-D{k}={v}" for k, v in e["defines"].items()] + [f"-DKNAME={name}"]
        subprocess.run([nvcc, "-ptx", "-lineinfo", "-arch=sm_80", "-std=c++17", "-diag-suppress", "177", *flags,
                        "hunt_gemm.cu", "-o", name + ".ptx"], cwd=HERE, check=True)
        gzip_ptx(os.path.join(HERE, name + ".ptx"))


if __name__ == "__main__":
    main()
