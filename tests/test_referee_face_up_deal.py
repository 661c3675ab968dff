"""Ganjifa's traditional face-up deal at a camera table: "the first and last batch given to
each player is dealt face up ... The cards are left on the table for an agreed period ...
and then the players pick up all the cards they were dealt." The referee takes the cards
laid on each seat's spots as that seat's ``show`` (rulings *face-up-batches-on-the-spots*
and *shown-as-seen*)."""

from __future__ import annotations

from referee_show import GJ, TableShow

from companion.games.base import Move, Verdict
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.track import TrackEvent

OPTIONS = {"face_up_deal": "true"}


def _record(seed: int):
    rec = table_view(simulate("ganjifa", 4, OPTIONS, seed))
    shows = [m for m in rec.moves if m.action == "show"]
    assert len(shows) == 4 and list(rec.moves[:4]) == shows and all(len(m.cards) == 6 for m in shows)
    return rec, shows


def _pile(show: TableShow, seat: int, cards, track: int) -> None:
    """Face-up cards laid one on another on the seat's play spot: one track, relabelled."""
    zone = f"play{seat}"
    for card in cards:
        show.frame += 5
        show.t += 0.5
        show.outputs += show.ref.observe([TrackEvent(
            "appeared", card.id, GJ.zone(zone).center_mm, zone, 0.99, show.frame - 5,
            show.frame, show.t, track)], show.frame, show.t)


def _pick_up(show: TableShow, seat: int, top, track: int) -> None:
    """The pile taken up at once: its top card goes, and the spot is empty."""
    zone = f"play{seat}"
    centre = GJ.zone(zone).center_mm
    show.frame += 5
    show.t += 0.5
    show.outputs += show.ref.observe([
        TrackEvent("removed", top.id, centre, zone, 0.99, show.frame - 5, show.frame, show.t,
                   track),
        TrackEvent("cleared", None, centre, zone, 1.0, show.frame, show.frame, show.t)],
        show.frame, show.t)


def _plays(rec, count: int) -> list[Move]:
    """The first single-card moves after the shows (up to a Deni, double or pass)."""
    out = []
    for m in rec.moves[4:]:
        if m.action not in ("lead", "follow") or len(out) == count:
            break
        out.append(m)
    return out


def test_face_up_batches_piled_on_the_play_spots_are_shown_and_played_later():
    # seed 3: a card of a face-up batch is played within the first tricks
    rec, shows = _record(3)
    plays = _plays(rec, 12)
    shown_then_played = [m for m in plays if m.cards[0] in shows[m.player].cards]
    assert shown_then_played, "the seed should have a shown card played on its own spot"
    ref = Referee("ganjifa", 4, OPTIONS)
    show = TableShow(ref)
    for batch in (slice(0, 3), slice(3, 6)):  # the first batch to each, then the last
        for s in shows:
            _pile(show, s.player, s.cards[batch], track=s.player)
    for s in shows:
        _pick_up(show, s.player, s.cards[-1], track=s.player)
    for m in plays:
        show.ganjifa(m)
    rulings = show.rulings()
    assert [(r.ruling.move.player, set(r.ruling.move.cards)) for r in rulings[:4]] == \
        [(s.player, set(s.cards)) for s in shows]
    assert [r.ruling.move for r in rulings[4:]] == plays
    assert all(r.ruling.verdict is not Verdict.ILLEGAL for r in rulings)
    assert ref.desynced == ""


def test_the_tap_ends_the_show_with_the_cards_seen():
    rec, shows = _record(0)
    ref = Referee("ganjifa", 4, OPTIONS)
    show = TableShow(ref)
    _pile(show, 1, shows[1].cards[:4], track=1)  # the others laid theirs off the spots
    # the seats show in turn: Player 1's (none seen) holds Player 2's back until the tap
    assert show.rulings() == []
    show.outputs += ref.tell_shown(show.frame, show.t)
    rulings = show.rulings()
    assert [(r.ruling.move.player, r.ruling.move.cards) for r in rulings] == \
        [(0, ()), (1, shows[1].cards[:4]), (2, ()), (3, ())]
    assert all(r.ruling.verdict is Verdict.LEGAL for r in rulings)
    _pick_up(show, 1, shows[1].cards[3], track=1)
    lead = rec.moves[4]
    show.ganjifa(lead)
    assert show.rulings()[-1].ruling.move == lead
    assert show.rulings()[-1].ruling.verdict is Verdict.LEGAL


