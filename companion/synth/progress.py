"""A dependency-free progress bar on stderr for the long synth jobs."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """``bar(done, total)`` redraws one line; silent when stderr is not a terminal unless
    ``force``, so logs and tests stay clean."""

    def __init__(self, label: str, force: bool = False, stream=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = force or self.stream.isatty()
        self.start = time.monotonic()
        self._last = -1.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        frac = done / total if total else 1.0
        width = 30
        filled = round(frac * width)
        elapsed = now - self.start
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                          f"{done}/{total} {elapsed:5.0f}s elapsed, {eta:4.0f}s left")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
