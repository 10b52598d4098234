"""The module's ``.target`` and ``.version``, and the targets and PTX versions the ISA gives a feature.

PTX ISA ".target": ``.target stringlist``, a comma-separated list of platforms (``sm_90``, ``sm_90a``,
``sm_100f`` ...; ptxas 13.0 takes the last one) and options (``texmode_unified``, ``texmode_independent``,
``debug``; ``map_f64_to_f32``, which ptxas refuses on every platform from sm_13); ".version": ``major.minor``.
An instruction's "PTX ISA Notes" give the version a feature needs, its "Target ISA Notes" the targets:
architecture-specific ones (``sm_90a``) and families (``sm_100f or higher in the same family``: the ``f`` and
``a`` targets of the same major number, not lower; ISA "Architecture-specific and family-specific features":
an ``a`` target has every feature of the ``f`` target of its number).  :class:`Support` holds one such note;
ptxas 13.0 refuses a feature the module's ``.target``/``.version`` lacks, naming its line
(tests/data/ptxas_reader_verdicts.json).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from layoutalg.core.validate import describe
from layoutalg.errors import KernelError

_PLATFORM = re.compile(r"sm_(\d+)([af]?)")
_OPTIONS = frozenset({"texmode_unified", "texmode_independent", "debug"})
Version = tuple[int, int]


@dataclass(frozen=True)
class Target:
    """The platform of ``.target`` (``arch`` 0: the module names none) and the ``.version`` ((0, 0): none)."""

    arch: int = 0
    suffix: str = ""  # "", "a" (architecture-specific) or "f" (family-specific)
    version: Version = (0, 0)

    @property
    def name(self) -> str:
        return f"sm_{self.arch}{self.suffix}" if self.arch else "(none: the module has no .target)"


def parse_platform(text: str, line: int) -> tuple[int, str]:
    """(90, "a") of ``.target sm_90a, debug`` (of ``.target sm_80, sm_90a`` too: the last platform); a list
    without a platform, or with another word, is refused, naming the line (ptxas 13.0: "Target architecture
    not defined", "Unsupported .target", a syntax error without the comma)."""
    items = [t.strip() for t in text.split(None, 1)[1].split(",")] if len(text.split()) > 1 else []
    platforms = [m for t in items if (m := _PLATFORM.fullmatch(t))]
    if not platforms or any(not _PLATFORM.fullmatch(t) and t not in _OPTIONS for t in items):
        raise KernelError(f"cannot read {describe(text)}: .target takes platforms sm_NN[a|f] and options "
                          f"{', '.join(sorted(_OPTIONS))}, separated by commas", line, ".target")
    return int(platforms[-1].group(1)), platforms[-1].group(2)


def parse_version(text: str, line: int) -> Version:
    """(8, 5) of ``.version 8.5``."""
    m = re.fullmatch(r"\.version\s+(\d+)\.(\d+)", text.strip())
    if not m:
        raise KernelError(f"cannot read {describe(text)}: .version takes major.minor", line, ".version")
    return int(m.group(1)), int(m.group(2))


@dataclass(frozen=True)
class Support:
    """A feature's "PTX ISA Notes" (``since``) and "Target ISA Notes": the ``archs`` whose ``a`` target has it,
    and the ``families`` (from PTX ISA ``families_since``) whose ``f``/``a`` targets have it."""

    feature: str
    since: Version
    archs: frozenset[int]
    families: frozenset[int] = frozenset()
    families_since: Version = (8, 8)

    def covers(self, target: Target) -> bool:
        if target.suffix == "a" and target.arch in self.archs:
            return True
        return target.suffix in ("a", "f") and target.version >= self.families_since and any(
            target.arch // 10 == base // 10 and target.arch >= base for base in self.families)

    def refusal(self, target: Target) -> str | None:
        """Why ptxas refuses the feature in a module of ``target`` (None: it takes it)."""
        if target.version < self.since:
            have = f"{target.version[0]}.{target.version[1]}" if target.version != (0, 0) else "none"
            return f"{self.feature} requires PTX ISA .version {self.since[0]}.{self.since[1]} or later (the module's: {have})"
        if not self.covers(target):
            where = [f"sm_{a}a" for a in sorted(self.archs)] + [f"sm_{b}f family" for b in sorted(self.families)]
            return f"{self.feature} is not supported on .target {target.name} (Target ISA Notes: {', '.join(where)})"
        return None
