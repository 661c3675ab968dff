"""Hamrang and Ekrang at a camera table: a turn is the handful of cards a seat lays on its
play spot (``companion.referee.handfuls``)."""

from __future__ import annotations

import pytest
from referee_show import TableShow

from companion.cards import Card
from companion.games.base import Move, Verdict
from companion.record import simulate, table_view
from companion.referee import Referee, RefereeError
from companion.vision.track import TrackEvent


def _key(move: Move) -> tuple:
    return move.player, move.action, frozenset(move.cards)


def _shown(game: str, seed: int, reverse: bool = False, face_down: bool = False
           ) -> tuple[list[Move], TableShow]:
    """A simulated game's moves, and its table shown them as sightings, each trick swept
    off the play spots once the referee says who took it; ``face_down``: a Hamrang player
    who drops out lays her cards face down on her play spot (else she shows nothing)."""
    rec = table_view(simulate(game, 4, {}, seed))
    show = TableShow(Referee(game, 4, rec.options))
    for move in rec.moves:
        show.handful(move, reverse=reverse)
        if face_down and move.action == "out":
            zone = f"play{move.player}"
            show.frame += 10
            show.outputs += show.ref.observe([TrackEvent(
                "appeared", None, show.ref.layout.zone(zone).center_mm, zone, 1.0,
                show.frame - 5, show.frame, show.t)], show.frame, show.t)
        last = show.rulings()[-1].ruling if show.rulings() else None
        if last is not None and any(e.kind == "trick" for e in last.events):
            show.sweep("play")
    return list(rec.moves), show


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("reverse", [False, True])
def test_hamrang_is_followed_move_for_move_with_drop_outs_inferred(seed, reverse):
    """Two cards a turn, laid high or low first; a drop-out shows nothing and is inferred
    from the next seat's turn (ruling *out-seen-by-the-next-turn*). The drop-outs that end
    the game are followed by no turn: they are not seen."""
    moves, show = _shown("hamrang", seed, reverse)
    judged = [o.ruling for o in show.rulings()]
    assert all(r.verdict is not Verdict.ILLEGAL for r in judged)
    assert [_key(r.move) for r in judged] == [_key(m) for m in moves[:len(judged)]]
    assert moves[len(judged):] and all(m.action == "out" for m in moves[len(judged):])
    inferred = [o for o in show.rulings() if o.ruling.move.action == "out"]
    assert inferred and all("not seen" in o.text for o in inferred)
    assert not show.ref.desynced


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hamrang_drop_outs_shown_face_down_are_followed_to_the_games_end(seed):
    """Ruling *out-shown-face-down*: "She places her cards face-down in front of her": each
    drop-out is judged from the backs on her spot, the last ones too (nothing follows
    them), and nobody is asked whether she dropped out."""
    moves, show = _shown("hamrang", seed, face_down=True)
    judged = [o.ruling for o in show.rulings()]
    assert [_key(r.move) for r in judged] == [_key(m) for m in moves]
    outs = [o for o in show.rulings() if o.ruling.move.action == "out"]
    assert outs and all(o.text.endswith("(her cards laid face down)") for o in outs)
    assert not [o for o in show.ref.outputs if o.kind == "question"]
    assert show.ref.module.is_over(show.ref.engine.state)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_ekrang_setup_is_two_cards_and_every_later_turn_one(seed):
    moves, show = _shown("ekrang", seed, reverse=True)
    judged = [o.ruling for o in show.rulings()]
    assert judged[0].move.action == "setup"
    assert all(r.verdict is not Verdict.ILLEGAL for r in judged)
    assert [_key(r.move) for r in judged] == [_key(m) for m in moves]


def test_the_next_seats_cards_seen_first_wait_for_the_turn_before():
    """Player 2's cards seen before the second card of Player 1's lead: judged after it."""
    rec = table_view(simulate("hamrang", 4, {}, 1))
    first, second = rec.moves[0], rec.moves[1]
    show = TableShow(Referee("hamrang", 4))
    show.lay(first.cards[0], f"play{first.player}")
    for card in second.cards:
        show.lay(card, f"play{second.player}")
    assert not show.rulings()
    show.lay(first.cards[1], f"play{first.player}")
    assert [_key(o.ruling.move) for o in show.rulings()] == [_key(first), _key(second)]


