"""What the launch did to global memory (layoutalg/kernel/dataflow/globalmem.py) against a brute-force model of
Python sets: the 2-byte units (offset >> 1) of each buffer stored to, and per unit the set of threads that
loaded it.  ``hit`` says whether a unit was stored to; ``loaded_by_others`` whether any unit was loaded by a
thread other than the storing one.  Negative buffers and offsets are ignored."""

from __future__ import annotations

import random

import numpy as np
import pytest

from layoutalg.kernel.dataflow.globalmem import GlobalWrites


class Model:
    def __init__(self) -> None:
        self.stored: set[tuple[int, int]] = set()
        self.loaders: dict[tuple[int, int], set[int]] = {}

    def note_loads(self, buf: list[int], off: list[int], thread: list[int]) -> None:
        for b, o, t in zip(buf, off, thread):
            if b >= 0 and o >= 0:
                self.loaders.setdefault((b, o >> 1), set()).add(t)

    def add(self, buf: list[int], off: list[int]) -> None:
        self.stored |= {(b, o >> 1) for b, o in zip(buf, off) if b >= 0 and o >= 0}

    def hit(self, buf: list[int], off: list[int]) -> list[bool]:
        return [o >= 0 and (b, o >> 1) in self.stored for b, o in zip(buf, off)]

    def loaded_by_others(self, buf: list[int], off: list[int], thread: list[int]) -> bool:
        return any(o >= 0 and bool(self.loaders.get((b, o >> 1), set()) - {t}) for b, o, t in zip(buf, off, thread))


def arrays(rng: random.Random, k: int, top: int) -> tuple[list[int], list[int], list[int]]:
    buf = [rng.choice([-1, 0, 1, 2, 2, 3]) for _ in range(k)]
    off = [rng.randrange(-4, top) for _ in range(k)]
    thread = [rng.randrange(4) for _ in range(k)]
    return buf, off, thread


@pytest.mark.parametrize("seed", range(12))
def test_global_writes_agree_with_the_set_model(seed: int) -> None:
    rng = random.Random(seed)
    gw, model = GlobalWrites(), Model()
    top = 8
    for _ in range(60):
        top = top * 2 if rng.random() < 0.1 else top  # offsets grow: the bitmaps must grow with them
        buf, off, thread = arrays(rng, rng.randrange(1, 9), top)
        b, o, t = (np.array(x, dtype=np.int64) for x in (buf, off, thread))
        what = rng.randrange(4)
        if what == 0:
            gw.note_loads(b, o, t)
            model.note_loads(buf, off, thread)
        elif what == 1:
            gw.add(b, o)
            model.add(buf, off)
        elif what == 2:
            assert gw.hit(b, o).tolist() == model.hit(buf, off)
        else:
            assert gw.loaded_by_others(b, o, t) == model.loaded_by_others(buf, off, thread)


def test_two_threads_loading_one_unit_in_one_instruction_are_both_loaders() -> None:
    gw = GlobalWrites()
    gw.note_loads(np.array([0, 0]), np.array([6, 7]), np.array([3, 5]))  # bytes 6 and 7: unit 3
    assert gw.loaded_by_others(np.array([0]), np.array([6]), np.array([3]))
    assert gw.loaded_by_others(np.array([0]), np.array([6]), np.array([5]))
    gw = GlobalWrites()
    gw.note_loads(np.array([0, 0]), np.array([6, 7]), np.array([3, 3]))
    assert not gw.loaded_by_others(np.array([0]), np.array([6]), np.array([3]))
    assert gw.loaded_by_others(np.array([0]), np.array([6]), np.array([4]))
    assert not gw.loaded_by_others(np.array([1]), np.array([6]), np.array([4]))


def test_hit_is_false_past_the_stored_range_and_for_unknown_buffers() -> None:
    gw = GlobalWrites()
    gw.add(np.array([1]), np.array([10]))
    assert gw.hit(np.array([1, 1, 1, 0, 1]), np.array([10, 11, 12, 10, 1000])).tolist() == \
        [True, True, False, False, False]


def test_every_unit_two_threads_load_in_one_instruction_has_both_loaders_not_only_the_lowest_unit() -> None:
    # one instruction: thread 3 loads unit 0, threads 1 and 3 both load unit 5 (bytes 10 and 11)
    gw = GlobalWrites()
    gw.note_loads(np.array([0, 0, 0]), np.array([0, 10, 11]), np.array([3, 1, 3]))
    model = Model()
    model.note_loads([0, 0, 0], [0, 10, 11], [3, 1, 3])
    for t in (1, 3, 4):
        for off in (0, 10):
            assert gw.loaded_by_others(np.array([0]), np.array([off]), np.array([t])) == \
                model.loaded_by_others([0], [off], [t]), (t, off)


def test_a_unit_thread_0_and_another_thread_load_in_one_instruction_is_loaded_by_others_for_thread_0() -> None:
    # one instruction: threads 0 and 5 both load unit 3 (bytes 6 and 7); thread 0 storing it meets thread 5's load
    for threads in ([0, 5], [5, 0]):
        gw = GlobalWrites()
        gw.note_loads(np.array([0, 0]), np.array([6, 7]), np.array(threads))
        model = Model()
        model.note_loads([0, 0], [6, 7], threads)
        for t in (0, 5, 1):
            assert gw.loaded_by_others(np.array([0]), np.array([6]), np.array([t])) == \
                model.loaded_by_others([0], [6], [t]) is True, (threads, t)
