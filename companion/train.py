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

On a machine with many cores and a GPU, ``--device cuda --stream-capacity N --workers W``
renders while it trains (``companion.train_feed``), ``--device-crops N`` adds N pasted crops
made on the GPU itself to each step (``companion.train_device_crops``: the CPU processes are
the slow part there), ``--also-widths`` trains other sizes on the very same batches, and
``--checkpoint`` keeps the weights so that ``--from-checkpoint`` exports (and quantizes) them
on the serving machine (``companion.train_export``).

Torch lives here only; serving code (``companion.vision.classify``) never imports this.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import time
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from companion.cards import Card
from companion.train_export import export, recipe_of
from companion.train_scenes import (
    ALL_CARDS,
    RANKS,
    SUITS,
    TRAINING_SCENE_SEED,
    fork_pool,
    scene_crops,
)
from companion.vision import crops as C
from companion.vision.classify import INPUT_PX, preprocess

EMBED_DIM = 64
# Crops that start a run trained on from an exported model: the norms' statistics come from
# the first 4096, each card's head weight from all of them (about 35 crops a card).
INIT_SAMPLE = 8192


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
    device: str = "cpu"  # "cuda" on a GPU machine
    # Many cores: render while training (companion.train_feed), the pool growing to this
    # many crops; 0: render ``pool`` crops and ``scenes`` scenes first (the 2-core recipe).
    stream_capacity: int = 0
    # A growing pool trained on faster than it grows is learnt by heart: the first GPU run
    # went over its first 14,000 crops 38 times in 8 s. More than 1: wait for the pool to
    # grow rather than train on more than this many times its crops (0: never wait).
    max_reuse: float = 0.0
    also_widths: tuple[tuple[int, int, int, int], ...] = ()  # sizes trained on the same batches
    checkpoint: Path | None = None  # also save the weights here (export_checkpoint reads them)
    init_from: Path | None = None  # an exported model (ONNX) to train on from (train_init)
    # Pasted crops made on the training device (companion.train_device_crops) added to each
    # step's batch from the pool: fresh crops every step where CPU rendering is short.
    device_crops: int = 0
    # With init_from: this weight on the cosine distance of the embedding from the one the
    # model trained on from gives the same crops, so that deck profiles keep what they match.
    hold_embedding: float = 0.0


_FIELDS = {f.name for f in fields(TrainConfig)}


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


def _render_deck(args) -> tuple[list[np.ndarray], list[int], np.ndarray]:
    from companion.synth.faces import render_back, render_face
    style, seed, face_px, wanted = args
    index = [i for i, card in enumerate(ALL_CARDS) if card in wanted]
    return ([render_face(ALL_CARDS[i], style, seed, face_px) for i in index], index,
            render_back(style, seed, face_px))


def render_bank(cfg: TrainConfig) -> FaceBank:
    from companion.synth.faces import N_STYLES
    styles = cfg.styles or tuple(range(N_STYLES))
    wanted = {Card.parse(c) for c in cfg.cards} if cfg.cards else set(ALL_CARDS)
    jobs = [(st, seed, cfg.face_px, wanted) for st in styles for seed in cfg.seeds]
    with fork_pool(max(1, cfg.workers)) as pool:
        decks = pool.map(_render_deck, jobs)
    bank = FaceBank()
    for faces, index, back in decks:
        bank.faces.extend(faces)
        bank.card_index.extend(index)
        bank.backs.append(back)
    return bank


_BANK: FaceBank | None = None  # set in each worker process by _init_worker


def _init_worker(bank: FaceBank) -> None:
    global _BANK
    _BANK = bank
    torch.set_num_threads(1)  # one process a core (OpenCV's one thread: fork_pool)


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
            y[k] = _card_label(bank.card_index[j])
        x[k] = preprocess(crop[None], input_px)[0].astype(np.uint8)
    perm = rng.permutation(n)
    return x[perm], y[perm]


