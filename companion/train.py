"""Train the card classifier on the project's own rendered art and export it to ONNX.

Only ``companion.synth.faces`` art is used (every style, a few seeds per style); the
PySolFC decks in ``shared/decks`` are never read here, so they stay an honest zero-shot
test. A pool of crops is rendered once on two processes: card faces pasted with
scale/offset/perspective jitter, occlusion by hands and cards, light, white balance, blur,
noise and JPEG (``companion.vision.crops``), and cards cut from whole rendered table scenes
as the detector cuts them (``companion.train_scenes``). Every batch is turned by a random
quarter-turn on top of the crops' own full 360-degree rotation.

The network is small on purpose (about 0.3 M parameters, 64x64 input) so that a batch of
20 crops runs in about a millisecond on two CPU cores. Four heads share one trunk:
suit (18), rank (12), kind (card / face-down / not a card) and a unit-length embedding that
a cosine classifier over the 216 cards shapes, so that enrolment can match a user's deck
by nearest neighbour.

Torch lives here only; serving code (``companion.vision.classify``) never imports this.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion.cards import Card
from companion.train_quantize import calibration_crops, quantize_int8
from companion.train_scenes import ALL_CARDS, RANKS, SUITS, TRAINING_SCENE_SEED, scene_crops
from companion.vision import crops as C
from companion.vision.classify import INPUT_PX, preprocess

EMBED_DIM = 64


@dataclass(frozen=True)
class TrainConfig:
    out: Path = Path("models/card_classifier.onnx")
    styles: tuple[int, ...] = ()  # empty: every style the renderer has
    seeds: tuple[int, ...] = (0, 1, 2)  # held-out evaluation uses seeds >= 1000
    face_px: int = 112
    input_px: int = INPUT_PX  # the network's input: crops are resized to this
    pool: int = 100_000  # crops rendered once; every pass turns them by a random k * 90 deg
    scenes: int = 20_000  # whole training scenes whose cards are cut as the detector cuts them
    scene_seed: int = TRAINING_SCENE_SEED
    minutes: float = 65.0  # training time budget (the lr schedule follows elapsed time)
    max_passes: int = 26
    batch: int = 128
    lr: float = 4e-3
    widths: tuple[int, int, int, int] = (16, 32, 64, 128)
    negative_share: float = 0.08  # of the pool: face-down backs; as much again: not a card
    degraded_share: float = C.TRAINING.degrade_p  # crops through the harsh camera (crops.degrade)
    quantize: bool = True  # serve int8 weights (companion.train_quantize): half the time
    calibration_scenes: int = 200  # whose cards set the int8 ranges
    threads: int = 1  # torch threads: one is much faster than two on a busy 2-core box
    workers: int = 2  # processes rendering the crop pool
    seed: int = 1  # the shipped model's seed
    cards: tuple[str, ...] = ()  # empty: all 216 cards
    log_every: int = 100


def tiny_config(out: Path) -> TrainConfig:
    """A smoke-test run: a few cards, two styles, seconds not minutes."""
    return TrainConfig(out=out, styles=(0, 1), seeds=(0,), face_px=64, pool=512, scenes=4,
                       calibration_scenes=4, minutes=0.1,
                       max_passes=2, batch=64, widths=(8, 8, 16, 16),
                       cards=tuple(c.id for c in ALL_CARDS[:12]) + ("phul-raja",), log_every=0)


# -- the network --------------------------------------------------------------------------

def _cbr(i: int, o: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o),
                         nn.ReLU(inplace=True))


class CardNet(nn.Module):
    """BGR uint8-range input (N, 3, S, S) float32 (S: 64 or 96) -> suit, rank, kind logits, embedding."""

    def __init__(self, widths=(16, 32, 64, 128), embed_dim: int = EMBED_DIM):
        super().__init__()
        a, b, c, d = widths
        self.trunk = nn.Sequential(
            _cbr(3, a, 2), _cbr(a, b, 2), _cbr(b, b, 1), _cbr(b, c, 2), _cbr(c, c, 1),
            _cbr(c, d, 2), _cbr(d, d, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.suit = nn.Linear(d, len(SUITS))
        self.rank = nn.Linear(d, len(RANKS))
        self.kind = nn.Linear(d, len(C.KINDS))
        self.embed = nn.Linear(d, embed_dim)

    def forward(self, x: torch.Tensor):
        h = self.trunk((x - 128.0) / 64.0)  # normalisation lives in the graph
        e = F.normalize(self.embed(h), dim=1)
        return self.suit(h), self.rank(h), self.kind(h), e


class CosineCards(nn.Module):
    """Training-only head: cosine similarity of the embedding to one weight per card."""

    def __init__(self, n: int, dim: int = EMBED_DIM, scale: float = 16.0, margin: float = 0.2):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n, dim) * 0.1)
        self.scale, self.margin = scale, margin

    def forward(self, e: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        cos = e @ F.normalize(self.w, dim=1).T
        cos = cos - self.margin * F.one_hot(target.clamp(min=0), cos.shape[1]) * (target >= 0)[
            :, None]
        return cos * self.scale


# -- data -----------------------------------------------------------------------------------

@dataclass
class FaceBank:
    """Rendered faces and backs at ``face_px``, with each face's card index."""

    faces: list[np.ndarray] = field(default_factory=list)
    card_index: list[int] = field(default_factory=list)
    backs: list[np.ndarray] = field(default_factory=list)


