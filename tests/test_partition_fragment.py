"""``ThrMMA.partition_fragment_A/B/C``: the register fragment CuTe builds for one thread's share of a tile.

Expected layouts recorded from CuTe DSL (``thr.make_fragment_X(thr.partition_X(t))`` for
``MmaF16BF16Op(f16, f32, (16,8,16))``, thread 0, on a 128x32 A/B and a 128x128 C tensor); CuTe's
value mode ``(2,2,2):(1,2,4)`` is layoutalg's flat ``8:1`` (the same function), so the layouts are
compared as functions over the (V, rest...) shape.
"""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg import atoms
from layoutalg.atoms.tiled import make_tiled_mma

TENSORS = {"A_rm": ((128, 32), (32, 1)), "A_cm": ((128, 32), (1, 128)), "B_rm": ((128, 32), (32, 1)),
           "C_rm": ((128, 128), (128, 1)), "C_cm": ((128, 128), (1, 128))}
CUTE_DSL = {  # (atom layout, tensor) -> fragment (shape, stride), CuTe DSL
    ((1, 1, 1), "A_rm"): (((2, 2, 2), 8, 2), ((1, 2, 4), 16, 8)),
    ((1, 1, 1), "A_cm"): (((2, 2, 2), 8, 2), ((1, 2, 4), 8, 64)),
    ((1, 1, 1), "B_rm"): (((2, 2), 16, 2), ((1, 2), 8, 4)),
    ((1, 1, 1), "C_rm"): (((2, 2), 8, 16), ((1, 2), 4, 32)),
    ((1, 1, 1), "C_cm"): (((2, 2), 8, 16), ((1, 2), 4, 32)),
    ((2, 2, 1), "A_rm"): (((2, 2, 2), 4, 2), ((1, 2, 4), 16, 8)),
    ((2, 2, 1), "A_cm"): (((2, 2, 2), 4, 2), ((1, 2, 4), 8, 32)),
    ((2, 2, 1), "B_rm"): (((2, 2), 8, 2), ((1, 2), 8, 4)),
    ((2, 2, 1), "C_rm"): (((2, 2), 4, 8), ((1, 2), 4, 16)),
    ((2, 2, 1), "C_cm"): (((2, 2), 4, 8), ((1, 2), 4, 16)),
}


@pytest.mark.parametrize(("atom_layout", "tensor"), sorted(CUTE_DSL))
def test_partition_fragment_has_cute_dsls_register_layout(atom_layout, tensor):
    mma = make_tiled_mma(atoms.get("SM80_16x8x16_F32F16F16F32_TN"), atom_layout)
    shape, stride = TENSORS[tensor]
    thr = mma.get_slice(0)
    frag = getattr(thr, f"partition_fragment_{tensor[0]}")(la.Layout(shape, stride))
    want = la.Layout(*CUTE_DSL[(atom_layout, tensor)])
    assert isinstance(frag, la.Tensor)
    assert frag.size() == want.size()
    assert frag.layout.values() == want.values()
    assert frag.engine.size == want.cosize()  # fresh storage, exactly the fragment


def test_partition_fragment_storage_is_fresh_and_writable():
    mma = make_tiled_mma(atoms.get("SM80_16x8x16_F32F16F16F32_TN"), (1, 1, 1))
    a = mma.get_slice(3).partition_fragment_A(la.Layout((16, 16), (16, 1)))
    b = mma.get_slice(3).partition_fragment_A(la.Layout((16, 16), (16, 1)))
    a[0] = 7.0
    assert b[0] == 0.0 and a.engine is not b.engine
