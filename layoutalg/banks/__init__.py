"""Shared-memory bank conflicts, exactly as Hopper counts them.

* :func:`wavefronts`, :func:`report` (layoutalg.banks.model): one warp-wide instruction;
* :func:`wavefronts_many` (layoutalg.banks.vector): the same, vectorised with numpy;
* :func:`analyze` (layoutalg.banks.analyze): every instruction of a copy or k-loop over a smem layout;
* :func:`suggest_swizzle` (layoutalg.banks.suggest): the cheapest swizzle or padding that removes conflicts;
* :func:`conflict_free` (layoutalg.banks.proof): a proof, with counterexample when it fails.

numpy is imported only inside the functions that need it.
"""

from __future__ import annotations

from typing import Any

from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.banks.analyze import Analysis
from layoutalg.banks.analyze import analyze as _analyze_fn
from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.banks.model import (
    BankReport,
    BankUse,
    PhaseReport,
    conflict_counter,
    excess_wavefronts,
    ideal_wavefronts,
    report,
    wavefronts,
)
from layoutalg.banks.tiled import access_from_tiled_copy
from layoutalg.banks.vector import wavefronts_many
from layoutalg.core.display import attach_display

# bound after the submodule import so ``layoutalg.banks.analyze`` is the function, not the module
analyze = _analyze_fn

attach_display(Analysis, html="analysis_html", svg="analysis_svg")  # summary + heat map of the worst instruction


def suggest_swizzle(smem_shape: Any, dtype: Any, accesses: Any, **kwargs: Any) -> Any:
    """See :func:`layoutalg.banks.suggest.suggest_swizzle`."""
    from layoutalg.banks.suggest import suggest_swizzle as _suggest

    return _suggest(smem_shape, dtype, accesses, **kwargs)


def conflict_free(smem_layout: Any, access: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """See :func:`layoutalg.banks.proof.conflict_free`."""
    from layoutalg.banks.proof import conflict_free as _conflict_free

    return _conflict_free(smem_layout, access, dtype=dtype, **kwargs)


__all__ = [
    "Access", "Analysis", "element_bytes", "tile_access", "Instruction", "parse_instruction", "BankReport", "BankUse", "PhaseReport",
    "wavefronts", "report", "ideal_wavefronts", "excess_wavefronts", "conflict_counter", "wavefronts_many",
    "analyze", "suggest_swizzle", "conflict_free", "access_from_tiled_copy",
]
