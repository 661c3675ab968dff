"""The table referee: simulated games shown to it as tracker events, as a camera would."""

from __future__ import annotations

import pytest
from referee_show import KK, TableShow, double_by_the_last_follower

from companion.cards import Card
from companion.games.base import Move, Ruling, Verdict, seat_name
from companion.layouts import load_layout
from companion.record import simulate, table_view
from companion.referee import RING_GRACE_S, Referee, RefereeError
from companion.referee.mismatch import ring_problems, spot_problems
from companion.vision.track import TrackEvent


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


@pytest.mark.parametrize("seed", [3, 8, 10, 12, 13])
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


def test_draws_seen_while_the_dealt_card_waits_for_its_name_are_judged_after_it():
    """The real-art Kendra Kari film with a deck enrolled live, the players answering 3 s
    late: the dealt card was still unnamed when Players 1 and 2 drew, and their draws,
    seen before the game had left its deal, were dropped."""
    rec = table_view(simulate("kendra-kari", 4, {}, 2))  # the deal, two draws, a play
    k = next(i for i, m in enumerate(rec.moves[1:], 1) if m.action != "draw")
    assert k == 3 and rec.moves[0].action == "deal"
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    deal = rec.moves[0]
    show._tick(deal.player)
    doubt = TrackEvent("unsure", None, KK.zone("pos7").center_mm, "pos7", 0.4, show.frame - 5,
                       show.frame, show.t, 7, candidates=((deal.cards[0].id, 0.4),))
    show.ref.observe([doubt], show.frame, show.t)
    assert show.ref.waiting_for == "pos7"
    for move in rec.moves[1:k + 1]:
        show.kendra_kari(move, hands=True)
    assert show.rulings() == []  # all held behind the dealt card
    show.ref.confirm(deal.cards[0].id, "pos7", show.frame, show.t, track=7)
    assert [o.move for o in show.rulings()] == list(rec.moves[:k + 1])


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
    assert not [o for o in show.outputs if o.kind == "desync"]  # a moment: a hand over it
    show.outputs += ref.observe([], show.frame + 30, show.t + RING_GRACE_S)
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
    assert out.text == "Unsure which card lies on Position 1: 3 of Barat (50%), 8 of Barat (30%)?"
    assert out.place == "Position 1" and out.ruling is None
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


@pytest.mark.parametrize("seed", [0, 2, 8])
def test_a_double_by_the_last_follower_is_one_move_not_its_next_lead(seed):
    """Ruling *double-before-lead*: the last follower's called card ends the trick and wins
    it, so the card that doubles it would also pass as the winner's next lead (about a
    third of the doubles of 60 simulated games)."""
    moves, i = double_by_the_last_follower(seed)
    moves = moves[:i + 2]
    assert not any(m.action in ("pass", "show") for m in moves)
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    for move in moves:
        show.ganjifa(move, deni_high_first=True)
    assert [o.move for o in show.rulings()] == moves
    assert all(o.ruling.verdict is not Verdict.ILLEGAL for o in show.rulings())


@pytest.mark.parametrize("players,seed", [(4, 10), (3, 7)])
def test_a_deni_whose_low_card_alone_passes_as_a_sacrifice_is_one_move(players, seed):
    """The low card is laid first, then the high one on the Deni spot. Alone, a beatable low
    card passed as a sacrifice, and only a lead was paired with the card exposed after it:
    the Deni was lost, and the tricks after it came apart (a filmed three-player game; 10
    of 80 simulated games, up to their first pass)."""
    rec = table_view(simulate("ganjifa", players, {}, seed))
    moves = []
    for move in rec.moves:
        if move.action in ("pass", "show"):
            break
        moves.append(move)
    assert any(m.action == "deni" for m in moves)
    show = TableShow(Referee("ganjifa", players))
    for move in moves:
        show.ganjifa(move)  # the low card first
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


def test_the_ring_check_names_a_missing_card_and_one_the_game_never_took():
    seven, one, stray = (Card.parse(c) for c in ("surya-2", "barat-5", "cheng-9"))
    expected = {"pos7": seven, "pos1": one}
    played = {seven, one}.__contains__
    assert ring_problems({"pos7": seven, "pos1": one}, expected, played) == []
    assert ring_problems({"pos7": seven}, expected, played) == [
        f"{one.name} should lie on Position 1"]
    assert ring_problems({"pos7": seven, "pos1": one, "pos2": stray}, expected, played) == [
        f"take {stray.name} back from Position 2"]


