"""The table referee for Ganjifa with Denis: it sees the table, never the hands.

"If a card is played erroneously, it can easily spoil the game. Players should therefore
keep watch, and if anyone leads a beatable card to a trick or gives a Deni while another
player still has a higher card in the suit other than the one called for, the other players
should immediately call out the error and the move must be withdrawn."

The camera cannot see who holds what, but hands only shrink: a card a player puts down
was in their hand at every earlier moment. So each lead, Deni, high-card sacrifice and pass
leaves a *claim* about the hands, and the referee calls the error the moment a card put
down later disproves it (ruling *call-on-proof*). A move is judged:

- ``illegal`` when the table proves it wrong (the reason quotes the book and names the
  move to withdraw; ``undo()`` restores the state before the last move);
- ``unverifiable`` when it is a claim about the mover's own hidden hand that nobody at the
  table can check (a pass, a sacrifice), or a trick ends without the card it called for
  and the table cannot yet tell who is at fault;
- ``legal`` otherwise: a lead or a Deni stands until disproved, because the book gives the
  other players, who see their own hands, the duty to call it (ruling *benefit-of-doubt*).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.cards import Card, Suit
from companion.games.base import Move, Ruling, Verdict, announcement, seat_name
from companion.games.ganjifa_table import (
    Kind,
    Options,
    Phase,
    Table,
    advance,
    new_table,
    rules_for,
)

ARITY = {"lead": 1, "follow": 1, "sacrifice": 1, "deni": 2, "double": 2, "pass": 0}


@dataclass(frozen=True)
class Claim:
    kind: str  # lead, deni-above, deni-own, called, sacrifice-high, target, no-unbeatable
    step: int  # the move it was made at (1-based)
    seat: int  # who made it
    card: Card | None
    before: frozenset[Card] = frozenset()  # no-unbeatable: cards played before the claim


@dataclass(frozen=True)
class Picture:
    table: Table
    step: int = 0
    claims: tuple[Claim, ...] = ()
    revealed: tuple[frozenset[Card], ...] = ()  # every card each seat has shown or put down
    shown: tuple[frozenset[Card], ...] = ()  # face-up batches of the deal
    trick_step: int = 0  # the move that led the current trick

    def known(self, seat: int) -> frozenset[Card]:
        """Cards the table has seen in ``seat``'s hand (shown at the deal or exposed)."""
        t = self.table
        return (self.shown[seat] | t.exposed[seat]) - t.played


@dataclass(frozen=True)
class Cell:
    card: Card
    state: str  # unplayed, played, in-trick, exposed, shown
    seat: int | None  # who played it, or who is known to hold it
    unbeatable: bool  # provably unbeatable for its known holder


@dataclass(frozen=True)
class Tracker:
    """Suits x ranks (high to low in the game's ranking), for the dashboard's grid."""

    rows: tuple[tuple[Suit, tuple[Cell, ...]], ...]
    highest_unplayed: tuple[tuple[Suit, Card | None], ...]

    def to_json(self) -> dict[str, Any]:
        return {"suits": [{"suit": s.value, "cards": [
            {"card": c.card.id, "state": c.state, "seat": c.seat, "unbeatable": c.unbeatable}
            for c in cells]} for s, cells in self.rows],
            "highest_unplayed": {s.value: c.id if c else None for s, c in self.highest_unplayed}}


def track(pic: Picture) -> Tracker:
    t, rules = pic.table, pic.table.rules
    in_trick = {c for _, c in t.trick}
    known = [pic.known(s) for s in range(t.players)]
    rows, highest = [], []
    for suit in rules.suits:
        cells, clear = [], True  # clear: every higher card is played or held by ``holder``
        holder: int | None = None
        for c in rules.order[suit]:
            if c in t.played:
                who = next((s for s in range(t.players) if c in pic.revealed[s]), None)
                cells.append(Cell(c, "in-trick" if c in in_trick else "played", who, False))
                continue
            seat = next((s for s in range(t.players) if c in known[s]), None)
            if holder is None and seat is not None and clear:
                holder = seat
            unb = clear and seat is not None and seat == holder
            if not unb:
                clear = False
            state = "exposed" if seat is not None and c in t.exposed[seat] else \
                "shown" if seat is not None else "unplayed"
            cells.append(Cell(c, state, seat, unb))
        rows.append((suit, tuple(cells)))
        highest.append((suit, next((c for c in rules.order[suit] if c not in t.played), None)))
    return Tracker(tuple(rows), tuple(highest))


