"""The table referee: simulated games shown to it as tracker events, as a camera would."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from companion.cards import Card, DeckKind, deck_cards
from companion.games.base import Move, Verdict
from companion.layouts import load_layout
from companion.record import simulate, table_view
from companion.referee import SPOT_GRACE_S, Referee, RefereeError
from companion.vision.track import MotionMap, TrackEvent

KK = load_layout("kendra-kari")
GJ = load_layout("ganjifa")


def _ev(kind: str, card: Card | None, zone: str, frame: int, t: float,
        layout=KK) -> TrackEvent:
    return TrackEvent(kind, card.id if card else None, layout.zone(zone).center_mm, zone,
                      0.99, frame - 5, frame, t)


class TableShow:
    """Plays a record's moves to a referee as sightings: cards land on zones, draws are
    told (or seen as a hand at the stock), bridges are gathered off the ring."""

    def __init__(self, referee: Referee, same_player_s: float = 1.0, next_player_s: float = 6.0):
        self.ref = referee
        self.t, self.frame = 0.0, 0
        self.same, self.next = same_player_s, next_player_s
        self.table: dict[str, list[Card]] = {}
        self.outputs: list = []
        self.last_player: int | None = None

    def _tick(self, player: int) -> None:
        self.t += self.same if player == self.last_player else self.next
        self.frame = int(self.t * 10)
        self.last_player = player

    def lay(self, card: Card, zone: str) -> None:
        self.frame += 1
        self.t += 0.1
        self.table.setdefault(zone, []).append(card)
        self.outputs += self.ref.observe([_ev("appeared", card, zone, self.frame, self.t,
                                              self.ref.layout)], self.frame, self.t)

    def remove(self, card: Card, zone: str) -> None:
        self.frame += 1
        self.t += 0.1
        self.table[zone].remove(card)
        self.outputs += self.ref.observe([_ev("removed", card, zone, self.frame, self.t,
                                              self.ref.layout)], self.frame, self.t)

    def ganjifa(self, move: Move, deni_high_first: bool = False) -> None:
        """A Ganjifa move's cards on the seat's spots (a Deni's high card on its Deni spot)."""
        self._tick(move.player)
        if move.action == "deni":
            low, high = move.cards
            laid = [(high, "deni"), (low, "play")] if deni_high_first else \
                [(low, "play"), (high, "deni")]
        else:
            laid = [(card, "play") for card in move.cards]
        for card, spot in laid:
            self.lay(card, f"{spot}{move.player}")

    def kendra_kari(self, move: Move, hands: bool = False) -> None:
        self._tick(move.player)
        if move.action == "draw":
            if hands:
                self.reach(move.player, KK.zone("stock").center_mm)
            else:
                self.outputs += self.ref.tell_draw(None, self.frame, self.t)
            return
        for card, pos in zip(move.cards, move.target.split(",")):
            if hands:
                self.reach(move.player, KK.zone(f"pos{pos}").center_mm, lay=card)
            else:
                self.lay(card, f"pos{pos}")
        if move.action == "bridge":
            self.t += 2.0
            for zone in [f"pos{k}" for k in range(1, 8)]:
                for card in list(self.table.get(zone, [])):
                    self.remove(card, zone)

    def reach(self, seat: int, target_mm, lay: Card | None = None, inset_mm: float = -20.0
              ) -> None:
        """An arm from the seat's edge of the mat (Player 1 at the bottom, then clockwise)
        to ``target_mm`` and back, as motion maps; lays ``lay`` there at the turn. The arm
        is seen from ``inset_mm`` inside the mat's edge (negative: from beyond it)."""
        angle = np.radians(90 + 90 * seat)
        centre = np.array([297.0, 210.0])
        edge = centre + np.array([np.cos(angle) * (297 - inset_mm),
                                  np.sin(angle) * (210 - inset_mm)])
        path = [edge + (np.array(target_mm) - edge) * f for f in np.linspace(0.2, 1, 6)]
        for k, tip in enumerate(path + path[::-1][1:]):
            mask = np.zeros((252, 356), np.uint8)
            a = (edge * 0.6).astype(int)
            b = (tip * 0.6).astype(int)
            cv2.line(mask, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 1, 14)
            cv2.circle(mask, (int(b[0]), int(b[1])), 11, 1, -1)
            self.frame += 1
            self.t += 0.05
            self.outputs += self.ref.observe([], self.frame, self.t,
                                             MotionMap.of(mask.astype(bool), 0.6))
        still = MotionMap.still((252, 356), 0.6)
        for _ in range(6):
            self.frame += 1
            self.t += 0.05
            self.outputs += self.ref.observe([], self.frame, self.t, still)
        if lay is not None:  # the tracker confirms the card once the hand has gone
            zone = next(z.id for z in KK.zones if z.center_mm == tuple(target_mm))
            self.lay(lay, zone)

    def rulings(self) -> list:
        """The rulings as the story now stands (a two-card turn replaces its first card)."""
        return [o for o in self.ref.outputs if o.kind == "ruling"]


@pytest.mark.parametrize("seed", [1, 3, 8])
def test_kendra_kari_game_seen_on_the_table_is_judged_move_for_move(seed):
    rec = table_view(simulate("kendra-kari", 4, {}, seed))
    show = TableShow(Referee("kendra-kari", 4))
    for move in rec.moves:
        show.kendra_kari(move)
    judged = [o.move for o in show.rulings()]
    assert judged == list(rec.moves)
    assert all(o.ruling.verdict is not Verdict.ILLEGAL for o in show.rulings())
    assert not [o for o in show.outputs if o.kind == "desync"]
    # every draw followed by a card, and every bridge, left a question behind
    assert [o for o in show.outputs if o.kind == "question"]
    assert any(e.announce for o in show.rulings() for e in o.ruling.events)


@pytest.mark.parametrize("seed", [3, 8])
def test_hands_seen_at_the_stock_and_the_ring_say_who_acts(seed):
    """Draws seen as a hand turning back at the stock, and the hand that lays each card,
    settle every 'who' question: the whole game judged with none asked."""
    rec = table_view(simulate("kendra-kari", 4, {}, seed))
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in rec.moves:
        show.kendra_kari(move, hands=True)
    assert [o.move for o in show.rulings()] == list(rec.moves)
    assert sum(o.kind == "draw" for o in show.outputs) == sum(
        m.action == "draw" for m in rec.moves)
    assert not [o for o in show.ref.outputs if o.kind == "question"]
    # in the live stream a two-card turn corrects its first card's ruling, found by frame
    two_card = [m for m in rec.moves if len(m.cards) == 2]
    corrections = [o for o in show.outputs if o.kind == "correction"]
    assert [c.move for c in corrections] == two_card
    for c in corrections:
        first = next(o for o in show.outputs if o.kind == "ruling" and o.frame == c.frame)
        assert first.move.cards == c.move.cards[:1]


def test_a_hand_passing_over_the_stock_is_not_a_draw():
    ref = Referee("kendra-kari", 4)
    show = TableShow(ref)
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    show.kendra_kari(rec.moves[0])  # the deal
    show.reach(1, KK.zone("pos6").center_mm)  # Player 2, on the left, reaches over the stock
    show.reach(0, (150.0, 330.0))  # Player 1's hand wanders near, not at, the stock
    assert not [o for o in show.outputs if o.kind == "draw"]


def test_an_arm_seen_only_from_a_little_inside_the_mat_still_names_its_seat():
    """In dim light a sleeve over the mat's edge can be lost in the mat: the arm's motion
    then begins a few millimetres inside the edge (the hard film's draws)."""
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    ref = Referee("kendra-kari", 4)
    show = TableShow(ref)
    show.kendra_kari(rec.moves[0])  # the deal; Player 1 is to play
    show.reach(0, KK.zone("stock").center_mm, inset_mm=15.0)
    assert [o.text for o in show.outputs if o.kind == "draw"] == [
        "Player 1 draws from the stock (seen)"]


def test_the_hand_that_laid_an_unnamed_card_still_counts_when_it_is_named_later():
    """A card read unsure is named by a person after the hand has gone: the seat comes
    from the hand seen when it was laid, not from a question."""
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    k = next(i for i, (m, n) in enumerate(zip(rec.moves, rec.moves[1:]))
             if m.action == "draw" and n.action == "play" and n.player != m.player)
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in rec.moves[:k + 1]:
        show.kendra_kari(move, hands=True)
    laid = rec.moves[k + 1]
    zone = f"pos{laid.target}"
    show._tick(laid.player)
    show.reach(laid.player, KK.zone(zone).center_mm)
    doubt = TrackEvent("unsure", None, KK.zone(zone).center_mm, zone, 0.4, show.frame - 5,
                       show.frame, show.t, 77, candidates=((laid.cards[0].id, 0.4),))
    show.ref.observe([doubt], show.frame, show.t)
    assert show.ref.waiting_for == zone
    show.ref.confirm(laid.cards[0].id, zone, show.frame + 200, show.t + 7)
    assert show.rulings()[-1].move == laid
    assert not [o for o in show.ref.outputs if o.kind == "question"]


def test_the_answer_to_a_question_rejudges_what_followed():
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    ref = Referee("kendra-kari", 4)
    show = TableShow(ref)
    for move in rec.moves[:12]:
        show.kendra_kari(move)
    q = next(o for o in show.outputs if o.kind == "question")
    before = [o.move for o in show.rulings()]
    corrections = ref.answer(q.question_id, 1)
    assert corrections and all(c.kind == "correction" for c in corrections)
    assert [c.move.player for c in corrections] != [m.player for m in before[-len(corrections):]]
    with pytest.raises(RefereeError, match="no open question"):
        ref.answer(999, 0)


def test_a_wrong_card_is_called_out_once_and_the_game_follows_the_table():
    ref = Referee("kendra-kari", 4)
    show = TableShow(ref)
    rec = table_view(simulate("kendra-kari", 4, {}, 1))
    show.kendra_kari(rec.moves[0])  # the deal on Position 7
    seven = rec.moves[0].cards[0]
    wrong = next(c for c in (Card.parse(i) for i in ("surya-2", "barat-5", "cheng-9", "phul-3"))
                 if c.suit is not seven.suit and c.rank is not seven.rank)
    show._tick(0)
    show.lay(wrong, "pos1")
    ruling = show.rulings()[-1].ruling
    assert ruling.verdict is Verdict.ILLEGAL and "match" in ruling.reason.lower()
    # the engine takes the table as it physically is (ruling illegal-followed-as-seen)
    assert ref.expected_table()["pos1"] == wrong
    assert not ref.desynced


def test_a_card_removed_from_the_ring_is_a_desync():
    ref = Referee("kendra-kari", 4)
    show = TableShow(ref)
    rec = table_view(simulate("kendra-kari", 4, {}, 1))
    first_play = next(i for i, m in enumerate(rec.moves) if m.action == "play")
    for move in rec.moves[:first_play + 1]:
        show.kendra_kari(move)
    zone = f"pos{rec.moves[first_play].target}"
    card = rec.moves[first_play].cards[0]
    show.remove(card, zone)
    assert show.outputs[-1].kind == "desync"
    show.lay(card, zone)
    assert show.outputs[-1].kind == "resync"
    assert len(show.rulings()) == first_play + 1  # putting it back is not a new move


def test_a_game_whose_dealt_card_was_not_read_goes_on():
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    show = TableShow(Referee("kendra-kari", 4))
    for move in rec.moves[1:6]:  # the deal's card stayed unsure: never reported
        show.kendra_kari(move)
    rulings = show.rulings()
    assert [o.move for o in rulings] == list(rec.moves[1:6])
    first_play = next(o for o in rulings if o.move.action == "play")
    assert first_play.ruling.verdict is Verdict.UNVERIFIABLE  # the match cannot be checked


def test_unsure_readings_go_to_the_players_not_to_the_rules():
    ref = Referee("kendra-kari", 4)
    ev = TrackEvent("unsure", None, KK.zone("pos1").center_mm, "pos1", 0.5, 1, 6, 0.6,
                    candidates=(("barat-3", 0.5), ("barat-8", 0.3)))
    (out,) = ref.observe([ev], 6, 0.6)
    assert out.kind == "unsure" and out.choices == ("barat-3", "barat-8")
    assert "barat-3" in out.text and out.ruling is None
    with pytest.raises(RefereeError, match="bad card id"):
        ref.confirm("barat-13", "pos1")


def test_ganjifa_seats_come_from_their_zones():
    rec = table_view(simulate("ganjifa", 4, {}, 0))
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    moves = []
    for move in rec.moves:
        if move.action in ("double", "pass", "show"):
            break
        moves.append(move)
        show.ganjifa(move, deni_high_first=True)
    assert len(moves) > 8
    assert [o.move for o in show.rulings()] == moves
    assert all(o.ruling.verdict is not Verdict.ILLEGAL for o in show.rulings())


def test_bad_setup_is_a_clear_error():
    with pytest.raises(RefereeError, match="unknown game"):
        Referee("snap", 4)
    with pytest.raises(RefereeError, match="3-6 players"):
        Referee("kendra-kari", 9)
    with pytest.raises(RefereeError, match="no table layout"):
        Referee("kanji-guti", 2)
    with pytest.raises(RefereeError, match="no Player 7"):
        Referee("kendra-kari", 4).tell_draw(6)


def _gj_moves(n: int) -> list[Move]:
    rec = table_view(simulate("ganjifa", 4, {}, 0))
    moves = [m for m in rec.moves[:n]]
    assert all(m.action in ("lead", "follow") and len(m.cards) == 1 for m in moves)
    return moves


def _gj_ev(kind: str, move: Move, frame: int, track: int) -> TrackEvent:
    zone = f"play{move.player}"
    return TrackEvent(kind, move.cards[0].id if kind == "appeared" else None,
                      GJ.zone(zone).center_mm, zone, 0.99 if kind == "appeared" else 0.4,
                      frame - 5, frame, frame / 30, track,
                      candidates=((move.cards[0].id, 0.4),) if kind == "unsure" else ())


def _doubt(zone: str, frame: int, track: int, *candidates) -> TrackEvent:
    """The tracker's unsure event on a Ganjifa spot, with its candidates (card, p)."""
    return TrackEvent("unsure", None, GJ.zone(zone).center_mm, zone, candidates[0][1],
                      frame - 5, frame, frame / 30, track, candidates=candidates)


@pytest.mark.parametrize("named_by", ["tracker", "person"])
def test_moves_after_an_unnamed_card_wait_for_its_name_then_are_judged_in_order(named_by):
    a, b, c = _gj_moves(3)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    out = ref.observe([_gj_ev("unsure", b, 60, 1)], 60)
    assert [o.kind for o in out] == ["unsure"] and ref.waiting_for == f"play{b.player}"
    # the next player's card is seen, but not judged before the card under doubt
    assert ref.observe([_gj_ev("appeared", c, 90, 2)], 90) == []
    assert [r.move for r in ref.rulings()] == [a]
    if named_by == "tracker":  # its readings settled later
        named = dataclasses.replace(_gj_ev("appeared", b, 120, 1), resolves=True)
        out = ref.observe([named], 120)
    else:
        out = ref.confirm(b.cards[0].id, f"play{b.player}", 120, 4.0)
    assert [o.move for o in out if o.kind == "ruling"] == [b, c]
    assert [r.move for r in ref.rulings()] == [a, b, c] and ref.waiting_for == ""
    assert [o.frame for o in ref.outputs if o.kind == "ruling"] == [30, 60, 90]  # when laid
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())


