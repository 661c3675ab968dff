"""The fixture game films through the whole pipeline and the referee, compared with the
filmed record (``bench_pipeline.py --only events``; see its docstring)."""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import numpy as np

from companion.cards import deck_cards
from companion.layouts import load_layout
from companion.referee.values import ASKS_FOR_A_CARD, pictured_table, showing
from companion.vision.detect import CardDetector
from companion.vision.enroll import enroll_images
from companion.vision.pipeline import Pipeline, doubtful_per_frame, served_reuse
from companion.vision.reuse import ReadingReuse
from companion.vision.source import open_source
from companion.vision.track import TableTracker, TrackEvent

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "models" / "card_classifier.onnx"

def model_classifier(deck=None):
    if not MODEL.is_file():
        return None
    from companion.vision.classify import CardClassifier
    return CardClassifier(MODEL, deck=deck)


def enrolled_profile(source: str, seed: int, deck, classifier):
    """The profile a player would enrol for the deck on the table (one flat picture per
    card of that deck, in the table's art and print, and its back): what `companion enroll`
    builds from a manifest with a back."""
    from companion.cards import deck_cards
    from companion.synth.decks import card_image
    faces = {c.id: card_image(source, c, seed, 112) for c in deck_cards(deck)}
    return enroll_images(faces, "table-deck", classifier, back=card_image(source, None, seed, 112))


def truth_on(frames: list, frame: int, zone: str | None, under_a_hand: bool = False,
             near_px: tuple[float, float] | None = None) -> str | None:
    """The face-up card on top of ``zone`` in the film's truth at ``frame`` (what a player
    answering the dashboard's "which card is this?" would say): at least half in view, or
    (``under_a_hand``) however little of it shows. Where a zone holds cards side by side
    (a hand turned up, a Hamrang pair), the one nearest ``near_px`` (image pixels)."""
    rows = [r for r in frames[min(frame, len(frames) - 1)]
            if r[1] == zone and r[6] and r[0] and (under_a_hand or r[5] >= 0.5)
            and (near_px is None or math.dist(r[2:4], near_px) <= NEAR * r[4])]
    if not rows:
        return None
    top = rows[-1]
    if near_px is not None and any(math.dist(r[2:4], top[2:4]) > SIDE_BY_SIDE_PX for r in rows):
        top = min(rows, key=lambda r: math.dist(r[2:4], near_px))
    return top[0]


SIDE_BY_SIDE_PX = 20  # cards on one zone this far apart lie side by side, not stacked
# a card the tracker saw (its track's centre) is one of the film's cards under it: within
# this many of a card's radii (a card beside it on the zone is another card)
NEAR = 1.5


def to_px(meta: dict, center_mm) -> tuple[float, float]:
    """A table point (mm) in the film's image."""
    h = np.array(meta["camera"]["homography_mm_to_px"])
    x, y, w = h @ np.array([center_mm[0], center_mm[1], 1.0])
    return float(x / w), float(y / w)


def last_laid_on(frames: list, frame: int, zone: str | None) -> str | None:
    """The last face-up card that lay on ``zone`` before ``frame``, seen or not (what a
    player says they played, asked about a card the camera never saw)."""
    return next((card for f in range(min(frame, len(frames) - 1), -1, -1)
                 if (card := truth_on(frames, f, zone, under_a_hand=True))), None)


UNSEEN_WINDOW = 900  # frames (30 s): a card asked about as unseen was laid within them


def unseen_card(meta: dict, seat: int | None, zone: str, frame: int,
                seen: set[str]) -> str | None:
    """What a player says, asked which card of theirs the camera never saw before their
    cards were gathered: the first card of their latest move filmed by then that is not
    among ``seen`` (the cards reported, or answered, on that zone lately); a zone no seat
    owns (or no such card): the last card laid there (``last_laid_on``)."""
    moves = [m for m in meta["moves"] if m["frame"] <= frame and m["move"]["player"] == seat
             and m["move"].get("cards")] if seat is not None else []
    missing = [c for c in moves[-1]["move"]["cards"] if c not in seen] if moves else []
    return missing[0] if missing else last_laid_on(meta["frame_truth"], frame, zone)


