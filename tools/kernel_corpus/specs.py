"""The kernel corpus: one entry per (kernel, launch), as tools/build_kernels.py turns them into
``tests/data/kernels/<name>/``.

Each entry names its source (a file beside this one), the macros or Triton target it is built with,
the launch (grid, block, dynamic shared memory, arguments in the CLI's form, buffer contents), and
what is known about it: the matrices for ``--check-mma`` (CuTe layouts from the mma convention's
coordinates, A = M x K, B = K x N, C = M x N, to element offsets from the parameter's pointer), the
numerical relation the output must satisfy, and the verdicts expected from the tools.  A size
variant reuses the PTX of another entry (``same_kernel_as``) so the corpus stores it once.
"""

from __future__ import annotations

from typing import Any

F32_ONE = 1065353216     # 1.0f as bits
HALF_ONE = 15360         # half 1.0 as bits

Entry = dict[str, Any]


def _buf(dtype: str, count: int, init: str, role: str, lo: float = -1.0, hi: float = 1.0, seed: int = 1
         ) -> dict[str, Any]:
    b: dict[str, Any] = {"dtype": dtype, "count": count, "init": init, "role": role, "seed": seed}
    if init in ("uniform", "randint"):
        b["range"] = [lo, hi]
    return b


def _mat(arg: int, dtype: str, shape: tuple[int, int], stride: tuple[int, int]) -> dict[str, Any]:
    return {"arg": arg, "dtype": dtype, "shape": list(shape), "stride": list(stride),
            "layout": f"({shape[0]},{shape[1]}):({stride[0]},{stride[1]})"}


def _gemm(a: dict, b: dict, c: dict, atol: float, alpha: float = 1.0, beta: float = 0.0) -> dict[str, Any]:
    return {"kind": "gemm", "relation": "C = alpha * A @ B + beta * C", "A": a, "B": b, "C": c,
            "alpha": alpha, "beta": beta, "atol": atol, "rtol": 0.0}


def _mma_check(v: dict) -> list[str]:
    return [f"{k}={v[k]['arg']}@{v[k]['layout']}" for k in ("A", "B", "C")]


