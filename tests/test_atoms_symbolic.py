"""The atoms' PTX formulas on symbolic input: the same formula as a term, or a clear error naming what to pass.

Each term is evaluated at every point of its domain and compared with the formula on ints, and the int
results are compared with the PTX ISA tables re-typed in ``tests/oracles/ptx_fragments.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles import ptx_fragments as ptx

from layoutalg import atoms
from layoutalg.atoms.catalog import COPY_ATOMS
from layoutalg.atoms.mma import MMA_ATOMS
from layoutalg.errors import InstructionError
from layoutalg.prove import param, var
from layoutalg.prove.expr import evaluate, lower


def value(term, **env):
    """A formula's result at one point (an int result of a constant sub-formula is already a value)."""
    return term if isinstance(term, int) else int(evaluate(lower(term), env))


@pytest.mark.parametrize("atom", MMA_ATOMS, ids=lambda a: a.name)
def test_mma_fragment_coord_on_terms_equals_the_int_formula_everywhere(atom) -> None:
    lane = var("lane", 32)
    for op in "ABC":
        n = atom.num_elements(op)
        i = var("i", n)
        row, col = atom.fragment_coord(op, lane, i)
        index = atom.ptx_index(op, lane, i)
        for ln in range(32):
            for k in range(n):
                assert (value(row, lane=ln, i=k), value(col, lane=ln, i=k)) == atom.fragment_coord(op, ln, k)
                assert value(index, lane=ln, i=k) == atom.ptx_index(op, ln, k)


def test_int_results_match_the_ptx_tables() -> None:
    atom = atoms.mma("m16n8k32", a="s8", b="s8", c="s32")
    for op in "ABC":
        frag = ptx.fragment((16, 8, 32), 8, op, 32 if op == "C" else 8)
        for ln in range(32):
            for k in range(frag.n):
                assert atom.fragment_coord(op, ln, k) == frag.coord(ln, k)


def test_register_form_and_copy_formulas_on_terms() -> None:
    lane, reg, half = var("lane", 32), var("reg", 4), var("half", 2)
    mma = atoms.mma("m16n8k16", a="f16", c="f32")
    row, col = mma.fragment_coord_reg("A", lane, reg, half)
    for copy in [a for a in COPY_ATOMS if a.kind in ("ldmatrix", "stmatrix") and a.num_matrices == 4]:
        m, r, c = copy.fragment_coord(lane, reg, half)
        supplier = copy.row_address_lane(m, r)
        for ln in range(32):
            for rg in range(4):
                for h in range(2):
                    env = {"lane": ln, "reg": rg, "half": h}
                    got = tuple(value(t, **env) for t in (m, r, c))
                    assert got == copy.fragment_coord(ln, rg, h) == ptx.ldmatrix_slot(copy.trans, ln, rg, h)
                    assert value(supplier, **env) == 8 * got[0] + got[1]
                    assert (value(row, **env), value(col, **env)) == mma.fragment_coord_reg("A", ln, rg, h)
    src, dst = atoms.movmatrix_coords(lane, half)
    for ln in range(32):
        for h in range(2):
            env = {"lane": ln, "half": h}
            assert tuple(value(t, **env) for t in src + dst) == sum(atoms.movmatrix_coords(ln, h), ())


def test_wgmma_fragment_coord_on_terms() -> None:
    atom = atoms.wgmma(16, "f16", "f32")
    tid, i = var("tid", 128), var("i", 8)
    row, col = atom.fragment_coord("C", tid, i)
    for t in range(0, 128, 7):
        for k in range(8):
            assert (value(row, tid=t, i=k), value(col, tid=t, i=k)) == atom.fragment_coord("C", t, k)


def test_numpy_integers_are_ints() -> None:
    mma = atoms.mma("m16n8k16", a="f16", c="f32")
    assert mma.fragment_coord("A", np.int64(5), np.int32(3)) == mma.fragment_coord("A", 5, 3)


@pytest.mark.parametrize("bad, message", [
    (1.5, "an int in \\[0, 32\\) or a symbolic term"),
    ("3", "an int in \\[0, 32\\) or a symbolic term"),
    (True, "an int in \\[0, 32\\) or a symbolic term"),
    (32, "must be in \\[0, 32\\), got 32"),
    (var("lane", 64), "declare it as var\\('lane', 32\\)"),
    (param("lane", 40), "ranges over \\[0, 40\\)"),
])
def test_bad_lane_says_what_to_pass(bad, message) -> None:
    mma = atoms.mma("m16n8k16", a="f16", c="f32")
    with pytest.raises(InstructionError, match=message):
        mma.fragment_coord("A", bad, 0)
    with pytest.raises(InstructionError, match="lane"):
        atoms.ldmatrix(4).fragment_coord(bad, 0, 0)
