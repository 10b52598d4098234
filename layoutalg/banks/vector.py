"""The bank model of :mod:`layoutalg.banks.model`, vectorised over many instructions with numpy.

``wavefronts_many(instruction, addresses)`` takes an int array of shape
``(..., 32)`` (byte offsets, lane last) and returns ``(wavefronts, ideal)``,
two int arrays of shape ``(...)``, applying exactly the rules of the module
doc of :mod:`layoutalg.banks.model` (same phases, same distinct-word count).
"""

from __future__ import annotations

from typing import Any

from layoutalg.banks.instruction import Instruction, parse_instruction
from layoutalg.banks.model import BANK_BYTES, NUM_BANKS, PAIRING_XORS, SMEM_LIMIT_BYTES
from layoutalg.errors import InstructionError


def _validate(ins: Instruction, addrs: Any) -> Any:
    import numpy as np

    if ins.kind == "cp.async":
        raise InstructionError(f"instruction {ins.text!r}: cp.async shared-memory wavefronts are not modelled "
                               "(see layoutalg.banks.model)")
    a = np.asarray(addrs)
    if a.ndim < 1 or a.shape[-1] != 32:
        raise InstructionError(f"addresses must have 32 lanes on the last axis, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise InstructionError(f"addresses must be integers, got dtype {a.dtype}")
    a = a.astype(np.int64)
    act = a[..., : len(ins.active_lanes)]
    if act.size:
        if int(act.min()) < 0:
            raise InstructionError(f"negative shared-memory address {int(act.min())} in {ins.canonical}")
        if int(act.max()) + ins.access_bytes > SMEM_LIMIT_BYTES:
            raise InstructionError(f"address {int(act.max())} of {ins.canonical} ends past 228 KiB of shared memory")
        bad = act % ins.access_bytes != 0
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise InstructionError(f"misaligned address {int(act[where])} at index {where} of {ins.canonical} "
                                   f"(must be a multiple of {ins.access_bytes})")
    return a


def _grouped_cost(words: Any) -> tuple[Any, Any]:
    """words: (N, P, L) word indices; returns (max distinct words per bank, distinct words) per (N, P)."""
    import numpy as np

    n, p, length = words.shape
    srt = np.sort(words, axis=-1)
    first = np.ones(srt.shape, dtype=bool)
    first[..., 1:] = srt[..., 1:] != srt[..., :-1]
    group = np.arange(n * p, dtype=np.int64).reshape(n, p, 1) * NUM_BANKS
    keys = (group + srt % NUM_BANKS)[first]
    counts = np.bincount(keys, minlength=n * p * NUM_BANKS).reshape(n, p, NUM_BANKS)
    return counts.max(axis=-1), first.sum(axis=-1)


def _cost(ins: Instruction, a: Any, per: int, lanes: int) -> tuple[Any, Any]:
    """Total and ideal for phases of ``per`` lanes over the first ``lanes`` lanes of a (N, 32)."""
    import numpy as np

    n = a.shape[0]
    nwords = max(1, ins.access_bytes // BANK_BYTES)
    base = a[:, :lanes] // BANK_BYTES
    words = (base[:, :, None] + np.arange(nwords, dtype=np.int64)).reshape(n, lanes // per, per * nwords)
    cost, distinct = _grouped_cost(words)
    return cost.sum(axis=-1), (-(-distinct // NUM_BANKS)).sum(axis=-1)


def wavefronts_many(instruction: str, addresses: Any) -> tuple[Any, Any]:
    """(wavefronts, ideal) for every row of ``addresses`` (shape ``(..., 32)``), vectorised."""
    import numpy as np

    ins = parse_instruction(instruction)
    a = _validate(ins, addresses)
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
