"""Kendra Kari (केंद्र कड़ी, "Central Link"), Adrian Morgan's 2015 rules, with the 2011
draft ("My Ganjifa game, as yet untitled") as options on the same engine.

Rule books: ``seeds/kendra-kari-2015.txt`` (the default) and
``seeds/kendra-kari-2011-untitled.txt``. Every rule is quoted in the docstring of the code
that implements it; ``docs/rulings/kendra-kari.md`` maps each rule to its code and test.

Move vocabulary (``target`` lists the position of each card, in order, comma-separated):

- ``deal``   the dealer lays the face-up card on Position 7 (target ``"7"``), first move;
- ``play``   one card to the next ring position, target ``"1"``..``"6"``;
- ``bridge`` one card to Position 7 (target ``"7"``), or the two-card turn: a card to the
  next position then a bridging card to 7 (target e.g. ``"3,7"``);
- ``start``  the builder begins a new phase: any card to 7 (``"7"``), optionally a second
  matching card to Position 1 (``"7,1"``);
- ``draw``   cards = (the drawn card,) in the full record, () in the table's view; () also
  when the stock is empty and the game ends on the fewest cards;
- ``pass``   2011 nine-card limit: a player holding nine cards who cannot play;
- ``turnup`` 2011 footnote: cards = (the card turned up from the stock,), face up.

Named rulings (each decides an ambiguity of the books; see the rulings doc):

- *seats-clockwise*: seats (Player 1..N) sit clockwise; Player 1 plays first.
- *dealer-before-first*: the seat before Player 1 deals and lays the Position 7 card.
- *anticlockwise-mirrors-ring*: "replace 'clockwise' with 'anticlockwise' throughout":
  the ring is numbered in the direction of play, so positions still run 1, 2, ..., 6, 1
  and opposites stay 1-4, 2-5, 3-6; ``direction`` only decides who plays next.
- *no-opposite-no-bridge*: a bridge needs a card on the position opposite the last card;
  a card on Position 7 has no opposite. So nobody bridges straight after a new phase is
  begun, with one card or with two (Position 4 is still empty), nor off the first card.
- *drawn-card-ends-turn*: a drawn card that is played ends the turn; it cannot be the
  first card of a two-card bridge either ("the first having been played from their hand";
  crib note 5: "Cannot do (3) or (4) with card just picked up").
- *drawn-card-to-next-position*: "playable" for a drawn card means it matches the last
  card and so can go to the next position.
- *win-by-laying-out*: the third and fourth ways to win happen by the ``start`` move that
  lays out the last card(s); winning with the last card(s) ends the game at once.
- *stock-empty-at-draw*: the stock counts as depleted when a player who must draw (or
  turn up) finds it empty; play goes on while players can play.
- *fewest-cards-shared*: under ``fewest-cards`` every seat tied on the fewest cards wins.
- *reshuffle-needs-captured*: under ``reshuffle``, if no cards have been captured yet the
  game ends on the fewest cards; turned-up (dead) cards are never reshuffled.
- *opening-2011-each-phase*: ``first_play_2011`` applies whenever the next card goes to
  Position 1 off a lone card at Position 7 (the game's opening and every new phase begun
  with one card).
- *ninth-card-by-keeping*: a player "acquires their ninth card" when a drawn card that is
  kept brings the hand to nine.
- *turned-up-card-as-hand-card*: a playable turned-up card joins the turner's hand and
  must be played at once, as a hand card could be: to the next position, as a bridge, or
  as the first card of a two-card bridge. Play then passes on from the turner.
- *illegal-followed-as-seen* (table referee): an illegal move is reported once, then the
  referee follows the table as it is; ``undo()`` if the table takes the move back.
"""

from __future__ import annotations

import random
from typing import Any

