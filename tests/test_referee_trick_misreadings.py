"""Sure misreadings in trick games. Ruling *the-lead-tells-the-trick*: a card of a closed
trick read surely as another card, which gave the trick to the wrong seat, is asked about
again when the true winner leads. Ruling *exposed-lies-once*: a card read on a spot while it
lies exposed before another seat is doubted."""

from __future__ import annotations

import pytest
from referee_show import TableShow, double_by_the_last_follower

from companion.cards import Card, deck_cards
from companion.games.base import Move, Verdict
from companion.games.ganjifa_referee import TableReferee
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.track import TrackEvent


def _trick_with_a_misreading(seed: int) -> tuple[list[Move], int, Card] | None:
    """A four-player game's moves, before its first pass, up to the lead after a trick won by a
    follower; that follow's index; and a card of another suit that, read in its place, is
    a follow the rules accept that gives the trick to another seat."""
    moves = []
    for move in table_view(simulate("ganjifa", 4, {}, seed)).moves:
        if move.action in ("pass", "show"):  # (a pass shows nothing on the table)
            break
        moves.append(move)
    eng = TableReferee(4)
    start = 0
    for i, m in enumerate(moves[:-1]):
        if not eng.picture.table.trick:
            start = i
        eng.observe(m)
        table = eng.picture.table
        trick = moves[start:i + 1]
        if table.trick or moves[i + 1].player != table.leader:
            continue
        k = max(j for j, t in enumerate(trick) if t.player == table.leader)
        if k == 0 or len(trick[k].cards) != 1:
            continue
        played = {c for t in moves[:i + 2] for c in t.cards}
        for _ in trick[k:]:
            eng.undo()
        for card in deck_cards(trick[0].cards[0].suit.deck):
            if card.suit is trick[0].cards[0].suit or card in played:
                continue
            ruled = [eng.observe(t) for t in (Move(trick[k].player, "follow", (card,)),
                                               *trick[k + 1:])]
            other = eng.picture.table.leader != trick[k].player
            for _ in ruled:
                eng.undo()
            if other and not any(r.verdict is Verdict.ILLEGAL for r in ruled):
                return moves[:i + 2], start + k, card
        for t in trick[k:]:
            eng.observe(t)
    return None


def _misread_game() -> tuple[list[Move], int, Card]:
    found = next(filter(None, map(_trick_with_a_misreading, range(40))))
    assert found is not None
    return found


def _shown(moves: list[Move], misread_at: int, misread: Card) -> TableShow:
    """The moves on the spots, each trick swept once complete; the card at
    ``misread_at`` read surely as ``misread`` (a camera's sighting, with its track)."""
    show = TableShow(Referee("ganjifa", 4))
    for i, move in enumerate(moves):
        if i == misread_at:
            show._tick(move.player)
            zone = f"play{move.player}"
            show.frame += 1
            show.table.setdefault(zone, []).append(misread)
            show.outputs += show.ref.observe([TrackEvent(
                "appeared", misread.id, show.ref.layout.zone(zone).center_mm, zone, 0.99,
                show.frame - 5, show.frame, show.t, track_id=7,
                candidates=((misread.id, 0.99), (move.cards[0].id, 0.01)))], show.frame, show.t)
        else:
            show.ganjifa(move)
        if not show.ref.engine.picture.table.trick and i < len(moves) - 1:
            show.sweep("play")
    return show


def test_a_lead_by_the_true_winner_asks_about_the_card_misread_in_its_trick():
    moves, at, misread = _misread_game()
    show = _shown(moves, at, misread)
    asked = [o for o in show.outputs if o.kind == "unseen"]
    zone = f"play{moves[at].player}"
    assert len(asked) == 1 and asked[0].zone == zone
    assert misread.name in asked[0].text and moves[at].cards[0].id in asked[0].could
    assert show.ref.waiting_for == zone  # what follows waits for the answer
    show.ref.confirm(moves[at].cards[0].id, zone, show.frame, show.t, asked[0].track)
    assert [o.move for o in show.rulings()] == moves
    assert not [o for o in show.rulings() if o.ruling.verdict is Verdict.ILLEGAL]


def test_the_players_word_that_the_card_was_read_right_is_asked_once():
    moves, at, misread = _misread_game()
    show = _shown(moves, at, misread)
    asked = [o for o in show.outputs if o.kind == "unseen"]
    zone = f"play{moves[at].player}"
    before = len(show.outputs)
    show.outputs += show.ref.confirm(misread.id, zone, show.frame, show.t, asked[0].track)
    assert show.ref.waiting_for == ""
    assert not [o for o in show.outputs[before:] if o.kind == "unseen"]
    assert show.rulings()[at].move.cards == (misread,)  # their word stands
    assert show.rulings()[-1].ruling.verdict is Verdict.ILLEGAL  # the lead out of turn


