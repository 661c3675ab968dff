"""Films a simulated game on the synthetic table: a video plus per-frame ground truth.

The rules engine plays the game (``companion.record.simulate``); this module only turns
its moves into what a camera would see. A hand brings every card from the player's seat
edge to its zone, draws are fetched from the stock, a bridge or a finished trick is swept
off to its pile, and idle hands sometimes rest over the table. The JSON beside the video
holds the record, the frame at which each move and each event becomes true on the table
(the card is down and the hand has gone), and every frame's cards.

The hands, piles and frames are :class:`companion.synth.director.Director`'s; this module
has the game scripts and writes the film and its JSON.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.cards import Card
from companion.layouts import load_layout
from companion.synth.camera import CameraPose
from companion.synth.decks import DeckSourceError, check_source, missing_cards
from companion.synth.director import PACES, Director, VideoError
from companion.synth.effects import random_lighting
from companion.synth.faces import N_STYLES
from companion.synth.mughal_films import SCRIPTS
from companion.synth.scene import MAT_SIZE_MM

__all__ = ["FORMAT", "FPS", "GAMES", "VideoError", "film_game"]

FPS = 30
FORMAT = "ganjifa-companion/synth-game@1"
GAMES = ("kendra-kari", "ganjifa", *SCRIPTS)


def _kendra_kari(d: Director, record, n_moves: int) -> Iterator[tuple[int, int, int]]:
    """Yields (move index, frame the move is true, frame its gather is true)."""
    for c in reversed(record.deal["stock"]):  # the top of the stock goes on last
        d.put("stock", Card.parse(c), False)
    for i, move in enumerate(record.moves[:n_moves]):
        swept = -1
        if move.action in ("deal", "play", "bridge", "start"):
            targets = move.target.split(",")
            for card, t in zip(move.cards, targets):
                d.carry(move.player, card, "pos7" if t == "7" else f"pos{t}")
            landed = len(d.frames)
            if move.action == "bridge":
                d.pause(int(d.rng.integers(2, 5) if d.brisk else d.rng.integers(4, 12)))
                d.sweep(move.player, [f"pos{k}" for k in range(1, 8)], "gathered")
                swept = len(d.frames)
        elif move.action == "draw":
            if move.cards:
                d.fetch(move.player, "stock")
            landed = len(d.frames)
        elif move.action == "pass":
            landed = len(d.frames)
        elif move.action == "turnup":
            _turn_up(d, move, record.moves[i + 1] if i + 1 < len(record.moves) else None)
            landed = len(d.frames)
        else:
            raise VideoError(f"cannot film the Kendra Kari move {move.action!r}")
        yield i, landed, swept


def _turn_up(d: Director, move, after) -> None:
    """2011 footnote: the turner "takes another card from the stock and places it face-up
    on the table ... Cards that are turned up but not suitable take no further part in the
    game." Ruling *turned-up-onto-the-gathered-pile*: an unsuitable card is laid face up on
    the Gathered pile, out of play like the cards gathered there; the suitable one is taken
    into the hand and played from it (the next move), as a drawn card would be."""
    if not move.cards:  # the stock is empty: nothing to turn up
        return
    card = move.cards[0]
    if after is not None and after.player == move.player and after.cards[:1] == (card,):
        d.fetch(move.player, "stock")
    else:
        d.carry(move.player, card, "gathered", pick_from="stock")


def _ganjifa(d: Director, record, n_moves: int) -> Iterator[tuple[int, int, int]]:
    plays = [f"play{s}" for s in range(record.players)]
    for i, move in enumerate(record.moves[:n_moves]):
        play = f"play{move.player}"
        swept = -1
        if move.action == "show":  # (option face_up_deal) piled on the play spot
            for card in move.cards:
                d.carry(move.player, card, play)
            landed = len(d.frames)
            if i + 1 == len(record.moves) or record.moves[i + 1].action != "show":
                # "The cards are left on the table for an agreed period ... and then the
                # players pick up all the cards they were dealt."
                d.pause(int(d.rng.integers(10, 30)))
                for seat in range(record.players):
                    d.take_up(seat, f"play{seat}")
                swept = len(d.frames)
            yield i, landed, swept
            continue
        if move.action in ("lead", "follow", "sacrifice", "double"):
            for card in move.cards:
                d.carry(move.player, card, play, pick_from=d.find(card) if d.find(card) else None)
        elif move.action == "deni":
            low, high = move.cards
            d.carry(move.player, low, play)
            d.carry(move.player, high, f"deni{move.player}")
        elif move.action != "pass":
            raise VideoError(f"cannot film the Ganjifa move {move.action!r}")
        landed = len(d.frames)
        trick = [e for e in record.events[i] if e.kind == "trick"] if record.events else []
        if trick:
            winner = trick[0].player if trick[0].player is not None else move.player
            d.pause(int(d.rng.integers(1, 4) if d.brisk else d.rng.integers(6, 14)))
            d.sweep(winner, plays, f"won{winner}")
            swept = len(d.frames)
        yield i, landed, swept


def film_game(game: str, players: int, seed: int, out: Path, style: int | None = None,
              size: tuple[int, int] = (960, 540), max_moves: int | None = None,
              hard: bool = False, progress=None, pace: str = "normal",
              source: str | None = None, options: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    """Simulates a game with the rules engine and films it; returns a summary.
    ``options``: the game's rule options (Ganjifa's ``face_up_deal`` is filmed as each
    seat's face-up cards piled on its play spot, then taken up).

    ``pace``: ``normal`` or ``brisk`` (faster hands, shorter pauses: a smaller film).
    ``source``: a real-art deck (``pysol-mughal``, ``pysol-dashavatara``) played instead
    of our art in ``style``; the camera, light and hands are those of the same seed."""
    from companion.games.base import RuleError
    from companion.record import simulate
    if game not in GAMES:
        raise VideoError(f"synth-game films {', '.join(GAMES)}; got {game!r}")
    if pace not in PACES:
        raise VideoError(f"pace must be one of {', '.join(PACES)}, got {pace!r}")
    try:
        record = simulate(game, players, options, seed=seed)
    except (RuleError, ValueError) as e:
        raise VideoError(str(e)) from None
    rng = np.random.default_rng([seed, 7])
    style = int(rng.integers(N_STYLES)) if style is None else style
    if not 0 <= style < N_STYLES:
        raise VideoError(f"style must be 0..{N_STYLES - 1}")
    if source is not None:
        try:
            check_source(source)
            missing = missing_cards(source, {c.id for m in record.moves for c in m.cards})
        except DeckSourceError as e:
            raise VideoError(str(e)) from None
        if missing:  # (the other deck: a Mughal deck has 8 suits, a Dashavatara deck 10)
            raise VideoError(f"{source} lacks {len(missing)} cards this {game} game plays "
                             f"({', '.join(missing[:3])}, ...): film it with the deck "
                             "its game is played with")
    n_moves = len(record.moves) if max_moves is None else min(max_moves, len(record.moves))
    camera = _video_camera(rng, size, hard)
    lighting = random_lighting(rng, "dim" if hard else str(rng.choice(["neutral", "warm",
                                                                         "daylight"])))
    lighting = dataclasses.replace(lighting, glare=min(lighting.glare, 0.1))
    fourcc = cv2.VideoWriter_fourcc(*("mp4v" if out.suffix.lower() == ".mp4" else "MJPG"))
    writer = cv2.VideoWriter(str(out), fourcc, FPS, size)
    if not writer.isOpened():
        raise VideoError(f"cannot write video {out}")
    director = Director(game, players, load_layout(game), camera, lighting,
                        source or f"style-{style}", seed, rng, writer, hard, pace)
    script = {"kendra-kari": _kendra_kari, "ganjifa": _ganjifa, **SCRIPTS}[game]
    moves_json = []
    try:
        director.pause(8)
        for i, landed, swept in script(director, record, n_moves):
            if not director.brisk:  # brisk: the next hand sets off at once (see _act)
                director.pause(int(rng.integers(2, 8)))
            director.maybe_idle_hand(0.55 if hard else 0.15)
            moves_json.append(_move_json(record, i, landed, swept))
            if progress:
                progress(i + 1, n_moves)
        director.idle = []
        director.pause(15)
    finally:
        writer.release()
    info = _write_json(out, record, director, moves_json, n_moves, style, seed, hard, size,
                       pace)
    return info


def _video_camera(rng: np.random.Generator, size: tuple[int, int], hard: bool) -> CameraPose:
    hfov = math.radians(rng.uniform(55, 70))
    focal = size[0] / 2 / math.tan(hfov / 2)
    tilt = float(rng.uniform(35, 42) if hard else rng.uniform(10, 30))
    extent = MAT_SIZE_MM[0] * (1.45 if hard else 1.35)
    distance = focal * extent / size[0] * (1 + 0.3 * math.sin(math.radians(tilt)))
    return CameraPose(size[0], size[1], float(focal), tilt, float(rng.normal(0, 5)),
                      float(rng.normal(0, 1.5)), float(distance),
                      (MAT_SIZE_MM[0] / 2, MAT_SIZE_MM[1] / 2), float(rng.uniform(0, 0.1)))


def _move_json(record, i: int, landed: int, swept: int) -> dict[str, Any]:
    events = []
    for e in (record.events[i] if record.events else ()):
        late = swept >= 0 and e.kind in ("gather", "trick", "lead", "result") and \
            not (e.kind == "lead" and e.cards)
        events.append({**e.to_json(), "frame": swept if late else landed})
    return {"index": i, "move": record.moves[i].to_json(), "frame": landed,
            "events": events}


def _write_json(out: Path, record, director: Director, moves, n_moves, style, seed, hard,
                size, pace) -> dict[str, Any]:
    cam = director.camera
    doc = {
        "format": FORMAT, "video": out.name, "fps": FPS, "size": list(size),
        "frames": len(director.frames), "game": record.game, "players": record.players,
        "seed": seed, "style": style, "source": director.source, "hard": hard, "pace": pace,
        "filmed_moves": n_moves, "complete": n_moves == len(record.moves),
        "note": ("the whole game is filmed" if n_moves == len(record.moves) else
                 f"only the first {n_moves} of {len(record.moves)} moves are filmed"),
        "event_frame_rule": "a move or event is true from the first frame after its card "
                            "is down and the hand has gone (for gathers: after the sweep)",
        "camera": {"homography_mm_to_px": cam.homography().round(9).tolist(),
                   "K": cam.K.round(4).tolist(), "k1": cam.k1, "tilt_deg": cam.tilt_deg},
        "record": record.to_json(),
        "moves": moves,
        "frame_truth_columns": ["card_id", "zone", "x_px", "y_px", "radius_px", "visible",
                                "face_up"],
        "frame_hands_doc": "per frame: pixels covered by hands and arms, and how many of "
                           "the hands are idle ones resting on the table (not moving a card)",
        "frame_truth": director.frames,
        "frame_hand_pixels": director.hand_pixels,
        "frame_idle_hands": director.idle_hands,
    }
    path = out.with_suffix(".json")
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    return {"json": str(path), "frames": len(director.frames)}
