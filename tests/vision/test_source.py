"""Frame sources: one interface, timestamps, clear errors, webcam reconnection."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.source import (
    FakeSource,
    ImageFolderSource,
    SourceError,
    VideoFileSource,
    WebcamSource,
    open_source,
)


def _image(value: int, size=(48, 64)) -> np.ndarray:
    return np.full((*size, 3), value, np.uint8)


def test_fake_source_yields_indexed_frames_at_its_rate():
    frames = list(FakeSource([_image(v) for v in (10, 20, 30)], fps=10).frames())
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 30]


def test_fake_source_turns_gray_into_bgr():
    (frame,) = FakeSource([np.zeros((4, 5), np.uint8)]).frames()
    assert frame.image.shape == (4, 5, 3)


def test_folder_source_reads_images_in_name_order(tmp_path):
    for name, v in (("b.png", 200), ("a.png", 100), ("c.jpg", 50)):
        cv2.imwrite(str(tmp_path / name), _image(v))
    (tmp_path / "notes.txt").write_text("not an image")
    frames = list(ImageFolderSource(tmp_path, fps=2).frames())
    assert len(frames) == 3
    assert int(frames[0].image[0, 0, 0]) == 100 and int(frames[1].image[0, 0, 0]) == 200
    assert frames[2].timestamp == pytest.approx(1.0)


def test_folder_source_errors(tmp_path):
    with pytest.raises(SourceError, match="no such folder"):
        ImageFolderSource(tmp_path / "missing")
    with pytest.raises(SourceError, match="holds no images"):
        ImageFolderSource(tmp_path)


def test_video_source_round_trip(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (64, 48))
    for v in range(0, 250, 50):
        writer.write(_image(v))
    writer.release()
    frames = list(VideoFileSource(path).frames())
    assert len(frames) == 5
    assert frames[4].timestamp == pytest.approx(4 / 25)
    assert abs(int(frames[2].image[10, 10, 0]) - 100) < 12  # lossy codec


def test_video_source_bad_input(tmp_path):
    with pytest.raises(SourceError, match="no such video"):
        VideoFileSource(tmp_path / "nope.mp4")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"this is not a video")
    # OpenCV either refuses the file or decodes nothing from it; never a garbage frame.
    try:
        frames = list(VideoFileSource(junk).frames())
    except SourceError as e:
        assert "cannot open video" in str(e)
    else:
        assert frames == []


def test_open_source_dispatch(tmp_path):
    cv2.imwrite(str(tmp_path / "one.png"), _image(7))
    assert isinstance(open_source("0"), WebcamSource)
    assert isinstance(open_source(str(tmp_path)), ImageFolderSource)
    (frame,) = open_source(str(tmp_path / "one.png")).frames()
    assert int(frame.image[0, 0, 0]) == 7
    with pytest.raises(SourceError, match="camera index"):
        open_source(str(tmp_path / "missing.mp4"))


class _FlakyCapture:
    """A camera that delivers ``good`` frames, then fails, as if unplugged."""

    def __init__(self, good: int, opened: bool = True):
        self.good, self.opened, self.released = good, opened, False
        self.asked: dict[int, float] = {}  # the properties set on it

    def isOpened(self):
        return self.opened

    def set(self, prop, value):
        self.asked[prop] = value
        return True

    def read(self):
        if self.good > 0:
            self.good -= 1
            return True, _image(self.good)
        return False, None

    def release(self):
        self.released = True


def test_webcam_reconnects_after_the_camera_disappears():
    opened: list[_FlakyCapture] = []
    plan = iter([_FlakyCapture(2), _FlakyCapture(0, opened=False), _FlakyCapture(3)])

    def opener(_index):
        cap = next(plan, _FlakyCapture(0, opened=False))
        opened.append(cap)
        return cap

    cam = WebcamSource(0, opener=opener, max_reconnects=2, sleep=lambda s: None)
    frames = list(cam.frames())
    assert len(frames) == 5  # 2 before the drop, 3 after reopening
    assert [f.index for f in frames] == list(range(5))
    assert cam.reconnects == 1
    assert opened[0].released
    # each opening asks for one buffer: a slow pipeline gets the newest frame, not a stale one
    assert opened[0].asked[cv2.CAP_PROP_BUFFERSIZE] == opened[2].asked[cv2.CAP_PROP_BUFFERSIZE] == 1


def test_webcam_that_never_opens_is_a_clear_error():
    cam = WebcamSource(3, opener=lambda i: _FlakyCapture(0, opened=False))
    with pytest.raises(SourceError, match="cannot open camera 3"):
        next(cam.frames())