def cute_tutorial() -> list[Entry]:
    out: list[Entry] = []
    # half TN: params 0 shape(M,N,K), 2 A, 3 dA=(ldA,_1), 7 B, 8 dB, 12 C, 13 dC=(_1,ldC), 16 alpha, 17 beta
    for i, (m, n, k) in enumerate(((256, 128, 64), (256, 256, 256))):
        v = _gemm(_mat(2, "f16", (m, k), (k, 1)), _mat(7, "f16", (k, n), (1, k)), _mat(12, "f16", (m, n), (1, m)),
                  atol=0.02 * k ** 0.5)
        out.append({
            "name": f"cute_tutorial_hgemm_tn_{m}x{n}x{k}",
            "description": "CUTLASS CuTe tutorial sgemm_sm80.cu, half-precision TN path: 128x128x64 CTA tile, "
                           "3-stage cp.async.ca (SM80_CP_ASYNC_CACHEALWAYS<uint128_t>) into Swizzle<3,3,3> "
                           "K-major smem, SM75_U32x4_LDSM_N ldmatrix, SM80_16x8x16_F16F16F16F16_TN (2x2 warps), "
                           "register-pipelined k-blocks; C = A^T B as the tutorial writes it (A, B K-major, "
                           "C M-major), alpha 1, beta 0 (half).",
            "source": "cute_tutorial_sgemm_sm80.cu", "defines": {"CORPUS_HGEMM_TN": 1},
            "cutlass": True, "entry": "gemm_device",
            "same_kernel_as": None if i == 0 else "cute_tutorial_hgemm_tn_256x128x64",
            "grid": [m // 128, n // 128, 1], "block": [128, 1, 1], "dynamic_smem": 98304,
            "args": {"0": f"{m},{n},{k}", "1": "0", "2": "buf", "3": str(k), "4": "0", "5": "0", "6": "0",
                     "7": "buf", "8": str(k), "9": "0", "10": "0", "11": "0", "12": "buf", "13": str(m),
                     "14": "0", "15": "0", "16": str(HALF_ONE), "17": "0"},
            "buffers": {"2": _buf("f16", m * k, "uniform", "A", seed=11), "7": _buf("f16", n * k, "uniform", "B", seed=12),
                        "12": _buf("f16", m * n, "sentinel", "C")},
            "verify": v, "mma_check": _mma_check(v),
            "expect": {"mma_check": "proved", "numerics": "correct", "data_dependent": False},
        })
    # float NT: dA = (_1, ldA), dB = (_1, ldB), dC = (_1, ldC); alpha/beta float
    for i, (m, n, k) in enumerate(((256, 128, 64), (256, 256, 128))):
        v = _gemm(_mat(2, "f32", (m, k), (1, m)), _mat(7, "f32", (k, n), (n, 1)), _mat(12, "f32", (m, n), (1, m)),
                  atol=1e-3)
        out.append({
            "name": f"cute_tutorial_sgemm_nt_{m}x{n}x{k}",
            "description": "CUTLASS CuTe tutorial sgemm_sm80.cu, float NT path: 128x128x8 CTA tile, 3-stage "
                           "cp.async.ca of 16 B (4 floats, M/N-major) into unpadded M/N-major smem, "
                           "AutoVectorizingCopy smem->register loads, UniversalFMA 16x16 threads (FFMA, no mma).",
            "source": "cute_tutorial_sgemm_sm80.cu", "defines": {"CORPUS_SGEMM_NT": 1},
            "cutlass": True, "entry": "gemm_device",
            "same_kernel_as": None if i == 0 else "cute_tutorial_sgemm_nt_256x128x64",
            "grid": [m // 128, n // 128, 1], "block": [256, 1, 1], "dynamic_smem": 24576,
            "args": {"0": f"{m},{n},{k}", "1": "0", "2": "buf", "3": str(m), "4": "0", "5": "0", "6": "0",
                     "7": "buf", "8": str(n), "9": "0", "10": "0", "11": "0", "12": "buf", "13": str(m),
                     "14": "0", "15": "0", "16": str(F32_ONE), "17": "0"},
            "buffers": {"2": _buf("f32", m * k, "uniform", "A", seed=21), "7": _buf("f32", n * k, "uniform", "B", seed=22),
                        "12": _buf("f32", m * n, "sentinel", "C")},
            "verify": v, "mma_check": _mma_check(v),
            "expect": {"mma_check": None, "numerics": "correct", "data_dependent": False,
                       "note": "no mma instruction (UniversalFMA): --check-mma has no mma to check"},
        })
    m, n, k = 256, 128, 64
    v = _gemm(_mat(2, "f32", (m, k), (k, 1)), _mat(7, "f32", (k, n), (1, k)), _mat(12, "f32", (m, n), (1, m)), atol=1e-3)
    out.append({
        "name": f"cute_tutorial_sgemm_tn_{m}x{n}x{k}",
        "description": "CUTLASS CuTe tutorial sgemm_sm80.cu, float TN path: 128x128x8 CTA tile, 3-stage "
                       "cp.async.ca of 4 B (SM80_CP_ASYNC_CACHEALWAYS<float>, K-major threads) into M-major smem "
                       "padded to a 129-element column (Layout (128,8):(1,129)), UniversalFMA 16x16 (FFMA).",
        "source": "cute_tutorial_sgemm_sm80.cu", "defines": {"CORPUS_SGEMM_TN": 1},
        "cutlass": True, "entry": "gemm_device", "same_kernel_as": None,
        "grid": [m // 128, n // 128, 1], "block": [256, 1, 1], "dynamic_smem": 24768,
        "args": {"0": f"{m},{n},{k}", "1": "0", "2": "buf", "3": str(k), "4": "0", "5": "0", "6": "0",
                 "7": "buf", "8": str(k), "9": "0", "10": "0", "11": "0", "12": "buf", "13": str(m),
                 "14": "0", "15": "0", "16": str(F32_ONE), "17": "0"},
        "buffers": {"2": _buf("f32", m * k, "uniform", "A", seed=31), "7": _buf("f32", n * k, "uniform", "B", seed=32),
                    "12": _buf("f32", m * n, "sentinel", "C")},
        "verify": v, "mma_check": _mma_check(v),
        "expect": {"mma_check": None, "numerics": "correct", "data_dependent": False,
                   "note": "no mma instruction (UniversalFMA)"},
    })
    return out


def cute_cg() -> list[Entry]:
    out: list[Entry] = []
    m = n = k = 128
    for bits, tag, note in ((3, "sw333", "Swizzle<3,3,3>: conflict-free cp.async.cg writes and ldmatrix reads"),
                            (2, "sw233", "deliberately wrong Swizzle<2,3,3>: 2-way conflicts, still correct"),
                            (0, "noswizzle", "deliberately no swizzle: 8-way ldmatrix conflicts, still correct")):
        v = _gemm(_mat(3, "f16", (m, k), (k, 1)), _mat(4, "f16", (k, n), (1, k)), _mat(5, "f32", (m, n), (n, 1)),
                  atol=2e-3)
        out.append({
            "name": f"cute_gemm_cg_{tag}",
            "description": "CuTe GEMM, 64x64x64 CTA tile, 16x8 threads cp.async.cg 16 B (SM80_CP_ASYNC_CACHEGLOBAL) "
                           "into K-major (8,64):(64,1) atoms under " + note + "; SM75_U32x4_LDSM_N into "
                           "SM80_16x8x16_F32F16F16F32_TN (2x2 warps); f32 C row-major through axpby.",
            "source": "cute_gemm_cg.cu", "defines": {"SWIZZLE_BITS": bits}, "cutlass": True,
            "entry": "cute_gemm_cg", "same_kernel_as": None,
            "grid": [m // 64, n // 64, 1], "block": [128, 1, 1], "dynamic_smem": 0,
            "args": {"0": str(m), "1": str(n), "2": str(k), "3": "buf", "4": "buf", "5": "buf",
                     "6": str(F32_ONE), "7": "0"},
            "arg_notes": {"6": "alpha = 1.0f, given as its bits", "7": "beta = 0.0f"},
            "buffers": {"3": _buf("f16", m * k, "uniform", "A", seed=41), "4": _buf("f16", n * k, "uniform", "B", seed=42),
                        "5": _buf("f32", m * n, "sentinel", "C")},
            "verify": v, "mma_check": _mma_check(v),
            "expect": {"mma_check": "proved", "numerics": "correct", "data_dependent": False},
        })
    return out


def triton() -> list[Entry]:
    out: list[Entry] = []
    m = n = k = 128
    for arch in (80, 90):
        v = _gemm(_mat(0, "f16", (m, k), (k, 1)), _mat(1, "f16", (k, n), (n, 1)), _mat(2, "f16", (m, n), (n, 1)),
                  atol=2e-2)
        out.append({
            "name": f"triton_matmul_sm{arch}",
            "description": f"Triton {'' if arch == 80 else 'Hopper '}tl.dot matmul compiled for sm_{arch}"
                           f"{'' if arch == 80 else 'a'} (64x64x32 blocks, 4 warps, 3 stages): "
                           + ("cp.async + ldmatrix + mma.sync" if arch == 80 else "cp.async + wgmma") + "; f16 out.",
            "source": "triton_matmul.py", "triton_arch": arch, "entry": "matmul_kernel", "same_kernel_as": None,
            "grid": [(m // 64) * (n // 64), 1, 1], "block": [128, 1, 1], "dynamic_smem": "triton",
            "args": {"0": "buf", "1": "buf", "2": "buf", "3": str(m), "4": str(n), "5": str(k), "6": str(k),
                     "7": str(n), "8": str(n), "9": "buf", "10": "buf"},
            "arg_notes": {"9": "Triton's global scratch (unused: size 0)", "10": "Triton's profile scratch (unused)"},
            "buffers": {"0": _buf("f16", m * k, "uniform", "A", seed=51), "1": _buf("f16", k * n, "uniform", "B", seed=52),
                        "2": _buf("f16", m * n, "sentinel", "C"), "9": _buf("u8", 256, "zeros", "scratch"),
                        "10": _buf("u8", 256, "zeros", "scratch")},
            "verify": v, "mma_check": _mma_check(v),
            "expect": {"mma_check": "proved" if arch == 80 else None, "numerics": "correct", "data_dependent": False,
                       **({} if arch == 80 else {"note": "wgmma reads B (and A for some shapes) from shared memory "
                                                          "through descriptors, outside the LSU pipe"})},
        })
    v = _gemm(_mat(0, "f16", (m, k), (k, 1)), _mat(1, "f16", (k, n), (n, 1)), _mat(2, "f16", (m, n), (n, 1)), atol=2e-2)
    out.append({
        "name": "triton_matmul_tma_sm90",
        "description": "Triton Hopper matmul through device-side tensor descriptors (tensormap.replace into the "
                       "global scratch, cp.async.bulk.tensor loads, mbarrier, wgmma, stmatrix + TMA store), sm_90a.",
        "source": "triton_matmul_tma.py", "triton_arch": 90, "entry": "matmul_tma_kernel", "same_kernel_as": None,
        "grid": [(m // 64) * (n // 64), 1, 1], "block": [128, 1, 1], "dynamic_smem": "triton",
        "args": {"0": "buf", "1": "buf", "2": "buf", "3": str(m), "4": str(n), "5": str(k), "6": "buf", "7": "buf"},
        "arg_notes": {"6": "Triton's global scratch: global_scratch_size bytes per program (TMA descriptors)",
                      "7": "Triton's profile scratch (unused)"},
        "buffers": {"0": _buf("f16", m * k, "uniform", "A", seed=61), "1": _buf("f16", k * n, "uniform", "B", seed=62),
                    "2": _buf("f16", m * n, "sentinel", "C"), "6": _buf("u8", "triton_scratch", "zeros", "scratch"),
                    "7": _buf("u8", 256, "zeros", "scratch")},
        "verify": v, "mma_check": _mma_check(v),
        "expect": {"mma_check": None, "numerics": "correct", "data_dependent": False,
                   "note": "TMA (cp.async.bulk.tensor) and wgmma: outside the LSU shared-memory pipe"},
    })
    rows, cols, stride = 32, 250, 256
    out.append({
        "name": "triton_softmax_sm80",
        "description": "Triton fused row softmax compiled for sm_80 (BLOCK 256, 4 warps): cross-warp max and sum "
                       "reductions through shared memory (st.shared/ld.shared.b32 under predicates, bar.sync).",
        "source": "triton_softmax.py", "triton_arch": 80, "entry": "softmax_kernel", "same_kernel_as": None,
        "grid": [rows, 1, 1], "block": [128, 1, 1], "dynamic_smem": "triton",
        "args": {"0": "buf", "1": "buf", "2": str(stride), "3": str(stride), "4": str(cols), "5": "buf", "6": "buf"},
        "arg_notes": {"5": "Triton's global scratch (unused)", "6": "Triton's profile scratch (unused)"},
        "buffers": {"0": _buf("f32", rows * stride, "sentinel", "out"),
                    "1": _buf("f32", rows * stride, "uniform", "in", lo=-4.0, hi=4.0, seed=71),
                    "5": _buf("u8", 256, "zeros", "scratch"), "6": _buf("u8", 256, "zeros", "scratch")},
        "verify": {"kind": "softmax", "in": {"arg": 1, "dtype": "f32", "shape": [rows, cols], "stride": [stride, 1]},
                   "out": {"arg": 0, "dtype": "f32", "shape": [rows, cols], "stride": [stride, 1]}, "atol": 1e-5},
        "mma_check": [],
        "expect": {"mma_check": None, "numerics": "correct", "data_dependent": False},
    })
    return out


HW_BASE = {
    "hw_mma_trans_padded": ({"HW_SWIZZLED": 0, "HW_COPY": 0, "HW_B_MOVMATRIX": 0, "HW_EPILOGUE": 0},
                            "padded tiles (A rows 80 B, B/C rows 144 B), ld.global.v4 + st.shared.v4 fill, "
                            "ldmatrix.x4 for A, ldmatrix.x4.trans for B, stmatrix.x4 f16 epilogue"),
    "hw_mma_trans_swizzled": ({"HW_SWIZZLED": 1, "HW_COPY": 1, "HW_B_MOVMATRIX": 0, "HW_EPILOGUE": 0},
                              "unpadded tiles with 16-byte-chunk XOR swizzles (A Sw<2,3,3>, B/C Sw<3,3,3>), "
                              "cp.async.cg 16 B fill, ldmatrix.x4 / ldmatrix.x4.trans, stmatrix.x4 epilogue"),
    "hw_mma_movmatrix_padded": ({"HW_SWIZZLED": 0, "HW_COPY": 2, "HW_B_MOVMATRIX": 1, "HW_EPILOGUE": 1},
                                "padded tiles, cp.async.ca 8 B fill, ldmatrix.x4 for A, ldmatrix.x4 + "
                                "movmatrix.trans for B, f32 epilogue via st.shared.v2.f32 into 272 B rows"),
}

HW_BUGS = {
    "hw_bug_missing_trans": ("hw_mma_trans_padded", "BUG_MISSING_TRANS",
                             "B's ldmatrix lacks .trans: every B fragment holds B^T of its 8x8 block"),
    "hw_bug_swizzle_write_only": ("hw_mma_trans_swizzled", "BUG_SWIZZLE_WRITE_ONLY",
                                  "A is written swizzled but the ldmatrix reads it without the swizzle"),
    "hw_bug_swapped_rows": ("hw_mma_trans_padded", "BUG_SWAPPED_ROWS",
                            "lanes 1 and 2 swap the row addresses they give A's ldmatrix.x4: A rows 1 and 2 "
                            "(of every 16-row block, k 0-7) are exchanged in the fragments"),
    "hw_bug_epilogue_colswap": ("hw_mma_trans_padded", "BUG_EPILOGUE_COLSWAP",
                                "lanes with lane % 4 == 1 swap their two accumulator columns when packing for "
                                "stmatrix: C columns 8j+2 and 8j+3 come out exchanged"),
    "hw_bug_missing_barsync": ("hw_mma_trans_padded", "BUG_MISSING_BARSYNC",
                               "no bar.sync between the st.shared fill and the first ldmatrix: a race"),
}


def hand_written() -> list[Entry]:
    out: list[Entry] = []
    m, n, k = 128, 128, 64

    def entry(name: str, defines: dict, description: str, f32_out: bool, expect: dict) -> Entry:
        c = _mat(2, "f32" if f32_out else "f16", (m, n), (n, 1))
        v = _gemm(_mat(0, "f16", (m, k), (k, 1)), _mat(1, "f16", (k, n), (n, 1)), c, atol=2e-3 if f32_out else 2e-2)
        return {
            "name": name, "description": "Hand-written inline-PTX GEMM (64x64 CTA tile, k-tile 32, 4 warps, "
                                         "mma.m16n8k16 f16->f32): " + description,
            "source": "hw_mma.cu", "defines": {**defines, "KERNEL_NAME": name}, "entry": name,
            "same_kernel_as": None, "grid": [n // 64, m // 64, 1], "block": [128, 1, 1], "dynamic_smem": 0,
            "args": {"0": "buf", "1": "buf", "2": "buf", "3": str(m), "4": str(n), "5": str(k)},
            "buffers": {"0": _buf("f16", m * k, "uniform", "A", seed=81), "1": _buf("f16", k * n, "uniform", "B", seed=82),
                        "2": _buf("f32" if f32_out else "f16", m * n, "sentinel", "C")},
            "verify": v, "mma_check": _mma_check(v), "expect": expect,
        }

    for name, (defines, desc) in HW_BASE.items():
        out.append(entry(name, defines, desc, defines["HW_EPILOGUE"] == 1,
                         {"mma_check": "proved", "numerics": "correct", "data_dependent": False}))
    for name, (base, macro, desc) in HW_BUGS.items():
        defines, base_desc = HW_BASE[base]
        race = macro == "BUG_MISSING_BARSYNC"
        out.append(entry(name, {**defines, macro: 1}, f"planted bug in {base} ({base_desc}): {desc}",
                         defines["HW_EPILOGUE"] == 1,
                         {"mma_check": "refuted", "bug": macro, "bug_description": desc,
                          "numerics": "either (a race: the GPU may or may not show it)" if race else "wrong",
                          "data_dependent": False}))
    return out


def classic() -> list[Entry]:
    out: list[Entry] = []
    w = h = 128
    for pad in (0, 1):
        name = f"transpose_32x32_{'padded' if pad else 'nopad'}"
        out.append({
            "name": name,
            "description": "Classic 32x32 tiled transpose, 32x8 threads, float tile[32][" + str(32 + pad) + "]: "
                           + ("padded rows, conflict-free column reads" if pad else
                              "unpadded, the column-wise shared reads are 32-way conflicts"),
            "source": "transpose.cu", "defines": {"TILE_PAD": pad, "KERNEL_NAME": name}, "entry": name,
            "same_kernel_as": None, "grid": [w // 32, h // 32, 1], "block": [32, 8, 1], "dynamic_smem": 0,
            "args": {"0": "buf", "1": "buf", "2": str(w), "3": str(h)},
            "buffers": {"0": _buf("f32", w * h, "sentinel", "out"), "1": _buf("f32", w * h, "uniform", "in", seed=91)},
            "verify": {"kind": "transpose", "in": {"arg": 1, "dtype": "f32", "shape": [h, w], "stride": [w, 1]},
                       "out": {"arg": 0, "dtype": "f32", "shape": [w, h], "stride": [h, 1]}},
            "mma_check": [], "expect": {"mma_check": None, "numerics": "correct", "data_dependent": False},
        })
    nthreads, nblocks = 256, 8
    for seq in (0, 1):
        name = f"reduce_{'sequential' if seq else 'interleaved'}"
        out.append({
            "name": name,
            "description": "Shared-memory tree reduction (sum of 256 floats per CTA), "
                           + ("sequential addressing (tid < s), conflict-free" if seq else
                              "interleaved addressing with a strided index (index = 2*s*tid): growing bank conflicts")
                           + "; dynamic shared memory of blockDim.x floats.",
            "source": "reduce.cu", "defines": {"REDUCE_SEQUENTIAL": seq, "KERNEL_NAME": name}, "entry": name,
            "same_kernel_as": None, "grid": [nblocks, 1, 1], "block": [nthreads, 1, 1], "dynamic_smem": nthreads * 4,
            "args": {"0": "buf", "1": "buf", "2": str(nthreads * nblocks)},
            "buffers": {"0": _buf("f32", nthreads * nblocks, "uniform", "in", seed=101),
                        "1": _buf("f32", nblocks, "sentinel", "out")},
            "verify": {"kind": "block_sum", "in": {"arg": 0, "dtype": "f32", "count": nthreads * nblocks},
                       "out": {"arg": 1, "dtype": "f32", "count": nblocks}, "block": nthreads, "atol": 1e-4},
            "mma_check": [], "expect": {"mma_check": None, "numerics": "correct", "data_dependent": False},
        })
    nh = 4096
    out.append({
        "name": "histogram_smem",
        "description": "256-bin histogram privatised in shared memory: atomicAdd on bins[data[i] & 255] "
                       "(the shared address depends on loaded data), merged with global atomics.",
        "source": "data_dependent.cu", "defines": {"DD_KIND": 0}, "entry": "histogram_smem",
        "same_kernel_as": None, "grid": [4, 1, 1], "block": [256, 1, 1], "dynamic_smem": 0,
        "args": {"0": "buf", "1": "buf", "2": str(nh)},
        "buffers": {"0": _buf("u32", nh, "randint", "in", lo=0, hi=2 ** 32 - 1, seed=111),
                    "1": _buf("u32", 256, "zeros", "out")},
        "verify": {"kind": "histogram", "in": {"arg": 0, "dtype": "u32", "count": nh},
                   "out": {"arg": 1, "dtype": "u32", "count": 256}, "mask": 255},
        "mma_check": [],
        "expect": {"mma_check": None, "numerics": "correct", "data_dependent": True,
                   "note": "the shared atomics' addresses depend on global data: must be reported data-dependent"},
    })
    ng = 2048
    out.append({
        "name": "gather_smem",
        "description": "1024-entry table staged in shared memory, then gathered through indices loaded from "
                       "global memory (out[i] = t[idx[i] & 1023]).",
        "source": "data_dependent.cu", "defines": {"DD_KIND": 1}, "entry": "gather_smem",
        "same_kernel_as": None, "grid": [ng // 256, 1, 1], "block": [256, 1, 1], "dynamic_smem": 0,
        "args": {"0": "buf", "1": "buf", "2": "buf", "3": str(ng)},
        "buffers": {"0": _buf("f32", 1024, "uniform", "table", seed=121),
                    "1": _buf("u32", ng, "randint", "idx", lo=0, hi=2 ** 32 - 1, seed=122),
                    "2": _buf("f32", ng, "sentinel", "out")},
        "verify": {"kind": "gather", "table": {"arg": 0, "dtype": "f32", "count": 1024},
                   "idx": {"arg": 1, "dtype": "u32", "count": ng}, "out": {"arg": 2, "dtype": "f32", "count": ng},
                   "mask": 1023},
        "mma_check": [],
        "expect": {"mma_check": None, "numerics": "correct", "data_dependent": True,
                   "note": "the ld.shared address depends on global data: must be reported data-dependent"},
    })
    return out


def corpus() -> list[Entry]:
    """Every corpus entry, in build order (an entry's same_kernel_as comes before it)."""
    return cute_tutorial() + cute_cg() + triton() + hand_written() + classic() + hunt()


def _ref(function: str, inputs: dict[str, tuple[int, str]], out: tuple[int, str], params: dict[str, Any],
         atol: float = 0.0) -> dict[str, Any]:
    return {"kind": "reference", "function": function,
            "inputs": {k: {"arg": a, "dtype": d} for k, (a, d) in inputs.items()},
            "out": {"arg": out[0], "dtype": out[1]}, "params": params, "atol": atol}


_NO_MMA = {"mma_check": None, "numerics": "correct", "data_dependent": False}


def hunt() -> list[Entry]:
    """Fresh kernels of the kernel-layer hunt (tools/kernel_corpus/hunt.cu, triton_hunt.py)."""
    out: list[Entry] = []

    def cuda(name: str, kind: int, description: str, grid: list[int], block: list[int], args: dict[str, str],
             buffers: dict[str, dict], verify: dict, dyn: int = 0, expect: dict | None = None,
             mma_check: list[str] | None = None) -> None:
        out.append({"name": name, "description": description, "source": "hunt.cu",
                    "defines": {"HUNT_KIND": kind, "KERNEL_NAME": name}, "entry": name, "same_kernel_as": None,
                    "grid": grid, "block": block, "dynamic_smem": dyn, "args": args, "buffers": buffers,
                    "verify": verify, "mma_check": mma_check or [], "expect": expect or _NO_MMA})

    w = h = 128
    for kind, tag, what in ((0, "padded", "double tile[32][33] (264-byte rows)"),
                            (1, "xor", "double tile[32][32] with column index c ^ r (no padding)")):
        cuda(f"hunt_transpose_f64_{tag}", kind, f"32x32 tiled transpose of doubles, 32x8 threads, {what}: "
             "64-bit st/ld.shared in half-warp phases.", [w // 32, h // 32, 1], [32, 8, 1],
             {"0": "buf", "1": "buf", "2": str(w), "3": str(h)},
             {"0": _buf("f64", w * h, "sentinel", "out"), "1": _buf("f64", w * h, "uniform", "in", seed=201)},
             {"kind": "transpose", "in": {"arg": 1, "dtype": "f64", "shape": [h, w], "stride": [w, 1]},
              "out": {"arg": 0, "dtype": "f64", "shape": [w, h], "stride": [h, 1]}})
    w8, h8 = 80, 50
    cuda("hunt_transpose_u8_pad4", 2, "32x32 tiled transpose of bytes on an 80x50 image (partial edge tiles: "
         "half-active warps), tile[32][36]: 8-bit stores with four lanes per word, column reads of bytes.",
         [3, 2, 1], [32, 8, 1], {"0": "buf", "1": "buf", "2": str(w8), "3": str(h8)},
         {"0": _buf("u8", w8 * h8, "sentinel", "out"), "1": _buf("u8", w8 * h8, "randint", "in", 0, 255, seed=202)},
         {"kind": "transpose", "in": {"arg": 1, "dtype": "u8", "shape": [h8, w8], "stride": [w8, 1]},
          "out": {"arg": 0, "dtype": "u8", "shape": [w8, h8], "stride": [h8, 1]}})
    n = 250
    cuda("hunt_scan_block100", 3, "Inclusive Hillis-Steele scan per CTA of 100 threads (last warp of 4 lanes), "
         "double-buffered dynamic smem, divergent t >= off arms, input tail masked by n = 250 (grid 3).",
         [3, 1, 1], [100, 1, 1], {"0": "buf", "1": "buf", "2": str(n)},
         {"0": _buf("i32", 300, "sentinel", "out"), "1": _buf("i32", 300, "randint", "in", -1000, 1000, seed=203)},
         _ref("scan_blocks", {"in": (1, "i32")}, (0, "i32"), {"n": n, "block": 100}), dyn=800)
    sw, sh = 40, 20
    cuda("hunt_stencil5_halo", 4, "5-point stencil, 16x16 threads, float s[18][18] with halo loads by the edge "
         "threads (divergent 2-lane stores), on a 40x20 image (partial CTAs): 2-way conflicts of the 72-byte rows.",
         [3, 2, 1], [16, 16, 1], {"0": "buf", "1": "buf", "2": str(sw), "3": str(sh)},
         {"0": _buf("f32", sw * sh, "sentinel", "out"), "1": _buf("f32", sw * sh, "uniform", "in", seed=204)},
         _ref("stencil5", {"in": (1, "f32")}, (0, "f32"), {"w": sw, "h": sh}, atol=1e-6))
    rows, cols = 4, 500
    cuda("hunt_softmax_b160", 5, "Row softmax, one CTA of 160 threads (5 warps) per 500-float row: shfl.bfly "
         "reductions, lane-0 stores of the warp partials to smem, partial-lane reads back.",
         [rows, 1, 1], [160, 1, 1], {"0": "buf", "1": "buf", "2": str(cols)},
         {"0": _buf("f32", rows * cols, "sentinel", "out"), "1": _buf("f32", rows * cols, "uniform", "in", -4.0, 4.0,
                                                                      seed=205)},
         {"kind": "softmax", "in": {"arg": 1, "dtype": "f32", "shape": [rows, cols], "stride": [cols, 1]},
          "out": {"arg": 0, "dtype": "f32", "shape": [rows, cols], "stride": [cols, 1]}, "atol": 1e-5})
    cuda("hunt_block3d_permute", 6, "3D block (8,4,3): s[z][y][x] (9-word rows) written, read as "
         "s[x % 3][y][(x + z) & 7]: 2- and 3-way conflicts from the 3D thread numbering.",
         [4, 1, 1], [8, 4, 3], {"0": "buf", "1": "buf"},
         {"0": _buf("f32", 384, "sentinel", "out"), "1": _buf("f32", 384, "uniform", "in", seed=206)},
         _ref("block3d_permute", {"in": (1, "f32")}, (0, "f32"), {"ctas": 4}))
    cuda("hunt_vec_lds_mix", 7, "512 floats staged, read back as float2 #(3t % 256) (ld.shared.v2.f32), float4 "
         "#(5t & 127) (v4.f32) and short4 #(t ^ 17) (v4.u16); 64 threads.",
         [2, 1, 1], [64, 1, 1], {"0": "buf", "1": "buf"},
         {"0": _buf("f32", 128, "sentinel", "out"), "1": _buf("f32", 1024, "uniform", "in", seed=207)},
         _ref("vec_lds_mix", {"in": (1, "f32")}, (0, "f32"), {"ctas": 2}, atol=0.1))
    trips, stride = 5, 10
    cuda("hunt_loop_trips", 8, "Trip count and index stride read from parameters (trips 5, stride 10 words): "
         "s[(10 t + r) & 1023] += in[...] in a loop nvcc unrolls by 4 plus a remainder; 96 threads.",
         [2, 1, 1], [96, 1, 1], {"0": "buf", "1": "buf", "2": str(trips), "3": str(stride)},
         {"0": _buf("f32", 2048, "sentinel", "out"), "1": _buf("f32", 2 * trips * 96, "uniform", "in", seed=208)},
         _ref("loop_trips", {"in": (1, "f32")}, (0, "f32"), {"trips": trips, "stride_words": stride, "block": 96,
                                                            "ctas": 2}, atol=1e-5))
    cuda("hunt_store_subword", 9, "16-bit stores with two lanes per word (h[t], h[128 + (t ^ 1)]), 8-bit stores "
         "with four lanes per word, and 8 lanes per warp storing one value to one word; 128 threads.",
         [2, 1, 1], [128, 1, 1], {"0": "buf", "1": "buf"},
         {"0": _buf("u32", 256, "sentinel", "out"), "1": _buf("u32", 256, "randint", "in", 0, 2**32 - 1, seed=209)},
         _ref("store_subword", {"in": (1, "u32")}, (0, "u32"), {"ctas": 2}))
    nz = 600
    cuda("hunt_cpasync_zfill", 10, "cp.async.ca of 4 B (one float) and 8 B (float2) per thread with src-size "
         "4/0 and 8/4/0 past n = 600 (zero fill), 256 threads, 3 CTAs: whole-warp zero fills and partial ones.",
         [3, 1, 1], [256, 1, 1], {"0": "buf", "1": "buf", "2": str(nz)},
         {"0": _buf("f32", 768, "sentinel", "out"), "1": _buf("f32", nz, "uniform", "in", seed=210)},
         _ref("cpasync_zfill", {"in": (1, "f32")}, (0, "f32"), {"n": nz}, atol=1e-5),
         expect={**_NO_MMA, "note": "zero-filled cp.async (src-size below cp-size) is unmodelled: wavefronts of "
                                    "those warps are not predicted"})
    mm, nn, kk = 32, 256, 24
    v = _gemm(_mat(1, "f16", (mm, kk), (kk, 1)), _mat(2, "f16", (kk, nn), (nn, 1)), _mat(0, "f16", (mm, nn), (nn, 1)),
              atol=2e-2)
    cuda("hunt_mma_k8_ldsm_x2_stsm", 11, "One warp per 16x8 C tile, K steps of 8: A by ldmatrix.x2 from 48-byte "
         "rows, B by ldmatrix.x1.trans, mma.m16n8k8 f16 -> f32, f16 C through stmatrix.x2 and 16-bit loads.",
         [nn // 32, mm // 16, 1], [128, 1, 1],
         {"0": "buf", "1": "buf", "2": "buf", "3": str(mm), "4": str(nn), "5": str(kk)},
         {"0": _buf("f16", mm * nn, "sentinel", "C"), "1": _buf("f16", mm * kk, "uniform", "A", seed=211),
          "2": _buf("f16", kk * nn, "uniform", "B", seed=212)},
         v, mma_check=_mma_check(v), expect={"mma_check": "proved", "numerics": "correct", "data_dependent": False})
    npw = 77
    cuda("hunt_partial_wide", 12, "100 threads, the first 77 active: partial warps (13 lanes) of st.shared.v4, "
         "st/ld.shared.f64 and a 2-way-conflicted ld.shared.v4.f32, and st.shared.v4 by every third lane, read "
         "back as 4-byte words three lanes per address (the absent-lane rule for wide accesses).",
         [1, 1, 1], [100, 1, 1], {"0": "buf", "1": "buf", "2": str(npw)},
         {"0": _buf("f32", 400, "sentinel", "out"), "1": _buf("f32", 400, "uniform", "in", seed=213)},
         _ref("partial_wide", {"in": (1, "f32")}, (0, "f32"), {"n": npw}))

    cuda("hunt_atomics_smem", 13, "Shared-memory atomics at known addresses, 96 threads (a partial third warp of "
         "the 20-lane xor): atomicAdd of 1 with its result unused (red.add.u32 1, ATOMS.POPC.INC), atomicAdd with its "
         "result used (32 words, 3 lanes apart), atomicMax (4 lanes a word), atomicCAS on two words (16 lanes each), "
         "64-bit atomicExch on four words, atomicXor by lanes 0-19 of each warp.",
         [2, 1, 1], [96, 1, 1], {"0": "buf", "1": "buf"},
         {"0": _buf("u32", 336, "sentinel", "out"), "1": _buf("u32", 192, "randint", "in", 0, 2**31 - 1, seed=214)},
         _ref("atomics_smem", {"in": (1, "u32")}, (0, "u32"), {"ctas": 2, "block": 96}))
    cuda("hunt_narrowed_loads", 14, "Inline-asm shared loads with unused outputs, 128 threads: elements 0 and 2 of "
         "a v4.u32 (ptxas: two LDS), element 3 of a v4 (LDS +12), the low word of a v2.u64's element 1 (LDS +8), "
         "elements 1-2 of a v4.u16 (LDS.64), a dead ld.shared.u32 and an unread ldmatrix.x4 (both removed), a "
         "volatile v4 with one element read (LDS.128 kept).",
         [2, 1, 1], [128, 1, 1], {"0": "buf", "1": "buf"},
         {"0": _buf("u32", 256, "sentinel", "out"), "1": _buf("u32", 4096, "randint", "in", 0, 2**31 - 1, seed=215)},
         _ref("narrowed_loads", {"in": (1, "u32")}, (0, "u32"), {"ctas": 2}))

    def trit(name: str, kind: str, arch: int, description: str, grid: list[int], args: dict[str, str],
             buffers: dict[str, dict], verify: dict, expect: dict | None = None) -> None:
        out.append({"name": name, "description": description, "source": "triton_hunt.py", "triton_arch": arch,
                    "triton_kind": kind, "entry": f"{kind}_kernel", "same_kernel_as": None, "grid": grid,
                    "block": [{"layernorm": 256, "sort": 64}.get(kind, 128), 1, 1], "dynamic_smem": "triton", "args": args,
                    "buffers": buffers, "verify": verify, "mma_check": [], "expect": expect or _NO_MMA})

    lrows, lcols = 4, 1000
    for arch in (80, 90):
        trit(f"hunt_triton_layernorm_sm{arch}", "layernorm", arch, f"Triton layernorm (BLOCK 1024, 8 warps, "
             f"sm_{arch}) over 1000-float rows: two cross-warp reductions through smem and a layout conversion "
             "(st.shared.v4 + ldmatrix.x4 of f32).", [lrows, 1, 1],
             {"0": "buf", "1": "buf", "2": "buf", "3": "buf", "4": str(lcols), "5": "925353388", "6": "buf", "7": "buf"},
             {"0": _buf("f32", lrows * lcols, "sentinel", "out"), "1": _buf("f32", lrows * lcols, "uniform", "x",
                                                                            seed=214),
              "2": _buf("f32", lcols, "uniform", "w", seed=215), "3": _buf("f32", lcols, "uniform", "b", seed=216),
              "6": _buf("u8", 256, "zeros", "scratch"), "7": _buf("u8", 256, "zeros", "scratch")},
             _ref("layernorm", {"x": (1, "f32"), "w": (2, "f32"), "b": (3, "f32")}, (0, "f32"),
                  {"rows": lrows, "n_cols": lcols, "eps": 1e-5}, atol=1e-4))
    tn = 128
    trit("hunt_triton_trans_sm90", "trans", 90, "Triton tl.trans of 64x64 f16 tiles (4 warps, sm_90a): "
         "st.shared.v4 then ldmatrix.x4.trans (a layout conversion).", [tn // 64, tn // 64, 1],
         {"0": "buf", "1": "buf", "2": str(tn), "3": "buf", "4": "buf"},
         {"0": _buf("f16", tn * tn, "sentinel", "out"), "1": _buf("f16", tn * tn, "uniform", "in", seed=217),
          "3": _buf("u8", 256, "zeros", "scratch"), "4": _buf("u8", 256, "zeros", "scratch")},
         {"kind": "transpose", "in": {"arg": 1, "dtype": "f16", "shape": [tn, tn], "stride": [tn, 1]},
          "out": {"arg": 0, "dtype": "f16", "shape": [tn, tn], "stride": [tn, 1]}})
    trit("hunt_triton_sort_sm80", "sort", 80, "Triton tl.sort of 256 floats (2 warps, sm_80): bitonic stages "
         "exchanged through shared memory with 8-way conflicted b32 reads.", [1, 1, 1],
         {"0": "buf", "1": "buf", "2": "buf", "3": "buf"},
         {"0": _buf("f32", 256, "sentinel", "out"), "1": _buf("f32", 256, "uniform", "in", seed=221),
          "2": _buf("u8", 256, "zeros", "scratch"), "3": _buf("u8", 256, "zeros", "scratch")},
         _ref("sorted_values", {"in": (1, "f32")}, (0, "f32"), {"n": 256}))
    arows = 128
    trit("hunt_triton_attn_sm80", "attn", 80, "Triton attention block (sm_80): S = Q K^T (tl.trans), row softmax, "
         "O = P V, f16 dots through ldmatrix.x4 / .x4.trans and mma.sync, one 64-key block.", [arows // 64, 1, 1],
         {"0": "buf", "1": "buf", "2": "buf", "3": "buf", "4": "1040187392", "5": "buf", "6": "buf"},
         {"0": _buf("f16", arows * 64, "sentinel", "out"), "1": _buf("f16", arows * 64, "uniform", "q", seed=218),
          "2": _buf("f16", 64 * 64, "uniform", "k", seed=219), "3": _buf("f16", 64 * 64, "uniform", "v", seed=220),
          "5": _buf("u8", 256, "zeros", "scratch"), "6": _buf("u8", 256, "zeros", "scratch")},
         _ref("attention", {"q": (1, "f16"), "k": (2, "f16"), "v": (3, "f16")}, (0, "f16"),
              {"rows": arows, "seq": 64, "d": 64, "scale": 0.125}, atol=2e-2))
    return out
