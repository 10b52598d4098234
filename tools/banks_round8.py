"""Round 8 of the shared-memory measurements: partial warps of ld/st, and a fresh full-warp holdout.

    python3 tools/measure_banks.py OUTDIR --set 8 [--budget-s 420] [--start K]   # on the GPU machine
    python3 tools/measure_banks.py OUTDIR --set 8b                              # round 8b (see lenient_probes)
    python3 tools/banks_round8.py predict            # rewrite tests/data/banks_round8_predictions.json
    python3 tools/banks_round8.py import OUTDIR/measurements.json [MORE.json ...]

Rule 5 of ``layoutalg.banks.model`` (inactive lanes absent) was pinned only by corpus kernels with 4-byte
partial warps, and the model refused the partial 64/128-bit loads whose cost depends on how rule 2's lane
pairing treats an inactive partner.  The masked probe kernels (``banks_ncu``: ``@p ld/st.shared`` with the
predicate set in the same asm statement, so every lane computes its address) keep each inactive lane's
offset in its address register, so a case can also ask whether the hardware looks at those ("ghost")
addresses.  ``predict`` records, before measuring, what four readings of the pairing give:

* ``strict``: an active lane's partner must be active with the same address (inactive pairs are fine);
* ``lenient``: a pair with an inactive lane is ignored;
* ``ghost``: the pairing is judged on all 32 address registers, inactive lanes included;
* ``never``: a warp with an inactive lane never pairs up;

and the model's own count (None where it refuses).  Families, in measuring order:

* ``pairing``: 64/128-bit loads whose lanes pair up (``i ^ 1`` or ``i ^ 2``) with lanes switched off so the
  readings part (one partner off with its ghost equal or not, both off with ghosts equal or not, every odd
  lane off, random masks);
* ``absent``: every width, loads and stores, conflict-heavy and random patterns under random masks;
* ``empty``: no lane active, whole phases off, one lane on;
* ``control``: all-lanes-active masked twins of patterns measured before (the masked kernel must count the
  same);
* ``holdout``: fresh full-warp patterns of every instruction (GF(2)-affine lane maps, swizzled tiles at odd
  bases, duplicates), unmasked kernels.
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

from layoutalg.banks import wavefronts  # noqa: E402
from layoutalg.errors import LayoutError  # noqa: E402
from layoutalg.gpu.banks_ncu import Case  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
PREDICTIONS = os.path.join(DATA, "banks_round8_predictions.json")
EARLIER = os.path.join(DATA, "h200_smem_wavefronts_more.json")
SEED = 808
LD = {1: "ld.shared.u8", 2: "ld.shared.u16", 4: "ld.shared.b32", 8: "ld.shared.v2.b32", 16: "ld.shared.v4.b32"}
ST = {w: t.replace("ld.", "st.") for w, t in LD.items()}
READINGS = ("strict", "lenient", "ghost", "never")
SPAN = 8192  # every offset stays below this (far inside 227 KiB)


def _case(name: str, ins: str, addrs: Sequence[int], family: str, active: Sequence[bool] | None = None) -> Case:
    assert len(addrs) == 32 and all(0 <= a < SPAN for a in addrs), name
    return Case(name, ins, tuple(addrs), None, ("round8", family),
                None if active is None else tuple(bool(a) for a in active))


def _width(ins: str) -> int:
    widths = {t: w for table in (LD, ST) for w, t in table.items()}
    return widths.get(ins, 16)


# ------------------------------------------------------------------ an oracle of the readings
def reading(ins: str, addrs: Sequence[int], active: Sequence[bool], how: str) -> int:
    """Wavefronts of a plain ld/st by the model's rules 1-4, inactive lanes requesting nothing, with rule 2's
    pairing read as ``how`` (module doc).  Written from the rules' statement, not from the model's code."""
    width = _width(ins)
    per = 32 if width <= 4 else 128 // width
    if ins.startswith("ld.") and width > 4 and any(active):
        def pairs(step: int) -> bool:
            for i in range(32):
                j = i ^ step
                if how == "ghost":
                    if addrs[i] != addrs[j]:
                        return False
                elif active[i] and active[j]:
                    if addrs[i] != addrs[j]:
                        return False
                elif active[i] or active[j]:
                    if how in ("strict", "never"):
                        return False
            return not (how == "never" and not all(active))
        if pairs(1) or pairs(2):
            per *= 2
    total = 0
    for start in range(0, 32, per):
        banks: dict[int, set[int]] = {}
        for lane in range(start, start + per):
            if active[lane]:
                a = addrs[lane]
                for word in range(a // 4, (a + width - 1) // 4 + 1):
                    banks.setdefault(word % 32, set()).add(word)
        total += max((len(s) for s in banks.values()), default=0)
    return total


def model_count(case: Case) -> int | None:
    live = case.active or (True,) * 32
    try:
        return wavefronts(case.instruction, [a if on else None for a, on in zip(case.lane_byte_addresses, live)])
    except LayoutError:
        return None


# ------------------------------------------------------------------ families
def _pair_bases(rng: random.Random, width: int) -> list[tuple[str, list[int]]]:
    """Full-warp addresses where every lane equals lane i^1 (or i^2), chosen so pairing changes the cost."""
    out = []
    slots = SPAN // width
    contiguous = [width * (i // 2) for i in range(32)]
    out.append(("i^1 contiguous", contiguous))
    out.append(("i^2 contiguous", [width * ((i // 4) * 2 + (i % 2)) for i in range(32)]))
    rows = [(i // 2) % 4 * 128 + (i // 8) * width for i in range(32)]  # 4 rows per bank group: conflicts
    out.append(("i^1 4 rows per bank group", rows))
    for k in range(3):
        picks = rng.sample(range(slots), 16)
        out.append((f"i^1 random slots #{k}", [width * picks[i // 2] for i in range(32)]))
        picks = rng.sample(range(slots), 16)
        out.append((f"i^2 random slots #{k}", [width * picks[(i // 4) * 2 + (i % 2)] for i in range(32)]))
    return out


def pairing(rng: random.Random) -> list[Case]:
    out: list[Case] = []
    for width in (8, 16):
        ins = LD[width]
        for base_name, base in _pair_bases(rng, width):
            step = 2 if base_name.startswith("i^2") else 1
            far = lambda a: (a + SPAN // 2) % SPAN  # noqa: E731 - a ghost address unlike every active one
            k = rng.randrange(32)
            masks: list[tuple[str, list[bool], list[int]]] = []
            one_off = [i != k for i in range(32)]
            masks.append((f"lane {k} off, ghost = partner", one_off, list(base)))
            masks.append((f"lane {k} off, ghost elsewhere", one_off, [far(a) if i == k else a for i, a in
                                                                       enumerate(base)]))
            pair_off = [i not in (k, k ^ step) for i in range(32)]
            masks.append((f"pair {k},{k ^ step} off, ghosts equal", pair_off, list(base)))
            masks.append((f"pair {k},{k ^ step} off, ghosts differ", pair_off,
                          [far(a) if i == k else a for i, a in enumerate(base)]))
            odd = [i % 2 == 0 for i in range(32)]
            masks.append(("odd lanes off, ghosts equal", odd, list(base)))
            masks.append(("odd lanes off, ghosts elsewhere", odd, [far(a) if i % 2 else a for i, a in enumerate(base)]))
            upper = [i < 24 for i in range(32)]
            masks.append(("lanes 24-31 off, ghosts equal", upper, list(base)))
            for r in range(2):
                density = rng.choice([0.5, 0.75, 0.9])
                mask = [rng.random() < density for _ in range(32)]
                ghosts = rng.choice(["equal", "elsewhere"])
                addrs = list(base) if ghosts == "equal" else [a if on else far(a) for a, on in zip(base, mask)]
                masks.append((f"random mask {density} #{r}, ghosts {ghosts}", mask, addrs))
            for mask_name, mask, addrs in masks:
                out.append(_case(f"r8 pairing ld{width} {base_name}: {mask_name}", ins, addrs, "pairing", mask))
    return out


def absent(rng: random.Random) -> list[Case]:
    out: list[Case] = []
    for width in (1, 2, 4, 8, 16):
        for ins in (LD[width], ST[width]):
            op = ins[:2]
            for k in range(6):
                kind = rng.choice(["column", "2 rows", "random", "random small", "stride"])
                if kind == "column":
                    addrs = [lane * 128 for lane in range(32)]
                elif kind == "2 rows":
                    addrs = [(lane % 2) * 1024 + (lane // 2) * width for lane in range(32)]
                elif kind == "random":
                    addrs = [width * rng.randrange(SPAN // width) for _ in range(32)]
                elif kind == "random small":
                    addrs = [width * rng.randrange(max(2, 512 // width)) for _ in range(32)]
                else:
                    s = rng.choice([2, 3, 4, 6, 8, 16, 33])
                    addrs = [(lane * s * width) % SPAN for lane in range(32)]
                density = rng.choice([0.25, 0.5, 0.75, 0.9])
                mask = [rng.random() < density for _ in range(32)]
                if not any(mask):
                    mask[rng.randrange(32)] = True
                out.append(_case(f"r8 absent {op}{width} {kind} mask {density} #{k}", ins, addrs, "absent", mask))
    return out


def empty(rng: random.Random) -> list[Case]:
    out: list[Case] = []
    for width in (1, 2, 4, 8, 16):
        for ins in (LD[width], ST[width]):
            op = ins[:2]
            column = [lane * 128 for lane in range(32)]
            out.append(_case(f"r8 empty {op}{width} no lane active", ins, column, "empty", [False] * 32))
            last = rng.randrange(32)
            out.append(_case(f"r8 empty {op}{width} only lane {last}", ins, column, "empty",
                             [lane == last for lane in range(32)]))
            if width > 4:
                per = 128 // width
                out.append(_case(f"r8 empty {op}{width} first phase only", ins, column, "empty",
                                 [lane < per for lane in range(32)]))
                out.append(_case(f"r8 empty {op}{width} last phase only, contiguous", ins,
                                 [width * lane for lane in range(32)], "empty", [lane >= 32 - per for lane in range(32)]))
                out.append(_case(f"r8 empty {op}{width} one lane per phase", ins, column, "empty",
                                 [lane % per == 3 for lane in range(32)]))
    return out


def control(rng: random.Random) -> list[Case]:
    with open(EARLIER) as fh:
        earlier = [c for c in json.load(fh)["cases"]
                   if c["instruction"].startswith(("ld.shared", "st.shared")) and c.get("active") is None]
    picks = rng.sample(earlier, 30)
    return [_case(f"r8 control (all active): {c['name']}", c["instruction"], c["lane_byte_addresses"], "control",
                  [True] * 32) for c in picks if max(c["lane_byte_addresses"]) < SPAN]


def _affine_lane_map(rng: random.Random, width: int) -> list[int]:
    """addr(lane) = base XOR (sum of lane bit i times a random column), aligned to ``width``."""
    bits = (SPAN // width).bit_length() - 1
    cols = [rng.choice([0, 1 << rng.randrange(bits), rng.randrange(1 << bits)]) for _ in range(5)]
    base = rng.randrange(1 << bits)
    out = []
    for lane in range(32):
        v = base
        for i, c in enumerate(cols):
            if lane >> i & 1:
                v ^= c
        out.append(v * width)
    return out


def _swizzled_tile(rng: random.Random, width: int) -> list[int]:
    pitch = rng.choice([64, 128, 256])
    b = rng.randrange(0, 4)
    m, s = 4, rng.choice([3, 4])
    base = rng.randrange(0, 16) * 128
    per_row = max(1, min(32, pitch // width))
    out = []
    for lane in range(32):
        row, col = lane // per_row, lane % per_row
        off = base + row * pitch + col * width
        off ^= ((off >> (m + s)) & ((1 << b) - 1)) << m
        out.append(off % SPAN)
    return out


def holdout(rng: random.Random) -> list[Case]:
    out: list[Case] = []
    plain = [(LD[w], w) for w in LD] + [(ST[w], w) for w in ST]
    matrix = [(f"{k}.sync.aligned.m8n8.x{n}{t}.shared.b16", 16) for k in ("ldmatrix", "stmatrix") for n in (1, 2, 4)
              for t in ("", ".trans")]
    for k in range(160):
        ins, width = rng.choice(plain + matrix)
        kind = rng.choice(["affine", "swizzled tile", "duplicates"])
        if kind == "affine":
            addrs = _affine_lane_map(rng, width)
        elif kind == "swizzled tile":
            addrs = _swizzled_tile(rng, width)
        else:
            pool = [width * rng.randrange(SPAN // width) for _ in range(rng.choice([2, 4, 8, 12]))]
            addrs = [rng.choice(pool) for _ in range(32)]
        out.append(_case(f"r8 holdout {ins} {kind} #{k}", ins, addrs, "holdout"))
    return out


def _mask_without_active_pairs(rng: random.Random, step: int, density: float) -> list[bool]:
    """A random mask where no two lanes ``i``, ``i ^ step`` are both active (at least one lane active)."""
    mask = [False] * 32
    for i in range(32):
        if i < i ^ step and rng.random() < density:
            mask[rng.choice([i, i ^ step])] = True
    if not any(mask):
        mask[rng.randrange(32)] = True
    return mask


def lenient_probes(rng: random.Random) -> list[Case]:
    """Round 8b: the lenient reading, which round 8 chose, under masks built to test it (predicted first):
    no partner pair with two active lanes (the reading merges whatever the addresses), active pairs split
    between ``i ^ 1`` and ``i ^ 2``, one unequal active pair, and the same masks on stores (never merge)."""
    out: list[Case] = []
    for width in (8, 16):
        for k in range(36):
            step = rng.choice([1, 2, 3, 4])
            mask = _mask_without_active_pairs(rng, step, rng.choice([0.3, 0.6, 1.0]))
            kind = rng.choice(["column", "contiguous", "random", "two rows"])
            addrs = {"column": [lane * 128 for lane in range(32)],
                     "contiguous": [width * lane for lane in range(32)],
                     "random": [width * rng.randrange(SPAN // width) for _ in range(32)],
                     "two rows": [(lane % 2) * 1024 + (lane // 2) * width for lane in range(32)]}[kind]
            for ins in (LD[width], ST[width]) if k % 3 == 0 else (LD[width],):
                out.append(_case(f"r8b no active i^{step} pair {ins[:2]}{width} {kind} #{k}", ins, addrs,
                                 "lenient", mask))
        for k in range(10):  # quads paired by i^1 and quads paired by i^2, other lanes off
            base = [width * rng.randrange(SPAN // width) for _ in range(32)]
            addrs, mask = list(base), [True] * 32
            for q in range(8):
                style = rng.choice([1, 2, 0])
                for lane in range(4 * q, 4 * q + 4):
                    if style:
                        addrs[lane] = base[(4 * q) + ((lane - 4 * q) & ~style & 3)]
                    else:
                        mask[lane] = False
            out.append(_case(f"r8b mixed i^1 / i^2 quads ld{width} #{k}", LD[width], addrs, "lenient", mask))
        for k in range(10):  # pairs equal except one active pair; random lanes off
            picks = [width * rng.randrange(SPAN // width) for _ in range(16)]
            addrs = [picks[lane // 2] for lane in range(32)]
            odd_pair = rng.randrange(16)
            addrs[2 * odd_pair + 1] = (addrs[2 * odd_pair] + width * 5) % SPAN
            mask = [rng.random() < 0.7 or lane // 2 == odd_pair for lane in range(32)]
            out.append(_case(f"r8b pairs equal but pair {odd_pair} ld{width} #{k}", LD[width], addrs, "lenient", mask))
    return out


def round8b() -> list[Case]:
    return lenient_probes(random.Random(SEED + 1))


def round8() -> list[Case]:
    rng = random.Random(SEED)
    cases = pairing(rng) + absent(rng) + empty(rng) + control(rng) + holdout(rng)
    assert len({c.name for c in cases}) == len(cases)
    return cases


# ------------------------------------------------------------------ predict / import
def _record(case: Case) -> dict[str, object]:
    live = case.active or (True,) * 32
    rec: dict[str, object] = {"name": case.name, "instruction": case.instruction, "family": case.tags[1],
                              "lane_byte_addresses": list(case.lane_byte_addresses),
                              "model": model_count(case)}
    if case.active is not None:
        rec["active"] = list(case.active)
        rec["readings"] = {how: reading(case.instruction, case.lane_byte_addresses, live, how) for how in READINGS}
    return rec


def write_predictions() -> int:
    cases = round8() + round8b()
    doc = {"meta": {"tool": "tools/banks_round8.py predict", "seed": SEED,
                    "note": "written before the round is measured: 'model' is layoutalg's count then (null: "
                            "refused), 'readings' what each reading of rule 2's pairing gives (module doc)"},
           "cases": [_record(c) for c in cases]}
    with open(PREDICTIONS, "w") as fh:
        json.dump(doc, fh, indent=0)
    return len(cases)


def import_measurements(paths: Sequence[str], out_dir: str = DATA) -> str:
    """Join measurements (several runs allowed: each case keeps every run's count) with the predictions."""
    with open(PREDICTIONS) as fh:
        predicted = {c["name"]: c for c in json.load(fh)["cases"]}
    device, runs = read_runs(paths, predicted, "round 8")
    cases = [with_runs(pred, runs[name]) for name, pred in predicted.items() if name in runs]
    out = write_replay(out_dir, "smem_round8", device, "tools/banks_round8.py import", paths, cases)
    _print_fit(cases)
    return out


def _print_fit(cases: Sequence[dict[str, object]]) -> None:
    families: dict[str, dict[str, int]] = {}
    for c in cases:
        fam = families.setdefault(str(c["family"]), {"n": 0, "model": 0, "refused": 0, "unstable": 0,
                                                     **{h: 0 for h in READINGS}})
        fam["n"] += 1
        runs = c["wavefronts_runs"]
        assert isinstance(runs, list)
        fam["unstable"] += len(set(runs)) > 1
        fam["model"] += c["model"] == c["wavefronts"]
        fam["refused"] += c["model"] is None
        readings = c.get("readings")
        if isinstance(readings, dict):
            for h in READINGS:
                fam[h] += readings[h] == c["wavefronts"]
    for name, fam in families.items():
        print(name, fam)


def main(argv: Sequence[str]) -> int:
    if len(argv) >= 1 and argv[0] == "predict":
        print(f"wrote {PREDICTIONS}: {write_predictions()} patterns")
        return 0
    if len(argv) >= 2 and argv[0] == "import":
        import_measurements(argv[1:])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