def run_video(video: Path, oracle: bool, answer_unsure: bool = False,
              enrolled: bool = False, doubtful: int | None | str = "served",
              by_elimination: bool = True, profile=None, answer_after: int = 0,
              draft=None, answer_who: bool = False, referees: list | None = None) -> dict:
    """``answer_unsure``: a player answers every unsure reading with the true card, as
    they would on the dashboard (the count of answers is the players' burden), what they saw
    when asked, ``answer_after`` frames later (one after another, as they tap).
    ``enrolled``: read with a profile enrolled from the film's own deck (``profile``, or
    by default the one ``enrolled_profile`` builds from the deck's pictures), reading
    ``doubtful`` unchanged doubtful cards a frame (None: all of them).
    ``by_elimination``: the referee's ruling of that name (``companion.referee.elimination``).
    ``draft``: a :class:`companion.web.draft.Draft` the cards the players named join, with
    their pictures, as at the table (``Pipeline.learnt``). ``answer_who``: a player also
    answers each "who laid it?" question (a two-card turn, a drawn card), and before which
    card a missed draw was, truthfully as it comes; otherwise the referee's likelier story
    stands. ``referees``: a list the run's referee is added to, to read its facts after."""
    from companion.games import get_game
    from companion.record import GameRecord
    from companion.referee import Referee
    from companion.web.vision_feed import judge
    meta = json.loads(video.with_suffix(".json").read_text())
    rec = GameRecord.from_json(meta["record"])
    game = get_game(rec.game)
    layout = load_layout(rec.game)
    detector = CardDetector()
    if oracle:
        from fixture_oracle import TruthOracle
        classifier = TruthOracle(video.with_suffix(".json"))
        detector = classifier.detector(detector)
    else:
        classifier = model_classifier(game.DECK)
        if classifier is None:
            return {}
        if enrolled:
            from companion.vision.classify import CardClassifier
            source = meta.get("source") or f"style-{meta['style']}"
            profile = profile or enrolled_profile(source, meta["seed"], game.DECK, classifier)
            classifier = CardClassifier(MODEL, profile=profile)
    reuse = None
    if enrolled:
        reuse = (served_reuse(classifier, doubtful_per_frame(classifier))
                 if doubtful == "served" else ReadingReuse(max_doubtful=doubtful))
    pipe = Pipeline(classifier, TableTracker(layout), detector=detector, reuse=reuse)
    referee = Referee(rec.game, rec.players, rec.options, layout,
                      by_elimination=by_elimination)
    if referees is not None:
        referees.append(referee)
    sightings, outputs = [], []
    centres: dict[int, tuple[float, float]] = {}  # track -> where its card lies (mm)
    answered = another = first = dismissed = 0
    # a face-up deal: the players tap "face-up cards picked up" once they have (if the
    # game still waits for them), as the Table page asks
    tap_at = picked_up_frame(meta) if answer_unsure else None
    waiting: list = []  # questions put to the players, in the order asked
    seen_who: set[int] = set()  # "who laid it?" questions put (``answer_who``)
    told_who = 0  # of those, answered
    laid_by = {c.id: m.player for m in map(game.public_move, rec.moves) for c in m.cards}
    bets = [m for m in rec.moves if m.action == "bet"]  # Komi's, said aloud, in order
    cards = deck_cards(game.DECK)
    t0 = time.perf_counter()
    n = 0
    told: list[tuple[str, int, str]] = []  # (zone, frame asked, card) the players named
    named_unseen: dict[int, str] = {}  # id of an "unseen" question -> the card named

    def seen_on(zone: str, frame: int) -> set[str]:
        """The cards reported or named on ``zone`` in the ``UNSEEN_WINDOW`` before ``frame``."""
        lately = range(frame - UNSEEN_WINDOW, frame + 1)
        return ({e.card_id for e in sightings if e.zone == zone and e.last_frame in lately}
                | {c for z, f, c in told if z == zone and f in lately})

    def answer(o, frame: int, timestamp: float) -> None:
        nonlocal answered, another, first, dismissed, outputs
        # what they saw then; if nothing lay in full view then (a card still landing, a
        # glimpse the tracker asks about as it went), what lies there as they answer; if a
        # hand rests over it, the card under it (its player knows it)
        at = to_px(meta, centres[o.track]) if o.track in centres else None
        truth = (unseen_card(meta, layout.zone(o.zone).seat, o.zone, o.frame,
                             seen_on(o.zone, o.frame)) if o.kind == "unseen"
                 else truth_on(meta["frame_truth"], o.frame, o.zone, near_px=at)
                 or truth_on(meta["frame_truth"], frame, o.zone, near_px=at)
                 or truth_on(meta["frame_truth"], o.frame, o.zone, True, at))
        if truth:
            answered += 1
            first += bool(o.choices) and truth == o.choices[0]  # the first button offered
            another += truth not in o.choices  # chosen from the deck's other cards
            told.append((o.zone, o.frame, truth))
            if o.kind == "unseen":
                named_unseen[id(o)] = truth
            said = referee.confirm(truth, o.zone, frame, timestamp, o.track)
            outputs += said
            # an answer can bring another question (players-over-an-earlier-reading)
            waiting.extend(q for q in said if q.kind in ASKS_FOR_A_CARD)
            pipe.tracker.name(o.track, truth, o.frame)  # as the dashboard tells it
        else:  # no card there then or now: "none of these"
            dismissed += 1
            outputs += referee.dismiss(o.zone, o.track)

    def frames():
        for frame in open_source(str(video)).frames():
            if oracle:
                classifier.frame = frame.index
            yield frame
    # as served (Pipeline.run): the next frame seen while this one is read; the oracle
    # reads the truth of the frame it was last told, so it goes one frame at a time
    art = None  # the pipeline's verdict on the deck's art (model alone)
    for r in pipe.stream(frames(), overlap=not oracle):
        n += 1
        art = r.art or art
        for card, picture in r.learnt if draft is not None else ():
            draft.learn(card, picture)
        sightings += [e for e in r.events]
        centres.update((e.track_id, e.center_mm) for e in r.events)
        # (a card named by elimination is told the tracker, as on the dashboard)
        said = judge(referee, pipe.tracker, r.events, r.frame_index, r.timestamp, r.motion_map)
        outputs += said
        # (a question can come with an answer about a card, or a correction: the story)
        for q in referee.outputs if answer_who else ():
            if q.kind == "question" and q.question_id not in seen_who:
                seen_who.add(q.question_id)
                pick = who_laid(q, laid_by, cards)
                if pick is None:
                    pick = drawn_before(q, rec.moves, cards)
                if pick is None:
                    pick = bet_said(q, bets)
                # (an earlier answer may have changed the story so that it is no longer
                # asked, as on the dashboard, where such an answer is refused)
                still = any(o.question_id == q.question_id for o in referee.outputs)
                if pick is not None and still:
                    told_who += 1
                    outputs += referee.answer(q.question_id, pick)
        # what the players are asked: the unsure cards the referee could not name, and the
        # readings it doubts (a card already played)
        waiting += [o for o in said if o.kind in ASKS_FOR_A_CARD] if answer_unsure else []
        # a question the tracker settled itself leaves the dashboard (``TableSession.settle``)
        settled = {e.track_id for e in r.events if e.kind == "appeared" and e.resolves}
        waiting = [o for o in waiting if o.track not in settled]
        while waiting and waiting[0].frame + answer_after <= r.frame_index:
            answer(waiting.pop(0), r.frame_index, r.timestamp)
        if tap_at is not None and r.frame_index >= tap_at:
            tap_at = None
            if showing(pictured_table(referee.engine)):
                outputs += referee.tell_shown(r.frame_index, r.timestamp)
    secs = time.perf_counter() - t0
    for o in waiting:  # the questions still open when the film ends
        answer(o, r.frame_index, r.timestamp)
    filmed = meta["moves"]
    truth_moves = [game.public_move(rec.moves[m["index"]]) for m in filmed]
    # every card laid on a zone, in order
    laid = [(c.id, f"pos{t}" if rec.game == "kendra-kari" else None)
            for m in truth_moves for c, t in zip(m.cards, (m.target.split(",") if m.target
                                                          else [""] * len(m.cards)))]
    laid_cards = [c for c, _ in laid]
    # the cards the referee named by elimination count as the tracker's sightings
    named = [TrackEvent("appeared", o.choices[0], (0.0, 0.0), o.zone, 1.0, o.frame, o.frame,
                        o.timestamp) for o in outputs if o.kind == "named"]
    named_at = {(e.zone, e.last_frame) for e in named}
    seen = [e for e in sightings if e.kind == "appeared" and e.card_id] + named
    right = [e for e in seen if e.card_id in laid_cards]
    frames = meta["frame_truth"]

    def there(e) -> bool:
        """The card lay in that zone around the frame the tracker reported it."""
        lo, hi = max(e.first_frame - 15, 0), min(e.last_frame + 15, len(frames) - 1)
        return any(row[0] == e.card_id and row[1] == e.zone
                   for f in range(lo, hi + 1) for row in frames[f])
    wrong_cards = [e.card_id for e in seen if not there(e)]
    # the done-when of issue 6: every laid card is reported, or asked about (unsure)
    asked = {truth_on(frames, f, e.zone, True, to_px(meta, e.center_mm)) for e in sightings
             if e.kind == "unsure" and (e.zone, e.last_frame) not in named_at
             for f in (e.first_frame, e.last_frame)}
    # a sure reading of a card already played is put to the players too (``doubt``)
    asked |= {truth_on(frames, o.frame, o.zone) for o in outputs if o.kind == "doubt"}
    # and a card a trick lacked when it was gathered (never seen: a hand lay over it)
    asked |= {named_unseen.get(id(o)) or unseen_card(
        meta, layout.zone(o.zone).seat, o.zone, o.frame, seen_on(o.zone, o.frame))
        for o in outputs if o.kind == "unseen"}
    missed = set(laid_cards) - {e.card_id for e in right} - asked
    rulings = referee.rulings()
    judged = [r.move for r in rulings]
    matched = lcs(judged, truth_moves)
    return {"video": video.name, "frames": n, "fps": n / secs, "truth_moves": len(truth_moves),
            "moves_found": matched, "moves_judged": len(judged),
            "cards_laid": len(laid), "sighted": len({e.card_id for e in right}),
            "wrong_card_ids": sorted(wrong_cards), "missed_ids": sorted(missed),
            "sightings": len(seen), "wrong_cards": len(wrong_cards), "missed": len(missed),
            "unsure": sum(e.kind == "unsure" for e in sightings), "named": len(named),
            "answered": answered, "another": another, "first": first, "dismissed": dismissed,
            "questions": sum(o.kind == "question" for o in referee.outputs), "told": told_who,
            "illegal": sum(r.verdict.value == "illegal" for r in rulings),
            "desync": sum(o.kind == "desync" for o in outputs),
            "doubts": sum(o.kind == "doubt" for o in outputs),
            "unseen": sum(o.kind == "unseen" for o in outputs),
            "art": (f"{art.sure}/{art.readings}{'' if art.familiar else ' new'}"
                    if art else "-")}


