"""Static counts of the memory instructions of one kernel in its PTX and in its SASS (stdlib only).

PTX: every instruction line of the entry's body, predicate guard dropped, classified by opcode:
``ld.shared`` / ``st.shared`` / ``atom.shared`` / ``red.shared`` (with ``.v2``/``.v4`` and width kept
in the detail), ``ldmatrix``, ``stmatrix``, ``movmatrix``, ``cp.async.ca`` / ``.cg`` (with size),
``cp.async.bulk*``, ``tensormap.*`` (its ``.replace`` forms edit a descriptor in shared memory
and become STS/LDS in SASS), ``mbarrier``, ``mma``, ``wgmma``, generic (no state space) ``ld``/``st``, ``ld.global`` /
``st.global``, ``bar``.
SASS (cuobjdump -sass text): opcodes LDS, STS, LDSM, STSM, LDGSTS, ATOMS, MOVM, HMMA, HGMMA,
UTMALDG / UTMASTG / UBLKCP (TMA), LD / ST (generic), LDG / STG, BAR, SYNCS; never-executed
``@!PT`` instructions are counted apart (ptxas plants ``@!PT LDS RZ, [RZ]`` around cp.async waits).
"""

from __future__ import annotations

import re
from collections import Counter

_SPACES = {"shared", "shared::cta", "shared::cluster", "global", "local", "param", "const"}


def _entry_body(ptx: str, entry: str) -> str:
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(", ptx)
    if m is None:
        raise ValueError(f"no .entry {entry[:60]}")
    start = ptx.find("{", ptx.find(")", m.end()))
    depth, i = 0, start
    while i < len(ptx):
        if ptx[i] == "{":
            depth += 1
        elif ptx[i] == "}":
            depth -= 1
            if depth == 0:
                return ptx[start:i]
        i += 1
    return ptx[start:]


def ptx_family(op: str) -> str | None:
    """The family of a PTX opcode (``ld.shared.v4.u32`` -> ``ld.shared``), None if not memory/mma."""
    parts = op.split(".")
    head = parts[0]
    space = next((p for p in parts[1:] if p in _SPACES), None)
    shared = space is not None and space.startswith("shared")
    if head in ("ld", "st", "atom", "red"):
        if shared:
            return f"{head}.shared"
        if space in ("global", "local", "param", "const"):
            return f"{head}.{space}"
        return f"{head}.generic"
    if head in ("ldmatrix", "stmatrix", "movmatrix", "mma", "wgmma", "bar", "barrier"):
        if head == "wgmma":
            return "wgmma." + parts[1] if len(parts) > 1 else "wgmma"
        return "bar" if head in ("bar", "barrier") else head
    if head == "cp" and len(parts) > 1 and parts[1] == "async":
        if len(parts) > 2 and parts[2] == "bulk":
            return "cp.async.bulk"
        if len(parts) > 2 and parts[2] in ("ca", "cg"):
            return f"cp.async.{parts[2]}"
        return "cp.async." + (parts[2] if len(parts) > 2 else "")
    if head in ("mbarrier", "tensormap"):
        return head + ("." + parts[1] if head == "tensormap" and len(parts) > 1 else "")
    return None


def ptx_counts(ptx: str, entry: str) -> dict[str, dict[str, int]]:
    """Static PTX counts: ``families`` (family -> count) and ``detail`` (full opcode -> count)."""
    fam: Counter[str] = Counter()
    detail: Counter[str] = Counter()
    for line in _entry_body(ptx, entry).splitlines():
        s = line.strip()
        if not s or s.startswith(("//", ".", "$", "{", "}")):
            continue
        s = re.sub(r"^@!?%\w+\s+", "", s)
        op = s.split()[0].rstrip(";")
        f = ptx_family(op)
        if f is None:
            continue
        fam[f] += 1
        if f.endswith(".shared") or f in ("ldmatrix", "stmatrix", "movmatrix") or f.startswith("cp.async"):
            size = (re.search(r"\]\s*,\s*\[[^\]]*\]\s*,\s*(0x[0-9a-fA-F]+|\d+)", s)
                    if f in ("cp.async.ca", "cp.async.cg") else None)
            detail[op + (f" [{int(size.group(1), 0)} B]" if size else "")] += 1
    return {"families": dict(sorted(fam.items())), "detail": dict(sorted(detail.items()))}


_SASS_FAMILIES = ("LDSM", "STSM", "LDGSTS", "LDS", "STS", "ATOMS", "MOVM", "HMMA", "HGMMA", "UTMALDG", "UTMASTG",
                  "UBLKCP", "LDG", "STG", "LD", "ST", "ATOMG", "RED", "BAR", "SYNCS", "DEPBAR", "ARRIVES")


def sass_family(op: str) -> str | None:
    head = op.split(".")[0]
    return head if head in _SASS_FAMILIES else None


def sass_counts(sass: str) -> dict[str, dict[str, int]]:
    """Static SASS counts over every function: ``families``, ``detail`` (shared-memory opcodes with
    modifiers) and ``never_executed`` (``@!PT`` instructions, not in the other two)."""
    fam: Counter[str] = Counter()
    detail: Counter[str] = Counter()
    dead: Counter[str] = Counter()
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][\w.]*)", line)
        if m is None:
            continue
        guard, op = m.group(1), m.group(2)
        f = sass_family(op)
        if f is None:
            continue
        if guard is not None and guard.strip() == "@!PT":
            dead[op] += 1
            continue
        fam[f] += 1
        if f in ("LDS", "STS", "LDSM", "STSM", "LDGSTS", "ATOMS", "MOVM"):
            detail[op] += 1
    return {"families": dict(sorted(fam.items())), "detail": dict(sorted(detail.items())),
            "never_executed": dict(sorted(dead.items()))}
