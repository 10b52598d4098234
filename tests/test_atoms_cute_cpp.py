"""Every CuTe C++ atom against layoutalg's catalog, as functions, at every (thread, value).

The oracle is ``tests/data/cute_atoms.json``: CuTe C++ itself (CUTLASS 4.2, compiled by
``tools/cute_atoms_dump.py``, each trait printed by ``cute::print``, with its header and line),
plus atoms CUTLASS added after 4.2 (their commit recorded).  The layouts are parsed here from
CuTe's printed form with a parser of this file's own (not layoutalg's), so a layoutalg parsing
bug cannot hide a mismatch.

Two CuTe 4.2 traits are defective; layoutalg implements the PTX ISA table there instead.  The
tests below prove each defect on CuTe's own printout (non-injective / rank mismatch) rather than
skipping those atoms.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from layoutalg.atoms import catalog

DATA = json.loads((Path(__file__).parent / "data" / "cute_atoms.json").read_text())
ATOMS = DATA["atoms"]

#: CuTe 4.2 traits that are wrong, and how (checked by test_cute_defects_are_real).
DEFECTS = {
    **{f"SM80_16x8x32_S32{a}{b}S32_TN{s}": ("b", "not injective")
       for a in ("S4", "U4") for b in ("S4", "U4") for s in ("", "_SATURATE")},
    **{f"SM80_16x8x128_S32U1U1S32_TN_{op}POPC": ("a", "stride rank differs from shape rank") for op in ("XOR", "AND")},
}


# -- a parser for CuTe's print form, e.g. ((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) ------------------
def _tuple(text: str, pos: int) -> tuple[object, int]:
    if text[pos] == "(":
        items = []
        pos += 1
        while text[pos] != ")":
            item, pos = _tuple(text, pos)
            items.append(item)
            if text[pos] == ",":
                pos += 1
        return tuple(items), pos + 1
    end = pos
    while end < len(text) and (text[end].isdigit() or text[end] == "-"):
        end += 1
    return int(text[pos:end]), end


def parse_tuple(text: str) -> object:
    t = text.replace("_", "").replace(" ", "")
    value, end = _tuple(t, 0)
    assert end == len(t), text
    return value


def parse(text: str) -> tuple[object, object]:
    """(shape, stride) of CuTe's printed layout; 1-tuples kept as tuples."""
    t = text.replace("_", "").replace(" ", "")
    shape, pos = _tuple(t, 0)
    assert t[pos] == ":", text
    stride, end = _tuple(t, pos + 1)
    assert end == len(t), text
    return shape, stride


def congruent(shape: object, stride: object) -> bool:
    if isinstance(shape, tuple):
        return isinstance(stride, tuple) and len(shape) == len(stride) and all(map(congruent, shape, stride))
    return isinstance(stride, int)


def _flat(shape: object, stride: object) -> list[tuple[int, int]]:
    if isinstance(shape, tuple):
        return [x for s, d in zip(shape, stride) for x in _flat(s, d)]  # type: ignore[arg-type]
    return [(shape, stride)]  # type: ignore[list-item]


def _size(shape: object) -> int:
    return _prod(s for s, _ in _flat(shape, shape))


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def mode_values(shape: object, stride: object) -> "np.ndarray":
    """The layout's offsets in colexicographic order of its coordinates (CuTe's index order)."""
    out = np.zeros(1, dtype=np.int64)
    for extent, d in _flat(shape, stride):  # the first leaf varies fastest
        out = (np.arange(extent, dtype=np.int64)[:, None] * d + out[None, :]).reshape(-1)
    return out


