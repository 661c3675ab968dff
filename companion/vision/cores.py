"""How many cores this process may use, and the share each half of the pipeline gets."""

from __future__ import annotations

import os


def _usable_cores() -> int:
    """The cores this process may run on (a container's limit, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# The served pipeline runs its two halves on two threads (Pipeline.stream): each gets half.
HALF_THE_CORES = max(1, _usable_cores() // 2)
