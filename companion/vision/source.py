"""Frame sources: a webcam index, a video file, a folder of images, or frames in memory.

All of them yield :class:`Frame` values (index, timestamp in seconds, BGR image) through one
method, ``frames()``, so every later stage runs the same on a live camera and on a recording.
A webcam that disappears (unplugged, driver hiccup) is reopened on its own; recordings and
folders carry timestamps derived from their frame rate so replays are deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(RuntimeError):
    """A source that cannot be opened or read (bad path, no camera, unreadable file)."""


@dataclass(frozen=True)
class Frame:
    index: int  # 0-based, counts frames actually delivered
    timestamp: float  # seconds since the source started (media time for files)
    image: np.ndarray  # HxWx3 uint8 BGR


class FrameSource(Protocol):
    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


def _as_bgr(image: np.ndarray, origin: str) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise SourceError(f"{origin}: expected a BGR image, got shape {image.shape}")


class FakeSource:
    """Frames from memory, e.g. rendered scenes in tests; timestamps at a fixed rate."""

    def __init__(self, images: Iterable[np.ndarray], fps: float = 30.0):
        if fps <= 0:
            raise SourceError(f"fps must be positive, got {fps}")
        self._images = images
        self.fps = fps

    def frames(self) -> Iterator[Frame]:
        for i, image in enumerate(self._images):
            yield Frame(i, i / self.fps, _as_bgr(np.asarray(image), "frame"))

    def close(self) -> None:
        pass


class ImageFolderSource:
    """Every image in a folder, in name order; a still photo set or a dumped recording."""

    def __init__(self, folder: str | Path, fps: float = 30.0):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"no such folder: {self.folder}")
        self.paths = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"{self.folder} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        if fps <= 0:
            raise SourceError(f"fps must be positive, got {fps}")
        self.fps = fps

    def frames(self) -> Iterator[Frame]:
        for i, path in enumerate(self.paths):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"cannot read image {path}")
            yield Frame(i, i / self.fps, image)

    def close(self) -> None:
        pass


class VideoFileSource:
    """A recorded video; timestamps are media time (frame index / the file's frame rate)."""

    def __init__(self, path: str | Path, fps: float | None = None):
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"no such video file: {self.path}")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError(f"cannot open video {self.path} (not a video OpenCV can decode?)")
        file_fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps or (file_fps if file_fps and file_fps > 0 else 30.0)

    def frames(self) -> Iterator[Frame]:
        i = 0
        while True:
            ok, image = self._cap.read()
            if not ok:
                break
            yield Frame(i, i / self.fps, image)
            i += 1
        self.close()

    def close(self) -> None:
        self._cap.release()


Opener = Callable[[int], "cv2.VideoCapture"]


class WebcamSource:
    """A live camera by index; reopens it when reads fail, with a growing pause.

    ``max_reconnects`` bounds consecutive failed reopen attempts (None: keep trying, which is
    what a game night wants); ``opener`` is injectable so reconnection is testable.
    """

    def __init__(self, index: int = 0, width: int | None = 1280, height: int | None = 720,
                 max_reconnects: int | None = None, retry_delay_s: float = 0.5,
                 opener: Opener | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if index < 0:
            raise SourceError(f"camera index must be >= 0, got {index}")
        self.index, self.width, self.height = index, width, height
        self.max_reconnects = max_reconnects
        self.retry_delay_s = retry_delay_s
        self._opener = opener or (lambda i: cv2.VideoCapture(i))
        self._clock, self._sleep = clock, sleep
        self.reconnects = 0  # how many times the camera was reopened, for the dashboard
        self._cap = None
        self._closed = False

    def _open(self) -> bool:
        cap = self._opener(self.index)
        if cap is None or not cap.isOpened():
            return False
        if self.width and self.height:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        # A camera's driver queues a few frames (V4L2: 4). A pipeline slower than the
        # camera (with a real deck's profile, 21-23 fps on a 2-core laptop) would then see
        # every frame that many frames late; with one buffer the driver drops the stale
        # ones instead. A driver that cannot do it ignores the request.
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._cap = cap
        return True

    def _reopen(self) -> bool:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        attempts = 0
        while not self._closed:
            if self._open():
                return True
            attempts += 1
            if self.max_reconnects is not None and attempts > self.max_reconnects:
                return False
            self._sleep(min(self.retry_delay_s * attempts, 5.0))
        return False

    def frames(self) -> Iterator[Frame]:
        if not self._open():
            raise SourceError(f"cannot open camera {self.index}; is it plugged in and free? "
                              "(try another --source index)")
        start = self._clock()
        i = 0
        while not self._closed:
            ok, image = self._cap.read()
            if not ok or image is None:
                if not self._reopen():
                    break
                self.reconnects += 1
                continue
            yield Frame(i, self._clock() - start, image)
            i += 1

    def close(self) -> None:
        self._closed = True
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def open_source(spec: str | int, fps: float | None = None) -> FrameSource:
    """``0``/``"1"``: a webcam; a folder: its images; anything else: a video file."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return WebcamSource(int(spec))
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path, fps or 30.0)
    if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
        return _single_image(path)
    if not path.exists():
        raise SourceError(f"no such source {spec!r}: give a camera index (0, 1, ...), "
                          "a video file or a folder of images")
    return VideoFileSource(path, fps)


def _single_image(path: Path) -> FakeSource:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise SourceError(f"cannot read image {path}")
    return FakeSource([image])
