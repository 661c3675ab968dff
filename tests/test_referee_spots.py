"""The table referee at trick games, where each seat has its own spots: unnamed cards,
late cards, doubts and desyncs, shown to it as tracker events."""

from __future__ import annotations

import dataclasses

import pytest
from referee_show import GJ, TableShow

from companion.cards import DeckKind, deck_cards
from companion.games.base import Move, Verdict
from companion.record import simulate, table_view
from companion.referee import SPOT_GRACE_S, Referee
from companion.vision.track import TrackEvent


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
    assert ref.dismiss(f"play{b.player}", track=7) == []  # about another card: none held
    assert ref.waiting_for == f"play{b.player}"
    out = ref.dismiss(f"play{b.player}", track=1)
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
    # ... also when another card, already played elsewhere, ranks first
    misread = _doubt(f"play{a.player}", 150, 0, (b.cards[0].id, 0.5), (a.cards[0].id, 0.3))
    assert ref.choices_for(misread) == ((a.cards[0].id, 0.3),)


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


def test_a_named_card_doubted_again_and_taken_away_unanswered_releases_what_waited():
    """A card the players had named, read as another card once a hand passed (its readings
    are noise to a reader that cannot name it), went with the others before anyone
    answered. Everything after it waited for good; now it lets go, and the question stays
    open."""
    a, b, c = _gj_moves(3)
    ref = Referee("ganjifa", 4)
    zone = f"play{a.player}"
    ref.observe([_gj_ev("unsure", a, 30, 0)], 30)
    ref.confirm(a.cards[0].id, zone, 30, 1.0, track=0)
    ref.observe([_doubt(zone, 50, 0, ("kalki-9", 0.37), ("kalki-8", 0.24))], 50)
    ref.observe([_gj_ev("appeared", b, 90, 1)], 90)
    assert ref.waiting_for == zone and [r.move for r in ref.rulings()] == [a]
    gone = dataclasses.replace(_gj_ev("removed", a, 100, 0), card_id=None)
    out = ref.observe([gone], 100)
    assert [o.move for o in out if o.kind == "ruling"] == [b] and ref.waiting_for == ""
    assert ref.confirm(a.cards[0].id, zone, 110, 110 / 30, track=0) == []  # late: the same
    ref.observe([_gj_ev("appeared", c, 120, 2)], 120)
    assert [r.move for r in ref.rulings()] == [a, b, c]


def test_a_card_doubted_as_it_went_unnamed_still_holds_what_follows():
    """A card never named, taken away while in doubt, is still a card laid there: what
    follows waits for its name."""
    a, b = _gj_moves(2)
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("unsure", a, 30, 0)], 30)
    ref.observe([dataclasses.replace(_gj_ev("removed", a, 40, 0), card_id=None)], 40)
    assert ref.observe([_gj_ev("appeared", b, 60, 1)], 60) == []
    assert ref.waiting_for == f"play{a.player}" and ref.rulings() == []

def test_a_deni_card_named_then_doubted_and_named_again_is_not_laid_twice():
    """The real-art Ganjifa film: a Rama 9 laid on a Deni spot, named by a player, was
    half covered by the trick being swept and read doubtfully (a Rama 8 first). Named
    again as the 9, the card already lying there, it is no second card: what waited for
    the answer goes on."""
    moves = table_view(simulate("ganjifa", 4, {}, 0)).moves
    k = next(i for i, m in enumerate(moves) if m.action == "deni")
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    for move in moves[:k]:
        show.ganjifa(move)
    deni = moves[k]
    low, high = deni.cards
    zone = f"deni{deni.player}"
    show.lay(low, f"play{deni.player}")
    f = show.frame + 10
    ref.observe([_doubt(zone, f, 50, (high.id, 0.6), ("kalki-9", 0.2))], f)
    ref.confirm(high.id, zone, f + 1, (f + 1) / 30)
    assert [r.move for r in ref.rulings()] == list(moves[:k + 1])
    ref.observe([_doubt(zone, f + 40, 50, ("kalki-9", 0.29), (high.id, 0.23))], f + 40)
    assert ref.waiting_for == zone
    show.ganjifa(moves[k + 1])
    ref.confirm(high.id, zone, show.frame + 1, (show.frame + 1) / 30)
    assert [r.move for r in ref.rulings()] == list(moves[:k + 2]) and ref.waiting_for == ""
    for move in moves[k + 2:k + 14]:  # a second Vizier laid would spoil the tricks to come
        show.ganjifa(move)
    assert [r.move for r in ref.rulings()] == list(moves[:k + 14])
    assert all(r.verdict is Verdict.LEGAL for r in ref.rulings())


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