class TableReferee:
    """Judges public moves one by one; ``undo()`` takes the last observed move back."""

    def __init__(self, players: int, options: Options | None = None):
        rules = rules_for(options if options is not None else Options(), players)
        empty = (frozenset(),) * players
        self.picture = Picture(new_table(rules), revealed=empty, shown=empty)
        self._history: list[Picture] = []

    def undo(self) -> None:
        if self._history:
            self.picture = self._history.pop()

    def tracker(self) -> Tracker:
        return track(self.picture)

    def observe(self, move: Move) -> Ruling:
        pic = self.picture
        self._history.append(pic)
        step = pic.step + 1
        wrong = _impossible(pic, move)
        if wrong:
            # The move does not fit the table at all; the picture waits for it to be taken
            # back (undo) and is otherwise unchanged.
            self.picture = replace(pic, step=step)
            return Ruling(move, Verdict.ILLEGAL, wrong,
                          (_withdraw(wrong, move.player, move.cards),))
        errors = _known_errors(pic, move)
        calls, claims = _refute(pic, move)
        t = pic.table
        table, events = advance(t, move)
        seat = move.player
        revealed = pic.revealed[:seat] + (pic.revealed[seat] | frozenset(move.cards),) \
            + pic.revealed[seat + 1:]
        shown = pic.shown
        if move.action == "show":
            shown = shown[:seat] + (frozenset(move.cards),) + shown[seat + 1:]
        trick_step = step if t.phase is not Phase.FOLLOW else pic.trick_step
        doubt = ""
        if not errors:
            new, doubt = _new_claims(pic, move, step)
            claims += new
        if t.phase is Phase.FOLLOW and table.phase is not Phase.FOLLOW:
            in_trick = {c for _, c in t.trick} | set(move.cards)
            wanted = t.deni.called if t.kind is Kind.DENI and t.deni else \
                t.target if t.kind is Kind.SACRIFICE else None
            leader = t.deni.giver if t.deni else t.leader
            if wanted is not None and wanted not in in_trick:
                kind = "called" if t.kind is Kind.DENI else "target"
                claims += (Claim(kind, pic.trick_step, leader, wanted),)
                doubt = (f"the trick ended without the {wanted.name}, which "
                         f"{'the Deni called for' if kind == 'called' else 'had to be played'}"
                         ": whoever holds it did not play it, or the lead was wrong; the table "
                         "cannot tell which yet")
        self.picture = Picture(table, step, claims, revealed, shown, trick_step)
        if errors or calls:
            reasons = errors + [r for r, _ in calls]
            # A withheld card is the holder's error; every other claim is its maker's.
            offenders = [seat] * len(errors) + [seat if c.kind in ("called", "target")
                                                else c.seat for _, c in calls]
            # The card each call is about: the move's own, or the earlier claim's.
            about = [move.cards] * len(errors) + [(c.card,) if c.card else move.cards
                                                  for _, c in calls]
            return Ruling(move, Verdict.ILLEGAL, reasons[0],
                          tuple(_withdraw(r, o, cs)
                                for r, o, cs in zip(reasons, offenders, about))
                          + tuple(events))
        if doubt:
            return Ruling(move, Verdict.UNVERIFIABLE, doubt, tuple(events))
        return Ruling(move, Verdict.LEGAL, "", tuple(events))


def _withdraw(reason: str, offender: int, cards: tuple[Card, ...]):
    return announcement("withdraw", f"Error: {reason}", offender, cards)


