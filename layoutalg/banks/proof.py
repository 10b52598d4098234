"""Proof that an access over a shared-memory layout is bank-conflict-free, for every warp, instance and parameter.

Conflict-free means every instance costs its ideal wavefronts (:mod:`layoutalg.banks.model`).  Every phase of
every modelled instruction touches at most 32 distinct words, so its ideal is 1, and the claim is: *within
one phase, two words in the same bank are the same word*.

Both routes accept exactly the same accesses: every active lane's coordinate inside the layout's extent in
each mode, every byte address non-negative, aligned to the access width and ending within the shared memory
of ``arch`` (``smem_per_block_bytes`` of :func:`layoutalg.atoms.arch.get_arch`, default sm_90), and the
instruction available on ``arch``.  Anything else raises the same ``CoordinateError`` / ``InstructionError``
on both routes.

* **enumeration** (an :class:`~layoutalg.banks.access.Access` with concrete coordinates, or any finite
  access): the exact model is evaluated on every instance -- the whole domain -- so "proved" is sound;
  a refutation names the instance (by axis), the two lanes, their coordinates (``row``/``col``) and byte
  addresses, the bank and the two words.
* **symbolic** (``method="f2"``/``"z3"``, or an access built by ``Access.from_fn`` whose function uses
  :func:`layoutalg.prove.expr.param` parameters, e.g. an unbounded k-tile index or a leading dimension): the
  validity conditions and then the claim are proved over every lane, word, axis and parameter value
  (:mod:`layoutalg.banks.proof_symbolic`), over GF(2) when every term is bit-linear, by enumeration when the
  domain is small, and by z3 otherwise.  For 8- and 16-byte loads, whose phases double when every lane i holds
  the same address as lane i^1 (or every lane as lane i^2), the claim is stated over the doubled phases, which
  implies it for both phase structures; a refutation of that stronger claim that the exact model does not
  confirm becomes "unknown".

``timeout`` bounds the whole proof (every claim in it shares one deadline); a timeout is "unknown".
"""

from __future__ import annotations

import time
from typing import Any

from layoutalg.atoms.arch import get_arch
from layoutalg.banks.access import Access, element_bytes, tile_access
from layoutalg.banks.analyze import _mode_sizes, analyze, byte_addresses
from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.banks.limits import require_instruction
from layoutalg.banks.model import report
from layoutalg.core.validate import as_int, describe
from layoutalg.errors import InstructionError, LayoutError
from layoutalg.prove.dispatch import METHODS
from layoutalg.prove.result import ProofResult


def _claim_text(smem_layout: Any, instruction: str, axes: Any) -> str:
    over = " and every " + ", ".join(str(a) for a in axes) if axes else " of its one instance"
    return f"{instruction} over {smem_layout} is bank-conflict-free for every lane{over}"


def _check_addresses(addresses: Any, ins: Instruction, capacity: int, arch: str) -> None:
    """Every active lane's address non-negative, ending within ``capacity``, aligned: checked in this order, as
    the symbolic route proves them (:func:`~layoutalg.banks.proof_symbolic.check_valid`)."""
    import numpy as np

    active = addresses[..., : len(ins.active_lanes)]
    if not active.size:
        return
    low, top, w = int(active.min()), int(active.max()), ins.access_bytes
    if low < 0:
        raise InstructionError(f"negative shared-memory address {low} in {ins.canonical}")
    if top + w > capacity:
        raise InstructionError(f"address {top} of {ins.canonical}: its {w} bytes end at {top + w}, past the "
                               f"{capacity} bytes of shared memory per block on {arch}")
    bad = np.argwhere(active % w != 0)
    if bad.size:
        where = tuple(int(i) for i in bad[0])
        raise InstructionError(f"misaligned address {int(active[where])} of {ins.canonical}: must be a multiple of "
                               f"{w} (at index {where})")


