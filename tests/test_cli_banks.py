"""``layoutalg banks`` (layoutalg.cli.banks) names the element type as the dtype table spells it, whatever spelling
--dtype was given in: one report, one JSON value, for CI to compare."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from layoutalg.cli import main


@pytest.mark.parametrize("spelling", ["f16", "float16", "torch.float16", "cutlass.Float16", "half"])
def test_the_report_and_json_name_the_dtype_canonically(spelling: str) -> None:
    argv = ["banks", "(64,64):(64,1)", "--dtype", spelling, "--access", "ldmatrix.x4"]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(argv) == 0
        assert main([*argv, "--json"]) == 0
    text, _, payload = out.getvalue().partition("\n{")
    assert text.startswith("(64,64):(64,1)  f16  ldmatrix.sync.aligned.m8n8.x4.shared.b16\n")
    assert json.loads("{" + payload)["dtype"] == "f16"