def canonical(shape: object, stride: object) -> tuple[tuple[int, int], ...]:
    """The coalesced leaves of one mode: size-1 leaves dropped, (s1,d1)(s2,d2) merged when d2 == s1*d1.

    Two layouts of one mode are equal as functions on their domain exactly when these agree:
    the function fixes the first leaf's stride (its value at 1) and extent (where the values
    stop being multiples of it, which is where a merge would have happened), and so on.
    """
    out: list[list[int]] = []
    for s, d in _flat(shape, stride):
        if s == 1:
            continue
        if out and d == out[-1][0] * out[-1][1]:
            out[-1][0] *= s
        else:
            out.append([s, d])
    return tuple((s, d) for s, d in out)


def cute_tv(text: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per-mode canonical forms of a CuTe TV layout (a ThrID is one mode)."""
    shape, stride = parse(text)
    assert congruent(shape, stride), text
    if not isinstance(shape, tuple):
        return (canonical(shape, stride),)
    return tuple(canonical(s, d) for s, d in zip(shape, stride))  # type: ignore[arg-type]


def ours_tv(layout) -> tuple[tuple[tuple[int, int], ...], ...]:
    if layout.rank() == 1 and not isinstance(layout.shape, tuple):
        return (canonical(layout.shape, layout.stride),)
    return tuple(canonical(m.shape, m.stride) for m in layout)


def values_in_index_order(shape: object, stride: object) -> "np.ndarray":
    return mode_values(shape, stride)


# -- the comparison -------------------------------------------------------------------------------
def test_catalog_has_every_cute_atom_and_nothing_cute_lacks():
    """1195 atoms: CUTLASS 4.2's 1194 dense atoms with TV layouts plus SM75_16x8x8_F16F16F16F16_TN (later)."""
    ours = set(catalog.names())
    assert set(ATOMS) - ours == set()
    assert ours - set(ATOMS) == set()
    assert len(ATOMS) == 1195


NAMES = sorted(ATOMS)
_OPS = {"mma": ("a", "b", "c"), "copy": ("src", "dst", "ref")}


@pytest.mark.parametrize("chunk", range(8))
def test_every_atom_equals_cute_cpp_at_every_thread_and_value(chunk):
    """ThrID, every operand layout and the MMA shape, as functions; the known defects excepted per operand."""
    bad = []
    for name in NAMES[chunk::8]:
        entry = ATOMS[name]
        atom = catalog.get(name)
        if ours_tv(atom.thr_id) != cute_tv(entry["thr_id"]):
            bad.append((name, "thr_id"))
        if entry["kind"] == "mma":
            assert tuple(atom.shape_mnk) == parse_tuple(entry["shape_mnk"]), name
        for op in _OPS[entry["kind"]]:
            if DEFECTS.get(name, ("",))[0] == op:
                continue
            ours = getattr(atom, {"a": "a_layout", "b": "b_layout", "c": "c_layout"}.get(op, f"{op}_layout"))
            if ours_tv(ours) != cute_tv(entry[op]):
                bad.append((name, op, str(ours), entry[op]))
    assert bad == []


_TYPE = {"gc64": "other"}


def test_mma_element_types_equal_cute_cpp():
    for name, entry in ATOMS.items():
        if entry["kind"] != "mma" or name == "UniversalFMA":
            continue
        atom = catalog.get(name)
        ours = [_TYPE.get(t, t) for t in (atom.d_type, atom.a_type, atom.b_type, atom.c_type)]
        assert ours == entry["types"], name


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_cute_defects_are_real_and_ours_is_a_bijection(name):
    """CuTe's trait is wrong in the way DEFECTS says; ours covers every element of the operand exactly once."""
    op, how = DEFECTS[name]
    shape, stride = parse(ATOMS[name][op])
    if how == "not injective":
        assert congruent(shape, stride)
        values = mode_values(shape, stride).tolist()
        assert len(set(values)) < len(values)
    else:
        assert not congruent(shape, stride)
    atom = catalog.get(name)
    m, n, k = atom.shape_mnk
    ours = atom.layout(op.upper())
    assert sorted(int(v) for v in ours.to_numpy().reshape(-1)) == list(range({"a": m * k, "b": n * k}[op]))


def test_source_is_recorded_for_every_atom():
    for name, entry in ATOMS.items():
        assert entry["header"].startswith("include/cute/atom/") and entry["line"] > 0, name
    assert DATA["source"]["cutlass"] == "4.2.0"


SAMPLE = [n for n in NAMES if not n.startswith("SM90_64x")] + [n for n in NAMES if n.startswith("SM90_64x8x")]


def _same_by_values(ours, text: str) -> bool:
    shape, stride = parse(text)
    return bool(ours.size() == _size(shape) and ours[0].size() == _size(shape[0])  # type: ignore[index]
                and (ours.to_numpy().reshape(-1) == mode_values(shape, stride)).all())


def test_canonical_forms_decide_equality_like_full_evaluation():
    """Cross-check of the comparison itself on every non-wgmma atom and every N=8 wgmma atom, against
    its own CuTe layout (equal) and against the same operand of other atoms of the same size (mostly
    not): canonical forms agree exactly when every (thread, value) gives the same offset."""
    seen = {True: 0, False: 0}
    texts: dict[tuple[str, int], list[str]] = {}
    for name in SAMPLE:
        entry = ATOMS[name]
        for op in _OPS[entry["kind"]]:
            shape, stride = parse(entry[op])
            if congruent(shape, stride) and isinstance(shape, tuple):
                texts.setdefault((entry["kind"] + op, _size(shape)), []).append(entry[op])
    for name in SAMPLE:
        entry = ATOMS[name]
        atom = catalog.get(name)
        for op in _OPS[entry["kind"]]:
            ours = getattr(atom, {"a": "a_layout", "b": "b_layout", "c": "c_layout"}.get(op, f"{op}_layout"))
            for text in texts.get((entry["kind"] + op, ours.size()), [])[:6]:
                same = _same_by_values(ours, text)
                assert same == (ours_tv(ours) == cute_tv(text)), (name, op, text)
                seen[same] += 1
    assert seen[True] > 100 and seen[False] > 100


@pytest.mark.parametrize("device", ["h100", "h200"])
def test_recorded_hardware_refutes_cutes_int4_b_layout_and_agrees_with_ours(device):
    """The committed one-hot mma recordings (H100, H200) of m16n8k32 .s4: our atom agrees with the hardware
    under both models; with CuTe 4.2's BLayout substituted the CuTe model disagrees."""
    import dataclasses

    from layoutalg.core.layout import Layout
    from layoutalg.gpu.replay import check_mma

    rec = json.loads((Path(__file__).parent / "data" / f"gpu_recording_nvidia_{device}.json").read_text())
    case = next(c for c in rec["mma"] if c["instruction"] == "mma.sync.aligned.m16n8k32.row.col.s32.s4.s4.s32")
    ours = catalog.get("SM80_16x8x32_S32S4S4S32_TN")
    assert all(not errs for _, errs in check_mma(case, ours))
    cute_b = Layout(*parse(ATOMS["SM80_16x8x32_S32S4S4S32_TN"]["b"]))
    results = dict(check_mma(case, dataclasses.replace(ours, b_layout=cute_b)))
    assert results["cute"] and not results["ptx"]


def test_every_atom_prints_as_cute_prints_it_except_the_defects():
    """Structural equality too: shape and stride as CuTe prints them (underscores dropped)."""
    differ = set()
    for name, entry in ATOMS.items():
        atom = catalog.get(name)
        for op in ("thr_id", *_OPS[entry["kind"]]):
            ours = getattr(atom, {"a": "a_layout", "b": "b_layout", "c": "c_layout", "thr_id": "thr_id"}.get(
                op, f"{op}_layout"))
            if str(ours).replace(" ", "") != entry[op].replace("_", ""):
                differ.add((name, op))
    assert differ == {(name, op) for name, (op, _) in DEFECTS.items()}
