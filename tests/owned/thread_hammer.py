"""One call from many threads released together: the owned code's thread-safety tests.

A free-threaded Python (3.14t) runs the threads in parallel. With the GIL, a switch interval of a
microsecond makes the interpreter change threads as often as it can, so that a missing lock shows
there too, if less surely: CI's free-threaded leg is where these tests bite hardest.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")
THREADS = 16


def hammer(call: Callable[[int], T], threads: int = THREADS) -> list[T]:
    """``call(i)`` in thread ``i``, all the threads started at once; the results, in order."""
    start = threading.Barrier(threads)

    def run(i: int) -> T:
        start.wait()
        return call(i)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(threads) as pool:  # an exception in a thread is raised here
            return list(pool.map(run, range(threads)))
    finally:
        sys.setswitchinterval(interval)


def lingering(function: Callable[..., T], patience: float = 0.5) -> Callable[..., T]:
    """``function``, whose first caller waits up to ``patience`` seconds for a second one.

    Where a lock keeps the others out, none comes, and the first goes on alone. Where nothing
    does, a second thread enters while the first waits: the race happens on every run, with the
    GIL or without it, not only when the scheduler happens to switch threads at that moment.
    """
    second = threading.Barrier(2, timeout=patience)

    @functools.wraps(function)
    def waiting(*args: Any, **kwargs: Any) -> T:
        with contextlib.suppress(threading.BrokenBarrierError):  # the wait ran out: alone
            second.wait()
        return function(*args, **kwargs)

    return waiting