def enumerate_access(smem_layout: Any, access: Access, dtype: Any, base: int, global_layout: Any = None,
                     arch: Any = None) -> ProofResult:
    """The enumeration route: the exact model on every instance (see the module doc)."""
    start = time.perf_counter()
    target = get_arch(arch)
    ins = parse_instruction(access.instruction)
    _check_addresses(byte_addresses(smem_layout, access, dtype, base), ins, target.smem_per_block_bytes, target.name)
    res = analyze(smem_layout, access, dtype=dtype, base=base, global_layout=global_layout)
    claim = _claim_text(smem_layout, res.instruction, [f"{a} < {n}" for a, n in zip(res.axes, res.wavefronts.shape)])
    if res.conflict_free:
        return ProofResult("proved", None, time.perf_counter() - start, "enum", claim,
                           f"all {res.count} instances cost their ideal ({res.total_ideal} wavefronts in all)")
    idx, wf, ideal = res.worst(1)[0]
    if res.global_addresses is not None:
        return _cp_async_refutation(res, access, idx, wf, ideal, claim, start)
    rep = res.report(**idx)
    phase = next(p for p in rep.phases if p.conflicts)
    use = max(phase.conflicts, key=lambda u: u.ways)
    # two requests the bank serves one after the other: two words, or (an atomic, rule 6) two lanes of one word
    (word_a, lane_a), (word_b, lane_b) = [(w, lane) for w, ls in zip(use.words, use.lanes) for lane in ls][:2]
    same_word = word_a == word_b
    key = tuple(idx[a] for a in res.axes)
    from layoutalg.banks.proof_symbolic import coord_names

    names = coord_names(access.rank)
    crd_a, crd_b = (tuple(int(c) for c in access.coords[key + (lane,)]) for lane in (lane_a, lane_b))
    addr_a, addr_b = int(res.addresses[key + (lane_a,)]), int(res.addresses[key + (lane_b,)])
    from layoutalg.prove.render import named

    # the instance's axes first; a coordinate named like an axis (``row``) becomes ``row#2`` instead of overwriting it
    cex = named(list(idx.items()) + [("lane", lane_a), *zip(names, crd_a), ("address", addr_a),
                                     ("lane_b", lane_b), *((f"{n}_b", c) for n, c in zip(names, crd_b)),
                                     ("address_b", addr_b), ("bank", use.bank), ("word", word_a),
                                     ("word_b", word_b), ("wavefronts", wf), ("ideal", ideal)])
    where = "at " + ", ".join(f"{k}={v}" for k, v in idx.items()) + ": " if idx else ""  # none: one instance

    def lane_text(lane: int, crd: tuple[int, ...], addr: int) -> str:
        return f"{lane} ({', '.join(f'{n} {c}' for n, c in zip(names, crd))}, byte {addr})"

    words = (f"both update word {word_a}, one after the other (an atomic)" if same_word
             else f"both need bank {use.bank} (words {word_a} and {word_b})")
    why = (f"{where}lanes {lane_text(lane_a, crd_a, addr_a)} and {lane_text(lane_b, crd_b, addr_b)} {words}; the "
           f"instance costs {wf} wavefronts, ideal {ideal}")
    return ProofResult("refuted", cex, time.perf_counter() - start, "enum", claim, why)


