"""Blocks of games on threads (sim/threads.py): a pool that plays batch after batch without waiting
for a batch's last block (issue 36.3, session 10), and run_blocks on it or on threads of its own.
The kernels here are Python functions that log and sleep (a sleep lets the other threads run, as a
numba kernel without the GIL does)."""

import threading
import time

import pytest

from sim.threads import BlockPool, run_blocks


class Log:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str, int]] = []

    def add(self, what: str, batch: str, b: int) -> None:
        with self.lock:
            self.events.append((what, batch, b))

    def kernel(self, slow: dict[int, float]):
        """A block kernel of arguments (batch name,) logging its start and end, ``slow[b]`` seconds long."""

        def play(name: str, b: int) -> None:
            self.add("start", name, b)
            time.sleep(slow.get(b, 0.001))
            self.add("end", name, b)

        return play

    def wait_for(self, event: tuple[str, str, int]) -> None:
        deadline = time.monotonic() + 30
        while event not in self.events:
            assert time.monotonic() < deadline, (event, self.events)
            time.sleep(0.001)


def test_a_thread_with_no_block_left_plays_the_next_batch_while_the_last_block_runs():
    log = Log()
    pool = BlockPool(2)
    try:
        slow_last = log.kernel({3: 0.5})  # batch A's last block is long
        a = threading.Thread(target=pool.run, args=(slow_last, 4, lambda t: ("A",), ()))
        a.start()
        log.wait_for(("start", "A", 3))  # A's blocks are all handed out
        pool.run(log.kernel({}), 4, lambda t: ("B",), ())  # returns once B is played, A not yet
        assert ("end", "A", 3) not in log.events
        a.join()
    finally:
        pool.close()
    at = log.events.index
    assert all(at(("start", "A", b)) < at(("start", "B", 0)) for b in range(4))  # in the order given
    assert at(("end", "B", 3)) < at(("end", "A", 3))  # B played beside A's last block
    assert sorted(e for e in log.events if e[0] == "end") == [("end", n, b) for n in "AB" for b in range(4)]


def test_each_thread_makes_its_arguments_once_a_batch():
    made = []
    pool = BlockPool(2)
    try:
        for name in ("A", "B"):
            args = lambda t, name=name: made.append((name, t)) or (name,)  # noqa: E731
            pool.run(lambda n, b: time.sleep(0.002), 6, args, ())
    finally:
        pool.close()
    assert sorted(made) == sorted(set(made)) and {n for n, _ in made} == {"A", "B"}


def test_a_kernels_error_is_its_batchs_and_the_pool_plays_on():
    def fails(name: str, b: int) -> None:
        if b == 2:
            raise ValueError(f"block {b}")

    pool = BlockPool(2)
    try:
        with pytest.raises(ValueError, match="block 2"):
            pool.run(fails, 5, lambda t: ("A",), ())
        played = []
        pool.run(lambda name, b: played.append(b), 3, lambda t: ("B",), ())
        assert sorted(played) == [0, 1, 2]
    finally:
        pool.close()


def test_closing_drops_the_blocks_not_begun_and_their_run_raises():
    log = Log()
    pool = BlockPool(1)
    errors = []

    def first_block_lasts_until_the_pool_closes(name: str, b: int) -> None:
        log.add("start", name, b)
        while b == 0 and not pool._closed:
            time.sleep(0.001)
        log.add("end", name, b)

    def run_a() -> None:
        try:
            pool.run(first_block_lasts_until_the_pool_closes, 50, lambda t: ("A",), ())
        except RuntimeError as e:
            errors.append(str(e))

    a = threading.Thread(target=run_a)
    a.start()
    log.wait_for(("start", "A", 0))
    pool.close()  # block 0 runs to its end; blocks 1-49 never begin
    a.join()
    assert log.events == [("start", "A", 0), ("end", "A", 0)]
    assert errors == ["BlockPool: the batch's blocks were dropped"]
    with pytest.raises(RuntimeError, match="closed"):
        pool.run(log.kernel({}), 1, lambda t: ("B",), ())


def test_run_blocks_plays_on_the_pool_only_where_it_is_used_and_of_its_thread_count():
    names = []

    def kernel(b: int) -> None:
        names.append(threading.current_thread().name)

    pool = BlockPool(2)
    try:
        run_blocks(kernel, 4, 2, lambda t: ())
        assert not any(n.startswith("soup-blocks") for n in names)
        with pool.used_here():
            names.clear()
            run_blocks(kernel, 4, 2, lambda t: ())
            assert names and all(n.startswith("soup-blocks") for n in names)
            names.clear()
            run_blocks(kernel, 4, 1, lambda t: ())  # another thread count: threads of its own
            assert names == [threading.current_thread().name] * 4
        names.clear()
        run_blocks(kernel, 2, 2, lambda t: ())
        assert not any(n.startswith("soup-blocks") for n in names)
    finally:
        pool.close()