def _impossible(pic: Picture, m: Move) -> str:
    """Why a move cannot have happened at this point of the table, or ''."""
    t = pic.table
    r, n, p, a, cards = t.rules, t.players, m.player, m.action, m.cards
    if not 0 <= p < n:
        return f"there is no {seat_name(p)} in a {n}-player game"
    if t.phase is Phase.OVER:
        return "the game is over"
    need = dict(ARITY, show=r.face_up_count)
    if a not in need:
        return f"unknown action {a!r}; the actions are {', '.join(sorted(need))}"
    if len(cards) != need[a] and not (a == "show" and len(cards) < need[a]):
        # (ruling *shown-as-seen*: a show lists the face-up cards the table saw, which at
        # a camera table may be fewer than were dealt)
        return f"a {a} puts down {need[a]} card(s), not {len(cards)}"
    if len(set(cards)) != len(cards):
        return "the same card twice"
    for c in cards:
        if c not in r.cards:
            return f"the {c.name} is not a card of the {r.options.deck.value} deck"
        if c in t.played:
            return f"the {c.name} has already been played"
        for q in range(n):
            if q != p and c in pic.known(q):
                return f"the {c.name} is in {seat_name(q)}'s hand: the table has seen it"
    if t.phase is Phase.SHOW:
        if a != "show":
            return "the face-up batches of the deal are shown first"
        if p != t.queue[0]:
            return f"it is {seat_name(t.queue[0])}'s turn to show their face-up cards"
        return ""
    if a == "show":
        return "face-up cards are shown only at the deal"
    if t.phase is Phase.OPENING:
        if a != "lead" or cards[0] != r.leading:
            return f"the game opens with the leading Raja, the {r.leading.name}"
        return ""
    if t.hand_sizes[p] < len(cards):
        return f"{seat_name(p)} has no cards left"
    if t.phase is Phase.LEAD:
        if a in ("follow", "double"):
            return f"no card has been led: it is {seat_name(t.leader)}'s lead"
        if p != t.leader:
            return f"it is {seat_name(t.leader)}'s lead, not {seat_name(p)}'s"
        if a == "deni":
            low, high = cards
            if low.suit is not high.suit or r.power[low] >= r.power[high]:
                return "a Deni leads a lower card of the same suit as the card it exposes"
            if not t.unplayed_above(high):
                return (f"nothing can beat the {high.name}: it is unbeatable, so it is led, "
                        "not given as a Deni")
        if a == "sacrifice" and not t.unplayed_above(cards[0]):
            return f"the {cards[0].name} is unbeatable: it must be led, not given up"
        return ""
    if a not in ("follow", "double"):
        return (f"the trick is not complete: {seat_name(t.queue[0])} still has to play "
                "(each player plays one card for each card led)")
    if p != t.queue[0]:
        if p not in t.queue:
            return (f"{seat_name(p)} has already played to this trick: each player plays one "
                    "card for each card led")
        return f"it is {seat_name(t.queue[0])}'s turn to play to the trick"
    if a == "double":
        d = t.deni
        if t.kind is not Kind.DENI or d is None:
            return "only a Deni can be doubled"
        if d.doubled_by is not None or p == d.giver:
            return "the Deni is doubled once, by the holder of the called-for card"
        if cards[0] != d.called or d.double_card is None or cards[1] != d.double_card:
            below = d.double_card.name if d.double_card else "nothing"
            return (f"a Deni for the {d.called.rank.indian_name} is doubled with the "
                    f"{d.called.name} and the card one rank below the {d.high.name} ({below})")
    return ""


def _known_unbeatable(pic: Picture, seat: int) -> list[Card]:
    """Cards the table has seen in ``seat``'s hand that are provably unbeatable."""
    t, known = pic.table, pic.known(seat)
    return [c for c in t.rules.sort(known) if all(x in known for x in t.unplayed_above(c))]


def _known_errors(pic: Picture, m: Move) -> list[str]:
    """Errors proved by what the table already shows (the move still lies on the table)."""
    t, r, p, a, cards = pic.table, pic.table.rules, m.player, m.action, m.cards
    out = []
    holder = {c: q for q in range(t.players) if q != p for c in pic.known(q)}
    if a == "lead" and t.phase is Phase.LEAD:
        for x in t.unplayed_above(cards[0]):
            if x in holder:
                out.append(f"a beatable card was led: {seat_name(holder[x])} holds the "
                           f"{x.name}, which beats the {cards[0].name}")
    elif a == "deni":
        unb = [c.suit for c in _known_unbeatable(pic, p)]
        twice = next((s for s in unb if unb.count(s) > 1), None)
        if twice is not None:
            out.append(f"{seat_name(p)} holds two unbeatable {twice.title} cards: all unbeatable "
                       "cards except the lowest in each suit must be led before a Deni")
        above = t.unplayed_above(cards[1])
        called = above[0]
        if called in pic.known(p):
            out.append(f"a Deni for the {called.rank.indian_name} by the holder of the "
                       f"{called.name}: the {cards[1].name} could not be beaten")
        for x in above[1:]:
            if x in holder:
                out.append(f"a Deni was given while {seat_name(holder[x])} holds the {x.name}, "
                           "a higher card than the one called for")
            elif r.options.deni == "traditional":
                out.append(f"a traditional Deni needs the second-highest unplayed card; the "
                           f"{x.name} is also unplayed")
    elif a in ("pass", "sacrifice"):
        if a == "pass" and not t.led_this_turn:
            out.append("with no unbeatable card led this turn, the leader gives up their "
                       "highest card in a suit instead of passing the lead")
        if a == "sacrifice" and t.led_this_turn:
            out.append("after leading unbeatable cards the lead passes to the right; only a "
                       "leader with no unbeatable card gives up a high card")
        if a == "sacrifice":
            higher = [x for x in pic.known(p) if x.suit is cards[0].suit
                      and r.power[x] > r.power[cards[0]]]
            if higher:
                out.append(f"the {cards[0].name} is not the leader's highest: they hold the "
                           f"{higher[0].name}")
        u = _known_unbeatable(pic, p)
        if u:
            out.append(f"{seat_name(p)} holds the {u[0].name}, which is unbeatable and must be "
                       "led")
    elif a in ("follow", "double") and t.phase is Phase.FOLLOW:
        d = t.deni
        if d is not None and p == d.giver and cards[0].suit is not d.high.suit:
            out.append(f"the Deni-giver must play another card of the same suit "
                       f"({d.high.suit.title})")
        wanted = d.called if d is not None and t.kind is Kind.DENI else \
            t.target if t.kind is Kind.SACRIFICE else None
        if wanted is not None and wanted not in cards and wanted in pic.known(p) \
                and (d is None or p != d.giver):
            out.append(f"{seat_name(p)} holds the {wanted.name}, which must be played to "
                       "this trick")
    return out