def test_a_named_card_taken_away_unnamed_leaves_its_spot():
    """The real-art Ganjifa film with a deck enrolled live: every card was asked about and
    named by a player, and each went away with the trick without a name. The referee still
    had the old card on the spot, took the next card laid there (read first as that old
    card) for the old card read again, did not hold the next player's card behind it, and
    judged that one first: "it is Player 2's lead, not Player 3's"."""
    moves = _gj_moves(6)
    ref = Referee("ganjifa", 4)
    for k, m in enumerate(moves[:4]):
        f = 30 * (k + 1)
        ref.observe([_gj_ev("unsure", m, f, k)], f)
        ref.confirm(m.cards[0].id, f"play{m.player}", f, f / 30)
    for k, m in enumerate(moves[:4]):  # the trick is gathered: its tracks go, unnamed
        removed = dataclasses.replace(_gj_ev("removed", m, 150, k), card_id=None)
        ref.observe([removed], 150)
    lead, follow = moves[4:6]
    assert lead.player == moves[0].player  # the lead is laid where the last trick's was
    old = moves[0].cards[0].id
    first = dataclasses.replace(_doubt(f"play{lead.player}", 200, 10, (old, 0.5),
                                       (lead.cards[0].id, 0.3)), since=170)
    ref.observe([first], 200)
    assert ref.waiting_for == f"play{lead.player}"  # a new card, not the old one again
    ref.confirm(lead.cards[0].id, f"play{lead.player}", 200, 200 / 30)
    second = dataclasses.replace(_gj_ev("unsure", follow, 201, 11), since=185)
    ref.observe([second], 201)
    ref.confirm(follow.cards[0].id, f"play{follow.player}", 201, 201 / 30)
    assert [r.move for r in ref.rulings()] == moves
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())


def test_a_card_named_late_under_a_doubt_that_held_nothing_up_goes_where_it_was_laid():
    """A doubt whose first reading is the card already on the spot holds nothing up. When
    the players answer, seconds later, that another card lies there, it was laid when the
    doubt began, not when they answered: before the next player's card seen meanwhile."""
    moves = _gj_moves(6)
    ref = Referee("ganjifa", 4)
    for k, m in enumerate(moves[:4]):  # the first trick, its gathering not seen
        ref.observe([_gj_ev("appeared", m, 30 * (k + 1), k)], 30 * (k + 1))
    lead, follow = moves[4:6]
    zone = f"play{lead.player}"
    doubt = dataclasses.replace(_doubt(zone, 180, 0, (moves[0].cards[0].id, 0.5),
                                       (lead.cards[0].id, 0.3)), since=170)
    ref.observe([doubt], 180)
    assert ref.waiting_for == ""  # read as the card already there: nothing held
    ref.observe([dataclasses.replace(_gj_ev("appeared", follow, 200, 5), since=195)], 200)
    ref.confirm(lead.cards[0].id, zone, 260, 260 / 30)  # answered two seconds later
    assert [r.move for r in ref.rulings()] == moves
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())


