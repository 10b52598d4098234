"""The (A slot, B unit, D slot) triples of one-hot wgmma runs: factorised labels, packing, expansion.

A run set's triples are stored as row / k / column labels (see :mod:`layoutalg.gpu.wgmma`);
:func:`factorise` finds them and checks they regenerate every triple, :func:`expand` and
:func:`triple_codes` turn labels or model coordinates back into sorted triple codes.
numpy is imported inside the functions (layer rule: no numpy at import time).
"""

from __future__ import annotations

import base64
import zlib
from typing import Any


def pack(arr: Any, columns: int = 2) -> str:
    """int array (rows, columns) -> column by column, successive differences, int32 LE, zlib, base64."""
    import numpy as np

    flat = np.asarray(arr, dtype=np.int64).reshape(-1, columns).T.reshape(-1)
    return base64.b64encode(zlib.compress(np.diff(flat, prepend=0).astype("<i4").tobytes(), 9)).decode()


def unpack(text: str, columns: int = 2) -> Any:
    """Inverse of :func:`pack`: an int64 array of shape ``(rows, columns)``."""
    import numpy as np

    flat = np.cumsum(np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype="<i4").astype(np.int64))
    return flat.reshape(columns, -1).T


def factorise(triples: Any, n_a: int, n_b: int, n_d: int) -> tuple[Any, Any, Any, bool]:
    """Row/k/col labels of A, B, D (see module doc) and whether they regenerate ``triples`` exactly."""
    import numpy as np

    t = np.asarray(triples, dtype=np.int64)
    a_lab = np.full((n_a, 2), -1, dtype=np.int64)
    b_lab = np.full((n_b, 2), -1, dtype=np.int64)
    d_lab = np.full((n_d, 2), -1, dtype=np.int64)
    big = np.iinfo(np.int64).max
    row_of_d = np.full(n_d, big)
    np.minimum.at(row_of_d, t[:, 2], t[:, 0])
    col_of_d = np.full(n_d, big)
    np.minimum.at(col_of_d, t[:, 2], t[:, 1])
    k_of_a = np.full(n_a, big)
    np.minimum.at(k_of_a, t[:, 0], t[:, 1])
    reached_d = row_of_d < big
    d_lab[reached_d, 0], d_lab[reached_d, 1] = row_of_d[reached_d], col_of_d[reached_d]
    a_lab[t[:, 0], 0] = row_of_d[t[:, 2]]
    a_lab[t[:, 0], 1] = k_of_a[t[:, 0]]
    b_lab[t[:, 1], 0] = k_of_a[t[:, 0]]
    b_lab[t[:, 1], 1] = col_of_d[t[:, 2]]
    regenerated = expand(a_lab, b_lab, d_lab, n_b, n_d)
    given = _sorted_unique(t[:, 0] * (n_b * n_d) + t[:, 1] * n_d + t[:, 2])
    return a_lab, b_lab, d_lab, bool(regenerated.shape == given.shape and (regenerated == given).all())


def triple_codes(a: Any, b: Any, d: Any, n_b: int, n_d: int) -> Any:
    """Sorted codes ``a*n_b*n_d + b*n_d + d`` of every triple a product structure generates.

    ``a`` rows are ``(id, row, k)``, ``b`` rows ``(id, k, col)``, ``d`` rows ``(id, row, col)``
    (int arrays); a triple exists when the k's match and D's (row, col) is (A's row, B's col).
    """
    import numpy as np

    a, b, d = (np.asarray(x, dtype=np.int64).reshape(-1, 3) for x in (a, b, d))
    if not len(a) or not len(b) or not len(d):
        return np.zeros(0, dtype=np.int64)
    span = int(max(a[:, 1].max(), d[:, 1].max(), b[:, 2].max(), d[:, 2].max())) + 1
    d_keys = d[:, 1] * span + d[:, 2]
    order = np.argsort(d_keys)
    d_sorted, d_ids = d_keys[order], d[order, 0]
    codes = []
    for k in np.unique(a[:, 2]):
        aa = a[a[:, 2] == k]
        bb = b[b[:, 1] == k]
        if not len(bb):
            continue
        keys = (aa[:, 1][:, None] * span + bb[:, 2][None, :]).reshape(-1)
        pos = np.clip(np.searchsorted(d_sorted, keys), 0, len(d_sorted) - 1)
        hit = d_sorted[pos] == keys
        a_rep = np.repeat(aa[:, 0], len(bb))[hit]
        b_rep = np.tile(bb[:, 0], len(aa))[hit]
        # several D slots may share a (row, col): take every one of them
        lo = np.searchsorted(d_sorted, keys[hit], side="left")
        hi = np.searchsorted(d_sorted, keys[hit], side="right")
        for extra in range(int((hi - lo).max(initial=1))):
            sel = lo + extra < hi
            codes.append(a_rep[sel] * (n_b * n_d) + b_rep[sel] * n_d + d_ids[(lo + extra)[sel]])
    return _sorted_unique(np.concatenate(codes)) if codes else np.zeros(0, dtype=np.int64)


def _sorted_unique(x: Any) -> Any:
    import numpy as np

    x = np.sort(x, kind="stable")
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if len(x) else x


def expand(a_lab: Any, b_lab: Any, d_lab: Any, n_b: int, n_d: int) -> Any:
    """The triples the labels generate, as sorted codes ``a*n_b*n_d + b*n_d + d``."""
    import numpy as np

    def with_ids(lab: Any) -> Any:
        ids = np.nonzero(lab[:, 0] >= 0)[0]
        return np.column_stack([ids, lab[ids, 0], lab[ids, 1]])

    return triple_codes(with_ids(a_lab), with_ids(b_lab), with_ids(d_lab), n_b, n_d)


__all__ = ["factorise", "triple_codes", "expand", "unpack", "pack"]