from companion.games.base import (
    Event,
    GameOverError,
    IllegalMoveError,
    Move,
    NotYourTurnError,
    announcement,
    seat_name,
)
from companion.games.kendra_kari_referee import TableReferee
from companion.games.kendra_kari_rules import (  # noqa: F401  (re-exported for tests, referee)
    CARDS,
    DECK,
    EMPTY_TOPS,
    EV_RESHUFFLE,
    FULL,
    HAND_SIZE,
    INDEX,
    MATCH,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    NAMES,
    NEXT,
    NINE,
    OPP,
    TITLE,
    Direction,
    Options,
    StockExhausted,
    bits,
    bridge_problem,
    can_play,
    dealer,
    ev_bridge,
    ev_fewest,
    ev_play,
    ev_start,
    ev_turn_ups,
    ev_win,
    matches,
    next_seat,
    parse_targets,
    play_problem,
    restock,
    start_problem,
)
from companion.games.kendra_kari_state import (  # noqa: F401  (re-exported)
    Stage,
    State,
    _stock_top,
    current_player,
    deal_of,
    hand_of,
    is_over,
    must_pass,
    new_game,
    result,
    stock_left,
)


def public_move(move: Move) -> Move:
    """A drawn card goes into a hand face down: the table sees only that a card was drawn."""
    if move.action == "draw" and move.cards:
        return Move(move.player, "draw")
    return move


# ---- moves --------------------------------------------------------------------------------

def _mv(seat: int, action: str, cards: tuple[int, ...] = (), target: str = "") -> Move:
    return Move(seat, action, tuple(CARDS[c] for c in cards), target)


def legal_moves(state: State) -> list[Move]:
    st, seat = state.stage, state.turn
    if st is Stage.OVER:
        return []
    hand, tops, last = state.hands[seat], state.tops, state.last
    if st is Stage.DRAWN:
        return [_mv(seat, "play", (state.drawn,), str(NEXT[last]))]
    if st is Stage.DEAL:
        return [_mv(seat, "deal", (tops[0],), "7")]
    if st is Stage.TURNUP:
        top = _stock_top(state)
        return [_mv(seat, "turnup", (top,) if top >= 0 else ())]
    if st is Stage.START:
        out = []
        for a in bits(hand):
            out.append(_mv(seat, "start", (a,), "7"))
            out.extend(_mv(seat, "start", (a, b), "7,1") for b in bits(hand & MATCH[a]))
        return out
    playable = hand & MATCH[tops[last]]
    if not playable:
        if must_pass(state, hand):
            return [_mv(seat, "pass")]
        top = _stock_top(state)
        return [_mv(seat, "draw", (top,) if top >= 0 else ())]
    q = NEXT[last]
    out = [_mv(seat, "play", (a,), str(q)) for a in bits(playable)]
    if last > 0:
        out.extend(_mv(seat, "bridge", (a,), "7")
                   for a in bits(playable & MATCH[tops[OPP[last]]]))
    far = MATCH[tops[OPP[q]]]
    if far:
        two = f"{q},7"
        for a in bits(playable):
            out.extend(_mv(seat, "bridge", (a, b), two) for b in bits(hand & MATCH[a] & far))
    return out


def bot_move(state: State, rng: random.Random) -> Move:
    """A simple legal player that builds a bridge whenever it can (so that simulated games
    are full of bridges), starts new phases with two cards, else plays at random."""
    moves = legal_moves(state)
    if len(moves) > 1:
        best = [m for m in moves if m.action == "bridge" or len(m.cards) == 2]
        if best:
            return rng.choice(best)
    return moves[0] if len(moves) == 1 else rng.choice(moves)


def _cards_of(move: Move) -> tuple[int, ...]:
    try:
        return tuple(INDEX[c] for c in move.cards)
    except KeyError:
        raise IllegalMoveError(f"{move.cards} is not a card of the Mughal deck", move) from None


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    if state.stage is Stage.OVER:
        raise GameOverError("The game is over", move)
    if move.player != state.turn:
        raise NotYourTurnError(f"Not your turn: it is {seat_name(state.turn)}'s turn, not "
                               f"{seat_name(move.player)}'s", move)
    handler = _HANDLERS.get(move.action)
    if handler is None:
        raise IllegalMoveError(f"Unknown action {move.action!r}; Kendra Kari moves are "
                               f"{', '.join(_HANDLERS)}", move)
    if state.stage is Stage.DEAL and move.action != "deal":
        raise IllegalMoveError(f"The game begins with {seat_name(state.turn)} dealing a card "
                               "face up on Position 7", move)
    if state.stage is Stage.START and move.action != "start":
        raise IllegalMoveError(f"{seat_name(state.turn)} built a bridge and must begin the new "
                               "phase with a card on Position 7", move)
    if state.stage is Stage.TURNUP and move.action != "turnup":
        raise IllegalMoveError("Every player holds nine cards and none can play: "
                               f"{seat_name(state.turn)} turns up cards from the stock", move)
    return handler(state, move, _cards_of(move))


