"""Benchmark: a swizzled 128x128 fp16 smem tile (GMMA Layout_K_SW128_Atom tiled to 128x128).

Measures, best of several repeats, in one run:
  * evaluating every element (vectorised ``to_numpy`` and a scalar Python loop),
  * composing the tile with a layout (a transposed 128x128 view) and with a tiler (``zipped_divide``),
  * ``to_f2`` of the tile,
  * pycute's ``ComposedLayout(Swizzle(3,3,3), 0, layout)`` evaluated element by element (the reference).

Goals: each of evaluate / compose / to_f2 under 10 ms.  Run: ``python benchmarks/bench_swizzle.py``.
"""

from __future__ import annotations

import time
from typing import Any, Callable


def once_ms(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - start)


def best_ms(fn: Callable[[], Any], repeat: int = 7) -> float:
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * min(times)


def main() -> None:
    from layoutalg.atoms.smem import get_smem_atom, tile_to_shape
    from layoutalg.core.layout import Layout
    from layoutalg.swizzle.f2 import to_f2
    from layoutalg.swizzle.generic import composition, zipped_divide

    tile = tile_to_shape(get_smem_atom("Layout_K_SW128_Atom", 16), (128, 128))
    n = tile.size()
    transpose = Layout((128, 128), (128, 1))
    tiler = (Layout(64), Layout(64))

    rows = []
    # core's composition memoises (lru_cache): time the first, uncached calls before the repeats
    rows.append(("composition(tile, (128,128):(128,1)), first call", once_ms(lambda: composition(tile, transpose))))
    rows.append(("zipped_divide(tile, (64,64)), first call", once_ms(lambda: zipped_divide(tile, tiler))))
    rows.append(("to_f2(tile), first call", once_ms(lambda: to_f2(tile))))
    ours_vector = best_ms(lambda: tile.to_numpy())
    rows.append(("evaluate all 16384 elements (to_numpy)", ours_vector))
    ours_scalar = best_ms(lambda: [tile(i) for i in range(n)], repeat=3)
    rows.append(("evaluate all 16384 elements (scalar loop)", ours_scalar))
    rows.append(("composition(tile, (128,128):(128,1)), repeated (cached by core)", best_ms(lambda: composition(tile, transpose))))
    rows.append(("composition((16384):(2), tile) (bytes view, swizzle kept outermost)",
                 best_ms(lambda: composition(Layout(n, 2), tile))))
    rows.append(("zipped_divide(tile, (64,64))", best_ms(lambda: zipped_divide(tile, tiler))))
    rows.append(("to_f2(tile)", best_ms(lambda: to_f2(tile))))

    pycute_ms = None
    try:
        import pycute

        inner = tile.inner
        ref = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout(inner.shape, inner.stride))
        assert [ref(i) for i in range(n)] == tile.to_numpy().tolist()
        pycute_ms = best_ms(lambda: [ref(i) for i in range(n)], repeat=3)
        rows.append(("pycute: evaluate all 16384 elements (scalar loop)", pycute_ms))
    except ImportError:
        pass

    print(f"tile: {tile}  ({n} elements)")
    print()
    print("| operation | best of runs (ms) |")
    print("|---|---|")
    for name, ms in rows:
        print(f"| {name} | {ms:.3f} |")
    if pycute_ms is not None:
        print()
        print(f"pycute scalar evaluation / layoutalg to_numpy evaluation: {pycute_ms / ours_vector:.1f}x")
        print(f"pycute scalar evaluation / layoutalg scalar evaluation:   {pycute_ms / ours_scalar:.2f}x")


if __name__ == "__main__":
    main()