def test_a_card_that_settles_after_the_next_players_card_is_judged_in_the_order_laid():
    a, b, c = _gj_moves(3)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    # b was laid at frame 40, but its doubtful readings settle only at frame 75, after
    # c (laid at 55, read at once) was reported
    out = ref.observe([dataclasses.replace(_gj_ev("appeared", c, 60, 2), since=55)], 60)
    assert [o.ruling.verdict for o in out if o.kind == "ruling"] == [Verdict.ILLEGAL]
    assert not ref.desynced  # c lies there refused, but not for long enough to say so
    out = ref.observe([dataclasses.replace(_gj_ev("appeared", b, 75, 1), since=40)], 75)
    assert [r.move for r in ref.rulings()] == [a, b, c]
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())
    # the stream re-tells what changed: b's ruling, and c's, no longer refused
    assert [(o.kind, o.move) for o in out] == [("correction", b), ("correction", c)]
    assert ref.observe([], 200, 200 / 30) == []  # and the table matches: no desync
    assert [o.frame for o in ref.outputs if o.kind == "ruling"] == [30, 75, 60]
    # a card seen again later, when it is already in the story, is no new fact
    assert ref.observe([dataclasses.replace(_gj_ev("appeared", b, 90, 1), since=40)], 90) == []


def test_a_refused_card_left_on_a_spot_is_a_desync_until_it_is_taken_back():
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    show.lay(b.cards[0], f"play{b.player}")  # out of turn: the leader has not led
    assert show.rulings()[-1].ruling.verdict is Verdict.ILLEGAL and not ref.desynced
    # still there a second later: the table does not match the game
    (said,) = ref.observe([], show.frame + 30, show.t + SPOT_GRACE_S)
    assert said.kind == "desync" and b.cards[0].name in ref.desynced
    show.remove(b.cards[0], f"play{b.player}")
    assert show.outputs[-1].kind == "resync" and not ref.desynced
    show.ganjifa(a)
    show.ganjifa(b)
    assert "desync" not in [o.kind for o in show.outputs] and not ref.desynced
    assert [r.verdict for r in ref.rulings()][-2:] == [Verdict.LEGAL, Verdict.LEGAL]


