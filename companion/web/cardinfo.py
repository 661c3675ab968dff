"""What the pages show, as JSON: games and their options, a card for the Learn page, the
played-cards tracker, the scoreboard and game records. Pure functions of store rows and
game modules; no Flask here."""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Any

from companion.cards import (
    Card,
    DeckKind,
    RankOrder,
    deck_cards,
    ranks_high_to_low,
    strength,
    suits_of,
)
from companion.games import get_game
from companion.games.base import Move, UnknownGameError
from companion.record import FORMAT
from companion.store import GameRow, Store


def game_info(module: Any) -> dict[str, Any]:
    """A game and its options, with the allowed values, for the Setup form."""
    hints = typing.get_type_hints(module.Options)
    defaults = module.Options()
    options = []
    for f in dataclasses.fields(module.Options):
        hint = hints[f.name]
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if args and not (isinstance(hint, type)):
            hint = args[0]
        value = getattr(defaults, f.name)
        entry: dict[str, Any] = {"name": f.name,
                                 "default": value.value if isinstance(value, enum.Enum) else value}
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            entry["type"], entry["choices"] = "choice", [m.value for m in hint]
        elif hint is bool:
            entry["type"] = "bool"
        elif hint is int:
            entry["type"] = "int"
        else:
            entry["type"] = "str"
        options.append(entry)
    deck = getattr(module, "DECK", None)
    return {"name": module.NAME, "title": module.TITLE, "min_players": module.MIN_PLAYERS,
            "max_players": module.MAX_PLAYERS, "deck": deck.value if deck else None,
            "options": options, "doc": (module.__doc__ or "").strip().split("\n\n")[0]}


# Number cards are called by their Hindi numerals at the table; the faces by title.
_HINDI = {1: "ek", 2: "do", 3: "teen", 4: "chaar", 5: "paanch", 6: "chhah", 7: "saat",
          8: "aath", 9: "nau", 10: "das"}


def _rank_order_of(options: Any) -> RankOrder:
    for name in ("rank_order", "order", "ranks"):
        value = getattr(options, name, None)
        if isinstance(value, RankOrder):
            return value
    return RankOrder.TRADITIONAL


def card_info(card_id: str, game: str = "", order: str = "") -> dict[str, Any]:
    """The Learn page's card: names, suit colour and emblem, rank, and its place in the
    rank order of the game being played (reversed suits!)."""
    card = Card.parse(card_id)
    rank_order = RankOrder.parse(order) if order else RankOrder.TRADITIONAL
    info = card.suit.info
    ladder = ranks_high_to_low(card.suit, rank_order)
    out: dict[str, Any] = {
        "id": card.id, "name": card.name,
        "indian_name": f"{_HINDI.get(card.rank.value, card.rank.indian_name)} · {card.suit.title}",
        "suit": card.suit.value, "suit_english": info.english, "emblem": info.symbol,
        "colour": info.colour, "rgb": list(info.rgb), "deck": info.deck.value,
        "rank": card.rank.english, "is_face": card.rank.is_face, "weak_suit": info.weak,
        "rank_order": rank_order.value, "strength": strength(card, rank_order),
        "ladder": [r.english for r in ladder],
        "place": ladder.index(card.rank) + 1,
        "note": ("In this suit the number cards run backwards under the traditional order: "
                 "1 is the highest number and 10 the lowest." if info.weak and
                 rank_order is RankOrder.TRADITIONAL and not card.rank.is_face else ""),
    }
    if game:
        try:
            module = get_game(game)
        except UnknownGameError as e:
            raise ValueError(str(e)) from None
        out["game"] = module.NAME
        deck = getattr(module, "DECK", None)
        if deck is not None and deck is not card.deck:
            out["in_game"] = f"{module.TITLE} is played with the {deck.value} deck, " \
                             f"so this card is not in it"
        if module.NAME == "kendra-kari":
            same = [c.id for c in deck_cards(card.deck)
                    if c != card and c.same_suit_or_rank(card)]
            out["plays_on"] = {
                "text": f"It links to any card of {card.suit.title} or any other "
                        f"{card.rank.english}: {len(same)} cards of the deck.",
                "cards": same}
    return out


