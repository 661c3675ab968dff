"""The benchmark's truthful answers to the referee's "who laid it?" questions
(``film_events.who_laid``) and to where a missed draw was (``film_events.drawn_before``),
in the referee's own words."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.cards import Card, DeckKind, deck_cards
from companion.games.base import Move
from companion.referee.values import RefereeOutput

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from film_events import drawn_before, who_laid

CARDS = deck_cards(DeckKind.MUGHAL)


def _asked(text: str, *choices: str) -> RefereeOutput:
    return RefereeOutput("question", text, 10, 1.0, choices=choices, question_id=3)


def test_the_choice_naming_the_seat_that_laid_the_card_is_picked():
    q = _asked("Who laid 6 of Shamsher: Player 2 or Player 4?",
               "Player 4, whose hand was seen (the players before drew unseen)",
               "Player 2, whose turn it was")
    assert who_laid(q, {"shamsher-6": 1}, CARDS) == 1
    assert who_laid(q, {"shamsher-6": 3}, CARDS) == 0


def test_a_card_whose_name_begins_another_is_told_apart():
    q = _asked("Who laid 1 of Cheng on Position 3: Player 1 (a second card) or Player 2?",
               "Player 1 laid both cards in one turn", "Player 2 laid 1 of Cheng")
    assert who_laid(q, {"cheng-1": 1, "cheng-10": 0}, CARDS) == 1


def test_no_answer_for_another_question_or_a_seat_not_offered():
    q = _asked("Who laid 1 of Cheng: Player 3 (the drawn card) or Player 4?",
               "Player 3 played the card just drawn",
               "Player 4 played it (the drawn card was kept)")
    assert who_laid(q, {"cheng-1": 0}, CARDS) is None
    assert who_laid(_asked("Unsure which card lies on Position 3?"), {"cheng-1": 0}, CARDS) is None


def test_the_card_laid_right_after_a_draw_of_that_seat_is_the_card_drawn():
    q = _asked("A card was laid after Player 2's last card by the count: did Player 2 draw "
               "a card unseen?", "Player 2 drew unseen before laying 7 of Ghulam",
               "Player 2 drew unseen before laying 5 of Chandra", "Player 2 went out: the game "
               "is over")
    c = Card.parse
    moves = [Move(0, "draw", (c("barat-1"),)), Move(1, "draw", (c("chandra-5"),)),
             Move(1, "play", (c("chandra-5"),), "6"), Move(2, "play", (c("ghulam-5"),), "1"),
             Move(1, "play", (c("ghulam-7"),), "2")]
    assert drawn_before(q, moves, CARDS) == 1
    moves[1] = Move(0, "draw", (c("chandra-5"),))  # Player 1's draw: Player 2 drew none
    assert drawn_before(q, moves, CARDS) is None
    assert drawn_before(_asked("Who laid 1 of Cheng: Player 3 or Player 4?"), moves,
                        CARDS) is None
