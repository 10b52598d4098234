"""Round 10 of the shared-memory measurements: a holdout of the patterns users ask about, predicted before measuring.

    python3 tools/banks_round10.py predict                              # rewrite tests/data/banks_round10_predictions.json
    python3 tools/measure_banks.py OUTDIR --set 10 [--budget-s 420]     # on the GPU machine (twice)
    python3 tools/banks_round10.py import OUTDIR1/measurements.json OUTDIR2/measurements.json

Earlier rounds chose lane addresses directly.  These come the way a user's question produces them: a random tile
(8-64 rows of 16-256 elements of 1, 2, 4 or 8 bytes, row pitch padded by 0-8 elements, XOR-swizzled by a random
``Swizzle<B, M, S>`` on element offsets, placed at a random 16-byte-aligned base), a random instruction that fits the
element type (ld/st of 1-16 bytes, ldmatrix/stmatrix .x1/.x2/.x4 with and without .trans, cp.async.ca 4/8/16 and
.cg 16 with a row- or column-major global side), swept over the tile by rows or columns with
``layoutalg.banks.tile_access`` and costed by ``layoutalg.banks.analyze``; one random instance of the sweep becomes a
pattern.  The prediction recorded for it is that analysis's wavefront count -- the number a user reads.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from banks_runs import read_runs, with_runs, write_replay  # noqa: E402

import layoutalg as la  # noqa: E402
from layoutalg import banks  # noqa: E402
from layoutalg.errors import LayoutError  # noqa: E402
from layoutalg.gpu.banks_ncu import Case  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
PREDICTIONS = os.path.join(DATA, "banks_round10_predictions.json")
SEED = 1010
COUNT = 400
SPAN = 200 * 1024  # every byte offset stays below this (inside sm_90's 227 KiB)
DTYPES = {1: "u8", 2: "f16", 4: "f32", 8: "f64"}


def _instructions(element: int) -> list[str]:
    """Instructions (the CLI's short forms) that move whole elements of ``element`` bytes."""
    out = [f"ld.shared.{'b' if element > 1 else 'u'}{8 * element}", f"st.shared.{'b' if element > 1 else 'u'}{8 * element}"]
    for width in (8, 16):
        if width > element:
            out += [f"ld.shared.v{width // max(element, 4)}.b{8 * max(element, 4)}"] if element >= 4 else []
    if element == 2:
        out += [f"{k}.x{n}{t}" for k in ("ldmatrix", "stmatrix") for n in (1, 2, 4) for t in ("", ".trans")]
        out += ["ld.shared.v2.b32", "ld.shared.v4.b32", "st.shared.v4.b32"]
    if element == 1:
        out += ["ld.shared.b32", "ld.shared.v4.b32", "st.shared.v2.b32"]
    out += [f"cp.async.ca.{w}" for w in (4, 8, 16) if w >= element] + ["cp.async.cg.16"]
    return out


def _pattern(rng: random.Random) -> tuple[str, list[int], list[int] | None, int, str] | None:
    """(instruction, 32 shared byte addresses, 32 global ones or None, the analysis's wavefronts, description)."""
    element = rng.choice([1, 2, 2, 4, 4, 8])
    ins = rng.choice(_instructions(element))
    rows = rng.choice([8, 16, 32, 64])
    cols = rng.choice([c for c in (16, 32, 64, 128, 256) if c * element <= 512])
    pad = rng.choice([0, 0, 0, 1, 2, 4, 8])
    b = rng.randrange(0, 4)
    m = rng.randrange(0, 5)
    s = rng.randrange(max(b, 1), 7)
    layout = f"({rows},{cols}):({cols + pad},1)"
    text = f"Sw<{b},{m},{s}> o _0 o {layout}" if b else layout
    by = rng.choice(["row", "col"])
    base = 16 * rng.randrange(0, 4096)
    try:
        smem = la.parse(text)
        access = banks.tile_access(ins, (rows, cols), DTYPES[element], by=by)
        glob = None
        if ins.startswith("cp.async"):
            major = rng.choice(["row", "col"])
            glob = la.parse(f"({rows},{cols}):({cols},1)" if major == "row" else f"({rows},{cols}):(1,{rows})")
        analysis = banks.analyze(smem, access, DTYPES[element], base=base, by=by, global_layout=glob)
    except LayoutError:
        return None
    shape = analysis.addresses.shape
    flat = analysis.addresses.reshape(-1, shape[-1])
    k = rng.randrange(flat.shape[0])
    addrs = [int(a) for a in flat[k]]
    if len(addrs) != 32 or max(addrs) + 16 > SPAN:
        return None
    gaddrs = None
    if analysis.global_addresses is not None:
        gaddrs = [int(a) for a in analysis.global_addresses.reshape(-1, 32)[k]]
    predicted = int(analysis.wavefronts.reshape(-1)[k])
    return analysis.instruction, addrs, gaddrs, predicted, f"{ins} {text} {DTYPES[element]} by {by} @{base} #{k}"


def round10() -> list[Case]:
    return [Case(name, ins, tuple(addrs), None if g is None else tuple(g), ("round10", "holdout"))
            for name, ins, addrs, g, _ in _patterns()]


def _patterns() -> list[tuple[str, str, list[int], list[int] | None, int]]:
    rng = random.Random(SEED)
    out: list[tuple[str, str, list[int], list[int] | None, int]] = []
    while len(out) < COUNT:
        got = _pattern(rng)
        if got is not None:
            ins, addrs, g, predicted, what = got
            out.append((f"r10 {len(out)}: {what}", ins, addrs, g, predicted))
    return out


def write_predictions() -> int:
    cases = _patterns()
    doc = {"meta": {"tool": "tools/banks_round10.py predict", "seed": SEED,
                    "note": "written before round 10 is measured: layoutalg.banks.analyze's wavefronts per pattern"},
           "cases": [{"name": name, "instruction": ins, "lane_byte_addresses": addrs,
                      **({"global_byte_addresses": g} if g is not None else {}), "predicted": predicted}
                     for name, ins, addrs, g, predicted in cases]}
    with open(PREDICTIONS, "w") as fh:
        json.dump(doc, fh, indent=0)
    return len(cases)


def import_holdout(paths: Sequence[str], out_dir: str = DATA) -> str:
    """Join round 10's measurements (several runs) with the committed predictions; print the fit."""
    with open(PREDICTIONS) as fh:
        predicted: dict[str, dict[str, Any]] = {c["name"]: c for c in json.load(fh)["cases"]}
    device, runs = read_runs(paths, predicted, "round 10")
    cases = [with_runs(pred, runs[name]) for name, pred in predicted.items() if name in runs]
    exact = sum(c["predicted"] == c["wavefronts_runs"][0] for c in cases)
    print(f"{exact} of {len(cases)} wavefront counts as predicted")
    return write_replay(out_dir, "smem_round10", device, "tools/banks_round10.py import", paths, cases)


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["predict"]:
        print(f"wrote {PREDICTIONS}: {write_predictions()} patterns")
        return 0
    if len(argv) >= 2 and argv[0] == "import":
        print(import_holdout(argv[1:]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