def who_laid(q, laid_by: dict[str, int], cards) -> int | None:
    """The true answer to a "Who laid <card> ...?" question: the choice that starts with
    the name of the seat that laid the card in the film's record (None: not such a
    question, or no choice names that seat first). ``cards``: the deck's."""
    from companion.games.base import seat_name
    card = next((c for c in cards
                 if re.match(re.escape(f"Who laid {c.name}") + "[ :]", q.text)), None)
    if card is None or card.id not in laid_by:
        return None
    who = seat_name(laid_by[card.id])
    return next((i for i, c in enumerate(q.choices)
                 if (m := re.match(r"Player \d+", c)) and m.group() == who), None)


def bet_said(q, bets: list) -> int | None:
    """The true answer to Komi's "What did Player N bet against the dealer?": that seat's
    next bet in the film's record (``bets``, used up as answered), or None."""
    from companion.games.base import seat_name
    m = re.match(r"What did (Player \d+) bet", q.text)
    bet = next((b for b in bets if m and seat_name(b.player) == m.group(1)), None)
    if bet is None:
        return None
    bets.remove(bet)
    return q.choices.index(f"{m.group(1)} bet {bet.target}")


def drawn_before(q, moves, cards) -> int | None:
    """The true answer to "... did Player N draw a card unseen?" (ruling
    *which-card-was-drawn*): the choice naming a card that Player N laid, in the film's
    record, right after a draw of theirs (None: not such a question, or no such choice).
    ``moves``: the record's; ``cards``: the deck's."""
    from companion.games.base import seat_name
    m = re.search(r"did (Player \d+) draw a card unseen\?$", q.text)
    if m is None:
        return None
    who = m.group(1)
    names = {c.name: c for c in cards}
    for i, choice in enumerate(q.choices):
        laid = re.fullmatch(re.escape(who) + r" drew unseen before laying (.+)", choice)
        card = names.get(laid.group(1)) if laid else None
        k = next((k for k, mv in enumerate(moves) if card in mv.cards
                  and mv.action != "draw"), None) if card else None
        mine = [mv for mv in moves[:k] if seat_name(mv.player) == who] if k else []
        if mine and mine[-1].action == "draw":
            return i
    return None