def test_a_card_beyond_a_seats_face_up_cards_ends_the_show_and_is_judged():
    rec, shows = _record(0)
    lead = rec.moves[4]
    missing = (lead.player + 1) % 4  # one of this seat's cards lay off the spots
    ref = Referee("ganjifa", 4, OPTIONS)
    show = TableShow(ref)
    for s in shows:
        cards = s.cards[1:] if s.player == missing else s.cards
        _pile(show, s.player, cards, track=s.player)
        _pick_up(show, s.player, cards[-1], track=s.player)
    made = show.rulings()
    # the seats before the one still short show; it and those after it wait
    assert [r.ruling.move.player for r in made] == list(range(missing))
    show.ganjifa(lead)  # the leading Raja on a spot whose seat showed all six
    rulings = show.rulings()
    assert [r.ruling.move.player for r in rulings[:4]] == [0, 1, 2, 3]
    assert set(rulings[missing].ruling.move.cards) == set(shows[missing].cards[1:])
    assert rulings[4].ruling.move == lead and rulings[4].ruling.verdict is Verdict.LEGAL
    assert all(r.ruling.verdict is not Verdict.ILLEGAL for r in rulings)


def test_a_card_laid_after_its_seats_pile_was_taken_up_is_a_move():
    """The leader's pile is one card short (laid off the spots) and nobody taps: once its
    spot was seen empty, its next card, the leading Raja, is the lead, not a face-up card."""
    rec, shows = _record(0)
    lead = rec.moves[4]
    ref = Referee("ganjifa", 4, OPTIONS)
    show = TableShow(ref)
    for s in shows:
        cards = s.cards[1:] if s.player == lead.player else s.cards
        _pile(show, s.player, cards, track=s.player)
    for s in shows:
        _pick_up(show, s.player, s.cards[-1], track=s.player)
    show.ganjifa(lead)
    rulings = show.rulings()
    assert [r.ruling.move.player for r in rulings[:4]] == [0, 1, 2, 3]
    assert set(rulings[lead.player].ruling.move.cards) == set(shows[lead.player].cards[1:])
    assert rulings[4].ruling.move == lead and rulings[4].ruling.verdict is Verdict.LEGAL


def test_a_doubt_on_a_seats_spot_offers_the_cards_it_showed_to_look_at_first():
    rec, shows = _record(3)
    plays = _plays(rec, 12)
    m = next(m for m in plays if m.cards[0] in shows[m.player].cards)
    ref = Referee("ganjifa", 4, OPTIONS)
    show = TableShow(ref)
    for s in shows:
        _pile(show, s.player, s.cards, track=s.player)
        _pick_up(show, s.player, s.cards[-1], track=s.player)
    for before in plays[:plays.index(m)]:
        show.ganjifa(before)
    zone = f"play{m.player}"
    played = {c for p in plays[:plays.index(m)] for c in p.cards}
    doubt = TrackEvent("unsure", None, GJ.zone(zone).center_mm, zone, 0.4, show.frame + 5,
                       show.frame + 10, show.t + 1, 99, candidates=(("kalki-9", 0.4),))
    (asked,) = [o for o in ref.observe([doubt], show.frame + 10, show.t + 1)
                if o.kind == "unsure"]
    assert m.cards[0].id in asked.could
    assert set(asked.could) == {c.id for c in shows[m.player].cards if c not in played}
    # without a face-up deal the table knows nothing of the hand yet: no row
    plain = Referee("ganjifa", 4)
    (asked,) = [o for o in plain.observe([doubt], 10, 1.0) if o.kind == "unsure"]
    assert asked.could == ()


def test_a_called_card_shown_at_the_deal_is_offered_to_its_holder_only():
    """A Deni's or sacrifice's called card whose holder the table saw at the deal is not a
    button for the other followers (``hints.expected_of`` with ``Picture.known``)."""
    from companion.games import get_game
    from companion.referee.hints import expected_of
    g = get_game("ganjifa")
    seen = played = 0
    for seed in range(12):
        rec = table_view(simulate("ganjifa", 4, OPTIONS, seed))
        ref = g.TableReferee(4, g.Options(face_up_deal=True))
        for move in rec.moves:
            pic = ref.picture
            t = pic.table
            for seat in t.queue if t.phase.value == "follow" else ():
                card = t.called_of(seat)
                holder = next((q for q in range(4) if card is not None and card in pic.known(q)),
                              None)
                if holder is None:
                    continue
                seen += 1
                # (to its holder as called for, or as the card it exposed and took)
                offered = card.id in dict(expected_of(t, seat, set(), pic.known))
                assert offered == (seat == holder)
                assert card.id in dict(expected_of(t, seat, set()))  # without: to all
                played += seat == move.player and card in move.cards
            ref.observe(move)
    assert seen and played
