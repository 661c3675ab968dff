"""The JSON API and the live announcement stream (SSE).

Every handler validates its input and answers 4xx with a message a person can act on;
the only way a request changes the table is through :class:`TableSession`, which stores
before it shows.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from flask import Blueprint, Response, abort, jsonify, request

from companion.cards import CardIdError, DeckKind
from companion.games import game_names, get_game
from companion.games.base import Move, RecordError
from companion.layouts import LayoutError, load_layout
from companion.web import cardinfo, runtime
from companion.web.table import TableError

bp = Blueprint("api", __name__, url_prefix="/api")


# ---- validation helpers -------------------------------------------------------------------

def json_body(*fields: str) -> dict[str, Any]:
    """The request's JSON object, holding no fields but ``fields``."""
    if not request.is_json:
        abort(415, "send JSON with Content-Type: application/json")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, "the request body must be a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        abort(400, f"unknown field(s) {', '.join(map(repr, unknown))[:200]}; "
                   f"expected: {', '.join(fields)}")
    return data


def want(data: dict[str, Any], name: str, kind: type | tuple, required: bool = True,
         default: Any = None) -> Any:
    if name not in data or data[name] is None:
        if required:
            abort(400, f"'{name}' is required")
        return default
    value = data[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        abort(400, f"'{name}' must be {_kind_words(kinds)}, not true/false")
    if not isinstance(value, kinds):
        abort(400, f"'{name}' must be {_kind_words(kinds)}")
    return value


def _kind_words(kinds: tuple) -> str:
    words = {int: "a whole number", str: "a string", list: "a list", dict: "an object",
             bool: "true or false", float: "a number"}
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def int_arg(name: str, default: int, lo: int = 0, hi: int = 2**31) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        abort(400, f"query parameter '{name}' must be a whole number, got {raw[:30]!r}")
    if not lo <= value <= hi:
        abort(400, f"query parameter '{name}' must be between {lo} and {hi}")
    return value


def table_call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except TableError as e:
        abort(409 if "no game is being played" in str(e) else 400, str(e))


# ---- state ------------------------------------------------------------------------------

@bp.get("/state")
def state():
    return jsonify(runtime().table.state_json())


@bp.get("/games")
def games():
    out = []
    for name in game_names():
        out.append(cardinfo.game_info(get_game(name)))
    return jsonify(games=out)


@bp.get("/layout/<name>")
def layout(name: str):
    try:
        lay = load_layout(name[:40])
    except LayoutError as e:
        abort(404, str(e))
    return jsonify(game=lay.game, zones=[{"id": z.id, "kind": z.kind, "label": z.label,
                                          "x": z.center_mm[0], "y": z.center_mm[1],
                                          "seat": z.seat} for z in lay.zones])


@bp.get("/announcements")
def announcements():
    rt = runtime()
    rows = rt.store.announcements(session_id=rt.table.session_id,
                                  after_id=int_arg("after", 0), limit=int_arg("limit", 100, 1, 500))
    return jsonify(announcements=[a.to_json() for a in rows])


@bp.get("/stream")
def stream():
    """Server-sent events: ``announcement`` (id = stored id, so a reconnect resumes exactly
    where it left off) and ``state`` (the table changed: fetch /api/state)."""
    rt = runtime()
    last = request.headers.get("Last-Event-ID") or request.args.get("after")
    try:
        after = int(last) if last is not None else None
    except ValueError:
        abort(400, "Last-Event-ID must be a whole number")
    if after is None:  # a new page: the last few announcements, then live
        shown = 20  # and the one before them, whose id they come after
        newest = rt.store.announcements(session_id=rt.table.session_id, limit=shown + 1,
                                        newest=True)
        after = newest[-1].id if len(newest) > shown else 0

    def generate():
        seen_after, version = after, -1
        yield "retry: 1000\n\n"
        while True:
            rows = rt.store.announcements(session_id=rt.table.session_id, after_id=seen_after,
                                          limit=200)
            for a in rows:
                seen_after = a.id
                yield f"id: {a.id}\nevent: announcement\ndata: {json.dumps(a.to_json())}\n\n"
            if rt.table.version != version:
                version = rt.table.version
                yield f"event: state\ndata: {json.dumps({'version': version})}\n\n"
            if rt.table.wait_change(version, 15.0) == version:
                yield ": keep-alive\n\n"

    return Response(generate(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# ---- setting up and ending games --------------------------------------------------------

@bp.post("/setup")
def setup():
    data = json_body("game", "players", "seats", "options", "manual", "seed", "deck_profile",
                     "ask_every_doubt")
    game = want(data, "game", str)
    players = want(data, "players", int)
    seats = want(data, "seats", list, required=False, default=[])
    if not all(isinstance(s, str) for s in seats):
        abort(400, "'seats' must be a list of names")
    options = want(data, "options", dict, required=False, default={})
    manual = want(data, "manual", bool, required=False, default=False)
    seed = want(data, "seed", int, required=False)
    profile = want(data, "deck_profile", str, required=False, default="")
    every_doubt = want(data, "ask_every_doubt", bool, required=False, default=False)
    rt = runtime()
    game_id = table_call(rt.table.start_game, game[:40], players, seats, options, manual, seed)
    rt.store.update_session_settings(rt.table.session_id,
                                     {**rt.table.settings, "deck_profile": profile[:80],
                                      "ask_every_doubt": every_doubt})
    return jsonify(game_id=game_id), 201


@bp.post("/end")
def end():
    data = json_body("winners", "text")
    winners = want(data, "winners", list)
    live = runtime().table.live
    seats = runtime().store.game(live.game_id).players if live is not None else 0
    if not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w < seats
               for w in winners):
        abort(400, f"'winners' must be a list of seat numbers 0..{max(seats - 1, 0)}")
    text = want(data, "text", str, required=False, default="")
    return jsonify(result=table_call(runtime().table.end_game, winners, text))


# ---- moves, corrections, questions ------------------------------------------------------

def _move_from(data: dict[str, Any]) -> Move:
    try:
        return Move.from_json(want(data, "move", dict))
    except RecordError as e:
        abort(400, str(e))


@bp.post("/move")
def move():
    """A move entered by hand (manual board, or a table without a camera)."""
    rt = runtime()
    m = _move_from(json_body("move"))
    live = rt.table.live
    if live is not None and m.player >= rt.store.game(live.game_id).players:
        abort(400, f"there is no seat {m.player + 1} at this table")
    event, ruling = table_call(rt.table.observe, m, "manual")
    return jsonify(event=event.id, ruling=ruling.to_json()), 201


@bp.get("/legal")
def legal():
    live = runtime().table.live
    if live is None or live.manual_state is None:
        abort(409, "legal moves are listed for a game played on the manual board")
    moves = live.module.legal_moves(live.manual_state)
    return jsonify(player=live.module.current_player(live.manual_state),
                   moves=[{"move": m.to_json(), "text": str(m)} for m in moves],
                   view=cardinfo.manual_view(live.module, live.manual_state))


@bp.post("/undo")
def undo():
    table_call(runtime().table.undo_manual)
    return jsonify(ok=True)


@bp.post("/moves/<int:event_id>/correct")
def correct(event_id: int):
    data = json_body("move", "delete")
    if data.get("delete") is True:
        out = table_call(runtime().table.correct, event_id, None)
    else:
        try:
            move_json = Move.from_json(want(data, "move", dict)).to_json()
        except RecordError as e:
            abort(400, str(e))
        out = table_call(runtime().table.correct, event_id, move_json)
    return jsonify(out)


@bp.post("/draw")
def draw():
    """The one-tap "who drew?" answer the ring referee needs when it could not see it."""
    seat = want(json_body("seat"), "seat", int)
    table_call(runtime().table.tell_draw, seat)
    return jsonify(ok=True)


@bp.post("/shown")
def shown():
    """The one-tap "face-up cards picked up" of a Ganjifa deal with face-up batches."""
    table_call(runtime().table.tell_shown)
    return jsonify(ok=True)


@bp.post("/pending/<int:pending_id>")
def answer(pending_id: int):
    data = json_body("choice")
    if "choice" not in data:
        abort(400, "'choice' is required")
    choice = data["choice"]
    if not isinstance(choice, (str, int)) or isinstance(choice, bool):
        abort(400, "'choice' must be one of the offered values")
    return jsonify(table_call(runtime().table.answer, pending_id, choice))


# ---- played cards, learning -------------------------------------------------------------

@bp.get("/tracker")
def tracker():
    rt = runtime()
    deck_name = request.args.get("deck")
    live = rt.table.live
    try:
        deck = DeckKind.parse(deck_name) if deck_name else None
    except CardIdError as e:
        abort(400, str(e))
    return jsonify(cardinfo.tracker(live, deck))


@bp.get("/card/<card_id>")
def card(card_id: str):
    try:
        return jsonify(cardinfo.card_info(card_id[:40], request.args.get("game", "")[:40],
                                          request.args.get("order", "")[:20]))
    except (CardIdError, ValueError) as e:
        abort(400, str(e))


# ---- scoreboard and exports -------------------------------------------------------------

@bp.post("/session")
def new_session():
    """Start a new evening (session); the old one stays on the scoreboard."""
    title = want(json_body("title"), "title", str, required=False, default="Game night")
    return jsonify(session=runtime().table.new_session(title)), 201

def _session_arg() -> int:
    rt = runtime()
    return int_arg("session", rt.table.session_id, 1)


@bp.get("/scoreboard")
def scoreboard():
    return jsonify(cardinfo.scoreboard(runtime().store, _session_arg()))


@bp.get("/export.json")
def export_json():
    rt = runtime()
    sid = _session_arg()
    records = [cardinfo.game_record(rt.store, g) for g in rt.store.games(sid)]
    body = json.dumps({"session": _session_or_404(sid), "games": records}, indent=1)
    return Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="session-{sid}.json"'})


@bp.get("/export.csv")
def export_csv():
    rt = runtime()
    sid = _session_arg()
    _session_or_404(sid)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["session", "round", "game", "started", "ended", "seat", "name", "score",
                "winner", "result"])
    for g in rt.store.games(sid):
        res = g.result or {}
        scores = res.get("scores") or []
        for seat, name in enumerate(g.seats):
            w.writerow([sid, g.number, g.game, g.started, g.ended or "", seat + 1, name,
                        scores[seat] if seat < len(scores) else "",
                        "yes" if seat in (res.get("winners") or []) else "",
                        res.get("text", "")])
    return Response(buf.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="session-{sid}.csv"'})


def _session_or_404(sid: int) -> dict[str, Any]:
    from companion.store import StoreError
    try:
        return runtime().store.session(sid)
    except StoreError as e:
        abort(404, str(e))