def render_bank(cfg: TrainConfig) -> FaceBank:
    from companion.synth.faces import N_STYLES, render_back, render_face
    styles = cfg.styles or tuple(range(N_STYLES))
    wanted = {Card.parse(c) for c in cfg.cards} if cfg.cards else set(ALL_CARDS)
    bank = FaceBank()
    for st in styles:
        for seed in cfg.seeds:
            for i, card in enumerate(ALL_CARDS):
                if card in wanted:
                    bank.faces.append(render_face(card, st, seed, cfg.face_px))
                    bank.card_index.append(i)
            bank.backs.append(render_back(st, seed, cfg.face_px))
    return bank


_BANK: FaceBank | None = None  # set in each worker process by _init_worker


def _init_worker(bank: FaceBank) -> None:
    global _BANK
    _BANK = bank
    torch.set_num_threads(1)


def make_batch(bank: FaceBank, n: int, seed: int, negative_share: float,
               input_px: int = INPUT_PX, degraded_share: float = C.TRAINING.degrade_p):
    """``n`` preprocessed crops and labels: suit, rank (-1 when no card), kind, card index.

    ``degraded_share`` of them (cards, backs and not-cards alike) look as a bad webcam frame
    makes them: strong blur, exposure extremes, a small card (:func:`crops.degrade`)."""
    rng = np.random.default_rng(seed)
    jit = C.Jitter(degrade_p=degraded_share)
    x = np.empty((n, 3, input_px, input_px), np.uint8)  # uint8 keeps a big pool small
    y = np.full((n, 4), -1, np.int64)
    n_back = int(n * negative_share)
    n_none = int(n * negative_share)
    for k in range(n):
        if k < n_back:
            crop = C.place_card(bank.backs[rng.integers(len(bank.backs))], rng, jit,
                                neighbours=bank.faces[:: max(1, len(bank.faces) // 64)])
            y[k, 2] = C.KIND_FACE_DOWN
        elif k < n_back + n_none:
            crop = C.not_a_card(rng, bank.faces[:: max(1, len(bank.faces) // 64)], jit=jit)
            y[k, 2] = C.KIND_NOT_CARD
        else:
            j = int(rng.integers(len(bank.faces)))
            others = [bank.faces[int(rng.integers(len(bank.faces)))] for _ in range(2)]
            crop = C.place_card(bank.faces[j], rng, jit, neighbours=others)
            card = ALL_CARDS[bank.card_index[j]]
            y[k] = (SUITS.index(card.suit.value), RANKS.index(card.rank.token), C.KIND_CARD,
                    bank.card_index[j])
        x[k] = preprocess(crop[None], input_px)[0].astype(np.uint8)
    perm = rng.permutation(n)
    return x[perm], y[perm]


def _worker_batch(args):
    n, seed, share, input_px, degraded = args
    return make_batch(_BANK, n, seed, share, input_px, degraded)


# -- training ------------------------------------------------------------------------------

def _losses(model, cards_head, x, y):
    suit, rank, kind, emb = model(x)
    is_card = y[:, 2] == C.KIND_CARD
    loss = F.cross_entropy(kind, y[:, 2])
    if is_card.any():
        loss = loss + F.cross_entropy(suit[is_card], y[is_card, 0], label_smoothing=0.05)
        loss = loss + F.cross_entropy(rank[is_card], y[is_card, 1], label_smoothing=0.05)
        loss = loss + 0.5 * F.cross_entropy(cards_head(emb[is_card], y[is_card, 3]),
                                            y[is_card, 3])
    return loss, suit, rank, kind


def render_pool(cfg: TrainConfig, bank: FaceBank) -> tuple[np.ndarray, np.ndarray]:
    """``cfg.pool`` preprocessed crops with labels, rendered on two processes."""
    chunk = 2048 if cfg.pool >= 4096 else cfg.pool
    jobs = [(min(chunk, cfg.pool - i), cfg.seed * 1_000_003 + i, cfg.negative_share,
             cfg.input_px, cfg.degraded_share)
            for i in range(0, cfg.pool, chunk)]
    with mp.get_context("fork").Pool(max(1, cfg.workers), initializer=_init_worker,
                                     initargs=(bank,)) as pool:
        parts = pool.map(_worker_batch, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _lr_at(cfg: TrainConfig, frac: float) -> float:
    """Warm up over the first 5% of the time budget, then a cosine down to 2% of the peak."""
    if frac < 0.05:
        return cfg.lr * (0.1 + 0.9 * frac / 0.05)
    t = min(1.0, (frac - 0.05) / 0.95)
    return cfg.lr * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * t)))


def train(cfg: TrainConfig, log=print) -> dict:
    """Train, export ONNX + model card to ``cfg.out``; returns the card's JSON."""
    torch.manual_seed(cfg.seed)
    t0 = time.time()
    bank = render_bank(cfg)
    log(f"rendered {len(bank.faces)} faces and {len(bank.backs)} backs in "
        f"{time.time() - t0:.1f} s")
    x_all, y_all = render_pool(cfg, bank)
    x_sc, y_sc = scene_crops(cfg.scenes, cfg.scene_seed, cfg.input_px, cfg.workers)
    x_all, y_all = np.concatenate([x_all, x_sc]), np.concatenate([y_all, y_sc])
    log(f"rendered {len(x_all)} training crops ({len(x_sc)} cut from {cfg.scenes} scenes) "
        f"in {time.time() - t0:.1f} s")
    torch.set_num_threads(cfg.threads)
    x_all, y_all = torch.from_numpy(x_all), torch.from_numpy(y_all)
    model = CardNet(cfg.widths)
    cards_head = CosineCards(len(ALL_CARDS))
    params = list(model.parameters()) + list(cards_head.parameters())
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(cfg.seed)
    history = []
    t_train = time.time()
    budget = cfg.minutes * 60
    done = False
    for n_pass in range(cfg.max_passes):
        model.train()
        order = torch.randperm(len(x_all), generator=gen)
        tot, right, seen, used = 0.0, 0, 0, 0
        steps_per_pass = len(order) // cfg.batch
        for step, i in enumerate(range(0, len(order) - cfg.batch + 1, cfg.batch)):
            # Progress is time or passes, whichever is further on, so the lr has come down
            # when either limit ends training.
            frac = max((time.time() - t_train) / budget,
                       (n_pass * steps_per_pass + step) / (cfg.max_passes * steps_per_pass))
            if frac >= 1.0 and (n_pass > 0 or step > 0):
                done = True
                break
            for g in opt.param_groups:
                g["lr"] = _lr_at(cfg, frac)
            idx = order[i:i + cfg.batch]
            k = int(torch.randint(4, (1,), generator=gen))
            xb = torch.rot90(x_all[idx], k, dims=(2, 3)).float()
            yb = y_all[idx]
            loss, suit, rank, _kind = _losses(model, cards_head, xb, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            used += len(xb)
            is_card = yb[:, 2] == C.KIND_CARD
            ok = (suit.argmax(1) == yb[:, 0]) & (rank.argmax(1) == yb[:, 1])
            right += int((ok & is_card).sum())
            seen += int(is_card.sum())
            if cfg.log_every and step % cfg.log_every == 0:
                log(f"  pass {n_pass + 1} step {step} loss {loss.item():.3f} "
                    f"lr {_lr_at(cfg, frac):.5f} ({time.time() - t0:.0f} s)")
        rec = {"pass": n_pass + 1, "crops": used, "loss": round(tot / max(used, 1), 4),
               "train_card_acc": round(right / max(seen, 1), 4),
               "elapsed_s": round(time.time() - t0, 1)}
        history.append(rec)
        log(f"pass {n_pass + 1}: {rec}")
        if done:
            break
    card = export(model, cfg, history, time.time() - t0)
    log(f"wrote {cfg.out} ({cfg.out.stat().st_size / 1e6:.2f} MB) and its model card")
    return card


def export(model: CardNet, cfg: TrainConfig, history: list[dict], seconds: float) -> dict:
    """ONNX (int8 when ``cfg.quantize``) and the model card."""
    from companion.vision.classify import write_model_card
    model.eval()
    cfg.out.parent.mkdir(parents=True, exist_ok=True)
    px = cfg.input_px
    dummy = torch.zeros(1, 3, px, px)
    names = ["suit_logits", "rank_logits", "kind_logits", "embedding"]
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "fp32.onnx" if cfg.quantize else cfg.out
        with warnings.catch_warnings():  # the TorchScript exporter is deprecated, not broken
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(model, (dummy,), str(fp32), dynamo=False,
                              input_names=["crops"], output_names=names, opset_version=17,
                              dynamic_axes={"crops": {0: "n"}, **{k: {0: "n"} for k in names}})
        if cfg.quantize:
            quantize_int8(fp32, cfg.out, calibration_crops(cfg.calibration_scenes, px))
    recipe = {k: (list(v) if isinstance(v, tuple) else str(v) if isinstance(v, Path) else v)
              for k, v in asdict(cfg).items()}
    card = {
        "name": cfg.out.stem,
        "classes": {"suits": list(SUITS), "ranks": list(RANKS), "kinds": list(C.KINDS)},
        "input": {"name": "crops", "shape": ["n", 3, px, px], "dtype": "float32",
                  "colour": "BGR", "range": "0..255",
                  "preprocessing": f"96x96 detector crop -> INTER_AREA resize to {px}x{px} "
                                   "(none at 96) -> NCHW float32; (x-128)/64 is in the graph"},
        "outputs": names,
        "embedding_dim": EMBED_DIM,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "weights": ("8-bit per channel (int8 values stored as uint8 with zero point 128, "
                    "so that AVX2 CPUs without VNNI do not saturate), uint8 activations "
                    "(static QOperator quantization, ranges from the cards of "
                    f"{cfg.calibration_scenes} training scenes)")
                   if cfg.quantize else "float32",
        "training": {"data": "companion.synth.faces only (own rendered art): pasted crops "
                             "(companion.vision.crops augmentation) and cards cut from "
                             "rendered table scenes (companion.train_scenes); never "
                             "shared/decks",
                     "recipe": recipe, "seconds": round(seconds, 1), "history": history},
        "accuracy": {},
    }
    write_model_card(cfg.out, card)
    return card


def main_json(cfg: TrainConfig) -> str:
    return json.dumps(train(cfg), indent=2)