def tracker(live: Any, deck: DeckKind | None) -> dict[str, Any]:
    """Suits x ranks for one deck: each card played, exposed (on the table now), known (seen
    in a hand), unbeatable (nothing left above it) or unseen. A referee that keeps its own
    tracker (Ganjifa: who provably holds the top cards) is asked; else the moves decide."""
    game_deck = getattr(live.module, "DECK", None) if live is not None else None
    deck = deck or game_deck or DeckKind.MUGHAL
    order = _rank_order_of(live.options) if live is not None else RankOrder.TRADITIONAL
    own = getattr(live.referee, "tracker", None) if live is not None else None
    if callable(own) and deck is game_deck:
        return _referee_tracker(own().to_json(), deck)
    played: set[str] = set()
    exposed: set[str] = set()
    if live is not None:
        for ev in live.move_events:
            if ev.payload.get("ruling", {}).get("verdict") == "illegal":
                continue
            played.update(ev.payload.get("public", ev.payload["move"]).get("cards", []))
        exposed = {cards[-1] for cards in zone_cards(live.move_events, live.referee,
                                                     live.module).values() if cards}
    suits = []
    for suit in suits_of(deck):
        ranks = ranks_high_to_low(suit, order)
        cells = []
        top_left = next((r for r in ranks if Card(suit, r).id not in played), None)
        for r in ranks:
            cid = Card(suit, r).id
            # the highest card still to come beats the suit only once a higher one is gone
            status = ("exposed" if cid in exposed else "played" if cid in played
                      else "unbeatable" if r == top_left and r != ranks[0] else "unseen")
            cells.append({"id": cid, "rank": r.english, "status": status})
        suits.append({"suit": suit.value, "title": suit.title, "rgb": list(suit.info.rgb),
                      "weak": suit.info.weak, "cards": cells})
    return {"deck": deck.value, "rank_order": order.value, "suits": suits,
            "played": len(played), "total": len(deck_cards(deck))}


_REFEREE_STATES = {"played": "played", "in-trick": "exposed", "exposed": "known",
                   "shown": "known", "unplayed": "unseen"}


def _referee_tracker(data: dict[str, Any], deck: DeckKind) -> dict[str, Any]:
    suits, played = [], 0
    for row in data["suits"]:
        suit = Card.parse(row["cards"][0]["card"]).suit
        cells = []
        for c in row["cards"]:
            status = "unbeatable" if c.get("unbeatable") else _REFEREE_STATES.get(c["state"],
                                                                                  "unseen")
            played += c["state"] in ("played", "in-trick")
            cells.append({"id": c["card"], "rank": Card.parse(c["card"]).rank.english,
                          "status": status, "seat": c.get("seat")})
        suits.append({"suit": suit.value, "title": suit.title, "rgb": list(suit.info.rgb),
                      "weak": suit.info.weak, "cards": cells})
    return {"deck": deck.value, "rank_order": "as the game ranks them", "suits": suits,
            "played": played, "total": len(deck_cards(deck))}


def game_record(store: Store, g: GameRow) -> dict[str, Any]:
    """A finished or running game as a record (docs/records.md), as the table saw it."""
    moves, events = [], []
    for ev in store.events(g.id, kind="move"):
        moves.append(ev.payload["move"])
        events.append(ev.payload.get("ruling", {}).get("events", []))
    options = {k: v for k, v in g.options.items() if k != "__table__"}
    table = g.options.get("__table__", {})
    return {"format": FORMAT, "game": g.game, "players": g.players, "seats": list(g.seats),
            "options": options, "seed": table.get("seed") if table.get("manual") else None,
            "deal": "unknown", "moves": moves, "events": events, "result": g.result,
            "round": g.number, "started": g.started, "ended": g.ended}


def scoreboard(store: Store, session_id: int) -> dict[str, Any]:
    """Rounds of the evening per game, and totals per player name (wins and points)."""
    session = store.session(session_id)
    by_game: dict[str, list[dict[str, Any]]] = {}
    totals: dict[str, dict[str, float]] = {}
    for g in store.games(session_id):
        res = g.result or {}
        row = {"id": g.id, "round": g.number, "game": g.game, "seats": list(g.seats),
               "result": res.get("text", "playing" if g.ended is None else ""),
               "winners": [g.seats[w] for w in res.get("winners", []) if 0 <= w < len(g.seats)],
               "scores": res.get("scores", []), "ended": g.ended}
        by_game.setdefault(g.game, []).append(row)
        if g.ended is None or res.get("text") == "abandoned":
            continue
        for seat, name in enumerate(g.seats):
            t = totals.setdefault(name, {"wins": 0, "points": 0.0, "rounds": 0})
            t["rounds"] += 1
            if seat in res.get("winners", []):
                t["wins"] += 1
            scores = res.get("scores") or []
            if seat < len(scores) and isinstance(scores[seat], (int, float)):
                t["points"] += scores[seat]
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1]["wins"], -kv[1]["points"]))
    return {"session": session, "games": by_game,
            "titles": {game: _title(game) for game in by_game},
            "totals": [{"name": n, **t} for n, t in ranked],
            "sessions": [{"id": s["id"], "title": s["title"], "created": s["created"]}
                         for s in store.sessions()]}