def test_a_sure_reading_of_a_card_already_played_elsewhere_is_asked_about():
    a, b, c, d = _gj_moves(4)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0), _gj_ev("appeared", b, 60, 1)], 60)
    # c's card, misread surely as a's, on c's spot; then d's card, read right
    misread = dataclasses.replace(_gj_ev("appeared", c, 90, 2), card_id=a.cards[0].id,
                                  candidates=((a.cards[0].id, 0.9), (c.cards[0].id, 0.05)))
    out = ref.observe([misread], 90)
    assert [(o.kind, o.zone, o.choices) for o in out] == [
        ("doubt", f"play{c.player}", (c.cards[0].id,))]
    assert ref.waiting_for == f"play{c.player}"
    assert ref.observe([_gj_ev("appeared", d, 120, 3)], 120) == []  # held behind it
    out = ref.confirm(c.cards[0].id, f"play{c.player}", 130, 130 / 30)
    assert [o.move for o in out if o.kind == "ruling"] == [c, d]
    assert [r.move for r in ref.rulings()] == [a, b, c, d]
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())


def test_a_card_played_seen_again_on_its_own_spot_is_no_doubt():
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0), _gj_ev("appeared", b, 60, 1)], 60)
    # a's card, its track lost under a hand and found again where it lay
    assert ref.observe([_gj_ev("appeared", a, 90, 5)], 90) == []
    assert ref.waiting_for == "" and [r.move for r in ref.rulings()] == [a, b]