def picked_up_frame(meta: dict) -> int | None:
    """The first frame after a face-up deal's last show with no card on a play spot (the
    players have picked their face-up cards up), or None for a film without one."""
    shows = [m["frame"] for m in meta["moves"] if m["move"]["action"] == "show"]
    if not shows:
        return None
    frames = meta["frame_truth"]
    return next((f for f in range(max(shows), len(frames))
                 if not any((row[1] or "").startswith("play") for row in frames[f])), None)


def lcs(a: list, b: list) -> int:
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            dp[i + 1][j + 1] = dp[i][j] + 1 if a[i] == b[j] else max(dp[i][j + 1], dp[i + 1][j])
    return dp[-1][-1]


def _real_art_films(folder: Path) -> list[Path]:
    """The fixture films filmed again, shot for shot (same seed, camera, light and hands),
    with the PySolFC deck of each game's deck: a user's own deck the model never saw.
    A film already in ``folder`` (``--films``) is used again, not rendered."""
    from companion.games import get_game
    from companion.record import GameRecord
    from companion.synth.video import film_game
    out = []
    for video in sorted((ROOT / "fixtures" / "videos").glob("*.mp4")):
        meta = json.loads(video.with_suffix(".json").read_text())
        deck = get_game(GameRecord.from_json(meta["record"]).game).DECK
        film = folder / video.name
        if film.is_file() and film.with_suffix(".json").is_file():
            out.append(film)
            continue
        film_game(meta["game"], meta["players"], meta["seed"], film, style=meta["style"],
                  size=tuple(meta["size"]), max_moves=meta["filmed_moves"], hard=meta["hard"],
                  pace=meta["pace"], source=f"pysol-{deck.value}")
        out.append(film)
    return out


