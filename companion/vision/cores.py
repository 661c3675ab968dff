"""How many cores this process may use, and the share each half of the pipeline gets."""

from __future__ import annotations

import os
from functools import cache


def _usable_cores() -> int:
    """The cores this process may run on (a container's limit, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# The served pipeline runs its two halves on two threads (Pipeline.stream): each gets half.
HALF_THE_CORES = max(1, _usable_cores() // 2)


@cache
def one_blas_thread() -> None:
    """Run numpy's matrix products on one thread, for good (once a process).

    A deck profile's detail matches are small products (a few hundred windows by a suit's
    cards). OpenBLAS splits each over every core, and its threads then spin between calls
    on the core the pipeline's other half runs on. On the 2-core box with its other core
    busy, as it is when served, one PySolFC numeral match took 4.4 ms with OpenBLAS's
    threads and 1.0 ms with one."""
    from threadpoolctl import threadpool_limits
    threadpool_limits(1, user_api="blas")