def _card_label(index: int) -> tuple[int, int, int, int]:
    """Suit, rank, kind and card index of ``ALL_CARDS[index]``: a training label."""
    card = ALL_CARDS[index]
    return SUITS.index(card.suit.value), RANKS.index(card.rank.token), C.KIND_CARD, index


def _worker_batch(args):
    n, seed, share, input_px, degraded = args
    return make_batch(_BANK, n, seed, share, input_px, degraded)


def _pasted_job(job, cfg: TrainConfig):
    n, seed = job
    return _worker_batch((n, seed, cfg.negative_share, cfg.input_px, cfg.degraded_share))


# -- training ------------------------------------------------------------------------------

def _losses(model, cards_head, x, y, held=None, hold=0.0):
    """The training loss; with ``held`` (the embeddings another model gives ``x``), also
    ``hold`` times their mean cosine distance from this model's."""
    suit, rank, kind, emb = model(x)
    is_card = y[:, 2] == C.KIND_CARD
    loss = F.cross_entropy(kind, y[:, 2])
    if held is not None:
        loss = loss + hold * (1 - (emb * held).sum(dim=1)).mean()
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
    with fork_pool(max(1, cfg.workers), _init_worker, (bank,)) as pool:
        parts = pool.map(_worker_batch, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _lr_at(cfg: TrainConfig, frac: float) -> float:
    """Warm up over the first 5% of the time budget, then a cosine down to 2% of the peak."""
    if frac < 0.05:
        return cfg.lr * (0.1 + 0.9 * frac / 0.05)
    t = min(1.0, (frac - 0.05) / 0.95)
    return cfg.lr * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * t)))


def _fixed_pool(cfg: TrainConfig, bank: FaceBank, t0: float, log):
    x_all, y_all = render_pool(cfg, bank)
    x_sc, y_sc = scene_crops(cfg.scenes, cfg.scene_seed, cfg.input_px, cfg.workers)
    log(f"rendered {len(x_all) + len(x_sc)} training crops ({len(x_sc)} cut from "
        f"{cfg.scenes} scenes) in {time.time() - t0:.1f} s")
    return (torch.from_numpy(np.concatenate([x_all, x_sc])).to(cfg.device),
            torch.from_numpy(np.concatenate([y_all, y_sc])).to(cfg.device))


def _growing_pool(cfg: TrainConfig, bank: FaceBank):
    from functools import partial

    from companion.train_feed import PASTED_CHUNK, SCENE_CHUNK, GrowingPool
    # Pasted crops and scene cuts in the fixed pool's proportion (about 5 crops a scene).
    pasted_every = 1 + round(PASTED_CHUNK * cfg.scenes / max(1, cfg.pool * SCENE_CHUNK))
    return GrowingPool(cfg.stream_capacity, cfg.input_px, cfg.device, cfg.workers,
                       pasted_job=partial(_pasted_job, cfg=cfg),
                       pasted_seed=cfg.seed * 1_000_003, scene_seed=cfg.scene_seed,
                       pasted_every=pasted_every, initializer=_init_worker, initargs=(bank,))


def _device_crops(cfg: TrainConfig, bank: FaceBank):
    from companion.train_device_crops import DeviceCrops
    labels = np.array([_card_label(i) for i in bank.card_index])
    return DeviceCrops(bank.faces, labels, bank.backs, cfg.device, cfg.input_px,
                       cfg.seed, cfg.negative_share, cfg.degraded_share)


