"""CuTe C++'s own printout of every atom's traits, for the atoms contract tests.

``tests/data/cute_atoms.json`` holds CuTe C++ itself (CUTLASS 4.2 compiled by ``tools/cute_atoms_dump.py``, each
``MMA_Traits`` / ``Copy_Traits`` printed by ``cute::print``).  ``tests/test_atoms_cute_cpp.py`` compares every atom
with it as functions and as printed; the contract tests of each atoms module use :func:`traits_unlike_cute` for the
atoms that module builds, so that a layout equal only as a function (an extent-1 mode at another stride, a 1-tuple
dropped) is caught by the module's own tests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CUTE_ATOMS: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "cute_atoms.json").read_text())["atoms"]

_FIELD = {"thr_id": "thr_id", "a": "a_layout", "b": "b_layout", "c": "c_layout",
          "src": "src_layout", "dst": "dst_layout", "ref": "ref_layout"}


def traits_unlike_cute(atom: Any) -> list[tuple[str, str, str]]:
    """(trait, ours, CuTe's) for each trait of ``atom`` that does not print as CuTe C++ prints it
    (CuTe's ``_`` of static integers and spaces dropped); ``[]`` when every trait is CuTe's, as written."""
    entry = CUTE_ATOMS[atom.name]
    traits = ("thr_id", "a", "b", "c") if entry["kind"] == "mma" else ("thr_id", "src", "dst", "ref")
    out = []
    for trait in traits:
        ours = str(getattr(atom, _FIELD[trait])).replace(" ", "")
        cute = entry[trait].replace("_", "").replace(" ", "")
        if ours != cute:
            out.append((trait, ours, cute))
    return out
