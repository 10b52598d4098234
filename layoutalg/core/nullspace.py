"""``nullspace(A)``: the layout of the indices ``A`` sends to offset 0 (PyCuTe ``nullspace``).

Definition: ``R`` enumerates every index ``i < size(A)`` with ``A(i) == 0``, each once, in
increasing order where a layout does so (else in another order: ``(3,2):(2,3)`` lists
``{0, 2, 3, 4, 5, 7}``, which no layout lists in increasing order; an F2-stride ``R`` where
only XOR lists them, read as ints); so ``A(R(j)) == 0`` for every ``j < size(R)`` (PyCuTe's
post-condition) and no zero of ``A`` is missed.  ``nullspace((2,4,6):(1,2,0)) == 6:8``; ``nullspace(7:0) ==
7:1``; an injective ``A`` gives ``1:0`` (only index 0).

How.  When ``A``'s non-zero strides all have one sign no two terms cancel, so ``A(i)``
is 0 exactly when every digit of a non-zero-stride leaf is 0: ``R`` is the stride-0
leaves, each with its index stride in ``A`` (the product of the extents before it),
coalesced.  With strides of both signs terms may cancel (``(3,3):(1,-1)`` vanishes at
0, 4, 8), so the zero set is enumerated and read as a layout, checked; where it is not
the set of values of any layout (:mod:`layoutalg.core.set_listing` searches every order),
:class:`CompositionError` says so.
"""

from __future__ import annotations

from layoutalg.core.composition import synthesise_1d
from layoutalg.core.flat import Pairs, check_domain, check_layout, coalesce_pairs, from_pairs, leaf_pairs
from layoutalg.core.layout import Layout
from layoutalg.core.stride_layout import StrideLayout


def nullspace(layout: Layout) -> Layout:
    """The increasing layout of every index ``i`` with ``layout(i) == 0`` (see the module docstring)."""
    if type(layout) is StrideLayout:
        from layoutalg.core import stride_layout_ops

        return stride_layout_ops.nullspace(layout)
    layout = check_layout(layout, "nullspace layout")
    leaves = leaf_pairs(layout)
    signs = {d > 0 for s, d in leaves if d != 0 and s != 1}
    if len(signs) <= 1:
        zeros: Pairs = []
        running = 1
        for s, d in leaves:
            if d == 0:
                zeros.append((s, running))
            running *= s
        return from_pairs(coalesce_pairs(zeros))
    return _enumerated(layout)


def _enumerated(layout: Layout) -> Layout:
    import numpy as np

    check_domain(layout.size(), f"nullspace of {layout}")
    index = np.flatnonzero(layout.to_numpy() == 0)
    pairs = synthesise_1d(index)
    if pairs is None:  # no layout lists them in increasing order: in any order (a complete search)
        from layoutalg.core.set_listing import layout_listing

        return layout_listing([int(i) for i in index], f"nullspace of {layout}")  # type: ignore[no-any-return]
    return from_pairs(pairs)


__all__ = ["nullspace"]