def test_none_of_these_goes_on_without_the_unnamed_card():
    a, b, c = _gj_moves(3)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0), _gj_ev("unsure", b, 60, 1)], 60)
    ref.observe([_gj_ev("appeared", c, 90, 2)], 90)
    out = ref.dismiss(f"play{b.player}")
    assert [(o.move.player, o.move.cards) for o in out if o.kind == "ruling"] == [
        (c.player, c.cards)]
    assert ref.waiting_for == "" and ref.dismiss(f"play{b.player}") == []


def test_an_unsure_card_is_not_offered_as_a_card_already_played():
    a, b, c = _gj_moves(3)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0), _gj_ev("appeared", b, 60, 1)], 60)
    doubt = _doubt(f"play{c.player}", 90, 2, (a.cards[0].id, 0.3), (c.cards[0].id, 0.25),
                   (b.cards[0].id, 0.2))
    assert ref.choices_for(doubt) == ((c.cards[0].id, 0.25),)
    out = ref.observe([doubt], 90)
    assert out[0].kind == "unsure" and out[0].choices == (c.cards[0].id,)
    assert ref.waiting_for == f"play{c.player}"
    # a doubt about the card already on a spot keeps that card among its readings
    again = _doubt(f"play{a.player}", 120, 0, (a.cards[0].id, 0.4), (b.cards[0].id, 0.2))
    assert ref.choices_for(again) == again.candidates


