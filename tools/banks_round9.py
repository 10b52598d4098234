"""Round 9 of the shared-memory measurements: shared-memory atomics (exploratory).

    python3 tools/measure_banks.py OUTDIR --set 9          # on the GPU machine (9b: the holdout)
    python3 tools/banks_round9.py predict                   # round 9b's predictions, before it is measured
    python3 tools/banks_round9.py import OUTDIR/measurements.json [MORE.json ...]
    python3 tools/banks_round9.py import-holdout OUTDIR/measurements.json [MORE.json ...]   # round 9b

The bank model refuses ``atom``/``red`` on shared memory (not measured).  This round probes the forms ptxas
compiles to one ``ATOMS`` instruction (``banks_ncu.ATOMICS``: add, exch, cas, min, inc of 32 bits, exch and cas
of 64 bits, ``red.add`` by a lane value, and ``red.add`` of the constant 1, which ptxas turns into
``ATOMS.POPC.INC``) over patterns that separate candidate rules: distinct words per bank (the ``st.shared``
rule), lanes per bank (every lane's read-modify-write on its own), lanes per word, and mixtures.  ``import``
writes ``tests/data/<device>_smem_atomics_round9.json`` and prints, per candidate rule, how many it fits.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from banks_runs import read_runs, with_runs, write_replay  # noqa: E402

from layoutalg.banks import report  # noqa: E402
from layoutalg.gpu.banks_ncu import ATOMIC_MODEL_TEXT, ATOMICS, MASKED, Case  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
PREDICTIONS = os.path.join(DATA, "banks_round9b_predictions.json")
ROUND9 = ("atom.shared.add.u32", "atom.shared.exch.b32", "atom.shared.cas.b32", "atom.shared.min.s32",
          "atom.shared.inc.u32", "red.shared.add.u32", "red.shared.add.u32 (by lane)", "atom.shared.exch.b64",
          "atom.shared.cas.b64")
SEED = 909
SPAN = 8192
WIDE = ("atom.shared.exch.b64", "atom.shared.cas.b64")


def _case(name: str, ins: str, addrs: Sequence[int], active: Sequence[bool] | None = None) -> Case:
    assert len(addrs) == 32 and all(0 <= a < SPAN for a in addrs), name
    return Case(name, ins, tuple(addrs), None, ("round9", ins), None if active is None else tuple(active))


def _patterns(rng: random.Random, w: int) -> list[tuple[str, list[int]]]:
    words = lambda ws: [4 * x if w == 4 else 8 * x for x in ws]  # noqa: E731 - units of the access width
    per_row = 128 // w  # units per 128-byte row (one pass over the 32 banks)
    out: list[tuple[str, list[int]]] = [
        ("contiguous", words(range(32))),
        ("all one address", words([5] * 32)),
        ("column (one bank, 32 units)", words([per_row * i for i in range(32)])),
        ("two units per bank group, rows 0 and 1", words([(i % per_row) + per_row * (i // per_row % 2)
                                                         for i in range(32)])),
        ("lane 0 alone at row 1, rest one address", words([per_row] + [0] * 31)),
        ("two lanes one unit, rest contiguous", words([0, 0] + list(range(2, 32)))),
        ("one address, one lane another unit of its bank", words([0] * 31 + [per_row])),
    ]
    for k in (2, 4, 8, 16):
        out.append((f"{k} lanes per unit, contiguous units", words([i // k for i in range(32)])))
        out.append((f"{k} lanes per unit, units down one bank", words([per_row * (i // k) for i in range(32)])))
        out.append((f"{k} lanes per unit, interleaved", words([i % (32 // k) for i in range(32)])))
    for pool in (2, 4, 8, 32, 64):
        for j in range(2):
            units = [rng.randrange(SPAN // w) for _ in range(pool)]
            out.append((f"random pool of {pool} #{j}", words([rng.choice(units) for _ in range(32)])))
    for j in range(3):
        out.append((f"random #{j}", words([rng.randrange(SPAN // w) for _ in range(32)])))
    return out


def round9() -> list[Case]:
    rng = random.Random(SEED)
    cases: list[Case] = []
    for ins in ROUND9:
        w = 8 if ins in WIDE else 4
        for name, addrs in _patterns(rng, w):
            cases.append(_case(f"r9 {ins}: {name}", ins, addrs))
    return cases


def round9b() -> list[Case]:
    """A holdout for rule 6 (predicted before measuring): the operations round 9 did not probe, and partial warps
    (random masks over the same families) of add, cas, exch.b64 and the merged increment."""
    rng = random.Random(SEED + 1)
    cases: list[Case] = []
    for ins in [k for k in ATOMICS if k not in ROUND9 and not k.endswith(MASKED)]:
        for name, addrs in _patterns(rng, 8 if ins in WIDE else 4):
            cases.append(_case(f"r9b {ins}: {name}", ins, addrs))
    for ins in [k[:-len(MASKED)] for k in ATOMICS if k.endswith(MASKED)]:
        for name, addrs in _patterns(rng, 8 if ins in WIDE else 4):
            density = rng.choice([0.3, 0.6, 0.9])
            mask = [rng.random() < density for _ in range(32)]
            cases.append(_case(f"r9b {ins} masked {density}: {name}", ins, addrs, mask))
    return cases


def model_text(probe: str) -> str:
    """The bank model's instruction text of a probe (the merged increment carries its operand)."""
    return ATOMIC_MODEL_TEXT.get(probe, probe)


