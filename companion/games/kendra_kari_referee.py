"""The Kendra Kari table referee: judges the game as the table (the camera) sees it.

It sees every card laid on a position and every card turned up, and that a player drew,
but never a hand. From the deal's shape and the moves it keeps what the table can know:
each seat's hand *count*, the stock count, the ring, whose turn it is and the phase. So it
checks matches, positions, bridges, turn order, the nine-card limit and cards seen twice,
and announces bridges, new phases and the winner when a seat reaches no cards.

What it cannot know is reported as unverifiable, never as legal: a draw or a pass is the
claim "I cannot play" (2011: "an infraction of this rule is virtually impossible to
detect, the game relies upon players' honesty"). After a draw, a play by the drawer is the
drawn card ("it must be played immediately"): its match and position are checked; if the
next player acts instead, the drawn card was kept.

Ruling *illegal-followed-as-seen*: an illegal move is reported once, then the referee
follows the table as it now is (a card laid stays where it lies and the turn passes on
from the player who moved), so one mistake does not make every later move illegal. If
the table takes the move back, ``undo()`` forgets it.
"""

from __future__ import annotations

from typing import NamedTuple

from companion.cards import Card
from companion.games import kendra_kari_rules as kk
from companion.games.base import (
    Event,
    Move,
    Ruling,
    Verdict,
    announcement,
    check_players,
    seat_name,
)

NORMAL, START, TURNUP, OVER, DEAL = range(5)


class Seen(NamedTuple):
    """What the table knows after each observed move."""

    counts: tuple[int, ...]  # cards in each hand
    stock: int
    tops: tuple[int, ...]
    last: int
    table: int  # mask of the cards on the table in this phase
    captured: int  # mask of the gathered cards
    out: int  # every card seen leaving a hand and not back in the stock
    turn: int
    stage: int
    drawer: int  # seat that drew a card it may still have to play, else -1
    prev_ninth: int  # last_ninth before that draw (restored if the drawn card is played)
    turned: int  # a turned-up card that must be played now, else -1
    passes: int
    last_ninth: int
    winners: tuple[int, ...]
    hidden: int  # captured cards never seen (an unseen Position 7 card)