def test_a_named_card_read_doubtfully_later_holds_nothing_up():
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    out = ref.observe([_gj_ev("unsure", a, 50, 0)], 50)  # a hand spoils its readings
    assert [o.kind for o in out] == ["unsure"] and ref.waiting_for == ""
    assert ref.confirm(a.cards[0].id, f"play{a.player}") == []  # the same card: no new move
    ref.observe([_gj_ev("appeared", b, 90, 1)], 90)
    assert [r.move for r in ref.rulings()] == [a, b]


def test_a_doubt_that_names_another_card_first_is_a_new_card_and_holds():
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    other = _doubt(f"play{a.player}", 50, 0, ("kalki-9", 0.4), (a.cards[0].id, 0.2))
    ref.observe([other], 50)
    assert ref.waiting_for == f"play{a.player}"
    assert ref.observe([_gj_ev("appeared", b, 90, 1)], 90) == []  # held behind it
    # a card laid on the unnamed one is a new card: it does not name the one below
    on_top = dataclasses.replace(_gj_ev("appeared", b, 95, 0), zone=f"play{a.player}")
    ref.observe([on_top], 95)
    assert ref.waiting_for == f"play{a.player}" and [r.move for r in ref.rulings()] == [a]


def test_a_persons_answer_stands_over_a_later_confident_reading():
    a, b, c = _gj_moves(3)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0), _gj_ev("unsure", b, 60, 1)], 60)
    ref.confirm(b.cards[0].id, f"play{b.player}", 70, 70 / 30)
    late = dataclasses.replace(_gj_ev("appeared", c, 80, 1), zone=f"play{b.player}",
                               resolves=True)  # the tracker settles on another card
    assert ref.observe([late], 80) == []
    assert [r.move for r in ref.rulings()] == [a, b]


