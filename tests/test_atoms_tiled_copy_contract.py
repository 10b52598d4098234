"""TiledCopy construction refusals (layoutalg.atoms.tiled_copy): a tile holding fewer values per thread than
the atom moves is refused with advice naming a smaller, existing form of the atom (.x4 -> .x2, .x2 -> .x1)."""

from __future__ import annotations

import pytest

from layoutalg.atoms import catalog
from layoutalg.atoms.tiled_copy import make_tiled_copy
from layoutalg.core.layout import Layout
from layoutalg.errors import LayoutError


@pytest.mark.parametrize("num, smaller", [(4, 2), (2, 1), (1, 1)])
def test_too_few_values_per_thread_names_an_existing_smaller_ldmatrix_form(num: int, smaller: int) -> None:
    moved = 2 * num  # 16-bit values: two per register, one register per matrix
    with pytest.raises(LayoutError) as err:
        make_tiled_copy(catalog.ldmatrix(num, False), Layout(32), 1, bits=16)
    text = str(err.value)
    assert f"each thread holds 1 values of the tile but SM75_U32x{num}_LDSM_N with 16-bit values moves {moved}" in text
    assert f"(e.g. the .x{smaller} form)" in text and ".x0" not in text


def test_too_few_values_of_a_per_thread_copy_advises_a_narrower_vector() -> None:
    with pytest.raises(LayoutError, match=r"Use a smaller atom \(a narrower vector\)"):
        make_tiled_copy(catalog.ld_shared(128), Layout(32), 1, bits=16)