def _title(game: str) -> str:
    """A game's name for people; a record of a game this version no longer has keeps its id."""
    try:
        return get_game(game).TITLE
    except UnknownGameError:
        return game


def manual_view(module: Any, state: Any) -> dict[str, Any]:
    """What the manual board draws: the player to act's hand (it is their turn at a shared
    screen), the public piles, and any board of pits, found by duck typing the state."""
    view: dict[str, Any] = {"player": module.current_player(state), "over": module.is_over(state)}
    seat = view["player"]
    hand_of = getattr(module, "hand_of", None)
    if callable(hand_of) and seat is not None:
        try:
            view["hand"] = [c.id for c in hand_of(state, seat)]
        except (TypeError, ValueError, IndexError, AttributeError):
            pass
    for name in ("pits", "board", "holes"):
        value = getattr(state, name, None)
        if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
            view["pits"] = list(value)
            neutral = getattr(module, "NEUTRAL", ())
            view["neutral"] = list(neutral) if isinstance(neutral, tuple) else []
            break
    stores = getattr(state, "stores", None) or getattr(state, "captured", None)
    if isinstance(stores, (tuple, list)) and all(isinstance(v, int) for v in stores):
        view["stores"] = list(stores)
    if view["over"]:
        view["result"] = module.result(state).to_json()
    return view


def zone_cards(move_events, referee: Any = None, module: Any = None) -> dict[str, list[str]]:
    """What lies in each zone: from the referee's own view of the table when it keeps one
    (Kendra Kari's ``tops``: Position 7, then ring positions 1..6), else the last cards the
    accepted moves put on each target (card i of a move goes to target i)."""
    tops = getattr(getattr(referee, "state", None), "tops", None)
    cards_of = getattr(module, "CARDS", None)
    if isinstance(tops, tuple) and cards_of is not None:
        out = {}
        for pos, c in enumerate(tops):
            if isinstance(c, int) and 0 <= c < len(cards_of):
                out[str(pos if pos else 7)] = [cards_of[c].id]
        return out
    trick = getattr(getattr(getattr(referee, "picture", None), "table", None), "trick", None)
    if isinstance(trick, tuple):  # trick games: the cards of the trick in front of each seat
        out = {}
        for seat, card in trick:
            out.setdefault(f"play{seat}", []).append(card.id)
        return out
    zones: dict[str, list[str]] = {}
    for ev in move_events:
        if ev.payload.get("ruling", {}).get("verdict") == "illegal":
            continue
        m = ev.payload.get("public", ev.payload["move"])
        targets = [t.strip() for t in str(m.get("target", "")).split(",") if t.strip()]
        cards = m.get("cards", [])
        if not targets or not cards:
            continue
        for k, card in enumerate(cards):
            zones.setdefault(targets[min(k, len(targets) - 1)], []).append(card)
    return {k: v[-4:] for k, v in zones.items()}


def move_text(payload: dict[str, Any]) -> str:
    """The move in words: the referee's own sentence when it made one."""
    events = payload.get("ruling", {}).get("events", [])
    if events and payload.get("ruling", {}).get("verdict") != "illegal":
        return events[0]["text"]
    return str(Move.from_json(payload["move"]))


def referee_view(obj: Any, names: tuple[str, ...]) -> Any:
    """A referee's view of turn or hand counts, on the referee or on its ``state``."""
    for name in names:
        v = getattr(obj, name, None)
        if v is None:
            v = getattr(getattr(obj, "state", None), name, None)
        if v is None:
            continue
        try:
            return v() if callable(v) else v
        except (TypeError, ValueError, AttributeError):
            return None  # a referee that cannot say (yet) shows nothing
    return None


def deck_of(module) -> list[Card]:
    """The cards of a game's deck, in deck order ([] for a game without cards)."""
    deck = getattr(module, "DECK", None)
    return deck_cards(deck) if deck is not None else []


GONE_GROUP = "played or on the table"
_GONE = ("played", "exposed")


def answer_cards(live: Any) -> list[list[str]]:
    """The cards a player may give for "which card is it?", as [id, name, group]: by suit in
    the tracker's order, then the cards played or lying on the table in a group of their own.
    Those stay choosable, because a card read wrongly earlier may be the one asked about now."""
    if not deck_of(live.module):
        return []
    rows = [[c["id"], Card.parse(c["id"]).name, GONE_GROUP if c["status"] in _GONE else s["title"]]
            for s in tracker(live, None)["suits"] for c in s["cards"]]
    return sorted(rows, key=lambda r: r[2] == GONE_GROUP)  # stable: suits keep their order