def train(cfg: TrainConfig, log=print) -> dict:
    """Train, export ONNX + model card to ``cfg.out``; returns the card's JSON.

    Sizes in ``cfg.also_widths`` are trained alongside on the very same batches and
    exported next to ``cfg.out`` (``NAME-w24-48-96-192.onnx``), so that sizes can be
    compared on equal data."""
    if cfg.init_from is not None and cfg.also_widths:
        raise ValueError("--init-from trains one size (no --also-widths)")
    if cfg.hold_embedding and cfg.init_from is None:
        raise ValueError("--hold-embedding holds the embedding of --init-from's model")
    torch.manual_seed(cfg.seed)
    t0 = time.time()
    bank = render_bank(cfg)
    log(f"rendered {len(bank.faces)} faces and {len(bank.backs)} backs in "
        f"{time.time() - t0:.1f} s")
    feed = _growing_pool(cfg, bank) if cfg.stream_capacity else None
    if feed is None:
        x_all, y_all = _fixed_pool(cfg, bank, t0, log)
    made = _device_crops(cfg, bank) if cfg.device_crops else None  # after the fork
    torch.set_num_threads(cfg.threads)
    all_widths = (tuple(cfg.widths),) + tuple(tuple(w) for w in cfg.also_widths)
    nets = [CardNet(w).to(cfg.device) for w in all_widths]
    heads = [CosineCards(len(ALL_CARDS)).to(cfg.device) for _ in nets]
    opts = [torch.optim.AdamW(list(n.parameters()) + list(h.parameters()), lr=cfg.lr,
                              weight_decay=1e-4) for n, h in zip(nets, heads)]
    gen = torch.Generator().manual_seed(cfg.seed)
    if cfg.init_from is not None:
        if feed is not None:  # the first crops to arrive set the norms and the head
            feed.update(wait_for=INIT_SAMPLE)
            x_all, y_all = feed.x[:feed.size], feed.y[:feed.size]
        _start_from(cfg.init_from, nets[0], heads[0], x_all, y_all, gen)
        if cfg.hold_embedding:
            teacher = copy.deepcopy(nets[0]).eval().requires_grad_(False)
        log(f"starting from the weights of {cfg.init_from}")
    history = []
    t_train = time.time()
    budget = cfg.minutes * 60
    done = False
    trained = 0
    for n_pass in range(cfg.max_passes):
        if feed is not None:
            # After this pass ``trained + size`` crops will have been trained on.
            wait_for = max(8 * cfg.batch, math.ceil(trained / (cfg.max_reuse - 1))
                           if cfg.max_reuse else 0)
            feed.update(wait_for=wait_for)
            x_all, y_all = feed.x[:feed.size], feed.y[:feed.size]
        for net in nets:
            net.train()
        order = torch.randperm(len(x_all), generator=gen).to(cfg.device)
        tot = torch.zeros(len(nets), device=cfg.device)
        right = torch.zeros(len(nets), dtype=torch.int64, device=cfg.device)
        seen = torch.zeros((), dtype=torch.int64, device=cfg.device)  # no sync a step
        used = 0
        steps_per_pass = len(order) // cfg.batch
        for step, i in enumerate(range(0, len(order) - cfg.batch + 1, cfg.batch)):
            # Progress is time or passes, whichever is further on, so the lr has come down
            # when either limit ends training (a growing pool's passes differ: time alone).
            frac = (time.time() - t_train) / budget
            if feed is None:
                frac = max(frac, (n_pass * steps_per_pass + step)
                           / (cfg.max_passes * steps_per_pass))
            if frac >= 1.0 and (n_pass > 0 or step > 0):
                done = True
                break
            idx = order[i:i + cfg.batch]
            k = int(torch.randint(4, (1,), generator=gen))
            xb, yb = x_all[idx], y_all[idx]
            if made is not None:
                xm, ym = made.batch(cfg.device_crops)
                xb, yb = torch.cat([xb, xm]), torch.cat([yb, ym])
            xb = torch.rot90(xb, k, dims=(2, 3)).float()
            is_card = yb[:, 2] == C.KIND_CARD
            for j, (net, head, opt) in enumerate(zip(nets, heads, opts)):
                for g in opt.param_groups:
                    g["lr"] = _lr_at(cfg, frac)
                held = None
                if cfg.hold_embedding:
                    with torch.no_grad():
                        held = teacher(xb)[3]
                loss, suit, rank, _kind = _losses(net, head, xb, yb, held, cfg.hold_embedding)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot[j] += loss.detach() * len(idx)
                ok = (suit.argmax(1) == yb[:, 0]) & (rank.argmax(1) == yb[:, 1])
                right[j] += (ok & is_card).sum()
            used += len(idx)
            trained += len(idx)
            seen += is_card.sum()
            if cfg.log_every and step % cfg.log_every == 0:
                log(f"  pass {n_pass + 1} step {step} loss {loss.item():.3f} "
                    f"lr {_lr_at(cfg, frac):.5f} ({time.time() - t0:.0f} s)")
        if used == 0 and history:  # time ran out while waiting for the pool: no pass
            break
        accs = [round(int(r) / max(int(seen), 1), 4) for r in right.tolist()]
        rec = {"pass": n_pass + 1, "crops": used, "loss": round(float(tot[0]) / max(used, 1), 4),
               "train_card_acc": accs[0], "elapsed_s": round(time.time() - t0, 1)}
        if len(nets) > 1:
            rec["train_card_acc_by_widths"] = accs
        if feed is not None:
            rec["pool"], rec["trained"] = feed.size, trained
        if made is not None:
            rec["device_crops"] = trained // cfg.batch * cfg.device_crops
        history.append(rec)
        log(f"pass {n_pass + 1}: {rec}")
        if done:
            break
    if feed is not None:
        feed.close()
    seconds = time.time() - t0
    if cfg.checkpoint is not None:
        torch.save({"recipe": recipe_of(cfg), "history": history, "seconds": seconds,
                    "widths": all_widths, "states": [n.cpu().state_dict() for n in nets]},
                   cfg.checkpoint)
        log(f"saved the weights to {cfg.checkpoint}")
    card = None
    for net, widths in zip(nets, all_widths):
        out = cfg.out if widths == all_widths[0] else _widths_path(cfg.out, widths)
        c = export(net.cpu(), dataclasses.replace(cfg, out=out, widths=widths), history, seconds)
        card = card or c
        log(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its model card")
    return card


def _start_from(path: Path, net: CardNet, head: CosineCards, x_all, y_all, gen) -> None:
    """``net`` takes the weights of the exported model at ``path``, and ``head`` each card's
    mean embedding under them (companion.train_init)."""
    from companion.train_init import card_weights, load_exported
    pick = torch.randperm(len(x_all), generator=gen)[:INIT_SAMPLE].to(x_all.device)
    net.cpu()
    x, y = x_all[pick].cpu(), y_all[pick].cpu()
    load_exported(net, path, x[:4096])
    card = torch.where(y[:, 2] == C.KIND_CARD, y[:, 3], torch.full_like(y[:, 3], -1))
    with torch.no_grad():
        head.w.copy_(card_weights(net, x, card, head.w.shape[0]))
    net.to(x_all.device)


def _widths_path(out: Path, widths) -> Path:
    return out.with_name(f"{out.stem}-w{'-'.join(map(str, widths))}{out.suffix}")


def export_checkpoint(checkpoint: Path, out: Path, widths=None, log=print) -> dict:
    """Export weights saved by a training run (perhaps on another machine) as ``out``:
    the run's first size, or the one with ``widths``. Quantization runs here, with this
    machine's onnxruntime, also for a run that exported float weights."""
    saved = torch.load(checkpoint, map_location="cpu")
    all_widths = [tuple(w) for w in saved["widths"]]
    widths = tuple(widths) if widths else all_widths[0]
    if widths not in all_widths:
        raise ValueError(f"{checkpoint} holds widths {all_widths}, not {widths}")
    net = CardNet(widths)
    net.load_state_dict(saved["states"][all_widths.index(widths)])
    # The served model is int8 whatever the training machine wrote (--float: float).
    recipe = dict(saved["recipe"], out=out, widths=widths, checkpoint=None, quantize=True,
                  also_widths=tuple(tuple(w) for w in saved["recipe"]["also_widths"]))
    recipe = {k: tuple(v) if isinstance(v, list) else v for k, v in recipe.items()}
    cfg = TrainConfig(**{k: v for k, v in recipe.items() if k in _FIELDS})
    card = export(net, cfg, saved["history"], saved["seconds"])
    log(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its model card")
    return card


def main_json(cfg: TrainConfig) -> str:
    return json.dumps(train(cfg), indent=2)
