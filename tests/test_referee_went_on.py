"""Ruling *play-went-on*: a card laid after a player's last card by the count says the
camera missed a draw of theirs; the draw is put back, and the players say where."""

from __future__ import annotations

import numpy as np
import pytest
from referee_show import KK, TableShow

from companion.record import simulate, table_view
from companion.referee import Referee


def _winner_drew_and_played(seed: int) -> tuple[list, int]:
    """A game won by a player's last card, and the index of a draw of that player's
    followed by the card drawn, played at once."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    winner = moves[-1].player
    k = next(i for i in range(1, len(moves) - 1) if moves[i].action == "draw"
             and moves[i].player == moves[i + 1].player == winner
             and moves[i + 1].action == "play")
    return moves, k


def _shown_without(moves: list, missed: int) -> TableShow:
    show = TableShow(Referee("kendra-kari", 4))
    for i, move in enumerate(moves):
        if i == missed:
            show._tick(move.player)  # nobody saw it, nobody tapped it
            continue
        show.kendra_kari(move)
    return show


@pytest.mark.parametrize("seed", [3, 5, 10])
def test_play_going_on_after_a_players_last_card_by_the_count_puts_their_missed_draw_back(
        seed):
    """Ruling *play-went-on*: a draw of the winner's went unseen, so by the count they went
    out a card early, and the cards laid after were refused ("The game is over"). A card
    laid after a player's last card says they still held one: the draw is put back before
    their last card played from the hand, the players are asked, and the game is followed
    to its true end."""
    moves, missed = _winner_drew_and_played(seed)
    winner = moves[-1].player
    show = _shown_without(moves, missed)
    rulings = [o.ruling for o in show.rulings()]
    assert not [r for r in rulings if r.verdict.value == "illegal"]
    assert sorted(map(str, (r.move for r in rulings))) == sorted(map(str, moves))
    assert [e.text for e in rulings[-1].events if e.kind == "win"] == [
        f"Player {winner + 1} wins"]
    asked = [o for o in show.ref.outputs if o.text.startswith("A card was laid after")]
    assert [o.text for o in asked] == [
        (f"A card was laid after Player {winner + 1}'s last card by the count: did Player "
         f"{winner + 1} draw a card unseen?")]
    assert f"Player {winner + 1} must have drawn from the stock (not seen: play went on " \
        "after their last card by the count)" in [o.text for o in show.ref.outputs]

    # The players say that player did go out: the win stands, and what followed is refused.
    assert asked[0].choices[-1] == f"Player {winner + 1} went out: the game is over"
    show.ref.answer(asked[0].question_id, len(asked[0].choices) - 1)
    after = [o.ruling for o in show.rulings()]
    win = next(i for i, r in enumerate(after) if any(e.kind == "win" for e in r.events))
    assert win < len(after) - 1
    assert {r.reason for r in after[win + 1:]} == {"The game is over"}
    assert not [o for o in show.ref.outputs if "play went on" in o.text and o.kind == "draw"]


@pytest.mark.parametrize("seed", [3, 10])
def test_the_missed_draw_is_put_back_before_the_card_whose_hand_was_over_the_stock(seed):
    """*play-went-on*, with the hands seen: Player 2's hand stopped over the stock and went
    on to the ring with the card drawn (no turn back, so no draw seen). When play goes on
    after Player 2's last card by the count, the draw is put back before that card, where
    it was made, not before Player 2's last card played from the hand."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    k = next(i for i in range(1, len(moves) - 1) if moves[i].action == "draw"
             and moves[i].player == moves[i + 1].player == 1
             and moves[i + 1].action == "play" and moves[i + 1].target != "7")
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for i, move in enumerate(moves):
        if i == k:
            show._tick(1)
        elif i == k + 1:  # over the stock, then on to the ring
            ring = np.array(KK.zone(f"pos{move.target}").center_mm)
            stock = np.array(KK.zone("stock").center_mm)
            show.arm(1, [(30.0, 210.0), (60.0, 210.0), (92.0, 210.0), (100.0, 212.0),
                         (100.0, 208.0)]
                     + [tuple(stock + (ring - stock) * f) for f in np.linspace(0.2, 1, 5)]
                     + [tuple(stock + (ring - stock) * f) for f in np.linspace(0.8, -0.8, 5)])
            show.lay(move.cards[0], f"pos{move.target}")
        else:
            show.kendra_kari(move, hands=True)
    assert [r.move for r in show.ref.rulings()] == moves
    assert [o.text for o in show.ref.outputs if o.text.startswith("A card was laid after")]


def _winner_drew_played_and_played_again(seed: int) -> tuple[list, int] | None:
    """A game won by a player's last card whose last draw, of a card played at once, came
    before two more of their cards from the hand (the draw's likeliest place when it is
    missed and no hand was seen over the stock is before the later one), and that draw's
    index; or None."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    winner = moves[-1].player
    draws = [i for i, m in enumerate(moves[:-1]) if m.player == winner and m.action == "draw"]
    if not draws or moves[draws[-1] + 1].player != winner \
            or moves[draws[-1] + 1].action != "play":
        return None
    k = draws[-1]
    later = [m for m in moves[k + 2:] if m.player == winner and m.action == "play"]
    return (moves, k) if len(later) >= 2 else None


def test_the_missed_draw_is_put_back_before_the_card_that_came_latest_after_its_move():
    """Ruling *a-drawn-card-comes-late*: the winner drew and played the card drawn at once,
    the camera missed the draw, and no hand was seen over the stock. The draw took its
    time, so that card came later after the move before it than the player's later cards:
    the draw is put back before it, not before their last card from the hand."""
    moves, k = next(filter(None, map(_winner_drew_played_and_played_again, range(60))))
    show = _shown_without(moves, k)
    assert [r.move for r in show.ref.rulings()] == moves


def test_the_players_say_before_which_card_the_missed_draw_was():
    """Ruling *which-card-was-drawn*: as above, but the draw took no time, so nothing tells
    where it was, and it is put back before the player's last card from the hand: wrong
    here. The players are offered their latest cards: they name the card drawn, the draw
    moves there, and the record is the game's own."""
    moves, k = next(filter(None, map(_winner_drew_played_and_played_again, range(60))))
    winner, drawn = moves[-1].player, moves[k + 1].cards[0]
    show = TableShow(Referee("kendra-kari", 4))
    for move in moves[:k] + moves[k + 1:]:  # (the draw missed took no time)
        show.kendra_kari(move)
    rulings = [r.move for r in show.ref.rulings()]
    assert sorted(map(str, rulings)) == sorted(map(str, moves)) and rulings != moves
    asked = [o for o in show.ref.outputs if o.text.startswith("A card was laid after")]
    assert len(asked) == 1
    choice = f"Player {winner + 1} drew unseen before laying {drawn.name}"
    assert choice in asked[0].choices[1:]
    show.ref.answer(asked[0].question_id, asked[0].choices.index(choice))
    assert [r.move for r in show.ref.rulings()] == moves
    asked = [o for o in show.ref.outputs if o.text.startswith("A card was laid after")]
    assert len(asked) == 1 and choice in asked[0].choices
