"""Fuzz every public function and method: only the LayoutError family may escape, and every call returns in time.

The targets and the hostile values are in ``fuzz_api_support.py``.  One test
per target; each hypothesis example makes one call (0-4 positional arguments
fitting the target's signature, maybe keywords) under a SIGALRM watchdog.  An
exception outside the LayoutError family is an *escape*, a call past the bound
a *hang*.  Every outcome is counted and a target's test fails at its end with
all of them (first example at each raising site), and the last test prints the
totals over every target.

CI runs a fixed seed and a small budget.  The long run is one command::

    LAYOUTALG_FUZZ_CALLS=100000 python -m pytest tests/adversarial/test_fuzz_api.py -s

(the calls are spread evenly over the targets; hypothesis stops early on targets with few distinct inputs,
such as those taking no argument, so the totals line counts the calls actually made: 104,000 asked gives
about 100,600.  ``LAYOUTALG_FUZZ_SEED`` picks another seed, ``LAYOUTALG_FUZZ_BOUND`` the
per-call bound in seconds, default 5, ``LAYOUTALG_FUZZ_REPORT`` a file for the
summary line.)
"""

from __future__ import annotations

import os
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from fuzz_api_support import Target, all_targets, arg_lists, argument, arity, describe, receivers, watched_call
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

CALLS = int(os.environ.get("LAYOUTALG_FUZZ_CALLS", "2000"))  # over all targets
BOUND = float(os.environ.get("LAYOUTALG_FUZZ_BOUND", "5"))
SEED = int(os.environ.get("LAYOUTALG_FUZZ_SEED", "13"))
TARGETS = all_targets()
# Modules the targets import on first use (sympy for formula, z3 for the prover, the interop libraries for the
# to_X exporters): imported here, so that the per-call bound measures a call's own work, not a cold import on a
# loaded machine (CuTe DSL's first import alone took 7 s on a busy 2-core box).
for _module in ("sympy", "z3", "pycute", "tensor_layouts", "cutlass.cute", "triton.experimental.gluon.language"):
    try:
        __import__(_module)
    except ImportError:  # pragma: no cover - optional libraries: their exporters then refuse at once
        pass
PER_TARGET = -(-CALLS // len(TARGETS))
USE_KEYWORDS = st.integers(0, 3)
ARITIES: dict[str, Any] = {}
KEYWORD_CHOICES: dict[tuple[str, ...], Any] = {}
COUNTS: dict[tuple[int, int], Any] = {}


@dataclass
class Tally:
    calls: int = 0
    slowest: tuple[float, str] = (0.0, "")
    by_target: Counter[str] = field(default_factory=Counter)
    escapes: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    sites: dict[str, str] = field(default_factory=dict)  # first escape at each (exception, file:line)

    def record(self, target: Target, outcome: Any, text: Any) -> None:
        self.calls += 1
        self.by_target[target.name] += 1
        if outcome.seconds > self.slowest[0]:
            self.slowest = (outcome.seconds, target.name)
        if outcome.hang:
            self.hangs.append(f"{outcome.seconds:.1f} s: {text()}")
        elif outcome.escape is not None:
            exc = outcome.escape
            where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
            site = f"{type(exc).__name__}" + (f" at {os.path.basename(where.filename)}:{where.lineno}" if where else "")
            line = f"{describe(str(exc), 120)} <- {text()}"
            self.sites.setdefault(site, line)
            self.escapes.append(f"{site}: {line}")

    def summary(self) -> str:
        return (
            f"fuzz_api: {self.calls} calls over {len(self.by_target)} targets (seed {SEED}, bound {BOUND:g} s): "
            f"{len(self.escapes)} non-LayoutError escapes at {len(self.sites)} sites, {len(self.hangs)} hangs; "
            f"slowest call {self.slowest[0]:.2f} s ({self.slowest[1]})"
        )


def _call_text(target: Target, receiver: Any, args: list[Any], kwargs: dict[str, Any]) -> str:
    shown = [describe(a, 60) for a in args] + [f"{k}={describe(v, 60)}" for k, v in kwargs.items()]
    head = f"{describe(receiver, 60)}.{target.method}" if target.fn is None else target.name
    return f"{head}({', '.join(shown)})"


TOTAL = Tally()


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_only_layout_errors_escape_and_every_call_returns_in_time(target: Target) -> None:
    tally = Tally()

    @seed(SEED)
    @settings(
        max_examples=PER_TARGET,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def one_call(data: st.DataObject) -> None:
        receiver = None
        if target.fn is None:
            assert target.receiver is not None
            receiver = data.draw(receivers(target.receiver), label="receiver")
            fn = getattr(receiver, target.method)
        else:
            fn = target.fn
        if target.name not in ARITIES:
            ARITIES[target.name] = arity(fn)
        shape = ARITIES[target.name]
        count = data.draw(COUNTS[(shape.low, shape.high)] if (shape.low, shape.high) in COUNTS
                          else COUNTS.setdefault((shape.low, shape.high), st.integers(shape.low, shape.high)), label="count")
        names = list(shape.positional) + ["?"] * count
        args = [data.draw(argument(names[k]), label=names[k]) for k in range(count)]
        kwargs: dict[str, Any] = {}
        if shape.keywords and data.draw(USE_KEYWORDS, label="use keywords") == 0:
            if shape.keywords not in KEYWORD_CHOICES:
                KEYWORD_CHOICES[shape.keywords] = st.lists(st.sampled_from(shape.keywords), max_size=2, unique=True)
            for name in data.draw(KEYWORD_CHOICES[shape.keywords], label="keywords"):
                kwargs[name] = data.draw(argument(name), label=name)
        if shape.signature is not None:
            while True:  # drop positional arguments that a keyword now supplies
                try:
                    shape.signature.bind(*args, **kwargs)
                    break
                except TypeError:
                    if not args:
                        kwargs.clear()
                        args = data.draw(arg_lists(shape.low, shape.low), label="args")
                        break
                    args = args[:-1]
        outcome = watched_call(lambda: fn(*args, **kwargs), BOUND)
        for t in (tally, TOTAL):
            t.record(target, outcome, lambda: _call_text(target, receiver, args, kwargs))

    one_call()
    listing = "\n".join(["escapes, first at each site:", *(f"{k}: {v}" for k, v in tally.sites.items()),
                         "hangs:", *tally.hangs[:20]])
    assert not tally.escapes and not tally.hangs, f"{tally.summary()}\n{listing}"


def test_zz_totals_over_every_target() -> None:
    """Print (and with LAYOUTALG_FUZZ_REPORT, append to a file) the totals of the targets' tests above."""
    summary = TOTAL.summary()
    print(summary)
    report = os.environ.get("LAYOUTALG_FUZZ_REPORT")
    if report:
        with open(report, "a") as out:
            out.write(summary + "\n" + "".join(f"  escape: {e}\n" for e in TOTAL.escapes[:200])
                      + "".join(f"  hang: {h}\n" for h in TOTAL.hangs))
    assert not TOTAL.escapes and not TOTAL.hangs, summary