def test_a_late_answer_names_the_card_it_was_asked_about_not_the_newest_on_its_spot():
    """Players answer seconds late, and not always in the order asked: by then the spot may
    hold the seat's next card, asked about too. Each answer names its own question's card
    (its track)."""
    moves = _gj_moves(5)
    ref = Referee("ganjifa", 4)
    first = ref.observe([_gj_ev("unsure", moves[0], 30, 0)], 30)
    for k, m in enumerate(moves[1:4], 1):
        ref.observe([_gj_ev("appeared", m, 30 * (k + 1), k)], 30 * (k + 1))
    for k in range(4):  # the trick is gathered
        ref.observe([dataclasses.replace(_gj_ev("removed", moves[k], 150, k), card_id=None)],
                    150)
    later = ref.observe([_gj_ev("unsure", moves[4], 200, 10)], 200)
    (q1,), (q2,) = first, later
    assert q1.zone == q2.zone and (q1.track, q2.track) == (0, 10)
    ref.confirm(moves[4].cards[0].id, q2.zone, 230, 230 / 30, q2.track)  # the newer first
    assert ref.rulings() == []  # still waiting for the first card
    ref.confirm(moves[0].cards[0].id, q1.zone, 240, 240 / 30, q1.track)
    assert [r.move for r in ref.rulings()] == moves
    assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())


@pytest.mark.parametrize("seen_again", ["sure", "unsure"])
def test_an_exposed_deni_card_seen_again_on_its_spot_is_no_new_deni(seen_again):
    """A sweep hid Player 2's exposed card long enough for the tracker to let it go; back
    in view, it was a new Deni card (the seat's next card made a second Deni, refused), or
    a doubt about it held up the game (a filmed three-player game)."""
    rec = table_view(simulate("ganjifa", 4, {}, 0))
    moves = [m for m in rec.moves[:14]]
    deni = moves[8]
    assert deni.action == "deni" and moves[13].player == deni.player
    assert all(m.action in ("lead", "follow", "deni") for m in moves)
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    for m in moves[:10]:
        show.ganjifa(m)
    zone, high = f"deni{deni.player}", deni.cards[1]
    show.remove(high, zone)  # hidden, and let go
    if seen_again == "sure":
        show.lay(high, zone)
    else:
        show.frame += 5
        show.outputs += ref.observe([_doubt(zone, show.frame, 77, (high.id, 0.99))], show.frame)
        assert ref.waiting_for == ""  # asked, holding nothing up
    for m in moves[10:]:
        show.ganjifa(m)
    assert [o.move for o in show.rulings()] == moves
    assert all(o.ruling.verdict is not Verdict.ILLEGAL for o in show.rulings())


def test_two_cards_seen_laid_together_are_judged_in_turn_order():
    """Ruling *together-in-turn-order*: the next-but-one player's card seen 2 frames before
    the next player's (a hand resting near it in dim light) is not refused as out of turn;
    nor 12 frames before (a hard Dashavatara film: Player 2's lead, under its hand, was
    first seen 12 frames after Player 3's card and taken for a lead passed)."""
    a, b, c = _gj_moves(3)
    for gap in (2, 12):
        ref = Referee("ganjifa", 4)
        ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
        ref.observe([dataclasses.replace(_gj_ev("appeared", c, 62, 2), since=60)], 62)
        ref.observe([dataclasses.replace(_gj_ev("appeared", b, 62 + gap, 1), since=60 + gap)],
                    62 + gap)
        assert [r.move for r in ref.rulings()] == [a, b, c]
        assert all(r.verdict is not Verdict.ILLEGAL for r in ref.rulings())
    # further apart than that, the order seen stands: the early card was out of turn
    ref = Referee("ganjifa", 4)
    ref.observe([_gj_ev("appeared", a, 30, 0)], 30)
    ref.observe([dataclasses.replace(_gj_ev("appeared", c, 62, 2), since=60)], 62)
    ref.observe([dataclasses.replace(_gj_ev("appeared", b, 90, 1), since=88)], 90)
    assert ref.rulings()[1].verdict is Verdict.ILLEGAL
