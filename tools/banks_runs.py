"""Measurement runs of the shared-memory rounds (tools/banks_round8.py, banks_round9.py): read them, join them
with committed predictions, and write the replay file the tests read.

A run is a ``measurements.json`` written by ``tools/measure_banks.py``; a round is usually measured twice, and
each case keeps every run's count (``wavefronts_runs``) and metrics (``metrics_runs``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any


def read_runs(paths: Sequence[str], predicted: dict[str, dict[str, Any]] | None = None,
              round_name: str = "this round") -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """(the device, case name -> its records in run order).  With ``predicted``, every measured case must be one of
    them with the same lane addresses (else SystemExit naming it)."""
    runs: dict[str, list[dict[str, Any]]] = {}
    device = ""
    for path in paths:
        with open(path) as fh:
            doc = json.load(fh)
        device = device or str(doc.get("meta", {}).get("device", ""))
        for case in doc["cases"]:
            if predicted is not None and (case["name"] not in predicted or case["lane_byte_addresses"]
                                          != predicted[case["name"]]["lane_byte_addresses"]):
                raise SystemExit(f"{case['name']!r} is not a pattern of {round_name} as predicted")
            runs.setdefault(case["name"], []).append(case)
    return device, runs


def with_runs(record: dict[str, Any], measured: list[dict[str, Any]]) -> dict[str, Any]:
    """``record`` plus every run's count and metrics (and the first run's count as ``wavefronts``)."""
    return {**record, "wavefronts_runs": [m["wavefronts"] for m in measured], "wavefronts": measured[0]["wavefronts"],
            "metrics_runs": [m["metrics"] for m in measured]}


def write_replay(out_dir: str, stem: str, device: str, tool: str, paths: Sequence[str],
                 cases: list[dict[str, Any]]) -> str:
    """Write ``<device tag>_<stem>.json`` (h200, h100 or gpu) into ``out_dir``; returns its path."""
    tag = "h200" if "H200" in device else "h100" if "H100" in device else "gpu"
    out = os.path.join(out_dir, f"{tag}_{stem}.json")
    with open(out, "w") as fh:
        json.dump({"meta": {"device": device, "tool": tool, "sources": list(paths)}, "cases": cases}, fh, indent=0)
    return out