def _bad(move: Move, reason: str) -> IllegalMoveError:
    return IllegalMoveError(reason, move)


def _in_hand(state: State, move: Move, cards: tuple[int, ...]) -> int:
    hand = state.hands[state.turn]
    for c in cards:
        if not (hand >> c) & 1:
            raise _bad(move, f"{NAMES[c]} is not in {seat_name(state.turn)}'s hand")
    if len(set(cards)) != len(cards):
        raise _bad(move, "The same card cannot be played twice")
    return hand


def _after_cards(state: State, hand: int, events: list[Event], **changes: Any) -> State:
    """Finish a move that laid cards from the hand: "A player wins by getting rid of all
    cards in their hand." (win with the last card in normal play, with the last card(s) of a
    bridge, or by laying out the last card(s) to begin a new phase)."""
    seat = state.turn
    hands = state.hands[:seat] + (hand,) + state.hands[seat + 1:]
    if hand == 0:
        events.append(ev_win(seat))
        changes["stage"] = Stage.OVER
        return state._replace(hands=hands, winners=(seat,), drawn=-1, passes=0,
                              ending=f"{seat_name(seat)} wins", **changes)
    return state._replace(hands=hands, drawn=-1, passes=0, **changes)


def _play(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """Normal play, the forced play of a drawn card, and the play of a turned-up card."""
    if len(cards) != 1:
        raise _bad(move, "Play one card to the next position (two cards only to bridge)")
    card = cards[0]
    drawn = state.stage is Stage.DRAWN
    if drawn and card != state.drawn:
        raise _bad(move, f"The drawn card {NAMES[state.drawn]} is playable and must be "
                         "played at once")
    hand = _in_hand(state, move, cards)
    targets = parse_targets(move, 1)
    if targets is None:
        problem = f"Wrong position: the next position is {NEXT[state.last]}, not {move.target!r}"
    else:
        problem = play_problem(state.tops, state.last, card, targets[0])
    if problem:
        raise _bad(move, problem)
    q = targets[0]
    events = [ev_play(state.turn, card, q, "the drawn card " if drawn else "")]
    tops = state.tops[:q] + (card,) + state.tops[q + 1:]
    return _after_cards(state, hand & ~(1 << card), events, tops=tops, last=q,
                        table=state.table | (1 << card), stage=Stage.NORMAL,
                        turn=next_seat(state, state.turn)), events


def _bridge(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """Building a bridge, alone or as the second card of a two-card turn: "a player may play
    two cards in the same turn if the second one builds a bridge, the first having been
    played from their hand in the usual way." "After a bridge is built, all cards played so
    far are gathered up and taken out of the game." """
    if state.stage is Stage.DRAWN:
        raise _bad(move, "Drawn card used to bridge: a card just drawn cannot build a bridge, "
                         "and after playing it the turn ends")
    if len(cards) not in (1, 2):
        raise _bad(move, "A bridge is one card to Position 7, or one card to the next "
                         "position and then one to Position 7")
    hand = _in_hand(state, move, cards)
    tops, last, table = state.tops, state.last, state.table
    events: list[Event] = []
    targets = parse_targets(move, len(cards))
    if targets is None or targets[-1] != 0:
        want = "7" if len(cards) == 1 else f"{NEXT[max(last, 0)]},7"
        raise _bad(move, f"Wrong position: a bridge goes to Position 7 (target {want!r}), "
                         f"not {move.target!r}")
    if len(cards) == 2:
        problem = play_problem(tops, last, cards[0], targets[0])
        if problem:
            raise _bad(move, problem)
        last = targets[0]
        tops = tops[:last] + (cards[0],) + tops[last + 1:]
        table |= 1 << cards[0]
        events.append(ev_play(state.turn, cards[0], last))
    problem = bridge_problem(tops, last, cards[-1])
    if problem:
        if len(cards) == 2:
            problem = "Second card did not bridge: " + problem.partition(": ")[2]
        raise _bad(move, problem)
    events.extend(ev_bridge(state.turn, cards[-1], last))
    hand &= ~((1 << cards[0]) | (1 << cards[-1]))
    return _after_cards(state, hand, events, tops=EMPTY_TOPS, last=-1, table=0,
                        captured=state.captured | table | (1 << cards[-1]),
                        stage=Stage.START), events


def _start(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """ "The player who built the bridge begins a new phase by playing any card to Position
    7, and may, if able, play a second card with the same suit or rank to Position 1. (The
    first card to be laid down is deemed to be the one at Position 7.)" """
    if state.stage is not Stage.START:
        raise _bad(move, "A new phase begins only after a bridge, by the player who built it")
    if len(cards) not in (1, 2):
        raise _bad(move, "A new phase begins with one card on Position 7, or with a second "
                         "card on Position 1")
    hand = _in_hand(state, move, cards)
    want = (0, 1)[:len(cards)]
    if parse_targets(move, len(cards)) != want:
        raise _bad(move, f"Wrong position: a new phase begins on Position 7"
                         f"{' then Position 1' if len(cards) == 2 else ''} (target "
                         f"{'7,1' if len(cards) == 2 else '7'!r}), not {move.target!r}")
    second = cards[1] if len(cards) == 2 else None
    problem = start_problem(cards[0], second)
    if problem:
        raise _bad(move, problem)
    tops = (cards[0],) + EMPTY_TOPS[1:]
    table = 1 << cards[0]
    if second is not None:
        tops = (cards[0], second) + EMPTY_TOPS[2:]
        table |= 1 << second
    events = ev_start(state.turn, cards[0], second)
    return _after_cards(state, hand & ~table, events, tops=tops, last=len(cards) - 1,
                        table=table, stage=Stage.NORMAL,
                        turn=next_seat(state, state.turn)), events


def _take(state: State, move: Move, what: str) -> tuple[State, int, list[Event]] | State:
    """Take the top of the stock for a draw or turn-up, handling the empty stock: "either
    declare the player with the fewest cards to have won, or else create a new stock by
    shuffling all the cards that have been captured by building bridges." Returns the
    finished game when it ends on the fewest cards."""
    if move.target:
        raise _bad(move, f"A {move.action} takes no target, not {move.target!r}")
    top = _stock_top(state)
    want = (CARDS[top],) if top >= 0 else ()
    if move.cards != want:
        raise _bad(move, f"The {what} card is {NAMES[top] if top >= 0 else 'nothing'}: the "
                         f"move must name it (the stock is {stock_left(state)} cards)")
    events: list[Event] = []
    if top < 0:
        counts = tuple(h.bit_count() for h in state.hands)
        low = min(counts)
        winners = tuple(s for s, n in enumerate(counts) if n == low)
        ev, text = ev_fewest(winners, counts)
        return state._replace(stage=Stage.OVER, winners=winners, ending=text), -1, [ev]
    if state.pos >= len(state.stock):
        events.append(announcement("reshuffle", EV_RESHUFFLE))
        state = state._replace(stock=restock(state.captured, state.shuffle_seed,
                                             state.reshuffles),
                               pos=0, captured=0, reshuffles=state.reshuffles + 1)
    return state._replace(pos=state.pos + 1), top, events


def _draw(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """ "A player who is unable to play picks up a card from the stock. If the card drawn is
    playable it must be played immediately, but cannot be used to build a bridge ...
    Otherwise it is added to the player's hand. Play then proceeds to the next player."
    2011: "If not able to do so, the player picks up a card from the stock, and the
    opportunity to play to Position 1 moves to the next player." """
    seat, hand = state.turn, state.hands[state.turn]
    if state.stage is Stage.DRAWN:
        raise _bad(move, f"{seat_name(seat)} already drew this turn")
    if can_play(hand, state.tops, state.last):
        raise _bad(move, f"{seat_name(seat)} must play: a card in hand matches the last card")
    if must_pass(state, hand):
        raise _bad(move, f"{seat_name(seat)} holds nine cards and passes instead of drawing")
    state, top, events = _take(state, move, "next")
    if top < 0:
        return state, events
    events.append(Event("draw", f"{seat_name(seat)} cannot play and draws a card", seat))
    hand |= 1 << top
    hands = state.hands[:seat] + (hand,) + state.hands[seat + 1:]
    opening_2011 = state.options.first_play_2011 and state.last == 0
    if state.options.play_drawn_card and not opening_2011 and matches(top, state.tops[state.last]):
        return state._replace(hands=hands, stage=Stage.DRAWN, drawn=top, passes=0), events
    ninth = seat if hand.bit_count() == NINE else state.last_ninth
    return state._replace(hands=hands, turn=next_seat(state, seat), passes=0,
                          last_ninth=ninth), events


def _pass(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """2011: "if a player already has nine cards in their hand, they don't pick up, but
    simply pass." Footnote: "if ... all players end up with nine-card hands but are still
    unable to play ... The player who most recently acquired their ninth card takes another
    card from the stock and places it face-up on the table" """
    seat, hand = state.turn, state.hands[state.turn]
    if not state.options.hand_limit_nine:
        raise _bad(move, "A player who cannot play draws a card; passing is only for the "
                         "nine-card limit (option hand_limit_nine)")
    if cards or move.target:
        raise _bad(move, "A pass lays no card")
    if can_play(hand, state.tops, state.last):
        raise _bad(move, f"{seat_name(seat)} must play: a card in hand matches the last card")
    if not must_pass(state, hand):
        raise _bad(move, f"{seat_name(seat)} holds fewer than nine cards and must draw")
    events = [Event("pass", f"{seat_name(seat)} holds nine cards, cannot play and passes", seat)]
    passes = state.passes + 1
    if passes >= state.players:
        turner = state.last_ninth if state.last_ninth >= 0 else next_seat(state, seat)
        events.append(ev_turn_ups(turner))
        return state._replace(stage=Stage.TURNUP, turn=turner, passes=0), events
    return state._replace(turn=next_seat(state, seat), passes=passes), events


def _turnup(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """2011 footnote: "repeating this until a card is turned up that's suitable to be
    played. Cards that are turned up but not suitable take no further part in the game.
    Once a playable card is found, the player uses it to continue the game as though it were
    a card from their hand. (As usual, they may then build a bridge if able to do so
    immediately thereafter.)" Ruling *turned-up-card-as-hand-card*."""
    if state.stage is not Stage.TURNUP:
        raise _bad(move, "Cards are turned up only when every player holds nine cards and "
                         "none can play")
    seat = state.turn
    state, top, events = _take(state, move, "top")
    if top < 0:
        return state, events
    if matches(top, state.tops[state.last]):
        events.append(Event("turnup", f"{seat_name(seat)} turns up {NAMES[top]}: playable, "
                            "and plays it as a card from the hand", seat, (CARDS[top],)))
        hand = state.hands[seat] | (1 << top)
        return state._replace(hands=state.hands[:seat] + (hand,) + state.hands[seat + 1:],
                              stage=Stage.NORMAL), events
    events.append(Event("turnup", f"{seat_name(seat)} turns up {NAMES[top]}: not playable, "
                        "out of the game", seat, (CARDS[top],)))
    return state._replace(dead=state.dead | (1 << top)), events


def _deal(state: State, move: Move, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    """ "another card is dealt face-up to Position 7" """
    if state.stage is not Stage.DEAL:
        raise _bad(move, "The card on Position 7 is dealt once, at the start of the game")
    if cards != (state.tops[0],) or move.target != "7":
        raise _bad(move, f"The dealt card is {NAMES[state.tops[0]]}, face up on Position 7")
    events = [Event("deal", f"{seat_name(state.turn)} deals six cards each and lays "
                    f"{NAMES[cards[0]]} face up on Position 7", state.turn, move.cards)]
    return state._replace(stage=Stage.NORMAL, turn=0), events


_HANDLERS = {"deal": _deal, "play": _play, "bridge": _bridge, "start": _start, "draw": _draw,
             "pass": _pass, "turnup": _turnup}


__all__ = [
    "DECK",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "TITLE",
    "Options",
    "State",
    "TableReferee",
    "apply",
    "bot_move",
    "current_player",
    "deal_of",
    "is_over",
    "legal_moves",
    "new_game",
    "public_move",
    "result",
]