def test_the_spot_check_names_a_refused_card_still_lying_unless_the_game_played_on_with_it():
    gj = load_layout("ganjifa")
    spot = next(z for z in gj.zones if z.seat == 1 and not z.id.startswith("won"))
    card = Card.parse("surya-raja")
    refused = Ruling(Move(1, "lead", (card,)), Verdict.ILLEGAL, "beatable")
    taken = Ruling(Move(1, "lead", (card,)), Verdict.LEGAL)
    def move_zone(z):
        return z == spot.id

    def never(c):
        return False

    problems = spot_problems({spot.id: card}, [refused], gj, move_zone, never)
    assert problems == [(f"{card.name} on {seat_name(1)}'s {spot.kind} spot was refused; "
                         "take it back")]
    assert spot_problems({spot.id: card}, [refused, taken], gj, move_zone, never) == []
    assert spot_problems({spot.id: card}, [refused], gj, move_zone, {card}.__contains__) == []
    assert spot_problems({spot.id: card}, [refused], gj, lambda z: False, never) == []


def test_a_doubt_about_a_pile_or_off_the_zones_is_not_asked():
    """The stock and the gathered pile decide no move: the players are not asked."""
    ref = Referee("kendra-kari", 4)
    for zone in ("stock", "gathered", None):
        at = KK.zone(zone).center_mm if zone else (5.0, 5.0)
        ev = TrackEvent("unsure", None, at, zone, 0.5, 1, 6, 0.6,
                        candidates=(("barat-3", 0.5), ("barat-8", 0.3)))
        assert ref.observe([ev], 6, 0.6) == []
    # on a ring position: asked, with the tracker's readings kept for the dashboard
    ev = TrackEvent("unsure", None, KK.zone("pos2").center_mm, "pos2", 0.5, 1, 6, 0.6,
                    candidates=(("barat-3", 0.5), ("barat-8", 0.3)))
    (out,) = ref.observe([ev], 6, 0.6)
    assert out.readings == ev.candidates and out.to_json()["readings"] == [
        ["barat-3", 0.5], ["barat-8", 0.3]]


def test_a_reading_is_worded_for_people_and_one_that_names_no_card_is_kept():
    from companion.referee.values import card_words
    assert card_words("matsya-10") == "10 of Matsya"
    assert card_words("cheng-raja") == "Raja of Cheng"
    assert card_words("smudge") == "smudge"  # an odd reading is shown, never an error


def test_a_doubt_on_the_next_ring_position_says_which_cards_could_lie_there():
    """Kendra Kari: the card played to the next position shares suit or rank with the last
    card, so a doubt there carries the cards that could be it (``Referee.could``, from
    ``TableReferee.could_lie``): the card laid is among them, with at most 17 others."""
    moves = table_view(simulate("kendra-kari", 4, {}, 3)).moves
    k = next(i for i, m in enumerate(moves) if i > 2 and m.action == "play")
    ref = Referee("kendra-kari", 4)
    show = TableShow(ref)
    for move in moves[:k]:
        show.kendra_kari(move)
    card, zone = moves[k].cards[0], f"pos{moves[k].target}"
    f = show.frame + 10
    ev = TrackEvent("unsure", None, KK.zone(zone).center_mm, zone, 0.3, f - 5, f, f / 10,
                    77, candidates=(("surya-2", 0.3),))
    (asked,) = [o for o in ref.observe([ev], f, f / 10) if o.kind == "unsure"]
    assert card.id in asked.could and len(asked.could) <= 18
    assert not {c.id for m in moves[:k] for c in m.cards} & set(asked.could)  # none played


def test_a_card_read_on_the_ring_while_it_lies_on_another_position_is_asked_about():
    """Ruling *one-card-one-position*: each card exists once, so a sure reading of a card
    that the game and the camera both have lying on another ring position is wrong, and the
    players are asked which card lies there. One the camera no longer sees there (dragged
    by a sweep) is that card seen again, as before: no question, no move."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, 1)).moves)
    i = next(k for k in range(1, len(moves) - 1)
             if moves[k].action == moves[k + 1].action == "play"
             and len(moves[k].cards) == len(moves[k + 1].cards) == 1)
    for gone in (False, True):
        show = TableShow(Referee("kendra-kari", 4))
        for move in moves[:i + 1]:
            show.kendra_kari(move)
        lying, laid = moves[i], moves[i + 1]
        if gone:
            show.remove(lying.cards[0], f"pos{lying.target}")
        zone = f"pos{laid.target}"
        show.frame += 10
        misread = TrackEvent("appeared", lying.cards[0].id, KK.zone(zone).center_mm, zone, 0.97,
                             show.frame - 5, show.frame, show.frame / 10, 99,
                             candidates=((lying.cards[0].id, 0.97), (laid.cards[0].id, 0.03)))
        out = show.ref.observe([misread], show.frame, show.frame / 10)
        doubts = [o for o in out if o.kind == "doubt"]
        if gone:
            assert doubts == [] and show.ref.rulings()[-1].move == lying
            continue
        (doubt,) = doubts
        assert doubt.text == (f"{lying.cards[0].name} was read on Position {laid.target}, but "
                              f"it lies on Position {lying.target}: which card lies there?")
        assert laid.cards[0].id in doubt.choices
        show.ref.confirm(laid.cards[0].id, zone, show.frame, show.frame / 10, track=99)
        assert [r.move for r in show.ref.rulings()] == moves[:i + 2]