def _cg_witness(smem: list[int], sources: list[int], active: list[bool]) -> tuple[int, int, str] | None:
    """Two lanes of a ``.cg`` copy that cost a wavefront apart: they write one shared 128-byte row from
    different global lines (two groups of the rule), else they share a (line, row) group but shift their
    32-byte sectors differently (two sector maps)."""
    lanes = [i for i in range(len(smem)) if active[i]]
    for a in lanes:
        for b in lanes:
            if b > a and smem[a] // 128 == smem[b] // 128 and sources[a] // 128 != sources[b] // 128:
                return a, b, "write one shared 128-byte row from different global 128-byte lines"
    for a in lanes:
        for b in lanes:
            if (b > a and (smem[a] // 128, sources[a] // 128) == (smem[b] // 128, sources[b] // 128)
                    and (smem[a] // 32 - sources[a] // 32) % 4 != (smem[b] // 32 - sources[b] // 32) % 4):
                return a, b, "move 16 bytes between 32-byte sectors shifted differently (global to shared)"
    return None


def _ca_witness(smem: list[int], sources: list[int], active: list[bool], w: int) -> tuple[int, int, str] | None:
    """The lane of a ``.ca`` copy that waits for the most others in its phase, and one lane it waits for."""
    from layoutalg.banks.cp_async import ca_phase_lanes

    per, groups = ca_phase_lanes(w), 128 // max(4, w)
    best: tuple[int, int, int, str] | None = None
    for a in range(len(smem)):
        if not active[a]:
            continue
        phase = range(a - a % per, a - a % per + per)
        sb, gb = smem[a] // w % groups, sources[a] // w % groups
        same_global = [b for b in phase if b != a and active[b] and sources[b] // w % groups == gb]
        same_shared = [b for b in phase if b != a and active[b] and smem[b] // w % groups == sb]
        waits = len(set(same_global) | set(same_shared))
        if waits and (best is None or waits > best[0]):
            b = (same_global or same_shared)[0]
            side = "global" if same_global else "shared"
            best = (waits, a, b, f"share a {side} bank in one phase (lane {a} waits for {waits} lanes)")
    return None if best is None else (best[1], best[2], best[3])


def _name_lanes(pairs: list[tuple[str, int]], access: Access, key: tuple[int, ...], smem: list[int],
                sources: list[int], lane_a: int, lane_b: int) -> str:
    """``lanes A (row r, col c, shared byte s, global byte g) and B (...)``; the same facts are appended to the
    counterexample's ``pairs`` (:func:`layoutalg.prove.render.named` keeps a clashing name as ``name#2``)."""
    from layoutalg.banks.proof_symbolic import coord_names

    names = coord_names(access.rank)
    parts = []
    for tag, lane in (("", lane_a), ("_b", lane_b)):
        crd = tuple(int(c) for c in access.coords[key + (lane,)])
        pairs += [(f"lane{tag}", lane), *((f"{n}{tag}", c) for n, c in zip(names, crd)),
                  (f"address{tag}", smem[lane]), (f"global_address{tag}", sources[lane])]
        parts.append(f"{lane} ({', '.join(f'{n} {c}' for n, c in zip(names, crd))}, shared byte {smem[lane]}, "
                     f"global byte {sources[lane]})")
    return f"lanes {parts[0]} and {parts[1]}"


def _cp_async_refutation(res: Any, access: Access, idx: dict[str, int], wf: int, ideal: int, claim: str,
                         start: float) -> ProofResult:
    """A cp.async instance over its ideal: .cg how many global lines feed how many shared rows (the rule's
    groups) and two lanes that cost a wavefront apart, each by (lane, coordinate, shared and global byte);
    .ca the lane that waits longest and the lanes sharing its global and shared banks."""
    key = tuple(idx[a] for a in res.axes)
    smem = [int(x) for x in res.addresses[key]]
    sources = [int(x) for x in res.global_addresses[key]]
    where = "at " + ", ".join(f"{k}={v}" for k, v in idx.items()) + ": " if idx else ""  # none: one instance
    from layoutalg.prove.render import named

    pairs: list[tuple[str, int]] = list(idx.items())  # the instance's axes first, as in enumerate_access
    ins = parse_instruction(res.instruction)
    on = ins.active_lanes  # a partial warp's missing lanes move nothing
    if ins.cache == "ca":
        rep = res.report(**idx)
        pairs += [("wavefronts", wf), ("ideal", ideal)]
        why = f"{where}the instance costs {wf} wavefronts, ideal {ideal}; " + "; ".join(rep.notes)
        pair = _ca_witness(smem, sources, [lane in on for lane in range(len(smem))], ins.access_bytes)
        if pair is not None:
            why += "; e.g. " + _name_lanes(pairs, access, key, smem, sources, pair[0], pair[1]) + " " + pair[2]
        return ProofResult("refuted", named(pairs), time.perf_counter() - start, "enum", claim, why)
    lines, rows = len({g // 128 for g in sources}), len({s // 128 for s in smem})
    groups = len({(g // 128, s // 128) for s, g in zip(smem, sources)})
    pairs += [("global_lines", lines), ("smem_rows", rows), ("groups", groups), ("wavefronts", wf), ("ideal", ideal)]
    why = (f"{where}the warp's 16-byte copies read {lines} global 128-byte lines into {rows} shared 128-byte "
           f"rows, {groups} (line, row) pairs; the instance costs {wf} wavefronts, ideal {ideal}")
    witness = _cg_witness(smem, sources, [lane in on for lane in range(len(smem))])
    if witness is not None:
        why += "; e.g. " + _name_lanes(pairs, access, key, smem, sources, witness[0], witness[1]) + " " + witness[2]
    return ProofResult("refuted", named(pairs), time.perf_counter() - start, "enum", claim, why)


def _symbolic(smem_layout: Any, access: Access, dtype: Any, base: int, method: str, arch: Any) -> ProofResult:
    from layoutalg.banks import proof_symbolic

    ins = parse_instruction(access.instruction)
    target = get_arch(arch)
    e = element_bytes(dtype)
    if access.fn is None:
        raise LayoutError("a symbolic proof needs an Access built by Access.from_fn (the coordinate function)")
    claim = _claim_text(smem_layout, ins.canonical, [f"{n} < {x}" for n, x in access.ranges] + ["parameter value"])
    invalid = proof_symbolic.check_valid(smem_layout, access, ins, e, base, target.smem_per_block_bytes, target.name)
    if invalid is not None:
        return invalid
    return proof_symbolic.decide(smem_layout, access, ins, e, base, method, claim)


def conflict_free(smem_layout: Any, access: Any, dtype: Any = None, *, base: int = 0, method: str = "auto",
                  timeout: float | None = None, by: str = "row", global_layout: Any = None,
                  arch: Any = None, global_ld: Any = None, tile_to: Any = None) -> ProofResult:
    """Prove ``access`` over ``smem_layout`` (elements of ``dtype``) conflict-free, or refute it with the lanes.

    ``access``: an instruction string (the whole rank-2 tile swept, see :func:`~layoutalg.banks.access.tile_access`)
    or an :class:`~layoutalg.banks.access.Access`.  ``method="auto"`` enumerates a finite access; ``"f2"``,
    ``"z3"`` (or an access whose function holds :func:`layoutalg.prove.expr.param` parameters, which cannot be
    enumerated) go through :func:`layoutalg.prove.claims.forall`.  A ``cp.async`` access also needs
    ``global_layout`` (where each element comes from, see :func:`~layoutalg.banks.analyze.analyze`) and is
    decided by enumeration only.  ``arch`` (default ``sm_90``) sets the shared-memory capacity every address
    must fit in and the instructions available; ``timeout`` (seconds, ``inf`` for none) bounds the whole proof.
    As on the command line, ``smem_layout`` may be layout text ``global_ld=N`` stands for ``--global-ld N`` and
    ``tile_to=(M, N)`` for ``--tile-to MxN``
    (:mod:`layoutalg.banks.inputs`).
    """
    if method not in METHODS:
        import difflib

        given = str(method).lower()
        close = [m for m in METHODS if given.startswith(m) or m.startswith(given)] or \
            difflib.get_close_matches(given, METHODS, n=1, cutoff=0.5)
        raise LayoutError(f"method must be one of {', '.join(METHODS)} (the prover's spellings), got {describe(method)}"
                          + (f"; did you mean {describe(close[0])}?" if close else ""))
    from layoutalg.prove import budget, config

    if not isinstance(method, str) or method not in ("auto", "enum", "f2", "z3"):
        raise LayoutError(f"method must be auto, enum, f2 or z3, got {describe(method)}")
    from layoutalg.banks.inputs import global_layout_of, smem_layout_of

    smem_layout = smem_layout_of(smem_layout, dtype, tile_to)
    if not callable(smem_layout) or not hasattr(smem_layout, "shape"):
        raise LayoutError(f"smem_layout must be a Layout or a ComposedLayout, got {describe(smem_layout)}")
    base = as_int(base, "base")  # a byte offset: 0.5 must not pass as 0
    target = get_arch(arch)
    if hasattr(access, "layout_tv") and hasattr(access, "atom"):  # a TiledCopy (layoutalg.atoms.tiled)
        from layoutalg.banks.tiled import access_from_tiled_copy

        access = access_from_tiled_copy(access, smem_layout)
    if isinstance(access, str):
        sizes = _mode_sizes(smem_layout)
        if len(sizes) != 2:
            raise LayoutError(f"an instruction string needs a rank-2 layout; {smem_layout} has {len(sizes)} modes")
        access = tile_access(access, (sizes[0], sizes[1]), dtype, by=by, arch=target)
    if not isinstance(access, Access):
        raise LayoutError(f"access must be an Access or an instruction string, got {type(access).__name__}")
    if access.symbolic and method == "enum":
        raise LayoutError("a symbolic access (with parameters) cannot be enumerated; use method='auto', 'f2' or 'z3'")
    ins = parse_instruction(access.instruction)
    require_instruction(ins, target)
    cp_async = ins.kind == "cp.async"
    global_layout = global_layout_of(global_layout, global_ld, _mode_sizes(smem_layout))
    if global_layout is not None and not cp_async:
        raise LayoutError(f"global_layout is for cp.async accesses only, not {ins.canonical} (it would be ignored)")
    if (cp_async or ins.is_atomic) and (method in ("f2", "z3") or access.symbolic):
        raise LayoutError(f"a{'' if cp_async else 'n'} {'cp.async' if cp_async else 'atomic'} access is decided by "
                          "enumeration only: give concrete coordinates and method='auto' or 'enum'")
    with budget.limit(config.current().timeout if timeout is None else timeout):
        if method in ("f2", "z3") or access.symbolic:
            return _symbolic(smem_layout, access, dtype, base, method, target)
        return enumerate_access(smem_layout, access, dtype, base, global_layout if cp_async else None, target)


def symbolic_access(instruction: str, fn: Any, **ranges: int) -> Access:
    """An :class:`Access` for a coordinate function that uses symbolic parameters (never enumerated)."""
    parse_instruction(instruction)
    import numpy as np

    for name, extent in ranges.items():
        if isinstance(extent, bool) or not isinstance(extent, int) or extent <= 0:
            raise LayoutError(f"symbolic_access range {name}={describe(extent)} must be a positive int")
    return Access(instruction, np.zeros((32, 1), dtype=np.int64), (), fn, tuple(ranges.items()), symbolic=True)


def replay_report(instruction: str, addresses: Any) -> str:
    """The per-phase text of one instance (helper for counterexample display)."""
    return str(report(instruction, addresses))
