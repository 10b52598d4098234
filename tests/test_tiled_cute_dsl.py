"""Acceptance: the sm80 128x128x64 fp16 GEMM partitioning agrees with CuTe for every thread and value.

Configuration (CuTe's sgemm_sm80-style kernel, 4 warps):
  TiledMMA  = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1), permutations (32,32,16))
  A (M x K = 128 x 64, K-major): Swizzle<3,3,3> o ((8,16),(64,1)):((64,512),(1,0))   [(8,64):(64,1) atom tiled]
  B (N x K = 128 x 64, N-major): Swizzle<3,3,3> o ((64,2),(8,8)):((1,512),(64,1024)) [(64,8):(1,64) atom tiled]
  s2r A = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>, mma)
  s2r B = make_tiled_copy_B(Copy_Atom<SM75_U16x8_LDSM_T, half_t>, mma)

CuTe's side is computed by CuTe DSL on the CPU inside ``@cute.jit``: the same objects
are built with ``cute.make_tiled_mma`` / ``cute.make_tiled_copy_A/B``; each thread's
``get_slice(t).partition_S`` (and ``partition_A/B/C`` of the MMA) is applied to an identity
tensor ``cute.make_identity_tensor((128, 64))``, whose elements are the (m, k) coordinates
(static at trace time: the thread's base coordinate and a layout with scaled-basis strides);
CuTe DSL's own composed layout ``sA``/``sB`` is evaluated at every (m, k) of the tile, and
each thread's offsets are looked up there, giving CuTe's smem offset for every (thread, value).

The result is stored in ``test_tiled_fixture_sm80_gemm.json.gz`` so the comparison also runs
where CuTe DSL is absent; when CuTe DSL imports (it is in the test extra), the oracle is
recomputed and must equal the fixture (``LAYOUTALG_REGEN_FIXTURES=1`` rewrites it).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from layoutalg import atoms
from layoutalg.atoms.tiled import make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma
from layoutalg.core.layout import Layout
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

FIXTURE = Path(__file__).with_name("test_tiled_fixture_sm80_gemm.json.gz")
M = N = 128
K = 64
NTHR = 128

SA_INNER = (((8, 16), (64, 1)), ((64, 512), (1, 0)))
SB_INNER = (((64, 2), (8, 8)), ((1, 512), (64, 1024)))
C_LAYOUT = ((128, 128), (1, 128))


def _cute_dsl_oracle() -> dict:
    """Run CuTe DSL (CPU trace only) and return coordinates and offsets per thread."""
    import tempfile

    os.environ.setdefault("CUTE_DSL_CACHE_DIR", tempfile.mkdtemp(prefix="cute_dsl_cache_"))
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.nvgpu import warp

    out: dict = {}

    @cute.jit
    def trace():
        op = warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
        mma = cute.make_tiled_mma(op, (2, 2, 1), permutation_mnk=(32, 32, 16))
        copy_a = cute.make_tiled_copy_A(cute.make_copy_atom(warp.LdMatrix8x8x16bOp(False, 4), cutlass.Float16), mma)
        copy_b = cute.make_tiled_copy_B(cute.make_copy_atom(warp.LdMatrix8x8x16bOp(True, 4), cutlass.Float16), mma)
        sw = cute.make_swizzle(3, 3, 3)
        s_a = cute.make_composed_layout(sw, 0, cute.make_layout(SA_INNER[0], stride=SA_INNER[1]))
        s_b = cute.make_composed_layout(sw, 0, cute.make_layout(SB_INNER[0], stride=SB_INNER[1]))
        l_c = cute.make_layout(C_LAYOUT[0], stride=C_LAYOUT[1])
        _collect(cute, out, mma, copy_a, copy_b, s_a, s_b, l_c)

    trace()
    return out


def _flat(t) -> list:
    return [x for e in t for x in _flat(e)] if isinstance(t, tuple) else [t]


def _coords(p) -> list[tuple[int, int]]:
    """Every coordinate of a partitioned identity tensor, in index order.

    CuTe DSL gives the partition as an iterator (the thread's base coordinate, a tuple of ints)
    and a layout whose strides are scaled basis elements ``v@j`` (add ``v`` to coordinate ``j``);
    evaluating that layout is plain arithmetic, done here instead of one traced ``p[i]`` per value.
    """
    base = [int(c) for c in p.iterator]
    shape = [int(e) for e in _flat(p.layout.shape)]
    strides = _flat(p.layout.stride)
    out = []
    total = 1
    for e in shape:
        total *= e
    for i in range(total):
        crd = list(base)
        rest = i
        for e, d in zip(shape, strides):
            c, rest = rest % e, rest // e
            if c and not (isinstance(d, int) and d == 0):
                mode = d.mode if isinstance(d.mode, int) else _flat(tuple(d.mode))[0]
                crd[int(mode)] += c * int(d.value)
        out.append(tuple(crd))
    return out


def _collect(cute, out, mma, copy_a, copy_b, s_a, s_b, l_c) -> None:
    """Plain Python (not rewritten by @cute.jit, so its loops run at trace time)."""
    id_mk = cute.make_identity_tensor((M, K))
    id_nk = cute.make_identity_tensor((N, K))
    id_mn = cute.make_identity_tensor((M, N))
    # CuTe DSL evaluates the swizzled smem layouts once per element of the tile
    table_a = {(m, k): int(s_a((m, k))) for m in range(M) for k in range(K)}
    table_b = {(n, k): int(s_b((n, k))) for n in range(N) for k in range(K)}
    c_shape, c_stride = _flat(l_c.shape), _flat(l_c.stride)
    table_c = {(m, n): m * int(c_stride[0]) + n * int(c_stride[1]) for m in range(int(c_shape[0])) for n in range(int(c_shape[1]))}
    jobs = (
        ("copy_A_S", id_mk, table_a, lambda t, x: copy_a.get_slice(t).partition_S(x)),
        ("copy_B_S", id_nk, table_b, lambda t, x: copy_b.get_slice(t).partition_S(x)),
        ("mma_A", id_mk, table_a, lambda t, x: mma.get_slice(t).partition_A(x)),
        ("mma_B", id_nk, table_b, lambda t, x: mma.get_slice(t).partition_B(x)),
        ("mma_C", id_mn, table_c, lambda t, x: mma.get_slice(t).partition_C(x)),
    )
    for name, tensor_for, table, part in jobs:
        entry: dict = {"threads": []}
        for t in range(NTHR):
            p = part(t, tensor_for)
            coords = _coords(p)
            entry["threads"].append({"coords": coords, "offsets": [table[c] for c in coords]})
            if t == 0:
                entry["shape"] = [int(cute.size(p.shape[i])) for i in range(len(p.shape))]
        out[name] = entry


def _load_oracle() -> dict:
    try:
        import cutlass.cute  # noqa: F401
    except ImportError:
        return json.loads(gzip.decompress(FIXTURE.read_bytes()))
    live = _cute_dsl_oracle()
    live = json.loads(json.dumps(live))  # tuples -> lists, as in the fixture
    if os.environ.get("LAYOUTALG_REGEN_FIXTURES") == "1" or not FIXTURE.exists():
        FIXTURE.write_bytes(gzip.compress(json.dumps(live).encode(), mtime=0))
    else:
        assert json.loads(gzip.decompress(FIXTURE.read_bytes())) == live, "fixture out of date: rerun with LAYOUTALG_REGEN_FIXTURES=1"
    return live


@pytest.fixture(scope="module")
def oracle() -> dict:
    return _load_oracle()


@pytest.fixture(scope="module")
def ours() -> dict:
    mma = make_tiled_mma(atoms.get("SM80_16x8x16_F32F16F16F32_TN"), (2, 2, 1), (32, 32, 16))
    copy_a = make_tiled_copy_A(atoms.get("SM75_U32x4_LDSM_N", bits=16), mma)
    copy_b = make_tiled_copy_B(atoms.ldmatrix(num=4, trans=True, bits=16), mma)
    sw = Swizzle(3, 3, 3)
    s_a = ComposedLayout(sw, 0, Layout(*SA_INNER))
    s_b = ComposedLayout(sw, 0, Layout(*SB_INNER))
    l_c = Layout(*C_LAYOUT)
    return {
        "copy_A_S": [copy_a.get_slice(t).partition_S(s_a) for t in range(NTHR)],
        "copy_B_S": [copy_b.get_slice(t).partition_S(s_b) for t in range(NTHR)],
        "mma_A": [mma.get_slice(t).partition_A(s_a) for t in range(NTHR)],
        "mma_B": [mma.get_slice(t).partition_B(s_b) for t in range(NTHR)],
        "mma_C": [mma.get_slice(t).partition_C(l_c) for t in range(NTHR)],
    }


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["copy_A_S", "copy_B_S", "mma_A", "mma_B", "mma_C"])
def test_partition_matches_cute_for_every_thread_and_value(oracle: dict, ours: dict, name: str) -> None:
    expected = oracle[name]
    for t in range(NTHR):
        part = ours[name][t]
        assert list(part.shape) == expected["shape"], (name, t)
        assert [list(c) for c in part.coords] == expected["threads"][t]["coords"], (name, t)
        assert list(part.offsets) == expected["threads"][t]["offsets"], (name, t)


def test_copy_and_mma_cover_the_same_elements(ours: dict) -> None:
    # independent of CuTe: over the whole CTA, the rows the ldmatrix threads point at
    # are exactly the elements the MMA fragments consume (as multisets: the two
    # N-warps both read A, the two M-warps both read B)
    from collections import Counter

    for copy_name, mma_name in (("copy_A_S", "mma_A"), ("copy_B_S", "mma_B")):
        copied = Counter(c for t in range(NTHR) for c in ours[copy_name][t].coords)
        used = Counter(c for t in range(NTHR) for c in ours[mma_name][t].coords)
        assert copied == used
        assert set(copied.values()) == {2} and len(copied) == 128 * 64


def test_swizzled_offsets_follow_the_xor_formula(ours: dict) -> None:
    # offset = inner(m, k) ^ (((inner >> 6) & 7) << 3), inner written out by hand
    for t in (0, 5, 77, 127):
        for (m, k), off in zip(ours["copy_A_S"][t].coords, ours["copy_A_S"][t].offsets):
            inner = (m % 8) * 64 + (m // 8) * 512 + k
            assert off == inner ^ (((inner >> 6) & 7) << 3)
