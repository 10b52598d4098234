"""The bank model of :mod:`layoutalg.banks.model`, vectorised over many instructions with numpy.

``wavefronts_many(instruction, addresses)`` takes an int array of shape
``(..., 32)`` (byte offsets, lane last) and returns ``(wavefronts, ideal)``,
two int arrays of shape ``(...)``, applying exactly the rules of the module
doc of :mod:`layoutalg.banks.model` (same phases, same distinct-word count).
A ``cp.async`` also takes ``global_addresses`` of the same shape (its rules:
:mod:`layoutalg.banks.cp_async`, vectorised in :mod:`.cp_async_vector`).

Partial warps (``active``, a bool mask of the same shape): the phase rule with the inactive lanes
simply absent -- they request no word, a phase without an active lane costs nothing, and a lane pair
with an inactive lane is ignored when a 64/128-bit load's lanes pair up (rules 2 and 5, measured in
round 8).
"""

from __future__ import annotations

from typing import Any

from layoutalg.atoms.arch import Arch
from layoutalg.banks.cp_async_vector import cp_async_many
from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.banks.limits import arch_of, check_address_end, require_instruction
from layoutalg.banks.model import ATOMIC_CAS_WAVEFRONTS, BANK_BYTES, NUM_BANKS, PAIRING_XORS
from layoutalg.core.validate import describe
from layoutalg.errors import InstructionError


def _validate(ins: Instruction, addrs: Any, arch: Arch) -> Any:
    import numpy as np

    require_instruction(ins, arch)
    a = _int_lanes(addrs, "addresses")
    act = a[..., : len(ins.active_lanes)]
    if act.size:
        if int(act.min()) < 0:
            raise InstructionError(f"negative shared-memory address {int(act.min())} in {ins.canonical}")
        check_address_end(int(act.max()) + ins.access_bytes, f"address {int(act.max())} of {ins.canonical}", arch)
        bad = (act & (ins.access_bytes - 1)) != 0  # widths are powers of two
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise InstructionError(f"misaligned address {int(act[where])} at index {where} of {ins.canonical} "
                                   f"(must be a multiple of {ins.access_bytes})")
    return a


def lane_array(values: Any, what: str) -> Any:
    """``np.asarray(values)``, or an InstructionError naming ``what`` when numpy cannot make one array of it
    (ragged nesting, more than 64 dimensions, objects numpy rejects)."""
    import numpy as np

    try:
        return np.asarray(values)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise InstructionError(f"{what} is not an array of lane values: {type(exc).__name__}") from None


