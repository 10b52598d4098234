"""The bank model of :mod:`layoutalg.banks.model`, vectorised over many instructions with numpy.

``wavefronts_many(instruction, addresses)`` takes an int array of shape
``(..., 32)`` (byte offsets, lane last) and returns ``(wavefronts, ideal)``,
two int arrays of shape ``(...)``, applying exactly the rules of the module
doc of :mod:`layoutalg.banks.model` (same phases, same distinct-word count).
"""

from __future__ import annotations

from typing import Any

from layoutalg.atoms.arch import Arch
from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.banks.limits import arch_of, check_address_end, require_instruction
from layoutalg.banks.model import BANK_BYTES, NUM_BANKS, PAIRING_XORS
from layoutalg.errors import InstructionError


def _validate(ins: Instruction, addrs: Any, arch: Arch) -> Any:
    import numpy as np

    require_instruction(ins, arch)
    if ins.kind == "cp.async":
        raise InstructionError(f"instruction {ins.text!r}: the vectorised model covers ld/st/ldmatrix/stmatrix; "
                               "for cp.async.cg call layoutalg.banks.wavefronts with global_byte_addresses")
    a = np.asarray(addrs)
    if a.ndim < 1 or a.shape[-1] != 32:
        raise InstructionError(f"addresses must have 32 lanes on the last axis, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise InstructionError(f"addresses must be integers, got dtype {a.dtype}")
    a = a.astype(np.int64, copy=False)  # never written to below
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


def _cost(ins: Instruction, a: Any, per: int, lanes: int) -> tuple[Any, Any]:
    """Total and ideal for phases of ``per`` lanes over the first ``lanes`` lanes of a (N, 32).

    Works on aligned *units* of ``max(4, width)`` bytes rather than on words: a
    ``w``-byte access aligned to ``w`` covers ``w/4`` consecutive banks, the same
    ones for every unit of its bank group (``unit % (128 / w)``), so counting
    distinct units per group is counting distinct words per bank (rule 3 of
    :mod:`layoutalg.banks.model`), with ``w/4`` times less data.
    """
    n = a.shape[0]
    unit_bytes = max(BANK_BYTES, ins.access_bytes)
    units = (a[:, :lanes] // unit_bytes).reshape(n, lanes // per, per)
    cost, distinct_units = _grouped_cost(units, NUM_BANKS * BANK_BYTES // unit_bytes)
    distinct_words = distinct_units * (unit_bytes // BANK_BYTES)
    return cost.sum(axis=-1), (-(-distinct_words // NUM_BANKS)).sum(axis=-1)


def wavefronts_many(instruction: str, addresses: Any, *, arch: Any = None) -> tuple[Any, Any]:
    """(wavefronts, ideal) for every row of ``addresses`` (shape ``(..., 32)``), vectorised.

    ``arch`` (default sm_90) sets the shared-memory capacity and which instructions exist.
    """
    import numpy as np

    ins = parse_instruction(instruction)
    a = _validate(ins, addresses, arch_of(arch))
    batch = a.shape[:-1]
    a = a.reshape(-1, 32)
    if a.shape[0] == 0:
        return np.zeros(batch, dtype=np.int64), np.zeros(batch, dtype=np.int64)
    if ins.matrices:
        wf, ideal = _cost(ins, a, 8, 8 * ins.matrices)
    elif ins.access_bytes <= BANK_BYTES:
        wf, ideal = _cost(ins, a, 32, 32)
    else:
        per = 128 // ins.access_bytes
        wf, ideal = _cost(ins, a, per, 32)
        if ins.kind == "ld":
            lanes = np.arange(32)
            paired = np.zeros(a.shape[0], dtype=bool)
            for step in PAIRING_XORS:
                paired |= (a == a[:, lanes ^ step]).all(axis=1)
            if paired.any():
                wf2, ideal2 = _cost(ins, a[paired], 2 * per, 32)
                wf[paired] = wf2
                ideal[paired] = ideal2
    return wf.reshape(batch), ideal.reshape(batch)
