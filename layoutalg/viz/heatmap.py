"""Bank heat maps: one row per phase of a warp-wide shared-memory instruction, one column per bank.

Cell ``(phase p, bank b)`` holds the number of *distinct* 4-byte words bank
``b`` must deliver in phase ``p`` -- the phase costs the maximum over its row
(:mod:`layoutalg.banks.model`, rule 3), so a row with a 4 is a 4-way conflict.
The phases and the words each lane touches come from the bank model
(:func:`layoutalg.banks.model.report`, :func:`~layoutalg.banks.model.lane_words`),
so the picture shows exactly what ``wavefronts`` counts.
"""

from __future__ import annotations

from typing import Any, Sequence

from layoutalg.viz.grid import Grid, matrix_grid

NUM_BANKS = 32


def bank_usage(instruction: str, lane_byte_addresses: Sequence[int]) -> list[tuple[tuple[int, ...], list[int]]]:
    """``[(lanes of phase p, distinct words per bank in phase p)]`` for one instruction."""
    from layoutalg.banks import model
    from layoutalg.banks.instruction import parse_instruction

    ins = parse_instruction(instruction)
    bank_report = model.report(instruction, lane_byte_addresses)  # validates, and splits the lanes into phases
    addrs = bank_report.lane_byte_addresses
    rows = []
    for lanes in (phase.lanes for phase in bank_report.phases):
        words: list[set[int]] = [set() for _ in range(NUM_BANKS)]
        for lane in lanes:
            a = addrs[lane]
            if a is None:  # an inactive lane requests nothing
                continue
            for word in model.lane_words(ins, a):
                words[word % NUM_BANKS].add(word)
        rows.append((tuple(lanes), [len(w) for w in words]))
    return rows


def bank_heatmap(instruction: str, lane_byte_addresses: Sequence[int], title: str | None = None) -> Grid:
    """The heat map grid of one instruction (rows ``phase k (lanes a-b)``, columns ``0..31``)."""
    usage = bank_usage(instruction, lane_byte_addresses)
    values = [counts for _, counts in usage]
    row_labels = [f"p{k} l{lanes[0]}-{lanes[-1]}" if lanes else f"p{k}" for k, (lanes, _) in enumerate(usage)]
    cost = sum(max(counts, default=0) for counts in values)
    heading = title if title is not None else f"{instruction}: {cost} wavefronts (cell = distinct words per bank)"
    return matrix_grid(values, row_labels, [str(b) for b in range(NUM_BANKS)], heading)


def heatmap_json(instruction: str, lane_byte_addresses: Sequence[int]) -> list[dict[str, Any]]:
    """The same data for ``--json``: per phase, its lanes and the distinct words per bank."""
    return [{"lanes": list(lanes), "words_per_bank": counts} for lanes, counts in bank_usage(instruction, lane_byte_addresses)]


__all__ = ["bank_usage", "bank_heatmap", "heatmap_json"]