def _refute(pic: Picture, m: Move) -> tuple[list[tuple[str, Claim]], tuple[Claim, ...]]:
    """Earlier claims that the cards of ``m`` disprove, and the claims that remain."""
    if m.action in ("pass",) or not m.cards:
        return [], pic.claims
    power, q = pic.table.rules.power, m.player
    seen = pic.revealed[q] | frozenset(m.cards)
    calls, keep = [], []
    for cl in pic.claims:
        reason = ""
        for x in m.cards:
            reason = _disproves(cl, q, x, power, seen, pic)
            if reason:
                break
        if reason:
            calls.append((reason, cl))
        else:
            keep.append(cl)
    return calls, tuple(keep)


def _disproves(cl: Claim, q: int, x: Card, power: dict[Card, int], seen: frozenset[Card],
               pic: Picture) -> str:
    mine = q == cl.seat
    c = cl.card
    if cl.kind == "no-unbeatable":
        if not mine or x in cl.before:
            return ""
        order = pic.table.rules.order[x.suit]
        if not all(y in cl.before or y in seen for y in order[:order.index(x)]):
            return ""
    elif c is None or x.suit is not c.suit:  # every other claim is about one suit
        return ""
    s, who, by = cl.step, seat_name(cl.seat), seat_name(q)
    if cl.kind == "no-unbeatable":
        return (f"{who} gave up the lead at move {s} while holding the {x.name}, which was "
                f"unbeatable and had to be led: withdraw move {s}")
    assert c is not None
    higher = power[x] > power[c]
    if cl.kind == "lead" and not mine and higher:
        return (f"{who} led the {c.name} at move {s} as unbeatable, but {by} held the {x.name}, "
                f"which beats it: a beatable card was led; withdraw move {s}")
    if cl.kind == "deni-above" and not mine and higher:
        return (f"{who} gave a Deni for the {c.rank.indian_name} at move {s} while {by} held "
                f"the {x.name}, a higher card than the one called for: withdraw move {s}")
    if cl.kind == "deni-own" and mine and x == c:
        return (f"{who} gave a Deni for the {c.rank.indian_name} at move {s} while holding the "
                f"{c.name}: their card could not be beaten; withdraw move {s}")
    if cl.kind == "called" and not mine and x == c:
        return (f"{by} held the {c.name}, called for by the Deni at move {s}, and did not play "
                f"it: the called-for card must be played; withdraw back to move {s}")
    if cl.kind == "sacrifice-high" and mine and higher:
        return (f"{who} gave up the {c.name} at move {s} as their highest {c.suit.title} but "
                f"held the {x.name}: withdraw move {s}")
    if cl.kind == "target" and not mine and x == c:
        return (f"{by} held the {c.name}, the highest {c.suit.title}, when {who} gave up their "
                f"highest {c.suit.title} at move {s}, and did not play it: the highest card "
                f"must be played; withdraw back to move {s}")
    return ""


def _new_claims(pic: Picture, m: Move, step: int) -> tuple[tuple[Claim, ...], str]:
    t, p, a, cards = pic.table, m.player, m.action, m.cards
    if a == "lead" and t.phase is Phase.LEAD:
        return (Claim("lead", step, p, cards[0]),), ""
    if a == "deni":
        called = t.unplayed_above(cards[1])[0]
        return (Claim("deni-above", step, p, called), Claim("deni-own", step, p, called)), ""
    if a == "sacrifice":
        return ((Claim("sacrifice-high", step, p, cards[0]),
                 Claim("no-unbeatable", step, p, None, t.played)),
                (f"the table cannot see that {seat_name(p)} has no unbeatable card and that "
                 f"the {cards[0].name} is their highest {cards[0].suit.title}"))
    if a == "pass":
        return ((Claim("no-unbeatable", step, p, None, t.played),),
                f"the table cannot see that {seat_name(p)} has no unbeatable card left")
    return (), ""
