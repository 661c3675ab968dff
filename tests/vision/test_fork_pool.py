"""Processes forked for training must not inherit OpenCV's thread pool (they hung)."""

from __future__ import annotations

import multiprocessing as mp

import cv2
import numpy as np

from companion.train_scenes import fork_pool


def _one_thread() -> None:
    cv2.setNumThreads(1)  # what a training worker's initializer did when it hung


def _blur(_):
    return cv2.GaussianBlur(np.ones((400, 400), np.float32), (9, 9), 0).shape


def test_a_forked_worker_runs_opencv_after_the_parent_used_its_threads():
    image = np.random.default_rng(0).random((1500, 1500), dtype=np.float32)
    for _ in range(3):  # starts OpenCV's worker threads in this process
        cv2.GaussianBlur(image, (31, 31), 0)
    threads = cv2.getNumThreads()
    pool = fork_pool(2, _one_thread)
    try:
        assert pool.apply_async(_blur, (0,)).get(timeout=30) == (400, 400)
    except mp.TimeoutError:
        raise AssertionError("a forked worker hung in OpenCV") from None
    finally:
        pool.terminate()
        pool.join()
    assert cv2.getNumThreads() == threads  # the parent keeps its own threads
