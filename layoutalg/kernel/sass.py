"""PTX is not SASS: where ptxas may merge, split or drop shared-memory accesses, and how the trace says so.

Nsight Compute counts SASS instructions (LDS, STS, LDSM, STSM, LDGSTS).  ptxas may merge two adjacent
PTX ``ld.shared.b32`` into one ``LDS.64``, split an access, unroll a loop further, or drop dead code,
so the traced PTX instructions need not map one-to-one onto what Nsight counts.  This module

* reads ``cuobjdump -sass`` / ``nvdisasm`` text (:func:`sass_inventory`): per function, how many
  shared-memory SASS instructions of each kind and width it holds (``@!PT`` ones never execute and
  are skipped);
* compares that with the PTX function's static inventory (:func:`ptx_inventory`) and returns one
  finding per kind whose counts or widths differ (:func:`compare`); :func:`layoutalg.kernel.trace`
  with ``sass=`` lists each finding as unmodelled (the counters of that kind are then not exact);
* without SASS, flags *merge candidates* in the PTX (:func:`merge_candidates`): consecutive
  same-kind shared accesses from one base register whose offsets are adjacent widths -- the pattern
  ptxas vectorises when it can prove the alignment.  They are reported as notes, not counted twice
  silently.

This is the one place a per-instruction correction would apply once the corpus shows which cases
occur (e.g. a ``merged_with`` map from PTX line to PTX line, costing the pair as one wider access).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from layoutalg.errors import KernelError
from layoutalg.kernel.ptx.nodes import TYPE_BYTES, Addr, Function, Imm, Instruction, Reg, Vec

SASS_KINDS = {"LDS": "ld", "STS": "st", "LDSM": "ldmatrix", "STSM": "stmatrix", "LDGSTS": "cp.async"}
_FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)", re.M)
_INSN = re.compile(r"/\*[0-9a-f]+\*/\s*(@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)")


@dataclass(frozen=True)
class Finding:
    kind: str
    ptx: dict[int, int]
    sass: dict[int, int]
    lines: tuple[int, ...]

    @property
    def reason(self) -> str:
        def show(d: dict[int, int]) -> str:
            return ", ".join(f"{n} x {w} B" for w, n in sorted(d.items())) or "none"
        return (f"PTX has {show(self.ptx)} {self.kind} accesses, the SASS {show(self.sass)}: ptxas merged, split, "
                "unrolled or removed some, so the traced PTX instructions are not the ones Nsight counts")


def _sass_width(kind: str, mnemonic: str) -> int:
    parts = mnemonic.split(".")
    if kind in ("ldmatrix", "stmatrix"):
        return 16
    for p in parts[1:]:
        if p in ("64",):
            return 8
        if p in ("128",):
            return 16
        if p in ("U8", "S8"):
            return 1
        if p in ("U16", "S16"):
            return 2
    return 4


def sass_inventory(text: str) -> dict[str, Counter[tuple[str, int]]]:
    """function name -> Counter of (kind, bytes per lane) over its shared-memory SASS instructions."""
    out: dict[str, Counter[tuple[str, int]]] = {}
    heads = list(_FUNC.finditer(text))
    for i, h in enumerate(heads):
        body = text[h.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        inv: Counter[tuple[str, int]] = Counter()
        for m in _INSN.finditer(body):
            guard, mnemonic = m.group(1) or "", m.group(2)
            if guard.strip().startswith("@!PT"):
                continue
            kind = SASS_KINDS.get(mnemonic.split(".")[0])
            if kind:
                inv[(kind, _sass_width(kind, mnemonic))] += 1
        out[h.group(1)] = inv
    return out


def _ptx_kind_width(ins: Instruction) -> tuple[str, int] | None:
    root, parts = ins.root, ins.parts
    if root in ("ld", "st") and any(p.startswith("shared") for p in parts):
        vec = next((int(p[1:]) for p in parts if p in ("v2", "v4", "v8")), 1)
        t = next((p for p in reversed(parts) if p in TYPE_BYTES), "b32")
        return root, vec * TYPE_BYTES[t]
    if root in ("ldmatrix", "stmatrix"):
        return root, 16
    if root == "cp" and "async" in parts and ("ca" in parts or "cg" in parts):
        # cp-size is a mandatory integer constant (PTX ISA, cp.async): without it ptxas emits no SASS to compare
        if len(ins.operands) < 3 or not isinstance(ins.operands[2], Imm):
            raise KernelError("cp.async needs an immediate cp-size (4, 8 or 16)", ins.line, ins.opcode)
        return "cp.async", ins.operands[2].value
    return None


def ptx_inventory(fn: Function) -> tuple[Counter[tuple[str, int]], dict[str, list[int]]]:
    """(Counter of (kind, bytes) over the function's shared-memory instructions, PTX lines per kind).
    A ``tensormap`` instruction on shared memory counts as the LDS/STS ptxas emits for it
    (:mod:`layoutalg.kernel.interp.tensormap`); a ``ld.shared`` or ``ldmatrix`` whose result is partly unread as
    the accesses ptxas narrows it to, or none where it removes it (:mod:`layoutalg.kernel.interp.narrowing`).
    A ``cp.async`` without an immediate cp-size (invalid PTX) is refused with a :class:`KernelError` naming its
    line, not counted at a guessed width."""
    from layoutalg.kernel.interp.liveness import Liveness

    liveness = Liveness(fn.body, fn.labels)
    inv: Counter[tuple[str, int]] = Counter()
    lines: dict[str, list[int]] = {}
    for index, ins in enumerate(fn.body):
        if ins.root == "tensormap":
            accesses = _tensormap_accesses(ins)
        else:
            kind_width = _ptx_kind_width(ins)
            accesses = [kind_width] if kind_width is None else _narrowed(ins, index, kind_width, liveness)
        for kw in accesses:
            if kw:
                inv[kw] += 1
                lines.setdefault(kw[0], []).append(ins.line)
    return inv, lines


def _narrowed(ins: Instruction, index: int, kind_width: tuple[str, int], liveness: Any
              ) -> list[tuple[str, int] | None]:
    """The (kind, bytes) of the SASS accesses ptxas makes of a shared load (its liveness, :mod:`.interp.narrowing`)."""
    from layoutalg.kernel.interp.narrowing import narrowed_parts

    kind, width = kind_width
    if kind not in ("ld", "ldmatrix") or not ins.operands:
        return [kind_width]
    dest = ins.operands[0]
    items = list(dest.items) if isinstance(dest, Vec) else [dest]
    names = [d.name if isinstance(d, Reg) else "" for d in items]  # "" for the sink ``_``
    read = [bool(name and liveness.readers(index, name)) for name in names]
    if kind == "ldmatrix":
        return [kind_width] if any(read) else []
    element = width // len(items)
    live_words = [frozenset() if not r else liveness.words_read(index, name) if element == 8 else frozenset({0})
                  for name, r in zip(names, read)]
    return [(kind, w) for _, w in narrowed_parts(element, live_words, "volatile" in ins.parts)]


def _tensormap_accesses(ins: Instruction) -> list[tuple[str, int] | None]:
    from layoutalg.kernel.interp.tensormap import field_accesses, replace_form

    if not any(p.split("::")[0] == "shared" for p in ins.parts):
        return []
    if len(ins.parts) > 1 and ins.parts[1] == "cp_fenceproxy":
        return [("ld", 4)]
    try:
        field, space, ordinal = replace_form(ins)
        accesses = field_accesses(field, ordinal) if space == "shared::cta" else []
    except (KernelError, ValueError):
        return []  # the trace refuses it, naming the line
    out: list[tuple[str, int] | None] = []
    for _off, width, rmw in accesses:
        if rmw:
            out.append(("ld", 4))
        out.append(("st", width))
    return out


def compare(fn: Function, sass_text: str) -> list[Finding]:
    """Findings for every kind whose PTX and SASS accesses differ (SASS of the same-named function).

    A merge (two 4-byte PTX loads -> one ``LDS.64``) or a split shows up as a width present on one side
    only.  ptxas unrolls loops, which gives a width *more* SASS instructions than PTX ones and changes
    nothing an execution costs, so that is not a finding; *fewer* SASS instructions of a width mean ptxas
    removed some (a reload of an address already loaded, with no store or barrier between, as in CUB's
    raking scan: 12 PTX ``ld.shared.u32``, 9 ``LDS``) or merged them, and the traced executions of that kind
    may include ones the GPU never issues."""
    all_funcs = sass_inventory(sass_text)
    sass = all_funcs.get(fn.name)
    if sass is None:
        names = ", ".join(all_funcs) or "none"
        raise ValueError(f"the SASS has no function {fn.name} (it has: {names[:300]})")
    ptx, lines = ptx_inventory(fn)
    out = []
    for kind in sorted({k for k, _ in ptx} | {k for k, _ in sass}):
        p = {w: n for (k, w), n in ptx.items() if k == kind}
        s = {w: n for (k, w), n in sass.items() if k == kind}
        if set(p) != set(s) or any(s[w] < n for w, n in p.items()):
            out.append(Finding(kind, p, s, tuple(lines.get(kind, ()))))
    return out


def merge_candidates(fn: Function) -> list[tuple[int, int]]:
    """Pairs of PTX lines: consecutive (ignoring non-memory instructions in between) shared loads or stores of
    equal width w <= 8 from the same base register at offsets o and o + w with o a multiple of 2w.
    Computed once per parsed function (cached on it, like its decoded ops)."""
    cached = fn.__dict__.get("_merge_candidates")
    if cached is None:
        cached = fn.__dict__["_merge_candidates"] = _merge_candidates(fn)
    return list(cached)


def _merge_candidates(fn: Function) -> list[tuple[int, int]]:
    out = []
    prev: tuple[str, str, int, int, int] | None = None
    for ins in fn.body:
        root = ins.root
        kw = _ptx_kind_width(ins) if root in ("ld", "st") else None
        if kw is None:
            if root in ("bra", "bar", "ret", "exit", "st", "ld", "atom", "red", "call"):
                prev = None
            continue
        addr = ins.operands[1] if kw[0] == "ld" else ins.operands[0]
        if not isinstance(addr, Addr) or not isinstance(addr.base, Reg):
            prev = None
            continue
        cur = (kw[0], addr.base.name, addr.offset, kw[1], ins.line)
        if prev and prev[:2] == cur[:2] and prev[3] == cur[3] <= 8 and cur[2] == prev[2] + cur[3] \
                and prev[2] % (2 * cur[3]) == 0:
            out.append((prev[4], cur[4]))
            prev = None
            continue
        prev = cur
    return out