@pytest.mark.parametrize("seed", [5, 4, 7])  # passes at moves 12, 48 (then a Deni), 40
def test_a_pass_no_camera_sees_is_inferred_from_the_next_lead(seed):
    rec = table_view(simulate("ganjifa", 4, {}, seed))
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    upto = next(i for i, m in enumerate(rec.moves) if m.action == "pass") + 6
    for move in rec.moves[:upto]:
        if move.action != "pass":  # a pass: nothing to see
            show.ganjifa(move)
    assert [r.move for r in ref.rulings()] == list(rec.moves[:upto])
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())
    assert any("passes the lead (not seen" in o.text for o in ref.outputs)


def test_a_card_uncovered_on_its_spot_holds_nothing_up():
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    zone = f"play{a.player}"
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    # another card lay on it a while (track 5), and was taken: the first one shows again,
    # read doubtfully as itself under the new track
    again = _doubt(zone, 65, 5, (a.cards[0].id, 0.5), ("kalki-9", 0.1))
    ref.observe([again], 65)
    assert ref.waiting_for == ""
    ref.observe([_gj_ev("appeared", b, 90, 1)], 90)
    assert [r.move for r in ref.rulings()] == [a, b]


def test_a_played_card_seen_again_while_the_trick_is_swept_is_no_move():
    moves = _gj_moves(5)
    ref = Referee("ganjifa", 4)
    for k, m in enumerate(moves[:4]):
        ref.observe([_gj_ev("appeared", m, 30 * (k + 1), k)], 30 * (k + 1))
    again = _gj_ev("appeared", moves[3], 140, 9)  # the sweeping hand drags it along
    assert ref.observe([again], 140) == []
    ref.observe([_gj_ev("appeared", moves[4], 170, 10)], 170)
    assert [r.move for r in ref.rulings()] == moves


