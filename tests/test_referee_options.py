"""Kendra Kari at a camera table under the rule book's options: the 2011 book (no playing the
card just drawn, the nine-card limit's passes, which no camera sees) and play going
anticlockwise."""

from __future__ import annotations

import pytest
from referee_show import KK, TableShow

from companion.games.base import Move
from companion.record import simulate, table_view
from companion.referee import Referee

BOOK_2011 = {"hand_limit_nine": True, "play_drawn_card": False, "first_play_2011": True}


def _followed(options: dict, seed: int, unseen: int = 0, reach_to_pass: bool = False
              ) -> tuple[list, list]:
    """A four-player game shown with its hands (a pass shows nothing, or with
    ``reach_to_pass`` a hand reaching to the stock and back; with ``unseen``, every
    ``unseen``-th draw followed by the next player's card is not seen): the record's moves
    and the moves judged."""
    moves = list(table_view(simulate("kendra-kari", 4, options, seed)).moves)
    show = TableShow(Referee("kendra-kari", 4, options))
    draws = 0
    for move, after in zip(moves, moves[1:] + [None]):
        if move.action == "draw":
            draws += 1
            if unseen and draws % unseen == 0 and after is not None \
                    and after.action == "play" and after.player != move.player:
                continue
        if move.action != "pass":
            show.kendra_kari(move, hands=True)
        elif reach_to_pass:
            show._tick(move.player)
            show.reach(move.player, KK.zone("stock").center_mm)
    return moves, [r.move for r in show.ref.rulings()]


def test_players_holding_nine_cards_pass_unseen_and_the_game_is_followed():
    """Ruling *nine-cards-pass-unseen*: "if a player already has nine cards in their hand,
    they don't pick up, but simply pass". A pass shows nothing, so when the next card is
    laid the players between who hold nine cards passed (not drew: the rules refuse them a
    draw); such passes are no camera's slip and count for nothing against the story."""
    moves, judged = _followed(BOOK_2011, 2)
    assert sum(m.action == "pass" for m in moves) == 9
    assert judged == moves


def test_a_hand_at_the_stock_of_a_player_holding_nine_cards_drew_nothing():
    """A player holding nine cards may not draw: their hand seen turning back at the stock
    was passing by (as a hand at the stock with no draw to make), not a draw the rules
    refuse ("holds nine cards and passes instead of drawing")."""
    moves, judged = _followed(BOOK_2011, 2, reach_to_pass=True)
    assert judged == moves


@pytest.mark.parametrize("seed", [2, 13, 24])
def test_an_anticlockwise_game_with_draws_unseen_is_followed(seed):
    """The draws a hand's card needs unseen are counted in the direction of play: with
    ``direction=anticlockwise`` the player to the right plays next. Counted clockwise, a
    hand one seat on looked three draws away, and the card was given to the turn order."""
    moves, judged = _followed({"direction": "anticlockwise"}, seed, unseen=4)
    assert judged == moves


def _plays_from_hand_beside_the_stock(seed: int) -> tuple[list, int] | None:
    """A 2011-book game's moves and the index of Player 2's card played from the hand on
    Positions 1-6 (not after a draw), or None."""
    moves = list(table_view(simulate("kendra-kari", 4, BOOK_2011, seed)).moves)
    return next(((moves, i) for i in range(2, len(moves))
                 if moves[i].player == 1 and moves[i].action == "play"
                 and moves[i].target != "7" and moves[i - 1].player != 1), None)


def _shown_before(find) -> tuple[TableShow, list, int]:
    """The first 2011-book game of seeds 0-59 in which ``find`` finds a turn, shown with its
    hands (passes show nothing) up to that turn: the show, the moves, the turn's index."""
    moves, i = next(filter(None, map(find, range(60))))
    show = TableShow(Referee("kendra-kari", 4, BOOK_2011), same_player_s=0.5,
                     next_player_s=0.8)
    for move in moves[:i]:
        if move.action != "pass":
            show.kendra_kari(move, hands=True)
    return show, moves, i


def test_a_hand_reaching_over_the_stock_to_lay_a_card_drew_nothing_by_the_2011_book():
    """Ruling *no-draw-then-play-in-2011*: Player 2 sits beside the stock; their hand comes
    in over it, back a little and on to the ring, and lays a card. By the 2015 book that is
    a draw and the card drawn; by the 2011 book a player who drew cannot play until their
    next turn, so the hand was passing over the stock: Player 2 played from the hand."""
    show, moves, i = _shown_before(_plays_from_hand_beside_the_stock)
    laid = moves[i]
    show.over_the_stock_to(laid.cards[0], f"pos{laid.target}")
    judged = [r.move for r in show.ref.rulings()]
    assert judged == moves[:i + 1]
    assert any(o.kind == "superseded" and "passing over the stock" in o.text
               for o in show.ref.outputs)


def _a_play_in_turn(seed: int) -> tuple[list, int] | None:
    moves = list(table_view(simulate("kendra-kari", 4, BOOK_2011, seed)).moves)
    return next(((moves, i) for i in range(2, len(moves)) if moves[i].action == "play"
                 and moves[i].target != "7" and moves[i - 1].player != moves[i].player), None)


def test_the_player_to_plays_hand_as_near_as_the_next_ones_is_asked_turn_order_first():
    """*a-close-hand-is-asked*, when the other hand as near is the player to play's: the
    next player's hand, the nearer, would need the player to play to have drawn unseen.
    The players are asked, the turn order the likelier answer (it needs nothing unseen).
    (By the 2011 book, so that a card just drawn is not a third story.) On a brisk
    three-player 2011-book film Player 2's hand came as near Player 3's card as Player 3's:
    a draw nobody made was inferred, and the card given to the wrong player."""
    show, moves, i = _shown_before(_a_play_in_turn)
    laid = moves[i]
    nxt = (laid.player + 1) % 4
    zone = f"pos{laid.target}"
    x, y = KK.zone(zone).center_mm
    show.reach(laid.player, (x + 10.0, y + 10.0), first_seen=0.9)  # 14 mm off the card
    between = show.frame
    show.reach(nxt, (x, y), first_seen=0.9)
    show.seen_laid(laid.cards[0], zone, between)
    asked = [o for o in show.ref.outputs if o.kind == "question"]
    assert len(asked) == 1 and laid.cards[0].name in asked[0].text
    assert asked[0].choices[0] == f"Player {laid.player + 1}, whose turn it was"
    assert show.rulings()[-1].move == laid
    show.ref.answer(asked[0].question_id, 1)
    assert [r.move for r in show.ref.rulings()][-2:] == [
        Move(laid.player, "draw"), Move(nxt, "play", laid.cards, laid.target)]