def _led_then_skipped(answer: int | None = None) -> TableShow:
    """Player 1 leads the first trick (seed 1), then Player 3 lays two cards while it is
    Player 2's turn; ``answer``: the players' answer to "did Player 2 drop out?"."""
    rec = table_view(simulate("hamrang", 4, {}, 1))
    assert rec.moves[0].player == 0
    show = TableShow(Referee("hamrang", 4))
    show.handful(rec.moves[0])
    show.lay(Card.parse("phul-raja"), "play2")
    show.lay(Card.parse("phul-1"), "play2")
    if answer is not None:
        q = next(o for o in show.ref.outputs if o.kind == "question")
        assert "did Player 2 drop out" in q.text
        show.ref.answer(q.question_id, answer)
    return show


def test_a_seat_that_laid_nothing_in_turn_dropped_out_unless_the_players_say_otherwise():
    """Ruling *out-seen-by-the-next-turn*, asked: a drop-out is likelier than a turn out
    of turn once a hand may well hold no face card (here 1.1%: the 24-card hand of
    someone who has not played)."""
    show = _led_then_skipped()
    assert [o.ruling.move.action for o in show.rulings()] == ["play", "out", "play"]
    show = _led_then_skipped(answer=1)  # "No: Player 3 played out of turn"
    ruling = show.rulings()[-1].ruling
    assert ruling.move.player == 2 and ruling.verdict is Verdict.ILLEGAL
    assert "Player 2's turn" in ruling.reason
    show.still(30)
    assert "take it back" in show.ref.desynced


def test_a_seat_that_lays_its_cards_after_all_did_not_drop_out():
    show = _led_then_skipped()
    rec = table_view(simulate("hamrang", 4, {}, 1))
    show.handful(rec.moves[1])  # Player 2's turn, seen after Player 3's cards
    rulings = [o.ruling for o in show.rulings()]
    assert [(r.move.player, r.verdict is Verdict.ILLEGAL) for r in rulings] == [
        (0, False), (2, True), (1, False)]


def test_a_lead_without_the_days_raja_is_refused():
    show = TableShow(Referee("hamrang", 4))
    show.lay(Card.parse("barat-raja"), "play0")
    show.lay(Card.parse("barat-1"), "play0")
    ruling = show.rulings()[-1].ruling
    assert ruling.verdict is Verdict.ILLEGAL and "Raja of Surya" in ruling.reason


def test_a_game_the_camera_cannot_referee_yet_says_why():
    with pytest.raises(RefereeError, match="Shakti is not refereed from the camera yet "
                       r"\(a turn's draw .* out of the camera's sight\).*manual board"):
        Referee("shakti", 4)


def test_a_doubt_between_a_new_card_and_one_already_played_is_named_by_elimination():
    """Ruling *named by elimination* at a Hamrang table: the other reading is a card it
    has seen played, so the doubtful card is named without asking (0.6 / (1 - 0.35))."""
    from companion.vision.track import TrackEvent
    rec = table_view(simulate("hamrang", 4, {}, 1))
    first, second = rec.moves[:2]
    show = TableShow(Referee("hamrang", 4))
    show.handful(first)
    show.lay(second.cards[0], f"play{second.player}")
    zone = f"play{second.player}"
    centre = show.ref.layout.zone(zone).center_mm
    doubt = TrackEvent("unsure", None, centre, zone, 0.6, show.frame, show.frame + 5, show.t,
                       9, candidates=((second.cards[1].id, 0.6), (first.cards[0].id, 0.35)),
                       needed=0.9)
    outs = show.ref.observe([doubt], show.frame + 5, show.t)
    assert [o.kind for o in outs][:1] == ["named"] and second.cards[1].id in outs[0].choices
    assert _key(show.rulings()[-1].ruling.move) == _key(second)


def test_a_card_of_a_turn_never_seen_is_asked_for_once_the_trick_is_gathered():
    """Ruling *gathered-unseen*: else the seat's next card makes up the pair, and every
    later turn of that seat is a card off."""
    rec = table_view(simulate("hamrang", 4, {}, 1))
    trick = rec.moves[:4]
    show = TableShow(Referee("hamrang", 4))
    for move in trick[:3]:
        show.handful(move)
    last = trick[3]
    show.lay(last.cards[0], f"play{last.player}")  # its second card: under a resting hand
    show.sweep("play")
    asked = [o for o in show.outputs if o.kind == "unseen"]
    assert len(asked) == 1 and asked[0].zone == f"play{last.player}"
    show.ref.confirm(last.cards[1].id, asked[0].zone, show.frame, show.t)
    judged = [o.ruling for o in show.rulings()]
    assert [_key(r.move) for r in judged] == [_key(m) for m in trick]
    assert any(e.kind == "trick" for e in judged[-1].events)