def test_a_card_read_on_a_spot_while_it_lies_exposed_before_another_seat_is_doubted():
    """Ruling *exposed-lies-once*: a Deni's exposed card lies before its seat."""
    for seed in range(20):
        moves = []
        for move in table_view(simulate("ganjifa", 4, {}, seed)).moves:
            if move.action in ("pass", "show"):
                break
            moves.append(move)
        at = next((i for i, m in enumerate(moves[:-1]) if m.action == "deni"
                   and moves[i + 1].player != m.player and moves[i + 1].action == "follow"
                   and len(moves[i + 1].cards) == 1), None)
        if at is not None:
            break
    assert at is not None
    show = TableShow(Referee("ganjifa", 4))
    for move in moves[:at + 1]:
        show.ganjifa(move)
        if not show.ref.engine.picture.table.trick:
            show.sweep("play")
    exposed, follow = moves[at].cards[1], moves[at + 1]
    zone = f"play{follow.player}"
    show._tick(follow.player)
    show.lay(exposed, zone)
    doubts = [o for o in show.outputs if o.kind == "doubt"]
    assert len(doubts) == 1 and doubts[0].zone == zone and "exposed" in doubts[0].text
    assert exposed.id not in doubts[0].choices
    assert show.ref.waiting_for == zone
    show.ref.confirm(follow.cards[0].id, zone, show.frame, show.t)
    assert [o.move for o in show.rulings()] == moves[:at + 2]


@pytest.mark.parametrize("seed", [0, 2, 8])
def test_a_double_whose_called_card_lies_hidden_under_its_card_is_asked_about(seed):
    """Ruling *a-double-under-its-card*: the last follower doubled a Deni, the called card
    laid first and covered by the card that doubles it: the camera saw only that card, the
    trick closed on it, and the extra cards the double calls for were refused as leads out
    of turn. The first of them puts the hidden called card among the facts and asks; the
    tricks are followed. Answered "No", the refusals stand."""
    moves, i = double_by_the_last_follower(seed)
    moves = moves[:i + 5]
    assert not any(m.action in ("pass", "show") for m in moves)
    show = TableShow(Referee("ganjifa", 4))
    for k, move in enumerate(moves):
        if k == i:  # the called card lies under the card that doubles it
            show._tick(move.player)
            show.lay(move.cards[1], f"play{move.player}")
        else:
            show.ganjifa(move, deni_high_first=True)
    assert [o.move for o in show.rulings()] == moves
    asked = [o for o in show.ref.outputs if o.kind == "question"]
    assert [o.text for o in asked] == [
        (f"Did Player {moves[i].player + 1} lay the {moves[i].cards[0].name} under the "
         "card seen (a double)? The next card says the trick went on.")]
    show.ref.answer(asked[0].question_id, 1)
    assert [o.ruling.verdict for o in show.rulings()][i + 1:i + 4] == [Verdict.ILLEGAL] * 3


def _double_before_another_follower(seed: int) -> tuple[list, int] | None:
    """A three-player Ganjifa game's moves, to its first pass or show, and the index of a
    double made with another follower still to play after it, or None."""
    rec = table_view(simulate("ganjifa", 3, {}, seed))
    eng = TableReferee(3)
    for i, move in enumerate(rec.moves):
        if move.action in ("pass", "show"):
            return None
        if move.action == "double" and len(eng.picture.table.queue) > 1 \
                and rec.moves[i + 1].player != move.player:
            return list(rec.moves[:i + 6]), i
        eng.observe(move)
    return None


def test_a_doubles_second_card_seen_after_the_next_players_card_is_its_second_card():
    """Ruling *double-after-another-card*: at a brisk pace the next player's card was seen
    between the two cards of a double. The card that doubles the Deni, laid by the seat
    whose called card was the last move, is that seat's second card, not a lead of the
    trick the called card won."""
    moves, i = next(filter(None, map(_double_before_another_follower, range(80))))
    assert not any(m.action in ("pass", "show") for m in moves)
    show = TableShow(Referee("ganjifa", 3), same_player_s=0.3, next_player_s=0.5)
    for k, move in enumerate(moves):
        if k == i + 1:
            continue  # seen with the double, below
        if k == i:
            called, second = move.cards
            show._tick(move.player)
            show.lay(called, f"play{move.player}")
            show.ganjifa(moves[i + 1])  # the next player's card, seen before the second
            show.lay(second, f"play{move.player}")
        else:
            show.ganjifa(move, deni_high_first=True)
    assert [o.move for o in show.rulings()] == moves