def bench_events(oracle: bool, enrolled: bool = False, real_art: Path | None = None,
                 doubtful: int | None | str = "served",
                 by_elimination: bool = True) -> list[dict]:
    videos = (_real_art_films(real_art) if real_art else
              sorted((ROOT / "fixtures" / "videos").glob("*.mp4")))
    rows = []
    for label, use_oracle, answer, profile in (
            ("shipped model", False, False, False),
            ("shipped model, players answer unsure", False, True, False),
            ("enrolled deck profile", False, False, True),
            ("enrolled deck profile, players answer unsure", False, True, True),
            ("ground-truth oracle", True, False, False)):
        if (use_oracle and not oracle) or (profile and not enrolled):
            continue
        res = [run_video(v, use_oracle, answer, profile, doubtful, by_elimination,
                         answer_who=answer) for v in videos]
        res = [r for r in res if r]
        if not res:
            print(f"\n## Events ({label}): skipped, no model in models/")
            continue
        print_events(f"Events on the fixture videos, classifier: {label}", res)
        rows += [{"classifier": label, **r} for r in res]
    print(LEGEND)
    return rows


def print_events(title: str, res: list[dict]) -> None:
    print(f"\n## {title}")
    print(f"{'video':24} {'moves':>9} {'judged':>6} {'cards':>9} {'wrong':>5} "
          f"{'unsure':>6} {'named':>5} {'missed':>6} {'answered':>8} {'first':>5} {'another':>7} "
          f"{'questions':>9} {'illegal':>7} {'desync':>6} {'doubt':>5} {'fps':>5}  art")
    for r in res:
        print(f"{r['video']:24} {r['moves_found']:4d}/{r['truth_moves']:<4d} "
              f"{r['moves_judged']:6d} {r['sighted']:4d}/{r['cards_laid']:<4d} "
              f"{r['wrong_cards']:5d} {r['unsure']:6d} {r['named']:5d} {r['missed']:6d} "
              f"{r['answered']:8d} {r['first']:5d} {r['another']:7d} {r['questions']:9d} "
              f"{r['illegal']:7d} "
              f"{r['desync']:6d} {r['doubts']:5d} {r['fps']:5.1f}  {r['art']}")


LEGEND = ("moves: referee moves equal to the filmed moves (in order) / filmed moves; cards: "
          "distinct laid cards the tracker reported (or the referee named) / cards laid; "
          "wrong: cards reported in a zone where the film's truth does not have them at "
          "that time; unsure: the tracker's; named: of those, named by the referee by "
          "elimination (not asked); answered: questions about a card the players answered "
          "(with the film's truth; \"players answer\" rows also answer each \"who laid it?\" "
          "question truthfully, the rest take the referee's likelier story); first: of "
          "those, answered with the first card offered; another: of those, answered with a "
          "card not among the readings offered (the deck's list); "
          "missed: laid cards neither reported nor asked about (unsure or doubt); desync: times the "
          "referee said the table and the game disagree; doubt: sure readings the referee "
          "asked about (a card already played); art: of the first face-up readings, those "
          "at the tracker's bar, and 'new' where the model does not know the deck's art "
          "(companion.vision.familiar; '-': a deck profile reads the cards)")
