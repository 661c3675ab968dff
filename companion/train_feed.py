"""A training pool that grows while the model trains: for machines with many cores.

On the 2-core box the pool is rendered once and then trained on (``companion.train``).
Where there are many cores and a GPU, rendering is the slow part and the GPU would wait
for it, so here worker processes keep rendering chunks for the whole training time, each
chunk either pasted crops or cards cut from whole training scenes, in the same proportion as
the fixed pool; training draws every pass from all the crops that have arrived so far.
The crops live on the training device as uint8 so that a pool of millions fits.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import torch

from companion.train_scenes import fork_pool, scene_chunk

PASTED_CHUNK = 1024  # crops per pasted job
SCENE_CHUNK = 40  # scenes per scene job (about five crops each)


class GrowingPool:
    """Crops rendered by ``workers`` processes into a fixed-capacity tensor on ``device``.

    ``pasted_job((n, seed))`` is run in the workers (it reads the face bank set up by
    ``initializer``) for one job in ``pasted_every``; the others cut ``SCENE_CHUNK``
    training scenes each. Call :meth:`update` to take in what has arrived."""

    def __init__(self, capacity: int, input_px: int, device: str, workers: int, *,
                 pasted_job, pasted_seed: int, scene_seed: int, pasted_every: int,
                 initializer=None, initargs=()):
        # Fork before the device's tensors exist: a child must not inherit a CUDA context.
        self._pool = fork_pool(workers, initializer, initargs)
        self.x = torch.empty((capacity, 3, input_px, input_px), dtype=torch.uint8,
                             device=device)
        self.y = torch.empty((capacity, 4), dtype=torch.int64, device=device)
        self.size = 0
        self._input_px = input_px
        self._pasted_job, self._pasted_seed = pasted_job, pasted_seed
        self._scene_seed, self._pasted_every = scene_seed, max(1, pasted_every)
        self._jobs_sent = 0
        self._scenes_sent = 0
        self._arrived: list[tuple[np.ndarray, np.ndarray]] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self._error: BaseException | None = None  # a worker's, raised again by update()
        self._rendered = 0  # crops arrived, taken in or not
        self._closed = False
        self._depth = 2 * workers
        self._send()

    def _done(self, part) -> None:
        # Runs on the pool's result thread: the next job goes out at once, so the workers
        # never wait for the training loop to call update().
        with self._lock:
            self._arrived.append(part)
            self._in_flight -= 1
            self._rendered += len(part[0])
        self._send()

    def _failed(self, error: BaseException) -> None:
        with self._lock:
            self._in_flight -= 1
            self._error = error

    def _send(self) -> None:
        with self._lock:
            while (not self._closed and self._error is None and self._in_flight < self._depth
                   and self._rendered < len(self.x)):
                n = self._jobs_sent
                if n % self._pasted_every:
                    start = self._scenes_sent
                    self._scenes_sent += SCENE_CHUNK
                    fn, job = scene_chunk, (self._scene_seed, start, start + SCENE_CHUNK,
                                           self._input_px)
                else:
                    fn, job = self._pasted_job, (PASTED_CHUNK, self._pasted_seed + n)
                self._pool.apply_async(fn, (job,), callback=self._done,
                                       error_callback=self._failed)
                self._in_flight += 1
                self._jobs_sent += 1

    def update(self, wait_for: int = 0) -> int:
        """Take in the chunks that have arrived (blocking until the pool holds at least
        ``wait_for`` crops); returns the pool's size."""
        while True:
            with self._lock:
                parts, self._arrived = self._arrived, []
            if self._error is not None:
                raise RuntimeError("a process rendering training crops failed") from self._error
            for x, y in parts:
                n = min(len(x), len(self.x) - self.size)
                self.x[self.size:self.size + n] = torch.from_numpy(x[:n]).to(self.x.device)
                self.y[self.size:self.size + n] = torch.from_numpy(y[:n]).to(self.y.device)
                self.size += n
            if self.size >= min(wait_for, len(self.x)):
                return self.size
            time.sleep(0.2)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._pool.terminate()
        self._pool.join()
