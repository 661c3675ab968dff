"""Pasted training crops made on the training device itself (a GPU), in torch.

On a GPU machine the CPU processes that render crops (``companion.vision.crops`` through
``companion.train_feed``) make about 530 crops a second on 15 cores, and three H100 runs of
8 minutes each found that data, not the GPU, was what was short (docs/benchmarks.md). Here
the pasted kind of crop is made on the device from the same face bank, a whole batch at a
time, so that every step can see fresh crops. It follows ``crops.place_card``,
``crops.not_a_card`` and the light and camera of ``crops._finish`` (and of ``crops.degrade``
for a share of them), with these differences, all made to keep a batch one tensor program:

- JPEG is 8x8 block DCT quantisation with libjpeg's tables (chroma averaged over 2x2
  blocks first, as 4:2:0 does), not a real encoder;
- the harsh camera blurs at full size and then samples the card down and up, where
  ``crops.degrade`` blurs at the small size;
- a printed mat's lines are one line, and a down-sampled card takes one of a few sizes.

Training only: torch is imported here, and serving code never imports this module.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from companion.vision import crops as C

_N = C.CROP_PX
_LOWRES_SIZES = (32, 40, 48, 56, 64, 72, 80, 88)  # a down-sampled card's size takes one of these

# libjpeg's quality-50 tables (ITU T.81, annex K).
_LUMA_Q = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
           14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
           18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
           49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
_CHROMA_Q = [17, 18, 24, 47] + [99] * 4 + [18, 21, 26, 66] + [99] * 4 + [24, 26, 56] + \
    [99] * 5 + [47, 66] + [99] * 6 + [99] * 32


class DeviceCrops:
    """Crops of the faces (BGRA, round, all one size) and backs of a ``FaceBank``, made on
    ``device``. ``batch(n)`` returns preprocessed uint8 crops (n, 3, px, px) and labels
    (suit, rank, kind, card index; -1 where there is no card), as ``train.make_batch``."""

    def __init__(self, faces: list[np.ndarray], labels: np.ndarray, backs: list[np.ndarray],
                 device: str, input_px: int, seed: int, negative_share: float,
                 degraded_share: float):
        def stack(images):
            return torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).contiguous().to(device)
        self.faces, self.backs = stack(faces), stack(backs)
        self.labels = torch.as_tensor(labels, dtype=torch.int64, device=device)
        self.device, self.input_px = device, input_px
        self.negative_share, self.degraded_share = negative_share, degraded_share
        self.gen = torch.Generator(device=device).manual_seed(seed)
        yy, xx = torch.meshgrid(torch.arange(_N, device=device, dtype=torch.float32),
                                torch.arange(_N, device=device, dtype=torch.float32),
                                indexing="ij")
        self.xx, self.yy = xx, yy  # pixel centres at integers, as OpenCV's warps take them
        d = torch.arange(8, device=device, dtype=torch.float32)
        dct = torch.cos((2 * d[None, :] + 1) * d[:, None] * math.pi / 16) * 0.5
        dct[0] /= math.sqrt(2)
        self.dct = dct
        self.luma_q = torch.tensor(_LUMA_Q, dtype=torch.float32, device=device).view(8, 8)
        self.chroma_q = torch.tensor(_CHROMA_Q, dtype=torch.float32, device=device).view(8, 8)

    # -- random draws (one generator, so that a seed makes the same crops) ---------------------

    def _u(self, n: int, lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand((n, *shape), generator=self.gen, device=self.device)

    def _p(self, n: int, p: float) -> torch.Tensor:
        return torch.rand(n, generator=self.gen, device=self.device) < p

    def _int(self, n: int, hi: int) -> torch.Tensor:
        return torch.randint(hi, (n,), generator=self.gen, device=self.device)

    def _normal(self, *shape: int) -> torch.Tensor:
        return torch.randn(shape, generator=self.gen, device=self.device)

    # -- the crop ------------------------------------------------------------------------------

    def batch(self, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        n_back = int(n * self.negative_share)
        n_none = int(n * self.negative_share)
        n_face = n - n_back - n_none
        y = torch.full((n, 4), -1, dtype=torch.int64, device=self.device)
        y[:n_back, 2] = C.KIND_FACE_DOWN
        y[n_back:n_back + n_none, 2] = C.KIND_NOT_CARD
        pick = self._int(n_face, len(self.faces))
        y[n_back + n_none:] = self.labels[pick]
        cards = torch.cat([self.backs[self._int(n_back, len(self.backs))],
                           self.faces[pick]]) if n_back else self.faces[pick]
        canvas = torch.cat([self._not_a_card(n_none), self._place(cards)]) \
            if n_none else self._place(cards)
        # Not-a-card crops first, then backs and faces: put them in the labels' order.
        order = torch.cat([torch.arange(n_none, n_none + n_back, device=self.device),
                           torch.arange(n_none, device=self.device),
                           torch.arange(n_none + n_back, n, device=self.device)])
        img = self._finish(canvas[order])
        x = F.interpolate(img, size=(self.input_px,) * 2, mode="area") \
            if self.input_px != _N else img
        return x.round().clamp(0, 255).to(torch.uint8), y

    def _place(self, cards: torch.Tensor) -> torch.Tensor:
        """``crops.place_card`` for each card: a table, perhaps a card beneath, the card,
        perhaps a hand or another card over part of it."""
        n = len(cards)
        jit = C.TRAINING
        canvas = self._table(n)
        diameter = _N * self._u(n, *jit.scale)
        centre = _N / 2 + self._u(n, -1, 1, 2) * jit.offset * _N
        beneath = self._p(n, 0.4)
        canvas = self._neighbour(canvas, diameter, diameter * self._u(n, 0.95, 1.15), beneath)
        canvas = self._over(canvas, self._warp(cards, diameter, centre, jit.perspective))
        covered = self._p(n, jit.occlude_p)
        reach = self._u(n, 0.05, jit.occlude_max)
        by_card = covered & self._p(n, 0.5)
        canvas = self._neighbour(canvas, diameter, diameter * (1 - reach), by_card)
        return self._hand(canvas, reach, covered & ~by_card)

    def _not_a_card(self, n: int) -> torch.Tensor:
        """``crops.not_a_card``: bare table, a hand, or one or two cards' edges."""
        canvas = self._table(n)
        kind = self._int(n, 3)
        canvas = self._hand(canvas, self._u(n, 0.4, 1.0), kind == 1)
        diameter = torch.full((n,), _N * 0.97, device=self.device)
        for k in range(2):
            reach = self._u(n, 0.0, 0.3)
            dist = torch.where(reach > 0, diameter * (1 - reach), diameter)
            edge = (kind == 2) & ((k == 0) | self._p(n, 0.5))
            canvas = self._neighbour(canvas, diameter, dist, edge)
        return canvas

    def _table(self, n: int) -> torch.Tensor:
        """``crops.table_background``: felt, wood, a check cloth or a mat with a line."""
        img = self._u(n, 20, 235, 3, 1, 1).expand(n, 3, _N, _N).clone()
        kind = self._int(n, 4).view(n, 1, 1, 1)
        a = self._u(n, 0, math.pi, 1, 1, 1)
        f = self._u(n, 0.05, 0.3, 1, 1, 1)
        wood = 1 + 0.15 * torch.sin((self.xx * torch.cos(a) + self.yy * torch.sin(a)) * f
                                    + self._u(n, 0, 6, 1, 1, 1))
        img = torch.where(kind == 1, img * wood, img)
        p = self._int(n, 24).view(n, 1, 1, 1) + 6
        chk = ((torch.div(self.xx, p, rounding_mode="floor")
                + torch.div(self.yy, p, rounding_mode="floor")) % 2)
        cloth = img * (1 - 0.3 * chk) + self._u(n, 0, 255, 3, 1, 1) * 0.3 * chk
        img = torch.where(kind == 2, cloth, img)
        p0, p1 = self._u(n, 0, _N, 2), self._u(n, 0, _N, 2)
        line = (self._segment_distance(p0, p1) < self._u(n, 0.5, 2.0)[:, None, None])
        mat = torch.where(line[:, None], self._u(n, 0, 255, 3, 1, 1), img)
        img = torch.where(kind == 3, mat, img)
        return img + self._normal(n, 1, _N, _N) * self._u(n, 1, 8, 1, 1, 1)

    def _warp(self, src: torch.Tensor, diameter: torch.Tensor, centre: torch.Tensor,
              perspective: float) -> torch.Tensor:
        """Each BGRA ``src`` turned at random, scaled to ``diameter`` and centred at
        ``centre`` in an n x n canvas, with corner jitter of ``perspective`` (float BGRA)."""
        n, h = len(src), src.shape[-1]
        angle = self._u(n, 0, 2 * math.pi)
        s = diameter / h
        c, si = torch.cos(angle) * s, torch.sin(angle) * s
        m = torch.zeros((n, 3, 3), device=self.device)
        m[:, 0, 0], m[:, 0, 1] = c, -si
        m[:, 1, 0], m[:, 1, 1] = si, c
        m[:, 0, 2] = centre[:, 0] - (c * h / 2 - si * h / 2)
        m[:, 1, 2] = centre[:, 1] - (si * h / 2 + c * h / 2)
        m[:, 2, 2] = 1
        if perspective > 0:
            m = self._corner_jitter(n, perspective) @ m
        inv = torch.linalg.inv(m)
        pts = torch.stack([self.xx.flatten(), self.yy.flatten(),
                           torch.ones(_N * _N, device=self.device)])
        q = inv @ pts
        q = q[:, :2] / q[:, 2:3]
        grid = ((2 * q + 1) / h - 1).permute(0, 2, 1).reshape(n, _N, _N, 2)
        return F.grid_sample(src.float(), grid, mode="bilinear", padding_mode="zeros",
                             align_corners=False)

    def _corner_jitter(self, n: int, amount: float) -> torch.Tensor:
        """The homography that moves the canvas corners by up to ``amount`` of its size
        (``cv2.getPerspectiveTransform`` of the jittered corners)."""
        src = torch.tensor([[0, 0], [_N, 0], [_N, _N], [0, _N]], dtype=torch.float32,
                           device=self.device).expand(n, 4, 2)
        dst = src + self._u(n, -1, 1, 4, 2) * amount * _N
        a = torch.zeros((n, 8, 8), device=self.device)
        b = torch.zeros((n, 8), device=self.device)
        for i in range(4):
            x, y = src[:, i, 0], src[:, i, 1]
            u, v = dst[:, i, 0], dst[:, i, 1]
            a[:, 2 * i, 0], a[:, 2 * i, 1], a[:, 2 * i, 2] = x, y, 1
            a[:, 2 * i, 6], a[:, 2 * i, 7] = -x * u, -y * u
            a[:, 2 * i + 1, 3], a[:, 2 * i + 1, 4], a[:, 2 * i + 1, 5] = x, y, 1
            a[:, 2 * i + 1, 6], a[:, 2 * i + 1, 7] = -x * v, -y * v
            b[:, 2 * i], b[:, 2 * i + 1] = u, v
        h = torch.linalg.solve(a, b)
        return torch.cat([h, torch.ones((n, 1), device=self.device)], 1).view(n, 3, 3)

    @staticmethod
    def _over(canvas: torch.Tensor, layer: torch.Tensor, where=None) -> torch.Tensor:
        alpha = layer[:, 3:4] / 255.0
        if where is not None:
            alpha = alpha * where.view(-1, 1, 1, 1)
        return layer[:, :3] * alpha + canvas * (1 - alpha)

    def _neighbour(self, canvas, diameter, dist, where) -> torch.Tensor:
        """``crops._overlay_neighbour``: another face, ``dist`` from the centre in a random
        direction, over ``canvas`` where ``where``."""
        n = len(canvas)
        a = self._u(n, 0, 2 * math.pi)
        centre = _N / 2 + dist[:, None] * torch.stack([torch.cos(a), torch.sin(a)], 1)
        other = self.faces[self._int(n, len(self.faces))]
        return self._over(canvas, self._warp(other, diameter, centre, 0.0), where)

    def _segment_distance(self, p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:
        """Each pixel's distance (n, N, N) to the segment p0-p1 (n, 2) of its crop."""
        d = p1 - p0
        px = self.xx - p0[:, 0, None, None]
        py = self.yy - p0[:, 1, None, None]
        t = ((px * d[:, 0, None, None] + py * d[:, 1, None, None])
             / (d.pow(2).sum(1) + 1e-6)[:, None, None]).clamp(0, 1)
        return torch.hypot(px - t * d[:, 0, None, None], py - t * d[:, 1, None, None])

    def _hand(self, canvas, reach, where) -> torch.Tensor:
        """``crops.draw_hand``: an arm from a random side, its tip ``reach`` of the width in,
        with up to three fingers; skin light to dark."""
        n = len(canvas)
        a = self._u(n, 0, 2 * math.pi)
        d = torch.stack([torch.cos(a), torch.sin(a)], 1)
        perp = torch.stack([-d[:, 1], d[:, 0]], 1)
        tip = _N / 2 + d * (_N * (0.5 - reach))[:, None]
        far = _N / 2 + d * _N * 1.5
        w = _N * self._u(n, 0.15, 0.35)
        # The arm widens from 0.6 w at the tip to w at the far end (crops.draw_hand's polygon).
        px = self.xx - tip[:, 0, None, None]
        py = self.yy - tip[:, 1, None, None]
        along = px * d[:, 0, None, None] + py * d[:, 1, None, None]
        across = (px * perp[:, 0, None, None] + py * perp[:, 1, None, None]).abs()
        length = (far - tip).norm(dim=1)[:, None, None]
        half = w[:, None, None] * (0.6 + 0.4 * (along / length).clamp(0, 1))
        inside = torch.where(along >= 0, across - half, torch.hypot(along, across)
                             - 0.6 * w[:, None, None])
        fingers = self._int(n, 4)
        for k in range(3):
            f0 = tip + perp * (w * (0.5 - 0.33 * k) * 0.9)[:, None]
            f1 = f0 - d * (_N * self._u(n, 0.08, 0.2))[:, None]
            dist = self._segment_distance(f0, f1) - (w * 0.125).clamp(min=1)[:, None, None]
            inside = torch.where((fingers > k)[:, None, None], torch.minimum(inside, dist),
                                 inside)
        t = self._u(n, 0, 1, 1)
        light = torch.tensor([170.0, 190.0, 235.0], device=self.device)
        dark = torch.tensor([40.0, 60.0, 100.0], device=self.device)
        skin = (light * (1 - t) + dark * t + 8 * self._normal(n, 3)).clamp(0, 255)
        cover = (0.5 - inside).clamp(0, 1)[:, None] * where.view(-1, 1, 1, 1)
        return skin[:, :, None, None] * cover + canvas * (1 - cover)

    # -- light and camera ------------------------------------------------------------------

    def _finish(self, img: torch.Tensor) -> torch.Tensor:
        harsh = self._p(len(img), self.degraded_share)
        out = torch.empty_like(img)
        for sel, k, camera in ((harsh, 0.6, self._harsh), (~harsh, 1.0, self._camera)):
            idx = sel.nonzero().flatten()
            if len(idx):
                out[idx] = camera(self._light(img[idx], k))
        return out

    def _light(self, f: torch.Tensor, k: float) -> torch.Tensor:
        """``crops._photometric`` with strength ``k``."""
        n = len(f)
        gain = self._u(n, 1 - 0.45 * k, 1 + 0.35 * k, 1, 1, 1)
        wb = 1 + self._u(n, -0.18, 0.18, 3, 1, 1) * k
        f = f * gain * wb + self._u(n, -25, 25, 1, 1, 1) * k
        mean = f.mean(dim=(1, 2, 3), keepdim=True)
        f = (f - mean) * self._u(n, 1 - 0.3 * k, 1 + 0.2 * k, 1, 1, 1) + mean
        a = self._u(n, 0, 2 * math.pi, 1, 1)
        ramp = (self.xx / _N - 0.5) * torch.cos(a) + (self.yy / _N - 0.5) * torch.sin(a)
        shade = 1 + self._u(n, -0.5, 0.5, 1, 1) * ramp
        f = f * torch.where(self._p(n, 0.5 * k).view(n, 1, 1), shade, 1.0)[:, None]
        c = self._u(n, 0.2, 0.8, 2) * _N
        r = self._u(n, 4, 14)
        spot = torch.exp(-((self.xx - c[:, 0, None, None]) ** 2 + (self.yy - c[:, 1, None, None])
                           ** 2) / (2 * r[:, None, None] ** 2))
        glare = self._p(n, 0.15 * k).view(n, 1, 1) * self._u(n, 60, 160, 1, 1) * spot
        f = f + glare[:, None]
        gamma = self._u(n, 0.75, 1.35, 1, 1, 1)
        return 255.0 * (f.clamp(0, 255) / 255.0) ** gamma

    def _camera(self, img: torch.Tensor) -> torch.Tensor:
        """``crops._camera``: small in the frame, blur (defocus or a short motion), noise,
        JPEG."""
        n = len(img)
        jit = C.TRAINING
        img = self._resample(img, self._p(n, jit.lowres_p), self._u(n, 28, 72) / _N)
        blurred = self._p(n, jit.blur_p)
        motion = blurred & self._p(n, 0.3)
        sigma = torch.where(blurred & ~motion, self._u(n, 0.4, 1.4), 0.0)
        length = torch.where(motion, self._int(n, 4).float() + 3, 0.0)
        img = self._blur(img, sigma, length, 7)
        img = img + self._normal(n, 3, _N, _N) * self._u(n, 0, jit.noise_max, 1, 1, 1)
        return self._jpeg(img.clamp(0, 255), self._p(n, jit.jpeg_p), self._u(n, 35, 95))

    def _harsh(self, f: torch.Tensor) -> torch.Tensor:
        """``crops.degrade``: dim or blown-out light, strong defocus and/or motion blur, a
        card small in the frame, noise (stronger in the dark), white balance and JPEG."""
        n = len(f)
        strong = self._p(n, 0.75)
        light = torch.where(strong, torch.multinomial(
            torch.tensor([0.3, 0.3, 0.4], device=self.device), n, True, generator=self.gen),
            self._int(n, 2))
        c = self._u(n, -0.6, 0.6, 2)
        spot = torch.exp(-((self.xx / _N - 0.5 - c[:, 0, None, None]) ** 2
                           + (self.yy / _N - 0.5 - c[:, 1, None, None]) ** 2)
                         / (2 * self._u(n, 0.3, 0.9)[:, None, None] ** 2))
        bright = f * (self._u(n, 1.3, 2.1)[:, None, None] * (0.75 + 0.25 * spot))[:, None] \
            + self._u(n, 0, 60, 1, 1, 1)
        lit = torch.where((light == 0).view(n, 1, 1, 1), f * self._u(n, 0.12, 0.45, 1, 1, 1),
                          torch.where((light == 1).view(n, 1, 1, 1), bright,
                                      f * self._u(n, 0.8, 1.1, 1, 1, 1)))
        kind = torch.multinomial(torch.tensor([0.4, 0.35, 0.25], device=self.device), n, True,
                                 generator=self.gen)
        sigma = torch.where(strong & (kind >= 1), self._u(n, 1.0, 3.4),
                            torch.where(~strong & self._p(n, 0.5), self._u(n, 0.3, 1.2), 0.0))
        length = torch.where(strong & (kind != 1), self._u(n, 4, 0.17 * _N), 0.0)
        img = self._blur(lit, sigma, length, 17)
        img = self._resample(img, torch.ones(n, dtype=torch.bool, device=self.device),
                             self._u(n, 0.55, 1.1))
        noise = self._u(n, 1, 4) * torch.where(light == 0, 2.5, 1.0)
        img = img + self._normal(n, 3, _N, _N) * noise.view(n, 1, 1, 1)
        img = img * self._u(n, 0.9, 1.1, 3, 1, 1)
        return self._jpeg(img.clamp(0, 255), torch.ones_like(strong), self._u(n, 45, 95))

    def _resample(self, img, where, scale) -> torch.Tensor:
        """Where ``where``, the crop sampled down to ``scale`` of its size (area) and back up
        (bilinear): a card small in the camera image. Sizes are rounded to a few steps."""
        out = img.clone()
        size = torch.bucketize(scale * _N, torch.tensor(_LOWRES_SIZES, device=self.device))
        for i, m in enumerate(_LOWRES_SIZES):
            sel = (where & (size == i)).nonzero().flatten()
            if len(sel):
                small = F.interpolate(img[sel], size=(m, m), mode="area")
                out[sel] = F.interpolate(small, size=(_N, _N), mode="bilinear",
                                         align_corners=False)
        return out

    def _blur(self, img, sigma, length, k: int) -> torch.Tensor:
        """Each crop through its own k x k kernel: a Gaussian of ``sigma`` (none at 0) and a
        line of ``length`` pixels at a random angle (none at 0), one after the other."""
        n = len(img)
        r = torch.arange(k, device=self.device, dtype=torch.float32) - k // 2
        ky, kx = torch.meshgrid(r, r, indexing="ij")
        s = sigma.clamp(min=1e-3).view(n, 1, 1)
        gauss = torch.exp(-(kx ** 2 + ky ** 2) / (2 * s ** 2))
        a = self._u(n, 0, math.pi).view(n, 1, 1)
        half = (length / 2).view(n, 1, 1)
        along = kx * torch.cos(a) + ky * torch.sin(a)
        across = (-kx * torch.sin(a) + ky * torch.cos(a)).abs()
        line = (1 - across).clamp(0, 1) * (half + 0.5 - along.abs()).clamp(0, 1)
        for ker in (gauss, line):
            ker = ker / ker.sum(dim=(1, 2), keepdim=True).clamp(min=1e-6)
            weight = ker.repeat_interleave(3, 0)[:, None]
            padded = F.pad(img.reshape(1, n * 3, _N, _N), (k // 2,) * 4, mode="replicate")
            img = F.conv2d(padded, weight, groups=n * 3).view(n, 3, _N, _N)
        return img

    def _jpeg(self, img, where, quality) -> torch.Tensor:
        """Where ``where``, the crop's 8x8 blocks quantised as JPEG at ``quality``
        (libjpeg's table scaling), in YCbCr with chroma averaged over 2x2 pixels."""
        n = len(img)
        b, g, r = img[:, 0], img[:, 1], img[:, 2]
        ycc = torch.stack([0.299 * r + 0.587 * g + 0.114 * b,
                           -0.168736 * r - 0.331264 * g + 0.5 * b + 128,
                           0.5 * r - 0.418688 * g - 0.081312 * b + 128], 1)
        chroma = F.interpolate(F.avg_pool2d(ycc[:, 1:], 2), scale_factor=2, mode="nearest")
        ycc = torch.cat([ycc[:, :1], chroma], 1) - 128
        q = quality.view(n, 1, 1, 1, 1, 1)
        scale = torch.where(q < 50, 5000 / q, 200 - 2 * q)
        tables = torch.stack([self.luma_q, self.chroma_q, self.chroma_q])  # (3, 8, 8)
        qt = ((tables[None, :, None, None] * scale + 50) / 100).floor().clamp(1, 255)
        blocks = ycc.view(n, 3, _N // 8, 8, _N // 8, 8).permute(0, 1, 2, 4, 3, 5)
        coef = self.dct @ blocks @ self.dct.T
        coef = (coef / qt).round() * qt
        ycc = (self.dct.T @ coef @ self.dct).permute(0, 1, 2, 4, 3, 5).reshape(n, 3, _N, _N)
        y, cb, cr = ycc[:, 0] + 128, ycc[:, 1], ycc[:, 2]
        bgr = torch.stack([y + 1.772 * cb, y - 0.344136 * cb - 0.714136 * cr,
                           y + 1.402 * cr], 1)
        return torch.where(where.view(n, 1, 1, 1), bgr.clamp(0, 255), img)
