"""Card crops as the detector cuts them, synthesised from a face image under camera noise.

The detector hands the classifier a 96x96 BGR crop per card: the disc centred, its
diameter spanning the crop, seen from straight above (the homography removed the
perspective) but at any in-plane rotation. This module makes such crops from a round face
(BGRA, transparent outside the disc), with everything a real table adds: rotation, a little
scale and centring error, residual perspective, the table or neighbouring cards around the
rim, a hand or another card covering part of it, uneven light, white balance, blur, noise
and JPEG. Training uses it on the project's own rendered faces (with :data:`TRAINING`, which
also sends a share of crops through the scene renderer's harsher camera: strong motion blur,
defocus, exposure extremes, a small card in the frame); the accuracy benchmark uses it to put
a user's deck (art the model never saw) "on the table".

Pure numpy/OpenCV: no torch here, so serving-side tests and benchmarks can import it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CROP_PX = 96

# Kinds of crop, in the order of the model's third head.
KIND_CARD, KIND_FACE_DOWN, KIND_NOT_CARD = 0, 1, 2
KINDS = ("card", "face_down", "not_card")


@dataclass(frozen=True)
class Jitter:
    """How hard the camera and the table are on a crop; :data:`TRAINING` is the training mix.

    ``degrade_p`` is the chance that a crop goes through :func:`degrade` (a webcam frame at
    its worst) instead of the milder camera; it is 0 unless asked for, so held-out
    conditions and enrolment views stay as they were.
    """

    scale: tuple[float, float] = (0.9, 1.06)  # card diameter / crop size
    offset: float = 0.05  # centring error, fraction of the crop
    perspective: float = 0.03  # residual corner jitter, fraction of the crop
    occlude_p: float = 0.3  # chance of a hand or another card over part of it
    occlude_max: float = 0.35  # the largest covered fraction of the disc's width
    blur_p: float = 0.4
    noise_max: float = 8.0
    jpeg_p: float = 0.5
    lowres_p: float = 0.35  # the card was small in the camera image: down- and up-sampled
    light: float = 1.0  # strength of brightness / contrast / colour-cast changes
    degrade_p: float = 0.0  # chance of the scene renderer's harsh camera (see degrade)


TRAINING = Jitter(degrade_p=0.2)
GENTLE = Jitter(scale=(0.96, 1.02), offset=0.02, perspective=0.01, occlude_p=0.0,
                blur_p=0.2, noise_max=3.0, jpeg_p=0.3, lowres_p=0.1, light=0.5)


def flatten(bgra: np.ndarray, background: np.ndarray | None = None) -> np.ndarray:
    """Composite a BGRA image over ``background`` (BGR, same size; white when None)."""
    if bgra.ndim != 3 or bgra.shape[2] != 4:
        raise ValueError(f"expected a BGRA image (H, W, 4), got shape {bgra.shape}")
    a = bgra[..., 3:4].astype(np.float32) / 255.0
    bg = np.full(bgra.shape[:2] + (3,), 255, np.float32) if background is None \
        else background.astype(np.float32)
    return np.clip(bgra[..., :3] * a + bg * (1 - a), 0, 255).astype(np.uint8)


def table_background(rng: np.random.Generator, n: int = CROP_PX) -> np.ndarray:
    """A patch of table: felt, wood grain, a printed mat or a tablecloth, with grain noise."""
    base = rng.uniform(20, 235, 3)
    kind = rng.integers(4)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    img = np.empty((n, n, 3), np.float32)
    img[:] = base
    if kind == 1:  # wood: stripes along a random direction
        a = rng.uniform(0, np.pi)
        f = rng.uniform(0.05, 0.3)
        s = np.sin((xx * np.cos(a) + yy * np.sin(a)) * f + rng.uniform(0, 6))
        img *= (1 + 0.15 * s)[..., None]
    elif kind == 2:  # tablecloth: a check pattern
        p = rng.integers(6, 30)
        chk = ((xx // p + yy // p) % 2)[..., None]
        img = img * (1 - 0.3 * chk) + rng.uniform(0, 255, 3) * 0.3 * chk
    elif kind == 3:  # printed mat: lines
        for _ in range(rng.integers(1, 4)):
            p0 = tuple(int(v) for v in rng.integers(0, n, 2))
            p1 = tuple(int(v) for v in rng.integers(0, n, 2))
            cv2.line(img, p0, p1, tuple(float(v) for v in rng.uniform(0, 255, 3)),
                     int(rng.integers(1, 4)), cv2.LINE_AA)
    img += rng.normal(0, rng.uniform(1, 8), (n, n, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def _skin(rng: np.random.Generator) -> tuple[float, float, float]:
    """A BGR skin tone, light to dark."""
    t = rng.uniform(0, 1)
    light, dark = np.array([170, 190, 235]), np.array([40, 60, 100])
    c = light * (1 - t) + dark * t + rng.normal(0, 8, 3)
    return tuple(float(v) for v in np.clip(c, 0, 255))


def draw_hand(img: np.ndarray, rng: np.random.Generator, reach: float) -> None:
    """A hand or arm entering from one side, covering up to ``reach`` of the width."""
    n = img.shape[0]
    a = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(a), np.sin(a)])
    centre = np.array([n / 2, n / 2])
    tip = centre + d * n * (0.5 - reach)
    far = centre + d * n * 1.5
    w = n * rng.uniform(0.15, 0.35)
    perp = np.array([-d[1], d[0]])
    poly = np.array([tip + perp * w * 0.6, far + perp * w, far - perp * w, tip - perp * w * 0.6])
    colour = _skin(rng)
    cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    cv2.circle(img, tuple(int(v) for v in tip * 16), int(w * 0.6 * 16), colour, -1,
               cv2.LINE_AA, 4)
    for k in range(int(rng.integers(0, 4))):  # fingers
        f0 = tip + perp * w * (0.5 - 0.33 * k) * 0.9
        f1 = f0 - d * n * rng.uniform(0.08, 0.2)
        cv2.line(img, tuple(int(v) for v in f0), tuple(int(v) for v in f1), colour,
                 max(2, int(w * 0.25)), cv2.LINE_AA)


def _warp_face(face: np.ndarray, rng: np.random.Generator, jit: Jitter, n: int,
               diameter: float, angle: float, centre: np.ndarray) -> np.ndarray:
    """The face (BGRA) rotated, scaled and placed in an n x n BGRA canvas."""
    if face.shape[0] > 1.4 * diameter:  # area-average first so shrinking does not alias
        m = round(diameter * 1.2)
        face = cv2.resize(face, (m, m), interpolation=cv2.INTER_AREA)
    h = face.shape[0]
    s = diameter / h
    c, si = np.cos(angle) * s, np.sin(angle) * s
    m3 = np.array([[c, -si, centre[0] - (c * h / 2 - si * h / 2)],
                   [si, c, centre[1] - (si * h / 2 + c * h / 2)],
                   [0.0, 0.0, 1.0]])
    if jit.perspective > 0:
        src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
        dst = src + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * jit.perspective * n
        m3 = cv2.getPerspectiveTransform(src, dst) @ m3
    return cv2.warpPerspective(face, m3, (n, n), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def _photometric(img: np.ndarray, rng: np.random.Generator, jit: Jitter) -> np.ndarray:
    n = img.shape[0]
    f = img.astype(np.float32)
    k = jit.light
    gain = rng.uniform(1 - 0.45 * k, 1 + 0.35 * k)
    wb = 1 + rng.uniform(-0.18, 0.18, 3) * k
    f = f * gain * wb + rng.uniform(-25, 25) * k
    contrast = rng.uniform(1 - 0.3 * k, 1 + 0.2 * k)
    f = (f - f.mean()) * contrast + f.mean()
    if rng.random() < 0.5 * k:  # a light gradient or a soft shadow across the card
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
        a = rng.uniform(0, 2 * np.pi)
        ramp = xx * np.cos(a) + yy * np.sin(a)
        f *= (1 + rng.uniform(-0.5, 0.5) * ramp)[..., None]
    if rng.random() < 0.15 * k:  # a specular glare spot on the lacquer
        cx, cy = rng.uniform(0.2, 0.8, 2) * n
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (rng.uniform(4, 14)) ** 2))
        f += (rng.uniform(60, 160) * spot)[..., None]
    gamma = rng.uniform(0.75, 1.35)
    f = 255.0 * (np.clip(f, 0, 255) / 255.0) ** gamma
    return np.clip(f, 0, 255).astype(np.uint8)


def _camera(img: np.ndarray, rng: np.random.Generator, jit: Jitter) -> np.ndarray:
    n = img.shape[0]
    if rng.random() < jit.lowres_p:
        m = int(rng.integers(28, 72))
        img = cv2.resize(cv2.resize(img, (m, m), interpolation=cv2.INTER_AREA), (n, n),
                         interpolation=cv2.INTER_LINEAR)
    if rng.random() < jit.blur_p:
        if rng.random() < 0.7:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.4))
        else:  # motion blur: a short line kernel
            k = int(rng.integers(3, 7))
            ker = np.zeros((k, k), np.float32)
            ker[k // 2, :] = 1.0 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
            ker = cv2.warpAffine(ker, rot, (k, k))
            img = cv2.filter2D(img, -1, ker / max(ker.sum(), 1e-6))
    if jit.noise_max > 0:
        sigma = rng.uniform(0, jit.noise_max)
        img = np.clip(img + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)
    if rng.random() < jit.jpeg_p:
        q = int(rng.integers(35, 95))
        _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def place_card(face: np.ndarray, rng: np.random.Generator, jit: Jitter = Jitter(),
               neighbours: list[np.ndarray] | None = None, n: int = CROP_PX) -> np.ndarray:
    """A crop (n x n BGR) of ``face`` (BGRA, round) lying on a table, as the detector cuts it.

    ``neighbours`` are other faces that may overlap this one: one may lie under its rim, or
    (with the occlusion chance) on top of part of it.
    """
    canvas = table_background(rng, n)
    diameter = n * rng.uniform(*jit.scale)
    centre = np.array([n / 2, n / 2]) + rng.uniform(-1, 1, 2) * jit.offset * n
    neighbours = neighbours or []
    if neighbours and rng.random() < 0.4:  # a card beneath, showing at the rim
        canvas = _overlay_neighbour(canvas, neighbours, rng, jit, n, diameter, reach=0.0)
    card = _warp_face(face, rng, jit, n, diameter, rng.uniform(0, 2 * np.pi), centre)
    canvas = flatten(card, canvas)
    if rng.random() < jit.occlude_p:
        reach = rng.uniform(0.05, jit.occlude_max)
        if neighbours and rng.random() < 0.5:
            canvas = _overlay_neighbour(canvas, neighbours, rng, jit, n, diameter, reach)
        else:
            draw_hand(canvas, rng, reach)
    return _finish(canvas, rng, jit)


def _finish(canvas: np.ndarray, rng: np.random.Generator, jit: Jitter) -> np.ndarray:
    """Light and camera; no random draw is spent on ``degrade_p`` when it is 0."""
    if jit.degrade_p > 0 and rng.random() < jit.degrade_p:
        return degrade(_photometric(canvas, rng, Jitter(light=0.6)), rng)
    return _camera(_photometric(canvas, rng, jit), rng, jit)


def _line_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A normalised linear motion-blur kernel, as ``synth.effects.apply_sensor`` builds it."""
    k = max(3, round(length) | 1)
    ker = np.zeros((k, k), np.float32)
    ker[k // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), angle_deg, 1.0)
    ker = cv2.warpAffine(ker, rot, (k, k))
    return ker / max(float(ker.sum()), 1e-6)


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A crop cut from a bad webcam frame, following ``synth.effects`` and ``synth.scene``.

    The card is often smaller in the frame than the 96 px crop (a 55-110 px disc), so the
    optics and the sensor act at that size and the detector's cut scales the result back
    up: light (dim, or a bright spot / daylight washing the lacquer out) on unclipped
    values, then defocus and/or motion blur in a random direction (up to about 17% of the
    crop), sensor noise (stronger in the dark), white balance, JPEG, and the up-sampling.
    At least one of blur and exposure is strong.
    """
    n = img.shape[0]
    f = img.astype(np.float32)
    strong_blur = rng.random() < 0.75
    light = rng.choice(3, p=[0.3, 0.3, 0.4]) if strong_blur else rng.choice(2)
    dark = light == 0
    if light == 0:  # dim room, maybe in a shadow
        f = f * rng.uniform(0.12, 0.45)
    elif light == 1:  # daylight or a spot lamp: blown out, flare lifts the blacks
        gain = rng.uniform(1.3, 2.1)
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
        c = rng.uniform(-0.6, 0.6, 2)
        spot = np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * rng.uniform(0.3, 0.9) ** 2))
        f = f * (gain * (0.75 + 0.25 * spot))[..., None] + rng.uniform(0, 60)
    else:
        f = f * rng.uniform(0.8, 1.1)
    scale = rng.uniform(0.55, 1.1)  # the disc's size in the frame / the crop's size
    m = round(n * scale)
    if m < n:
        f = cv2.resize(f, (m, m), interpolation=cv2.INTER_AREA)
    if strong_blur:
        kind = rng.choice(3, p=[0.4, 0.35, 0.25])  # motion, defocus, both
        if kind >= 1:
            f = cv2.GaussianBlur(f, (0, 0), rng.uniform(1.0, 3.4) * scale)
        if kind != 1:
            length = rng.uniform(4, 0.17 * n) * scale
            f = cv2.filter2D(f, -1, _line_kernel(length, rng.uniform(0, 180)))
    elif rng.random() < 0.5:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.2) * scale)
    f = f + rng.normal(0, rng.uniform(1, 4) * (2.5 if dark else 1), f.shape).astype(np.float32)
    f = f * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 95))])
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if out.shape[0] != n:
        out = cv2.resize(out, (n, n), interpolation=cv2.INTER_LINEAR)
    return out


def _overlay_neighbour(canvas, neighbours, rng, jit, n, diameter, reach):
    other = neighbours[int(rng.integers(len(neighbours)))]
    a = rng.uniform(0, 2 * np.pi)
    # Centre distance so that the other disc covers ``reach`` of this disc's width.
    dist = diameter * (1.0 - reach) if reach > 0 else diameter * rng.uniform(0.95, 1.15)
    c = np.array([n / 2, n / 2]) + dist * np.array([np.cos(a), np.sin(a)])
    warped = _warp_face(other, rng, Jitter(perspective=0.0), n, diameter,
                        rng.uniform(0, 2 * np.pi), c)
    return flatten(warped, canvas)


def not_a_card(rng: np.random.Generator, faces: list[np.ndarray], n: int = CROP_PX,
               jit: Jitter = Jitter()) -> np.ndarray:
    """A crop that must not be read as a card: bare table, a hand, or a card's edge only.

    ``jit`` only sets the light and camera (training passes :data:`TRAINING`)."""
    canvas = table_background(rng, n)
    kind = rng.integers(3)
    if kind == 1:
        draw_hand(canvas, rng, rng.uniform(0.4, 1.0))
    elif kind == 2 and faces:  # the detector mis-centred: two cards' edges, no card centred
        for _ in range(int(rng.integers(1, 3))):
            canvas = _overlay_neighbour(canvas, faces, rng, Jitter(), n, n * 0.97,
                                        reach=rng.uniform(0.0, 0.3))
    return _finish(canvas, rng, jit)


# -- named conditions for held-out evaluation (benchmarks and the accuracy test) ------------

_STILL = {"light": 0.0, "blur_p": 0.0, "jpeg_p": 0.3, "lowres_p": 0.0, "noise_max": 3.0}
POSES: dict[str, Jitter] = {
    # any rotation, the detector's crop well centred
    "flat": Jitter(scale=(0.96, 1.02), offset=0.02, perspective=0.01, occlude_p=0.0, **_STILL),
    # centring and scale error, residual perspective from a rough calibration
    "skewed": Jitter(scale=(0.9, 1.06), offset=0.05, perspective=0.03, occlude_p=0.0,
                     **_STILL),
    # another card or a hand over up to a quarter of the disc
    "overlapped": Jitter(scale=(0.96, 1.02), offset=0.02, perspective=0.01, occlude_p=1.0,
                         occlude_max=0.25, **_STILL),
}


def _dim(img, rng):
    out = img.astype(np.float32) * rng.uniform(0.4, 0.55) + rng.normal(0, 4, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def _warm(img, rng):
    return np.clip(img.astype(np.float32) * np.array([0.72, 0.95, 1.15]), 0, 255).astype(
        np.uint8)


def _shadow(img, rng):
    n = img.shape[0]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    a = rng.uniform(0, 2 * np.pi)
    half = (xx * np.cos(a) + yy * np.sin(a)) > rng.uniform(-0.2, 0.2)
    out = img.astype(np.float32) * np.where(half, 0.55, 1.0)[..., None]
    return cv2.GaussianBlur(np.clip(out, 0, 255).astype(np.uint8), (0, 0), 0.6)


LIGHTS = {"even": lambda img, rng: img, "dim": _dim, "warm": _warm, "shadow": _shadow}


def eval_crop(face: np.ndarray, pose: str, light: str, rng: np.random.Generator,
              neighbours: list[np.ndarray] | None = None) -> np.ndarray:
    """A held-out crop under a named pose (:data:`POSES`) and light (:data:`LIGHTS`)."""
    return LIGHTS[light](place_card(face, rng, POSES[pose], neighbours), rng)


def crop_from_frame(image: np.ndarray, centre_mm, radius_mm: float, mm_to_px: np.ndarray,
                    k_matrix: np.ndarray | None = None, k1: float = 0.0,
                    n: int = CROP_PX) -> np.ndarray:
    """The n x n top-down crop of a card at ``centre_mm`` on the table, cut from a camera
    frame as the detector cuts it: crop pixel -> table mm -> ideal pixel (``mm_to_px``)
    -> distorted pixel (one-parameter radial model ``ideal = distorted * (1 + k1 r^2)`` in
    normalised coordinates, as the fixture scenes record it)."""
    step = 2 * radius_mm / n
    g = (np.arange(n) + 0.5) * step - radius_mm
    xx, yy = np.meshgrid(g + centre_mm[0], g + centre_mm[1])
    pts = np.stack([xx.ravel(), yy.ravel(), np.ones(n * n)])
    ideal = mm_to_px @ pts
    ideal = ideal[:2] / ideal[2]
    if k_matrix is not None and k1:
        f = np.array([k_matrix[0][0], k_matrix[1][1]])[:, None]
        c = np.array([k_matrix[0][2], k_matrix[1][2]])[:, None]
        u = (ideal - c) / f
        d = u.copy()
        for _ in range(8):  # invert ideal = d (1 + k1 |d|^2) by fixed-point iteration
            d = u / (1 + k1 * np.sum(d * d, axis=0))
        ideal = d * f + c
    mx = ideal[0].reshape(n, n).astype(np.float32)
    my = ideal[1].reshape(n, n).astype(np.float32)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def crop_from_scene(image: np.ndarray, truth: dict, card: dict,
                    radius_mm: float = 32.5) -> np.ndarray:
    """:func:`crop_from_frame` of one ``card`` of a rendered scene's ground truth
    (``Scene.truth_json``: its homography and camera), at the card's true centre."""
    return crop_from_frame(image, card["center_mm"], radius_mm,
                           np.array(truth["homography_mm_to_px"]), truth["camera"]["K"],
                           truth["camera"]["k1"])
