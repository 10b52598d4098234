"""``greatest_common_domain``'s contract on what it accepts: only the shapes matter, so layouts (whatever their
strides) and tensors (their layouts' shapes) answer as their shapes do.  Truth: the module docstring's worked
example (PyCuTe's definition), ``(16,64)`` and ``(4,16,16)`` share ``(4,4,4,16):(1,4,16,64)``."""

from __future__ import annotations

import layoutalg as la

WANT = la.Layout((4, 4, 4, 16), (1, 4, 16, 64))


def test_two_shapes_share_the_documented_domain() -> None:
    assert la.greatest_common_domain((16, 64), (4, 16, 16)) == WANT


def test_layouts_answer_as_their_shapes_whatever_their_strides() -> None:
    a = la.Layout((16, 64), (64, 1))
    b = la.Layout((4, 16, 16), (0, 7, 100))
    assert la.greatest_common_domain(a, b) == WANT
    assert la.greatest_common_domain(b, a) == WANT


def test_tensors_answer_as_their_layouts_shapes() -> None:
    a = la.make_tensor(la.Layout((16, 64), (64, 1)))
    b = la.make_tensor((4, 16, 16))
    assert la.greatest_common_domain(a, b) == WANT