def _int_lanes(values: Any, what: str) -> Any:
    """``values`` as an int64 array with 32 lanes on its last axis (InstructionError naming ``what`` otherwise)."""
    import numpy as np

    a = lane_array(values, what)
    if a.ndim < 1 or a.shape[-1] != 32:
        raise InstructionError(f"{what} must have 32 lanes on the last axis, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise InstructionError(f"{what} must be integers, got dtype {a.dtype}")
    return a.astype(np.int64, copy=False)  # never written to


def _validate_global(ins: Instruction, glob: Any, shape: tuple[int, ...]) -> Any:
    """A cp.async's source offsets: same shape as its destinations, non-negative, aligned to the copy size."""
    import numpy as np

    if glob is None:
        raise InstructionError(f"instruction {describe(ins.text)}: a cp.async's shared-memory cost depends on where each "
                               "lane's data comes from; pass global_addresses (same shape as addresses)")
    g = _int_lanes(glob, "global_addresses")
    if g.shape != shape:
        raise InstructionError(f"global_addresses has shape {g.shape}, addresses {shape}; they must match")
    if g.size and int(g.min()) < 0:
        raise InstructionError(f"negative global source offset {int(g.min())} in {ins.canonical}")
    bad = (g & (ins.access_bytes - 1)) != 0
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InstructionError(f"misaligned global source offset {int(g[where])} at index {where} of "
                               f"{ins.canonical} (must be a multiple of {ins.access_bytes})")
    return g


def _grouped_cost(units: Any, groups: int) -> tuple[Any, Any]:
    """Per (N, P) phase of ``units`` (N, P, L): (max distinct units in one bank group, distinct units).

    A unit in group ``u % groups`` occupies that group's banks alone, so the
    distinct units of a group are the distinct words each of its banks delivers.
    ``groups`` is a power of two.
    """
    import numpy as np

    n, p, _ = units.shape
    srt = np.sort(units, axis=-1)
    first = np.empty(srt.shape, dtype=bool)
    first[..., 0] = True
    np.not_equal(srt[..., 1:], srt[..., :-1], out=first[..., 1:])
    keys = (srt & (groups - 1)) + (np.arange(n * p, dtype=np.int64) * groups).reshape(n, p, 1)
    counts = np.bincount(keys.ravel(), weights=first.ravel(), minlength=n * p * groups).reshape(n, p, groups)
    return counts.max(axis=-1).astype(np.int64), np.count_nonzero(first, axis=-1)


def _cost(ins: Instruction, a: Any, per: int, lanes: int, active: Any = None) -> tuple[Any, Any]:
    """Total and ideal for phases of ``per`` lanes over the first ``lanes`` lanes of a (N, 32).

    Works on aligned *units* of ``max(4, width)`` bytes rather than on words: a
    ``w``-byte access aligned to ``w`` covers ``w/4`` consecutive banks, the same
    ones for every unit of its bank group (``unit % (128 / w)``), so counting
    distinct units per group is counting distinct words per bank (rule 3 of
    :mod:`layoutalg.banks.model`), with ``w/4`` times less data.
    """
    import numpy as np

    n = a.shape[0]
    unit_bytes = max(BANK_BYTES, ins.access_bytes)
    units = (a[:, :lanes] // unit_bytes).reshape(n, lanes // per, per)
    if active is not None:  # an inactive lane repeats an active lane of its phase: it adds no unit
        act = active[:, :lanes].reshape(n, lanes // per, per)
        fill = np.take_along_axis(units, act.argmax(axis=-1)[..., None], axis=-1)
        units = np.where(act, units, fill)
    cost, distinct_units = _grouped_cost(units, NUM_BANKS * BANK_BYTES // unit_bytes)
    if active is not None:  # a phase without an active lane costs nothing
        some = act.any(axis=-1)
        cost, distinct_units = cost * some, distinct_units * some
    distinct_words = distinct_units * (unit_bytes // BANK_BYTES)
    return cost.sum(axis=-1), (-(-distinct_words // NUM_BANKS)).sum(axis=-1)


def _active_mask(active: Any, shape: tuple[int, ...]) -> Any:

    act = lane_array(active, "active")
    if act.dtype != bool or act.shape != shape:
        raise InstructionError(f"active must be a bool array of the addresses' shape {shape}, got "
                               f"{act.dtype} {act.shape}")
    return act


def _paired(a: Any, active: Any) -> Any:
    """Rows whose lanes pair up (rule 2): every pair ``(i, i ^ x)`` of active lanes holds one address
    (a pair with an inactive lane is ignored: rule 5)."""
    import numpy as np

    lanes = np.arange(32)
    paired = np.zeros(a.shape[0], dtype=bool)
    for step in PAIRING_XORS:
        same = a == a[:, lanes ^ step]
        if active is None:
            paired |= same.all(axis=1)
        else:
            paired |= (same | ~active | ~active[:, lanes ^ step]).all(axis=1)
    return paired


def _atomic_cost(ins: Instruction, a: Any, active: Any) -> tuple[Any, Any]:
    """Rule 6 of :mod:`layoutalg.banks.model`: per phase (a store's), one pass per lane its busiest bank serves
    (a 64-bit lane in both of its banks, which share their count: count by 8-byte bank pair), two wavefronts a
    pass for cas; ideal one pass per phase with an active lane."""
    import numpy as np

    n = a.shape[0]
    unit = ins.access_bytes
    per = 32 if unit <= BANK_BYTES else 128 // unit
    groups = NUM_BANKS * BANK_BYTES // unit
    phases = 32 // per
    act = np.ones(a.shape, dtype=bool) if active is None else active
    keys = (a // unit) % groups + (np.arange(n * phases, dtype=np.int64) * groups).reshape(n, phases, 1).repeat(
        per, axis=-1).reshape(n, 32)
    counts = np.bincount(keys.ravel(), weights=act.ravel(), minlength=n * phases * groups)
    passes = counts.reshape(n, phases, groups).max(axis=-1).astype(np.int64)
    per_pass = ATOMIC_CAS_WAVEFRONTS if ins.atomic == "cas" else 1
    some = act.reshape(n, phases, per).any(axis=-1)
    return passes.sum(axis=-1) * per_pass, some.sum(axis=-1) * per_pass


def _plain_cost(ins: Instruction, a: Any, active: Any) -> tuple[Any, Any]:
    import numpy as np

    if ins.is_atomic and not ins.merged_increment:
        return _atomic_cost(ins, a, active)
    if ins.matrices:
        return _cost(ins, a, 8, 8 * ins.matrices, active)
    if ins.access_bytes <= BANK_BYTES:
        return _cost(ins, a, 32, 32, active)
    per = 128 // ins.access_bytes
    wf, ideal = _cost(ins, a, per, 32, active)
    if ins.kind == "ld":
        paired = _paired(a, active)
        if active is not None:
            paired &= active.any(axis=1)
        if paired.any():
            wf2, ideal2 = _cost(ins, a[paired], 2 * per, 32, None if active is None else active[paired])
            wf[paired] = wf2
            ideal[paired] = ideal2
    return np.asarray(wf), np.asarray(ideal)


def wavefronts_many(instruction: str, addresses: Any, global_addresses: Any = None,
                    active: Any = None, *, arch: Any = None) -> tuple[Any, Any]:
    """(wavefronts, ideal) for every row of ``addresses`` (shape ``(..., 32)``), vectorised.

    ``global_addresses`` (cp.async only, where it is required): each lane's source byte offset from a
    128-byte-aligned global base, same shape as ``addresses``.  ``active`` (optional, bool, same shape):
    the lanes that execute; the others are absent from the rules (module doc) and their addresses ignored.
    ``arch`` (default sm_90) sets the shared-memory capacity and which instructions exist.
    """
    import numpy as np

    ins = parse_instruction(instruction)
    act = None
    if active is not None:
        addresses = _int_lanes(addresses, "addresses")
        act = _active_mask(active, np.shape(addresses))
        addresses = np.where(act, addresses, 0)
        if global_addresses is not None:
            global_addresses = np.where(act, _int_lanes(global_addresses, "global_addresses"), 0)
    a = _validate(ins, addresses, arch_of(arch))
    batch = a.shape[:-1]
    if ins.kind == "cp.async":
        g = _validate_global(ins, global_addresses, a.shape).reshape(-1, 32)
        wf, ideal = cp_async_many(ins, a.reshape(-1, 32), g, None if act is None else act.reshape(-1, 32))
        return wf.reshape(batch), ideal.reshape(batch)
    if global_addresses is not None:
        raise InstructionError(f"global_addresses is for cp.async only, not {ins.canonical}")
    a = a.reshape(-1, 32)
    if a.shape[0] == 0:
        return np.zeros(batch, dtype=np.int64), np.zeros(batch, dtype=np.int64)
    wf, ideal = _plain_cost(ins, a, None if act is None else act.reshape(-1, 32))
    return wf.reshape(batch), ideal.reshape(batch)