class Illegal(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TableReferee:
    """``observe(move) -> Ruling`` for public moves, one by one; ``undo()`` steps back."""

    def __init__(self, players: int, options: kk.Options | None = None):
        check_players(players, kk.MIN_PLAYERS, kk.MAX_PLAYERS, kk.TITLE)
        self.players = players
        self.options = options or kk.Options()
        stock = len(kk.CARDS) - players * kk.HAND_SIZE - 1
        # ``tops[0] = -2``: the Position 7 card is dealt but not yet seen. The ``deal`` move
        # shows it; a record without one leaves the first match unverifiable.
        start = Seen((kk.HAND_SIZE,) * players, stock, (-2,) + kk.EMPTY_TOPS[1:], 0, 0, 0, 0,
                     0, DEAL, -1, -1, -1, 0, -1, (), 0)
        self.history: list[Seen] = [start._replace(turn=kk.dealer(self))]

    @property
    def state(self) -> Seen:
        return self.history[-1]

    def undo(self) -> None:
        if len(self.history) > 1:
            self.history.pop()

    def next_position(self) -> int | None:
        """The ring position (1-6) the next card is played to, or None outside normal
        play (the deal, a phase to begin, the game over)."""
        s = self.state
        return kk.NEXT[s.last] if s.stage == NORMAL and s.tops[s.last] >= 0 else None

    def cannot_play(self, seat: int) -> Move:
        """What ``seat`` does when they cannot play: draw, or, with the 2011 book's nine-card
        limit and nine cards in hand, pass ("if a player already has nine cards in their
        hand, they don't pick up, but simply pass"). Neither shows a card to the table."""
        nine = self.options.hand_limit_nine and self.state.counts[seat] >= kk.NINE
        return Move(seat, "pass" if nine else "draw")

    def could_lie(self, position: int) -> tuple[Card, ...] | None:
        """The cards, not seen played, that the rules let be laid on ``position`` (7 for
        Position 7) now: "a card with either the same suit or the same rank as the most
        recently played card ... on the next position", or on Position 7 one that "also
        shares its suit or its rank with the card directly opposite". None where the rules
        leave the card open (the deal, a new phase) or lay nothing there now. A help to find
        a card, not a verdict: a second card of a two-card turn is judged from the first."""
        s = self.state
        last = s.tops[s.last] if s.stage == NORMAL else -1
        if last < 0:
            return None
        index = 0 if position == 7 else position
        opposite = s.tops[kk.OPP[s.last]] if s.last > 0 else -1
        if index == kk.NEXT[s.last]:
            def fits(c: int) -> bool:
                return kk.matches(c, last)
        elif index == 0 and opposite >= 0:
            def fits(c: int) -> bool:
                return kk.matches(c, last) and kk.matches(c, opposite)
        else:
            return None
        return tuple(card for c, card in enumerate(kk.CARDS)
                     if fits(c) and not (s.out >> c) & 1)

    def observe(self, move: Move) -> Ruling:
        s = self.state
        try:
            verdict, reason, new, events = self._judge(s, move)
        except Illegal as e:
            self.history.append(self._as_seen(s, move))
            return Ruling(move, Verdict.ILLEGAL, e.reason)
        self.history.append(new)
        return Ruling(move, verdict, reason, tuple(events))

    def _as_seen(self, s: Seen, move: Move) -> Seen:
        """The table after an illegal move, taken as it physically is."""
        seat = move.player
        if s.stage in (OVER, DEAL) or not 0 <= seat < self.players:
            return s
        try:
            cards = tuple(kk.INDEX[c] for c in move.cards)
        except KeyError:
            return s
        targets = kk.parse_targets(move, len(cards)) if cards else None
        nxt = kk.next_seat(self, seat)
        count = s.counts[seat]
        base = s._replace(drawer=-1, prev_ninth=-1, turned=-1, passes=0)
        if move.action == "draw":
            return base._replace(counts=self._count(s, seat, count + 1),
                                 stock=max(s.stock - 1, 0), turn=nxt)
        if move.action == "pass":
            return base._replace(turn=nxt)
        if targets is None or move.action not in ("play", "bridge", "start"):
            return s
        laid = sum(1 << c for c in cards)
        counts = self._count(s, seat, max(count - len(cards), 0))
        if move.action == "bridge" or 0 in targets and move.action != "start":
            return base._replace(counts=counts, tops=kk.EMPTY_TOPS, last=-1, table=0,
                                 captured=s.captured | s.table | laid, out=s.out | laid,
                                 stage=START, turn=seat)
        fresh = move.action == "start" and s.stage == START
        tops, table = (kk.EMPTY_TOPS, 0) if fresh else (s.tops, s.table)
        for c, t in zip(cards, targets):
            tops = tops[:t] + (c,) + tops[t + 1:]
        return base._replace(counts=counts, tops=tops, last=targets[-1], table=table | laid,
                             out=s.out | laid, stage=NORMAL, turn=nxt)

    @staticmethod
    def _count(s: Seen, seat: int, n: int) -> tuple[int, ...]:
        return s.counts[:seat] + (n,) + s.counts[seat + 1:]

    # ---- judging -------------------------------------------------------------------------

    def _judge(self, s: Seen, move: Move) -> tuple[Verdict, str, Seen, list[Event]]:
        if s.stage == OVER:
            raise Illegal("The game is over")
        if not 0 <= move.player < self.players:
            raise Illegal(f"There is no {seat_name(move.player)} at this table")
        try:
            cards = tuple(kk.INDEX[c] for c in move.cards)
        except KeyError:
            raise Illegal(f"{move.cards} is not a card of the Mughal deck") from None
        seen = [c for c in cards if (s.out >> c) & 1]
        if seen and move.action != "draw":
            raise Illegal(f"{kk.NAMES[seen[0]]} was already played: a card cannot appear twice")
        if len(set(cards)) != len(cards):
            raise Illegal("The same card cannot be played twice")
        if s.stage == DEAL:
            if move.action == "deal":
                return self._deal(s, move, cards)
            s = s._replace(stage=NORMAL, turn=0)  # no deal seen: Position 7 stays unknown
        elif move.action == "deal":
            raise Illegal("The card on Position 7 is dealt once, at the start of the game")
        if s.drawer == move.player:
            return self._after_draw(s, move, cards)
        if move.player != s.turn:
            raise Illegal(f"Not your turn: it is {seat_name(s.turn)}'s turn, not "
                          f"{seat_name(move.player)}'s")
        if s.drawer >= 0:  # the drawer's card was kept, so it is theirs now
            ninth = s.last_ninth
            s = s._replace(drawer=-1, prev_ninth=-1, last_ninth=ninth)
        handler = {"play": self._play, "bridge": self._bridge, "start": self._start,
                   "draw": self._draw, "pass": self._pass, "turnup": self._turnup}.get(move.action)
        if handler is None:
            raise Illegal(f"Unknown action {move.action!r}")
        if s.stage == START and move.action != "start":
            raise Illegal(f"{seat_name(s.turn)} built a bridge and must begin the new phase "
                          "with a card on Position 7")
        if s.stage == TURNUP and move.action != "turnup":
            raise Illegal("Every player holds nine cards and none can play: "
                          f"{seat_name(s.turn)} turns up cards from the stock")
        if s.turned >= 0 and (move.action not in ("play", "bridge") or not cards
                                or cards[0] != s.turned):
            raise Illegal(f"The turned-up {kk.NAMES[s.turned]} must be played now")
        if len(cards) > s.counts[move.player]:
            raise Illegal(f"{seat_name(move.player)} has only {s.counts[move.player]} "
                          f"card{'s' if s.counts[move.player] != 1 else ''} in hand")
        return handler(s, move, cards)

    def _deal(self, s: Seen, move: Move, cards: tuple[int, ...]):
        if move.player != s.turn:
            raise Illegal(f"Not your turn: {seat_name(s.turn)} deals")
        if len(cards) != 1 or move.target != "7":
            raise Illegal("The deal lays one card face up on Position 7")
        c = cards[0]
        events = [Event("deal", f"{seat_name(s.turn)} deals six cards each and lays "
                        f"{kk.NAMES[c]} face up on Position 7", s.turn, move.cards)]
        return Verdict.LEGAL, "", s._replace(tops=(c,) + s.tops[1:], table=1 << c,
                                             out=1 << c, stage=NORMAL, turn=0), events

    def _match_unseen(self, s: Seen) -> bool:
        return s.last == 0 and s.tops[0] == -2

    def _laid(self, s: Seen, seat: int, n: int, events: list[Event], **changes) -> Seen:
        counts = s.counts[:seat] + (s.counts[seat] - n,) + s.counts[seat + 1:]
        if counts[seat] == 0:
            events.append(kk.ev_win(seat))
            changes["stage"] = OVER
            return s._replace(counts=counts, winners=(seat,), passes=0, turned=-1, **changes)
        return s._replace(counts=counts, passes=0, turned=-1, **changes)

    def _lay_one(self, s: Seen, move: Move, card: int, target: int, how: str = ""):
        problem = None if self._match_unseen(s) and target == 1 else kk.play_problem(
            s.tops, s.last, card, target)
        if problem:
            raise Illegal(problem)
        tops = s.tops[:target] + (card,) + s.tops[target + 1:]
        return tops, kk.ev_play(move.player, card, target, how)

    def _play(self, s: Seen, move: Move, cards: tuple[int, ...], how: str = "",
              turn: int | None = None):
        if len(cards) != 1:
            raise Illegal("Play one card to the next position (two cards only to bridge)")
        targets = kk.parse_targets(move, 1)
        if targets is None:
            raise Illegal(f"Wrong position: the next position is {kk.NEXT[s.last]}, not "
                          f"{move.target!r}")
        tops, ev = self._lay_one(s, move, cards[0], targets[0], how)
        events = [ev]
        verdict = Verdict.LEGAL
        reason = ""
        if self._match_unseen(s):
            verdict = Verdict.UNVERIFIABLE
            reason = "The card dealt to Position 7 was not seen, so the match cannot be checked"
        new = self._laid(s, move.player, 1, events, tops=tops, last=targets[0],
                         table=s.table | 1 << cards[0], out=s.out | 1 << cards[0],
                         turn=kk.next_seat(self, move.player) if turn is None else turn)
        return verdict, reason, new, events

    def _bridge(self, s: Seen, move: Move, cards: tuple[int, ...]):
        if len(cards) not in (1, 2):
            raise Illegal("A bridge is one card to Position 7, or one card to the next position "
                          "and then one to Position 7")
        targets = kk.parse_targets(move, len(cards))
        if targets is None or targets[-1] != 0:
            raise Illegal(f"Wrong position: a bridge goes to Position 7, not {move.target!r}")
        tops, last, table, events = s.tops, s.last, s.table, []
        if len(cards) == 2:
            tops, ev = self._lay_one(s, move, cards[0], targets[0])
            last, table = targets[0], table | 1 << cards[0]
            events.append(ev)
        problem = kk.bridge_problem(tops, last, cards[-1])
        if problem:
            if len(cards) == 2:
                problem = "Second card did not bridge: " + problem.partition(": ")[2]
            raise Illegal(problem)
        events.extend(kk.ev_bridge(move.player, cards[-1], last))
        table |= 1 << cards[-1]
        new = self._laid(s, move.player, len(cards), events, tops=kk.EMPTY_TOPS, last=-1,
                         table=0, captured=s.captured | table, out=s.out | table,
                         stage=START, hidden=s.hidden + (s.tops[0] == -2))
        return Verdict.LEGAL, "", new, events

    def _start(self, s: Seen, move: Move, cards: tuple[int, ...]):
        if s.stage != START:
            raise Illegal("A new phase begins only after a bridge, by the player who built it")
        if len(cards) not in (1, 2):
            raise Illegal("A new phase begins with one card on Position 7, or with a second "
                          "card on Position 1")
        if kk.parse_targets(move, len(cards)) != (0, 1)[:len(cards)]:
            raise Illegal(f"Wrong position: a new phase begins on Position 7"
                          f"{' then position 1' if len(cards) == 2 else ''}, not "
                          f"{move.target!r}")
        second = cards[1] if len(cards) == 2 else None
        problem = kk.start_problem(cards[0], second)
        if problem:
            raise Illegal(problem)
        tops = cards[:2] + kk.EMPTY_TOPS[len(cards):]
        laid = sum(1 << c for c in cards)
        events = kk.ev_start(move.player, cards[0], second)
        new = self._laid(s, move.player, len(cards), events, tops=tops, last=len(cards) - 1,
                         table=laid, out=s.out | laid, stage=NORMAL,
                         turn=kk.next_seat(self, move.player))
        return Verdict.LEGAL, "", new, events

    def _take(self, s: Seen, seat: int) -> tuple[Seen, list[Event]] | None:
        """The stock is needed: reshuffle the captured cards, or end on the fewest cards
        (returns None then)."""
        if s.stock > 0:
            return s._replace(stock=s.stock - 1), []
        if (self.options.stock_exhausted is kk.StockExhausted.RESHUFFLE and s.captured):
            n = s.captured.bit_count() + s.hidden
            return (s._replace(stock=n - 1, captured=0, hidden=0, out=s.out & ~s.captured),
                    [announcement("reshuffle", kk.EV_RESHUFFLE)])
        return None

    def _fewest(self, s: Seen) -> tuple[Seen, list[Event]]:
        low = min(s.counts)
        winners = tuple(i for i, n in enumerate(s.counts) if n == low)
        ev, _ = kk.ev_fewest(winners, s.counts)
        return s._replace(stage=OVER, winners=winners), [ev]

    def _draw(self, s: Seen, move: Move, cards: tuple[int, ...]):
        seat = move.player
        claim = f"{seat_name(seat)} says they cannot play; the table cannot see their hand"
        if move.target:
            raise Illegal(f"A draw takes no target, not {move.target!r}")
        if self.options.hand_limit_nine and s.counts[seat] >= kk.NINE:
            raise Illegal(f"{seat_name(seat)} holds nine cards and passes instead of drawing")
        taken = self._take(s, seat)
        if taken is None:
            new, events = self._fewest(s)
            return Verdict.UNVERIFIABLE, claim, new, events
        s, events = taken
        events.append(Event("draw", f"{seat_name(seat)} cannot play and draws a card", seat))
        counts = s.counts[:seat] + (s.counts[seat] + 1,) + s.counts[seat + 1:]
        opening_2011 = self.options.first_play_2011 and s.last == 0
        may_play = self.options.play_drawn_card and not opening_2011
        ninth = seat if counts[seat] == kk.NINE else s.last_ninth
        new = s._replace(counts=counts, turn=kk.next_seat(self, seat), passes=0,
                         drawer=seat if may_play else -1, prev_ninth=s.last_ninth,
                         last_ninth=ninth)
        return Verdict.UNVERIFIABLE, claim, new, events

    def _after_draw(self, s: Seen, move: Move, cards: tuple[int, ...]):
        """The drawer acts again: only the drawn card, to the next position."""
        if move.action == "bridge":
            raise Illegal("Drawn card used to bridge: a card just drawn cannot build a bridge, "
                          "and after playing it the turn ends")
        if move.action == "draw":
            raise Illegal(f"{seat_name(move.player)} already drew this turn")
        if move.action != "play":
            raise Illegal(f"After drawing, {seat_name(move.player)} may only play the drawn "
                          "card to the next position")
        s = s._replace(drawer=-1, last_ninth=s.prev_ninth, prev_ninth=-1)
        return self._play(s, move, cards, "the drawn card ", turn=s.turn)

    def _pass(self, s: Seen, move: Move, cards: tuple[int, ...]):
        seat = move.player
        if not self.options.hand_limit_nine:
            raise Illegal("A player who cannot play draws a card; passing is only for the "
                          "nine-card limit (option hand_limit_nine)")
        if cards or move.target:
            raise Illegal("A pass lays no card")
        if s.counts[seat] < kk.NINE:
            raise Illegal(f"{seat_name(seat)} holds {s.counts[seat]} cards, fewer than nine, "
                          "and must draw")
        events = [Event("pass", f"{seat_name(seat)} holds nine cards, cannot play and passes",
                        seat)]
        claim = f"{seat_name(seat)} says they cannot play; the table cannot see their hand"
        if s.passes + 1 >= self.players:
            turner = s.last_ninth if s.last_ninth >= 0 else kk.next_seat(self, seat)
            events.append(kk.ev_turn_ups(turner))
            return (Verdict.UNVERIFIABLE, claim,
                    s._replace(stage=TURNUP, turn=turner, passes=0), events)
        return (Verdict.UNVERIFIABLE, claim,
                s._replace(turn=kk.next_seat(self, seat), passes=s.passes + 1), events)

    def _turnup(self, s: Seen, move: Move, cards: tuple[int, ...]):
        seat = move.player
        if s.stage != TURNUP:
            raise Illegal("Cards are turned up only when every player holds nine cards and "
                          "none can play")
        if move.target:
            raise Illegal(f"A turnup takes no target, not {move.target!r}")
        taken = self._take(s, seat)
        if taken is None:
            if cards:
                raise Illegal("The stock is empty: no card can be turned up")
            new, events = self._fewest(s)
            return Verdict.LEGAL, "", new, events
        if len(cards) != 1:
            raise Illegal("Turn up one card from the stock")
        s, events = taken
        card = cards[0]
        if kk.matches(card, s.tops[s.last]):
            events.append(Event("turnup", f"{seat_name(seat)} turns up {kk.NAMES[card]}: "
                                "playable, and plays it as a card from the hand", seat,
                                (kk.CARDS[card],)))
            counts = s.counts[:seat] + (s.counts[seat] + 1,) + s.counts[seat + 1:]
            return Verdict.LEGAL, "", s._replace(counts=counts, stage=NORMAL, turned=card), events
        events.append(Event("turnup", f"{seat_name(seat)} turns up {kk.NAMES[card]}: not "
                            "playable, out of the game", seat, (kk.CARDS[card],)))
        return Verdict.LEGAL, "", s._replace(out=s.out | 1 << card), events