def predict(case: Case) -> tuple[int, int]:
    """(wavefronts, Nsight's conflict counter) the model gives (rule 6: the counter counts passes)."""
    live = case.active or (True,) * 32
    rep = report(model_text(case.instruction), [a if on else None for a, on in zip(case.lane_byte_addresses, live)])
    return rep.wavefronts, rep.excess // (2 if ".cas." in case.instruction else 1)


def write_predictions() -> int:
    cases = round9b()
    doc = {"meta": {"tool": "tools/banks_round9.py predict", "seed": SEED + 1,
                    "note": "written before round 9b is measured: the model's wavefronts and conflict counter"},
           "cases": [{"name": c.name, "instruction": c.instruction, "lane_byte_addresses": list(c.lane_byte_addresses),
                      **({"active": list(c.active)} if c.active is not None else {}),
                      "predicted": list(predict(c))} for c in cases]}
    with open(PREDICTIONS, "w") as fh:
        json.dump(doc, fh, indent=0)
    return len(cases)


# ------------------------------------------------------------------ candidate rules
def _units(addrs: Sequence[int], w: int) -> list[list[int]]:
    return [[a // 4 + k for k in range(w // 4)] for a in addrs]


def rules(ins: str, addrs: Sequence[int]) -> dict[str, int]:
    """What each candidate rule predicts for one warp-wide atomic (phases: 32 lanes for 4 bytes, two half-warps for
    8 bytes, as for ld/st)."""
    w = 8 if ins in WIDE else 4
    per = 32 if w == 4 else 16
    out = {"distinct words per bank": 0, "lanes per bank": 0, "max(distinct words per bank, lanes per word)": 0,
           "distinct words per bank + extra lanes per word": 0}
    for start in range(0, 32, per):
        lanes = range(start, start + per)
        words_by_bank: dict[int, set[int]] = {}
        lanes_by_bank: dict[int, int] = {}
        lanes_by_word: dict[int, int] = {}
        for lane in lanes:
            for word in _units([addrs[lane]], w)[0]:
                words_by_bank.setdefault(word % 32, set()).add(word)
                lanes_by_bank[word % 32] = lanes_by_bank.get(word % 32, 0) + 1
                lanes_by_word[word] = lanes_by_word.get(word, 0) + 1
        distinct = max(len(s) for s in words_by_bank.values())
        out["distinct words per bank"] += distinct
        out["lanes per bank"] += max(lanes_by_bank.values())
        out["max(distinct words per bank, lanes per word)"] += max(distinct, max(lanes_by_word.values()))
        out["distinct words per bank + extra lanes per word"] += max(
            len(s) + max(lanes_by_word[x] for x in s) - 1 for s in words_by_bank.values())
    return out


def import_measurements(paths: Sequence[str], out_dir: str = DATA) -> str:
    """Round 9: every case with its runs and what each candidate rule gives; prints each rule's fit per form."""
    device, runs = read_runs(paths)
    cases = []
    fits: dict[str, dict[str, int]] = {}
    for name, ms in runs.items():
        ins, addrs = str(ms[0]["instruction"]), list(ms[0]["lane_byte_addresses"])
        rec = with_runs({"name": name, "instruction": ins, "lane_byte_addresses": addrs, "rules": rules(ins, addrs)},
                        ms)
        cases.append(rec)
        fam = fits.setdefault(ins, {"n": 0})
        fam["n"] += 1
        for rule, value in rec["rules"].items():
            fam[rule] = fam.get(rule, 0) + (value == rec["wavefronts"])
    out = write_replay(out_dir, "smem_atomics_round9", device, "tools/banks_round9.py import", paths, cases)
    for ins, fam in fits.items():
        print(ins, fam)
    return out


def import_holdout(paths: Sequence[str], out_dir: str = DATA) -> str:
    """Join round 9b's measurements (several runs) with the committed predictions; print the fit."""
    with open(PREDICTIONS) as fh:
        predicted = {c["name"]: c for c in json.load(fh)["cases"]}
    device, runs = read_runs(paths, predicted, "round 9b")
    cases = [with_runs(pred, runs[name]) for name, pred in predicted.items() if name in runs]
    exact = sum(c["predicted"][0] == c["wavefronts_runs"][0] for c in cases)
    print(f"{exact} of {len(cases)} wavefront counts as predicted")
    return write_replay(out_dir, "smem_atomics_round9b", device, "tools/banks_round9.py import-holdout", paths, cases)


def main(argv: Sequence[str]) -> int:
    if len(argv) >= 2 and argv[0] == "import-holdout":
        import_holdout(argv[1:])
        return 0
    if argv[:1] == ["predict"]:
        print(f"wrote {PREDICTIONS}: {write_predictions()} patterns")
        return 0
    if len(argv) >= 2 and argv[0] == "import":
        import_measurements(argv[1:])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
