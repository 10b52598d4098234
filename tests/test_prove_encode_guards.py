"""The z3 encoders refuse what they cannot represent (found by mutation testing).

An encoder sees only *lowered* terms (layouts, swizzles and composed layouts expanded into primitive
operators by ``lowering.lower``); a layout application handed to it directly must be a ProofError that
says to lower it, never a half-built z3 expression or an internal NameError.
"""

from __future__ import annotations

import pytest

from layoutalg import Layout
from layoutalg.errors import ProofError
from layoutalg.prove import encode, sym, var


@pytest.mark.parametrize("encoder", ["bit-vector", "integer"])
def test_an_unlowered_layout_application_is_refused_by_both_encoders(encoder):
    x = var("x", 16)
    claim = sym(Layout((4, 4), (4, 1)))(x) == x
    enc = encode.encoder_for([claim], [x]) if encoder == "bit-vector" else encode.IntEncoder({})
    with pytest.raises(ProofError, match="lower"):
        enc.pred(claim)
