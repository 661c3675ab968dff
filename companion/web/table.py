"""One table session: the active game, its referee, the store, and the change signal.

Everything that changes the table goes through :class:`TableSession` under one lock:
a move seen by the camera or clicked on the manual board, a correction, an answer to a
question. Each change is written to the store *before* ``version`` moves on, so every
browser (SSE) only ever shows what is already on disk. The game itself is rebuilt from
the stored moves, which makes a restart after ``kill -9`` and a correction the same
operation: replay the active moves through a fresh referee.
"""

from __future__ import annotations

import itertools
import random
import threading
from typing import Any

from companion.games import get_game
from companion.games.base import (
    IllegalMoveError,
    Move,
    OptionsError,
    RecordError,
    Ruling,
    UnknownGameError,
    options_from_json,
    options_to_json,
    seat_name,
)
from companion.referee.values import pictured_table, showing
from companion.store import Store, StoreError
from companion.web.cardinfo import answer_cards, deck_of, move_text, referee_view, zone_cards
from companion.web.table_values import CameraStatus, _announcement_items, _Live

WIN_KINDS = ("win", "winner", "game-over", "result")


class TableError(ValueError):
    """A request the table cannot carry out; the message is shown to the user as is."""


class TableSession:
    def __init__(self, store: Store, session_id: int | None = None, title: str = "Game night",
                 source: str = ""):
        self.store = store
        self.lock = threading.RLock()
        self.changed = threading.Condition()
        self.version = 0
        self.camera = CameraStatus(source=source)
        if session_id is None:
            session_id = store.latest_open_session()
        if session_id is None:
            session_id = store.new_session(title, source)
        self.session_id = session_id
        self.live: _Live | None = None
        # set by the capture thread: (kind, context, choice) -> None, for answers that its
        # feed's referee must hear (a vision question, an unsure card, a draw)
        self.answer_hook = None
        # the enrolment draft (companion.web.draft), told when a move's card is corrected
        self.draft = None
        games = store.games(session_id)
        if games and games[-1].ended is None:
            self._rebuild(games[-1].id)

    # ---- change signal ------------------------------------------------------------------

    def bump(self) -> None:
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def wait_change(self, seen: int, timeout: float) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.version != seen, timeout)
            return self.version

    def set_camera(self, **changes: Any) -> None:
        before = self.camera.to_json()
        for k, v in changes.items():
            setattr(self.camera, k, v)
        if {k: v for k, v in self.camera.to_json().items() if k not in ("fps", "frame")} != \
                {k: v for k, v in before.items() if k not in ("fps", "frame")}:
            self.bump()

    def new_session(self, title: str) -> int:
        """A new evening: the current game is abandoned, the old session closed."""
        with self.lock:
            if self.live is not None:
                self.store.end_game(self.live.game_id, {"text": "abandoned", "winners": [],
                                                        "scores": []})
                self.live = None
            self.store.close_session(self.session_id)
            self.session_id = self.store.new_session(title.strip()[:80] or "Game night",
                                                     self.camera.source)
        self.bump()
        return self.session_id

    # ---- games --------------------------------------------------------------------------

    @property
    def settings(self) -> dict[str, Any]:
        return self.store.session(self.session_id)["settings"]

    def start_game(self, game: str, players: int, seats: list[str] | None = None,
                   options: dict[str, Any] | None = None, manual: bool = False,
                   seed: int | None = None) -> int:
        try:
            module = get_game(game)
        except UnknownGameError as e:
            raise TableError(str(e)) from None
        if not isinstance(players, int) or isinstance(players, bool) or \
                not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise TableError(f"{module.TITLE} is for {module.MIN_PLAYERS}-{module.MAX_PLAYERS} "
                             f"players, not {players!r}")
        try:
            opts = options_from_json(module.Options, options or {})
        except OptionsError as e:
            raise TableError(str(e)) from None
        seats = [str(s).strip()[:40] or f"Player {i + 1}"
                 for i, s in enumerate((seats or [])[:players])]
        seats += [f"Player {i + 1}" for i in range(len(seats), players)]
        if manual and seed is None:
            seed = random.randrange(1_000_000)
        with self.lock:
            if self.live is not None:
                self.store.end_game(self.live.game_id, {"text": "abandoned", "winners": [],
                                                        "scores": []})
            settings = {"manual": manual, "seed": seed}
            game_id = self.store.new_game(self.session_id, module.NAME, players, seats,
                                          {**options_to_json(opts), "__table__": settings})
            self.store.announce(game_id, "start", f"{module.TITLE} begins: {', '.join(seats)}",
                                prominent=True)
            self._rebuild(game_id)
        self.bump()
        return game_id

    def _rebuild(self, game_id: int) -> None:
        row = self.store.game(game_id)
        module = get_game(row.game)
        raw = dict(row.options)
        table = raw.pop("__table__", {})
        opts = options_from_json(module.Options, raw)
        live = _Live(game_id, module, opts, module.TableReferee(row.players, opts))
        if table.get("manual"):
            live.manual_state = module.new_game(row.players, opts, table.get("seed"))
        for ev in self.store.events(game_id, kind="move"):
            move = Move.from_json(ev.payload["move"])
            if live.manual_state is not None:
                live.manual_state, _ = module.apply(live.manual_state, move)
            live.referee.observe(module.public_move(move))
            live.move_events.append(ev)
        self.live = live

    def _require_live(self) -> _Live:
        if self.live is None:
            raise TableError("no game is being played; start one on the Setup page")
        return self.live

    def end_game(self, winners: list[int] | None = None, text: str = "") -> dict[str, Any]:
        with self.lock:
            live = self._require_live()
            row = self.store.game(live.game_id)
            result = self._result(live)
            if result is None and live.module is not None:
                winners = [w for w in (winners or []) if isinstance(w, int)
                           and not isinstance(w, bool) and 0 <= w < row.players]
                names = " and ".join(row.seats[w] for w in winners) or "nobody"
                result = {"winners": winners, "scores": [1 if i in winners else 0
                                                         for i in range(row.players)],
                          "text": text[:200] or f"{names} won"}
            self.store.end_game(live.game_id, result)
            self.store.announce(live.game_id, "result", result["text"], prominent=True)
            self.live = None
        self.bump()
        return result

    def _result(self, live: _Live, ruling: Ruling | None = None) -> dict[str, Any] | None:
        """The result when the game is known to be over, else None: from the engine on the
        manual board, else from a referee that announced a win."""
        if live.manual_state is not None:
            if live.module.is_over(live.manual_state):
                return live.module.result(live.manual_state).to_json()
            return None
        wins = [e for e in (ruling.events if ruling else ()) if e.kind in WIN_KINDS]
        if not wins:
            return None
        players = self.store.game(live.game_id).players
        seen = getattr(live.referee, "state", None)
        winners = list(getattr(seen, "winners", ()) or ())
        winners = winners or sorted({e.player for e in wins if e.player is not None})
        scores: list[float] = [1 if i in winners else 0 for i in range(players)]
        # trick games: the cards each seat won decide (ties share the win)
        won = getattr(getattr(getattr(live.referee, "picture", None), "table", None), "won", None)
        if isinstance(won, tuple) and len(won) == players and won and not winners:
            best = max(won)
            winners = [i for i, n in enumerate(won) if n == best]
            scores = list(won)
        return {"winners": winners, "scores": scores, "text": " ".join(e.text for e in wins)}

    # ---- moves --------------------------------------------------------------------------

    def observe(self, move: Move, source: str = "camera", extra: dict | None = None):
        """Judge one move and store it with its ruling and announcements; then show it."""
        with self.lock:
            live = self._require_live()
            if live.manual_state is not None:
                try:
                    live.manual_state, _ = live.module.apply(live.manual_state, move)
                except IllegalMoveError as e:
                    raise TableError(f"not allowed: {e.reason}") from None
            public = live.module.public_move(move)
            ruling = live.referee.observe(public)
            # The table sees only the public move; the full one is kept on the manual board,
            # where the engine needs it to replay (a drawn card's identity).
            payload = {"move": (move if live.manual_state is not None else public).to_json(),
                       "public": public.to_json(), "ruling": ruling.to_json(),
                       "source": source, **(extra or {})}
            event, _ = self.store.append_event(live.game_id, "move", payload,
                                               _announcement_items(ruling))
            live.move_events.append(event)
            finished = self._result(live, ruling)
            if finished is not None:
                self.store.end_game(live.game_id, finished)
                if not any(e.kind in WIN_KINDS for e in ruling.events):
                    self.store.announce(live.game_id, "result", finished["text"],
                                        prominent=True)
                self.live = None
        self.bump()
        return event, ruling

    def correct(self, event_id: int, move_json: dict[str, Any] | None) -> dict[str, Any]:
        """Replace (or delete, with None) an observed move and re-judge from that point."""
        with self.lock:
            live = self._require_live()
            try:
                ev = self.store.event(event_id)
            except StoreError as e:
                raise TableError(str(e)) from None
            if ev.game_id != live.game_id or ev.kind != "move":
                raise TableError(f"event {event_id} is not a move of the current game")
            if ev.status != "active":
                raise TableError(f"event {event_id} was already corrected")
            if live.manual_state is not None:
                raise TableError("moves on the manual board are undone, not corrected")
            new_payload = None
            if move_json is not None:
                try:
                    move = Move.from_json(move_json)
                except RecordError as e:
                    raise TableError(str(e)) from None
                if move.player >= self.store.game(live.game_id).players:  # seats are 0-based
                    raise TableError(f"there is no seat {move.player + 1} at this table")
                public = live.module.public_move(move).to_json()
                new_payload = {**ev.payload, "move": public, "public": public,
                               "corrected": True}
            self.store.correct_event(event_id, new_payload,
                                     deck_profile=str(self.settings.get("deck_profile", "")))
            self._rejudge(live, ev.seq)
            if new_payload is not None:
                self._rename_learnt(ev.payload["move"], new_payload["move"], live.game_id)
        self.bump()
        return {"corrected": event_id, "from_seq": ev.seq}

    def _rename_learnt(self, before: dict[str, Any], after: dict[str, Any], game_id) -> None:
        """A card named wrongly at the table was kept in the enrolment draft under that
        name: a correction of its move names its picture right too."""
        old, new = before.get("cards", []), after.get("cards", [])
        if self.draft is None or len(old) != len(new):
            return
        for wrong, right in zip(old, new):
            if wrong != right:
                self.draft.rename_learnt(wrong, right, game_id)

    def _rejudge(self, live: _Live, from_seq: int) -> Ruling | None:
        """Re-judge every stored move; store new rulings from ``from_seq`` on; return the
        last ruling."""
        referee = live.module.TableReferee(self.store.game(live.game_id).players, live.options)
        rulings, ruling = {}, None
        events = self.store.events(live.game_id, kind="move")
        for ev in events:
            ruling = referee.observe(live.module.public_move(Move.from_json(ev.payload["move"])))
            if ev.seq >= from_seq:
                rulings[ev.id] = ({**ev.payload, "ruling": ruling.to_json()},
                                  _announcement_items(ruling))
        self.store.rejudge(live.game_id, from_seq, rulings)
        live.referee = referee
        live.move_events = self.store.events(live.game_id, kind="move")
        return ruling

    def undo_manual(self) -> None:
        with self.lock:
            live = self._require_live()
            if live.manual_state is None or not live.move_events:
                raise TableError("nothing to undo on the manual board")
            self.store.correct_event(live.move_events[-1].id, None, by_person=False)
            self.store.rejudge(live.game_id, live.move_events[-1].seq, {})
            self._rebuild(live.game_id)
        self.bump()

    def correct_seen_at(self, frame: Any, move: Move) -> None:
        """The feed's referee re-judged the move it saw at ``frame``: replace that stored
        move (or add it, when no stored move came from that frame)."""
        with self.lock:
            live = self._require_live()
            match = [e for e in live.move_events if e.payload.get("frame") == frame]
            if match:
                self.correct(match[-1].id, move.to_json())
            else:
                self.observe(move, source="camera", extra={"frame": frame})

    def sync_moves(self, moves: list[dict[str, Any]], frames: list[int],
                   seen_at: list[float]) -> None:
        """Make the stored moves the referee's story as it now stands, in its order.

        A move a person corrected or deleted on the dashboard stays as they left it (known
        by the frame its ruling names). The referee's other moves are matched with the
        story place by place: a move that changed, or that a card told late now precedes
        (the referee judges cards in the order they were laid), is replaced in its place,
        and everything after it re-judged; moves it took back are deleted; new ones are
        added at the end."""
        with self.lock:
            live = self._require_live()
            touched = {c["before"].get("frame") for c in self.store.corrections(live.game_id)
                       if c["before"]}
            stored = [e for e in live.move_events
                      if e.payload.get("frame") is not None
                      and e.payload.get("frame") not in touched]
            story = [(f, m, t) for f, m, t in zip(frames, moves, seen_at) if f not in touched]
            first_changed = None
            for event, told in itertools.zip_longest(stored, story[:len(stored)]):
                if told is not None and (event.payload.get("frame"), event.payload["move"]) \
                        == told[:2]:
                    continue
                new = None if told is None else {
                    **event.payload, "move": told[1], "public": told[1], "frame": told[0],
                    "seen_at": told[2], "corrected": True}
                self.store.correct_event(event.id, new, by_person=False)
                first_changed = min(first_changed or event.seq, event.seq)
            if first_changed is not None:
                last = self._rejudge(live, first_changed)
                finished = self._result(live, last) if last is not None else None
                if finished is not None and len(story) <= len(stored):
                    self.store.end_game(live.game_id, finished)
                    self.live = None
            for frame, move, seen in story[len(stored):]:
                if self.live is None:
                    break  # the story reached the end of the game
                self.observe(Move.from_json(move), source="camera",
                             extra={"frame": frame, "seen_at": seen})
        self.bump()

    def note(self, text: str, prominent: bool = False) -> None:
        """Something the table should know that is not a move (a draw seen, a desync)."""
        with self.lock:
            live = self._require_live()
            self.store.announce(live.game_id, "note", text[:300], prominent=prominent)
        self.bump()

    # ---- questions ----------------------------------------------------------------------

    def ask(self, kind: str, text: str, choices: list[dict[str, Any]],
            context: dict | None = None):
        with self.lock:
            live = self._require_live()
            row = self.store.add_pending(live.game_id, kind, {"text": text, "choices": choices,
                                                              "context": context or {}})
            self.store.announce(live.game_id, kind, text)
        self.bump()
        return row

    def settle(self, zone: str, card: str, track: int = -1) -> int:
        """The camera named a card it had asked about: its open questions about that zone
        are answered by the reading (nothing more to tap). Returns how many. ``track``: the
        tracker's, so that a question about an earlier card there stays open."""
        with self.lock:
            live = self._require_live()
            open_ = [p for p in self.store.pending(live.game_id) if p.kind == "unsure"
                     and (c := p.payload.get("context", {})).get("zone") == zone
                     and (track < 0 or c.get("track", track) == track)]
            for p in open_:
                self.store.resolve_pending(p.id, {"seen": card})
        if open_:
            self.bump()
        return len(open_)

    def answer(self, pending_id: int, choice: Any) -> dict[str, Any]:
        """A tap on one of a question's choices. Questions from the vision referee go back to
        it (through ``answer_hook``); it re-judges, and its corrections come back as moves."""
        with self.lock:
            live = self._require_live()
            rows = {p.id: p for p in self.store.pending(live.game_id)}
            if pending_id not in rows:
                raise TableError(f"no open question {pending_id} in the current game")
            p = rows[pending_id]
            allowed = [c.get("value") for c in p.payload.get("choices", [])]
            # which card it is: the readings offered, or any card of the game's deck (a
            # deck enrolled live offers the right card among its first three for about 93%
            # of the cards; "none of these" would leave the card out of the game)
            if choice not in allowed and not (p.kind == "unsure" and
                                              choice in {c.id for c in deck_of(live.module)}):
                more = " or a card of this game's deck" if p.kind == "unsure" else ""
                raise TableError(f"choice {choice!r} is not one of {allowed}{more}")
            self.store.resolve_pending(pending_id, choice)
            context = p.payload.get("context", {})
            out: dict[str, Any] = {"answered": pending_id}
            if p.kind == "unsure":
                # what the model read and what the players said, kept (nothing learns from it yet)
                self.store.record_correction(live.game_id, None,
                                             {"reading": context.get("reading"),
                                              "zone": context.get("zone")},
                                             {"card": choice},
                                             str(self.settings.get("deck_profile", "")))
            if p.kind == "unsure" and context.get("move") and choice != "none":
                move = Move.from_json({**context["move"], "cards": [choice]})
                event, _ = self.observe(move, source="confirmed",
                                        extra={"confirmed_from": pending_id})
                out["event"] = event.id
        self.bump()
        hook = self.answer_hook
        if context.get("via") == "vision" and hook is not None:
            hook(p.kind, context, choice)  # outside the lock: the feed takes its own
        return out

    def tell_draw(self, seat: int) -> None:
        """The one-tap "Player N drew" button, for the referee that follows the ring."""
        with self.lock:
            live = self._require_live()
            players = self.store.game(live.game_id).players
            if not 0 <= seat < players:
                raise TableError(f"there is no seat {seat + 1} at this table")
            self.store.announce(live.game_id, "draw", f"Told: {seat_name(seat)} drew a card")
        self.bump()
        if self.answer_hook is not None:
            self.answer_hook("draw", {"via": "vision"}, seat)

    def tell_shown(self) -> None:
        """The one-tap "face-up cards picked up", for a Ganjifa deal with face-up batches:
        the camera referee makes the shows it has not made with the cards it saw."""
        with self.lock:
            live = self._require_live()
            if not showing(pictured_table(live.referee)):
                raise TableError("the game is not waiting for face-up cards")
            self.store.announce(live.game_id, "shown", "Told: the face-up cards were picked up")
        self.bump()
        if self.answer_hook is not None:
            self.answer_hook("shown", {"via": "vision"}, None)

    # ---- views --------------------------------------------------------------------------

    def state_json(self) -> dict[str, Any]:
        with self.lock:
            live = self.live
            out: dict[str, Any] = {"version": self.version, "session": self.session_id,
                                   "camera": self.camera.to_json(), "game": None}
            if live is None:
                games = self.store.games(self.session_id)
                if games:  # the table shows how the last game ended until the next begins
                    last = games[-1]
                    out["last"] = {"game": last.game, "number": last.number,
                                   "title": get_game(last.game).TITLE,
                                   "result": (last.result or {}).get("text", "")}
                return out
            row = self.store.game(live.game_id)
            moves = [{"id": e.id, "seq": e.seq, "text": move_text(e.payload), **e.payload}
                     for e in live.move_events]
            ref = live.referee
            turn = referee_view(ref, ("current_player", "to_play", "turn"))
            # trick games keep the table (whose turn, cards left in each hand) in a picture
            pictured = pictured_table(ref)
            if turn is None:
                turn = getattr(pictured, "current", None)
            if live.manual_state is not None:
                turn = live.module.current_player(live.manual_state)
            hands = referee_view(ref, ("hand_counts", "hand_sizes", "counts"))
            if hands is None:
                hands = getattr(pictured, "hand_sizes", None) or None
            out["game"] = {**row.to_json(), "title": live.module.TITLE,
                           "options": {k: v for k, v in row.options.items() if k != "__table__"},
                           "manual": live.manual_state is not None,
                           "moves": moves[-60:], "move_count": len(moves), "turn": turn,
                           "hand_counts": list(hands) if hands is not None else None,
                           "showing": showing(pictured),
                           "zones": zone_cards(live.move_events, ref, live.module),
                           "pending": [p.to_json() for p in self.store.pending(live.game_id)],
                           "retracted": self.store.retracted(live.game_id)}
            if any(p["kind"] == "unsure" for p in out["game"]["pending"]):
                # for the answer "another card" (see ``answer``)
                out["game"]["cards"] = answer_cards(live)
            return out