def test_a_doubt_named_as_the_card_it_already_was_releases_what_waited():
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    zone = f"play{a.player}"
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    doubt = _doubt(zone, 50, 0, ("kalki-9", 0.37), (a.cards[0].id, 0.24))
    ref.observe([doubt], 50)
    ref.observe([_gj_ev("appeared", b, 90, 1)], 90)
    out = ref.confirm(a.cards[0].id, zone)  # "it is the card that was there"
    assert [o.move for o in out if o.kind == "ruling"] == [b]
    assert [r.move for r in ref.rulings()] == [a, b] and ref.waiting_for == ""


def test_only_cards_on_move_zones_are_worth_asking_about():
    kk, gj = Referee("kendra-kari", 4), Referee("ganjifa", 4)
    assert kk.is_move_zone("pos1") and kk.is_move_zone("pos7")
    assert not any(kk.is_move_zone(z) for z in ("stock", "gathered", None, "", "nowhere"))
    assert gj.is_move_zone("play0") and gj.is_move_zone("deni2")
    assert not gj.is_move_zone("won1")


def test_a_follow_that_shows_the_lead_was_beatable_is_played_and_the_trick_goes_on():
    """The follower's card beats the card led "as unbeatable": the lead was the error, the
    follow happened. The follow is judged as played (the leader's error announced), so the
    third card is the next follow, not refused because "the trick is not complete"."""
    moves = _gj_moves(7)
    first_trick, (a, b, c) = moves[:4], moves[4:7]
    ref = Referee("ganjifa", 4)
    for k, m in enumerate(first_trick):
        ref.observe([_gj_ev("appeared", m, 30 * (k + 1), k)], 30 * (k + 1))
    power = ref.engine.picture.table.rules.power
    gone = {m.cards[0] for m in moves}
    suit = [x for x in deck_cards(DeckKind.DASHAVATARA)
            if x.suit is a.cards[0].suit and x not in gone]
    low, high = min(suit, key=power.get), max(suit, key=power.get)
    lead = Move(a.player, "lead", (low,))
    beats = Move(b.player, "follow", (high,))
    ref.observe([_gj_ev("appeared", lead, 150, 4)], 150)
    ref.observe([_gj_ev("appeared", beats, 180, 5)], 180)
    ref.observe([_gj_ev("appeared", c, 210, 6)], 210)
    rulings = ref.rulings()[4:]
    assert [r.move for r in rulings] == [lead, beats, c]
    assert rulings[1].verdict is Verdict.ILLEGAL and "beatable card was led" in rulings[1].reason
    assert rulings[2].verdict is not Verdict.ILLEGAL
