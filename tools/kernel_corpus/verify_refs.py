"""Reference outputs of the hunt corpus kernels (tools/kernel_corpus/hunt.cu, triton_hunt.py) for
verify.py's ``reference`` kind: ``f(inputs, params, out_size) -> (expected, written)``, both flat over the
output buffer (``written``: the elements the kernel stores).  Written from the kernels' C++ / Triton source,
in float64 unless the kernel's own float32 order matters (then float32, in the source's order)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

Ref = Callable[[dict[str, np.ndarray], dict[str, Any], int], tuple[np.ndarray, np.ndarray]]


def _mask(size: int, count: int) -> np.ndarray:
    m = np.zeros(size, dtype=bool)
    m[:count] = True
    return m


def scan_blocks(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """out[i] = in[b*B] + ... + in[i] (int32, wrapping) within block b's chunk of B, for i < n."""
    n, b = p["n"], p["block"]
    x = np.zeros(size, dtype=np.int64)
    x[:n] = ins["in"][:n]
    ref = np.cumsum(x.reshape(-1, b), axis=1).reshape(-1)
    return ((ref + 2**31) % 2**32 - 2**31).astype(np.int32), _mask(size, n)


def stencil5(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """out = 0.5 c + 0.125 (up + down + left + right), neighbours clamped to the h x w image (float32)."""
    w, h = p["w"], p["h"]
    a = ins["in"][: w * h].reshape(h, w).astype(np.float32)
    pad = np.pad(a, 1, mode="edge")
    c = pad[1:-1, 1:-1]
    s = ((pad[:-2, 1:-1] + pad[2:, 1:-1]) + pad[1:-1, :-2]) + pad[1:-1, 2:]
    ref = np.zeros(size, dtype=np.float32)
    ref[: w * h] = (np.float32(0.5) * c + np.float32(0.125) * s).reshape(-1)
    return ref, _mask(size, w * h)


def block3d_permute(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """Block (8, 4, 3): thread (x, y, z) of CTA b writes s[z][y][x] = in[b*96 + t] and reads s[x % 3][y][(x+z) & 7]."""
    ref = np.zeros(size, dtype=np.float32)
    src = ins["in"]
    for b in range(p["ctas"]):
        for z in range(3):
            for y in range(4):
                for x in range(8):
                    t = (z * 4 + y) * 8 + x
                    ref[b * 96 + t] = src[b * 96 + ((x % 3) * 4 + y) * 8 + ((x + z) & 7)]
    return ref, _mask(size, 96 * p["ctas"])


def vec_lds_mix(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """64 threads per CTA over s = in[b*512 .. +512]: float2 #(3t % 256) + float4 #((5t) & 127) + short4 #(t ^ 17)."""
    ref = np.zeros(size, dtype=np.float64)
    for b in range(p["ctas"]):
        s = ins["in"][b * 512: (b + 1) * 512].astype(np.float32)
        sh = s.view(np.int16).astype(np.float64)
        for t in range(64):
            i, j, k = t * 3 % 256, (t * 5) & 127, t ^ 17
            ref[b * 64 + t] = (s[2 * i: 2 * i + 2].astype(np.float64).sum() + s[4 * j: 4 * j + 4].astype(np.float64).sum()
                               + sh[4 * k: 4 * k + 4].sum())
    return ref, _mask(size, 64 * p["ctas"])


def loop_trips(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """s[(t*stride + r) & 1023] += in[(b*trips + r)*B + t] for r < trips (no two (t, r) share a word)."""
    trips, stride, block, ctas = p["trips"], p["stride_words"], p["block"], p["ctas"]
    ref = np.zeros(size, dtype=np.float64)
    for b in range(ctas):
        for t in range(block):
            for r in range(trips):
                ref[b * 1024 + ((t * stride + r) & 1023)] += float(ins["in"][(b * trips + r) * block + t])
    return ref, _mask(size, 1024 * ctas)


def store_subword(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """hunt.cu kind 9: 16-bit halves and bytes of in[] staged by other threads, and a per-warp broadcast word."""
    ref = np.zeros(size, dtype=np.uint32)
    for b in range(p["ctas"]):
        v = [int(x) for x in ins["in"][b * 128: (b + 1) * 128]]
        h = [0] * 256
        c = [0] * 256
        for t in range(128):
            h[t] = v[t] & 0xFFFF
            h[128 + (t ^ 1)] = v[t] >> 16
            c[t] = v[t] & 0xFF
            c[128 + ((t * 4) & 127) + (t >> 5)] = (v[t] >> 8) & 0xFF
        for t in range(128):
            r = h[t] | (h[255 - t] << 16)
            r ^= (c[t] << 8) ^ c[255 - t] ^ ((t >> 5) * 7 + b)
            ref[b * 128 + t] = r & 0xFFFFFFFF
    return ref, _mask(size, 128 * p["ctas"])


def cpasync_zfill(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """out[b*256 + t] = s4[t] + s8[2t] + s8[2t+1] + s8[(2t+64) & 511]; s4 = in[b*256 ..], s8 = in[512 b ..], 0 past n."""
    n = p["n"]
    x = np.zeros(2 * size + 1024, dtype=np.float64)
    x[:n] = ins["in"][:n]
    ref = np.zeros(size, dtype=np.float64)
    for b in range(size // 256):
        for t in range(256):
            s8 = 2 * b * 256
            ref[b * 256 + t] = x[b * 256 + t] + x[s8 + 2 * t] + x[s8 + 2 * t + 1] + x[s8 + ((2 * t + 64) & 511)]
    return ref, _mask(size, size)


def partial_wide(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """float4 out[t] = in[(2t) & 63] with .x += in[t].y and .y += in[3 (t // 3)].y, for t < n (float32)."""
    n = p["n"]
    src = ins["in"].astype(np.float32).reshape(-1, 4)
    ref = np.zeros((size // 4, 4), dtype=np.float32)
    for t in range(n):
        ref[t] = src[(2 * t) & 63]
        ref[t, 0] = np.float32(ref[t, 0] + src[t, 1])
        ref[t, 1] = np.float32(ref[t, 1] + src[3 * (t // 3), 1])
    return ref.reshape(-1), _mask(size, 4 * n)


def atomics_smem(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """hunt.cu kind 13, per CTA of B threads: counts of t % 7, sums of in & 255 at 8 + 3t % 32, max of in at
    40 + t/4 % 8, xor of in at 64 + t % 5 over lanes 0-19; the cas slots 48 and 56 written as 0."""
    b = p["block"]
    ref = np.zeros(size, dtype=np.uint32)
    for cta in range(p["ctas"]):
        v = [int(x) for x in ins["in"][cta * b: (cta + 1) * b]]
        s = [0] * 72
        for t in range(b):
            s[t % 7] += 1
            s[8 + (t * 3) % 32] = (s[8 + (t * 3) % 32] + (v[t] & 255)) & 0xFFFFFFFF
            s[40 + (t // 4) % 8] = max(s[40 + (t // 4) % 8], v[t])
            if t % 32 < 20:
                s[64 + t % 5] ^= v[t]
        ref[cta * 72: (cta + 1) * 72] = s
    return ref, _mask(size, 72 * p["ctas"])


def layernorm(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """y = (x - mean) / sqrt(var + eps) * w + b per row of n_cols (biased variance)."""
    rows, n, eps = p["rows"], p["n_cols"], p["eps"]
    x = ins["x"][: rows * n].astype(np.float64).reshape(rows, n)
    d = x - x.mean(axis=1, keepdims=True)
    y = d / np.sqrt((d * d).mean(axis=1, keepdims=True) + eps) * ins["w"][:n] + ins["b"][:n]
    ref = np.zeros(size)
    ref[: rows * n] = y.reshape(-1)
    return ref, _mask(size, rows * n)


def attention(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """O = softmax(scale Q K^T) V, Q (rows x D), K and V (seq x D), row-major."""
    rows, seq, d, scale = p["rows"], p["seq"], p["d"], p["scale"]
    q = ins["q"][: rows * d].astype(np.float64).reshape(rows, d)
    k = ins["k"][: seq * d].astype(np.float64).reshape(seq, d)
    v = ins["v"][: seq * d].astype(np.float64).reshape(seq, d)
    s = scale * q @ k.T
    e = np.exp(s - s.max(axis=1, keepdims=True))
    ref = np.zeros(size)
    ref[: rows * d] = ((e / e.sum(axis=1, keepdims=True)) @ v).reshape(-1)
    return ref, _mask(size, rows * d)


def narrowed_loads(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """s = in[b*2048 .. +2048] (u32 words); out[b*128 + t] = s[4t] + s[4t+2] + s[512 + 4((5t) & 127) + 3]
    + s[1024 + 4(t & 63) + 2] + h[4(t ^ 5) + 1] + h[4(t ^ 5) + 2] + s[4((3t) & 127)] (mod 2^32; h: s as u16)."""
    ref = np.zeros(size, dtype=np.uint64)
    for b in range(p["ctas"]):
        s = ins["in"][b * 2048: (b + 1) * 2048].astype(np.uint32)
        h = s.view(np.uint16).astype(np.uint64)
        w = s.astype(np.uint64)
        for t in range(128):
            k = t ^ 5
            total = (w[4 * t] + w[4 * t + 2] + w[512 + 4 * ((5 * t) & 127) + 3] + w[1024 + 4 * (t & 63) + 2]
                     + h[4 * k + 1] + h[4 * k + 2] + w[4 * ((3 * t) & 127)])
            ref[b * 128 + t] = total % (1 << 32)
    return ref.astype(np.uint32), _mask(size, 128 * p["ctas"])


def sorted_values(ins: dict[str, np.ndarray], p: dict[str, Any], size: int) -> tuple[np.ndarray, np.ndarray]:
    """out = the first n inputs in increasing order."""
    n = p["n"]
    ref = np.zeros(size, dtype=ins["in"].dtype)
    ref[:n] = np.sort(ins["in"][:n])
    return ref, _mask(size, n)


REFERENCES: dict[str, Ref] = {f.__name__: f for f in (scan_blocks, stencil5, block3d_permute, vec_lds_mix, loop_trips,
                                                       store_subword, cpasync_zfill, partial_wide, layernorm,
                                                       attention, sorted_values, atomics_smem, narrowed_loads)}
