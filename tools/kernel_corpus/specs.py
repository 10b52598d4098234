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
    return cute_tutorial() + cute_cg() + triton() + hand_written() + classic()
