"""Udvasa at a camera table: deals, moves and builds judged from where each card lands
(``companion.referee.patience``)."""

from __future__ import annotations

import pytest
from referee_show import TableShow

from companion.cards import Card
from companion.games import udvasa
from companion.games.udvasa_stacks import SUITS
from companion.record import simulate
from companion.referee import Referee


def _played(seed: int, removed_late: bool = False, uncovered: bool = False):
    """A simulated patience and its table shown it: the starting cards on the build spots,
    each card landing where the move puts it (``removed_late``: seen gone from where it
    lay only after it is seen where it went; ``uncovered``: the card beneath is seen
    again)."""
    rec = simulate("udvasa", 1, {}, seed)
    show = TableShow(Referee("udvasa", 1, rec.options))
    for i, card in enumerate(udvasa.start_cards(show.ref.engine.state.options)):
        show.lay(card, f"build{i}")
    work: list[list[Card]] = [[] for _ in range(8)]
    for move in rec.moves:
        show._tick(0)
        if move.action == "deal":
            for j, card in enumerate(move.cards):
                show.lay(card, f"work{j}")
                work[j].append(card)
            continue
        card = move.cards[0]
        src = next(i for i, w in enumerate(work) if w and w[-1] == card)
        work[src].pop()
        if not removed_late:
            show.remove(card, f"work{src}")
        if move.action == "move":
            dst = int(move.target[4:]) - 1
            show.lay(card, f"work{dst}")
            work[dst].append(card)
        else:
            show.lay(card, f"build{SUITS.index(card.suit)}")
        if removed_late:
            show.remove(card, f"work{src}")
        if uncovered and work[src]:
            show.lay(work[src][-1], f"work{src}")
    return rec, show


@pytest.mark.parametrize(("seed", "removed_late", "uncovered"),
                         [(1, False, False), (2, True, True), (3, True, False)])
def test_udvasa_is_followed_move_for_move_to_the_end(seed, removed_late, uncovered):
    rec, show = _played(seed, removed_late, uncovered)
    judged = [o.ruling for o in show.rulings()]
    assert [r.move for r in judged] == list(rec.moves)
    assert all(r.verdict.value == "legal" for r in judged)
    assert rec.result["text"] in judged[-1].events[-1].text


DEALT = [Card.parse(c) for c in ("surya-5", "chandra-9", "barat-3", "phul-7", "kumancha-8",
                                 "ghulam-6", "cheng-2", "shamsher-4")]


def _dealt() -> TableShow:
    """A patience whose first eight cards are dealt onto the working spots (``DEALT``)."""
    show = TableShow(Referee("udvasa", 1))
    for j, card in enumerate(DEALT):
        show.lay(card, f"work{j}")
    assert show.rulings()[-1].ruling.move.action == "deal"
    return show


def test_a_card_moved_where_it_may_not_go_is_refused():
    show = _dealt()
    show.lay(Card.parse("surya-5"), "work1")  # 5 onto the 9: not one more or less
    ruling = show.rulings()[-1].ruling
    assert ruling.move.action == "move" and ruling.verdict.value == "illegal"


def test_a_refused_move_is_a_mismatch_until_the_card_is_put_back():
    show = _dealt()
    show.remove(DEALT[0], "work0")
    show.lay(DEALT[0], "work1")
    show.still(30)
    assert "put 5 of Surya back from working stack 2" in show.ref.desynced
    show.remove(DEALT[0], "work1")
    show.lay(DEALT[0], "work0")
    show.still(30)
    assert not show.ref.desynced


def test_a_card_moved_back_to_a_pile_it_lay_on_is_a_move_not_a_card_seen_again():
    """The tracker rarely says a card left a pile (the card beneath is simply read again):
    a card laid back where it lay before is a move all the same."""
    show = _dealt()
    six, seven = Card.parse("ghulam-6"), Card.parse("phul-7")
    show.lay(six, "work3")  # onto the 7 of Phul
    show.lay(seven, "work3")  # (the 7 read again as the 6 is lifted: no move)
    show.lay(six, "work5")  # back onto its own empty spot: a fill
    moves = [o.ruling.move for o in show.rulings()]
    assert [(m.action, m.target) for m in moves[1:]] == [("move", "work4"), ("move", "work6")]
    assert all(o.ruling.verdict.value == "legal" for o in show.rulings())
