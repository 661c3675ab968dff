"""Ganjifa with Denis: one test per rule of the book, on hand-built positions.

Positions are built with ``ganjifa.position``: the hands given, every other card already
played. Rama is a strong suit (Raja, Mantri, 10 .. 1), Matsya a weak one (1 high).
"""

import random

import pytest

from companion.cards import Card, DeckKind, RankOrder, deck_cards
from companion.games import ganjifa as g
from companion.games.base import IllegalMoveError, Move, OptionsError


def C(*ids):
    return [Card.parse(i) for i in ids]


def play(state, move):
    state, events = g.apply(state, move)
    return state, events


def texts(events):
    return [e.text for e in events]


def follow_round(state, pick=lambda moves: moves[0]):
    """Let every player still owing a card to the trick play ``pick`` of their moves."""
    events = []
    while state.table.phase is g.Phase.FOLLOW:
        state, evs = play(state, pick(g.legal_moves(state)))
        events += evs
    return state, events


# ---- table, deck and deal ---------------------------------------------------------------

@pytest.mark.parametrize("players,deck,size", [(3, "dashavatara", 40), (4, "dashavatara", 30),
                                               (3, "mughal", 32)])
def test_three_or_four_players_and_the_two_decks(players, deck, size):
    s = g.new_game(players, g.Options(deck=DeckKind(deck)), seed=1)
    assert [len(h) for h in s.hands] == [size] * players
    assert frozenset().union(*s.hands) == frozenset(deck_cards(DeckKind(deck)))


@pytest.mark.parametrize("players,options", [(2, {}), (5, {}), (4, {"deck": DeckKind.MUGHAL}),
                                             (3, {"leading_raja": "noon"}),
                                             (3, {"deck": DeckKind.MUGHAL, "leading_raja": "rama"}),
                                             (3, {"deni": "sometimes"})])
def test_bad_table_or_options_are_refused(players, options):
    with pytest.raises(OptionsError):
        g.new_game(players, g.Options(**options), 0)


@pytest.mark.parametrize("players,deck", [(3, DeckKind.DASHAVATARA), (4, DeckKind.DASHAVATARA),
                                          (3, DeckKind.MUGHAL)])
def test_dealt_in_batches_of_four_the_last_eight_in_twos_for_four(players, deck):
    seed = 7
    shuffled = list(deck_cards(deck))
    random.Random(seed).shuffle(shuffled)
    s = g.new_game(players, g.Options(deck=deck), seed)
    fours = len(shuffled) - (8 if players == 4 else 0)
    for seat in range(players):
        expect = []
        for start in range(seat * 4, fours, 4 * players):
            expect += shuffled[start:start + 4]
        if players == 4:
            expect += shuffled[fours + seat * 2:fours + seat * 2 + 2]
        assert list(s.dealt[seat]) == expect


@pytest.mark.parametrize("players,shown", [(3, 8), (4, 6)])
def test_traditional_face_up_first_and_last_batches(players, shown):
    s = g.new_game(players, g.Options(face_up_deal=True), 3)
    for seat in range(players):
        dealt = s.dealt[seat]
        last = 2 if players == 4 else 4
        assert s.face_up[seat] == dealt[:4] + dealt[-last:]
        assert len(s.face_up[seat]) == shown
        assert g.legal_moves(s) == [Move(seat, "show", s.face_up[seat])]
        s, ev = play(s, g.legal_moves(s)[0])
        assert ev[0].kind == "show"
    assert g.legal_moves(s)[0].action == "lead"  # then the leading Raja


def test_seeded_deal_is_replayable():
    assert g.deal_of(g.new_game(4, None, 9)) == g.deal_of(g.new_game(4, None, 9))
    assert g.deal_of(g.new_game(4, None, 9)) != g.deal_of(g.new_game(4, None, 10))


# ---- ranking -----------------------------------------------------------------------------

@pytest.mark.parametrize("ranking,unbeatable", [(RankOrder.TRADITIONAL, True),
                                                (RankOrder.STRAIGHT, False)])
def test_traditional_reversed_ranking_or_straight(ranking, unbeatable):
    # Raja and Mantri of Matsya are played; the 1 is the top number only when reversed.
    hands = [C("matsya-1", "kalki-1"), C("matsya-10", "kalki-2"), C("matsya-5", "kalki-3")]
    s = g.position(hands, 0, g.Options(ranking=ranking))
    assert (Card.parse("matsya-1") in g.unbeatable(s.rules, s.table.played, s.hands[0])) \
        is unbeatable


# ---- opening -----------------------------------------------------------------------------

@pytest.mark.parametrize("deck,key,suit", [(DeckKind.DASHAVATARA, "day", "rama"),
                                           (DeckKind.DASHAVATARA, "night", "balarama"),
                                           (DeckKind.MUGHAL, "day", "surya"),
                                           (DeckKind.MUGHAL, "night", "chandra"),
                                           (DeckKind.DASHAVATARA, "kalki", "kalki")])
def test_the_leading_raja_is_an_option(deck, key, suit):
    s = g.new_game(3, g.Options(deck=deck, leading_raja=key), 4)
    raja = Card.parse(f"{suit}-raja")
    holder = next(i for i, h in enumerate(s.hands) if raja in h)
    assert g.current_player(s) == holder
    assert g.legal_moves(s) == [Move(holder, "lead", (raja,))]
    s, ev = play(s, g.legal_moves(s)[0])
    assert ev[0].announce and "the leading Raja" in ev[0].text


@pytest.mark.parametrize("players,double,cards,order", [
    (3, True, 6, [1, 1, 2, 2, 0]), (3, False, 3, [1, 2]), (4, True, 4, [1, 2, 3])])
def test_opening_trick_is_won_by_the_leader(players, double, cards, order):
    s = g.new_game(players, g.Options(opening_double=double), 2)
    leader = g.current_player(s)
    s, _ = play(s, g.legal_moves(s)[0])
    seen = []
    while s.table.phase is g.Phase.FOLLOW:
        seen.append((g.current_player(s) - leader) % players)
        s, _ev = play(s, g.legal_moves(s)[-1])  # any card, low or not (ruling low-cards)
    assert seen == order
    assert s.table.won[leader] == cards and sum(s.table.won) == cards
    assert g.current_player(s) == leader and not s.table.led_this_turn


# ---- tricks ------------------------------------------------------------------------------

def test_unbeatable_means_every_higher_card_played_or_held_by_the_same_player():
    hands = [C("rama-raja", "rama-vizier", "rama-9", "kalki-1"),
             C("rama-10", "kalki-2", "kalki-3", "kalki-4"),
             C("rama-8", "kalki-5", "kalki-6", "kalki-7")]
    s = g.position(hands, 0)
    assert g.unbeatable(s.rules, s.table.played, s.hands[0]) == C("rama-raja", "rama-vizier")
    assert g.unbeatable(s.rules, s.table.played, s.hands[2]) == C("kalki-7", "kalki-6", "kalki-5")
    assert g.unbeatable(s.rules, s.table.played, s.hands[1]) == []


def test_following_suit_is_not_required_and_the_highest_card_of_the_suit_led_wins():
    hands = [C("rama-raja", "kalki-1"), C("rama-2", "kalki-2"), C("rama-3", "matsya-4")]
    s = g.position(hands, 0)
    s, _ = play(s, Move(0, "lead", tuple(C("rama-raja"))))
    assert {m.cards[0] for m in g.legal_moves(s)} == set(hands[1])  # any card
    s, _ = play(s, Move(1, "follow", tuple(C("kalki-2"))))
    s, ev = play(s, Move(2, "follow", tuple(C("matsya-4"))))
    assert "Player 1 wins the trick (3 cards)" in texts(ev)
    assert s.table.won[0] == len(s.rules.cards) - 6 + 3  # trick value = number of cards


# ---- leading -----------------------------------------------------------------------------

def test_leader_must_lead_every_unbeatable_card_but_the_lowest_in_each_suit():
    hands = [C("rama-raja", "rama-vizier", "rama-10", "rama-1", "kalki-1"),
             C("rama-9", "kalki-2", "kalki-3", "kalki-4", "kalki-5"),
             C("rama-8", "rama-2", "kalki-6", "kalki-7", "kalki-8")]
    s = g.position(hands, 0)
    moves = g.legal_moves(s)
    assert {m.action for m in moves} == {"lead"}
    assert [m.cards[0] for m in moves] == C("rama-raja", "rama-vizier", "rama-10")
    with pytest.raises(IllegalMoveError, match="except the lowest"):
        play(s, Move(0, "deni", tuple(C("rama-1", "rama-raja"))))
    # Ruling lead-order: the 10 first is fine; then one more must go before anything else.
    s, _ = play(s, Move(0, "lead", tuple(C("rama-10"))))
    s, _ = follow_round(s)
    assert {m.action for m in g.legal_moves(s)} == {"lead"}
    s, _ = play(s, Move(0, "lead", tuple(C("rama-raja"))))
    s, _ = follow_round(s)
    # The Mantri is now the lowest (only) unbeatable Rama: optional.
    assert "pass" not in {m.action for m in g.legal_moves(s)}
    assert Move(0, "lead", tuple(C("rama-vizier"))) in g.legal_moves(s)
    assert s.table.led_this_turn and g.current_player(s) == 0


def test_a_beatable_card_cannot_be_led():
    hands = [C("rama-9", "rama-1"), C("rama-10", "kalki-2"), C("rama-8", "kalki-3")]
    s = g.position(hands, 0)
    with pytest.raises(IllegalMoveError, match="not unbeatable"):
        play(s, Move(0, "lead", tuple(C("rama-9"))))


# ---- giving a Deni -----------------------------------------------------------------------

NINE_WITH_MANTRI = [C("rama-vizier", "rama-9", "rama-5", "kalki-1"),
                    C("rama-10", "kalki-2", "kalki-3", "kalki-4"),
                    C("rama-8", "kalki-5", "kalki-6", "kalki-7")]


def test_the_nine_with_the_mantri_gives_a_deni_for_the_ten():
    # "suppose the Raja has already been played and I have the Mantri and the Nine, but not
    # the Ten. In that case, the Nine meets the requirement"
    s = g.position(NINE_WITH_MANTRI, 0)
    deni = Move(0, "deni", tuple(C("rama-5", "rama-9")))
    assert set(g.legal_moves(s)) == {deni, Move(0, "lead", tuple(C("rama-vizier")))}
    s, ev = play(s, deni)
    assert ev[0].announce and ev[0].text == "A Deni for the 10"
    assert s.table.exposed[0] == frozenset(C("rama-9"))
    assert Card.parse("rama-9") in s.hands[0]  # exposed, not played
    # "The player with the called-for card must play it (and take the lead)"
    assert g.legal_moves(s) == [Move(1, "follow", tuple(C("rama-10")))]
    s, _ = play(s, g.legal_moves(s)[0])
    assert len(g.legal_moves(s)) == 4  # the others may play any card
    s, ev = play(s, Move(2, "follow", tuple(C("rama-8"))))
    assert "Player 2 wins the trick (3 cards)" in texts(ev)
    assert "Player 2 takes the lead" in texts(ev) and g.current_player(s) == 1
    # The exposed Nine is now unbeatable for its holder, and stays exposed until played.
    assert Card.parse("rama-9") in g.unbeatable(s.rules, s.table.played, s.hands[0])
    assert s.table.exposed[0] == frozenset(C("rama-9"))


def test_the_traditional_deni_needs_the_second_highest_unplayed_card():
    s = g.position(NINE_WITH_MANTRI, 0, g.Options(deni="traditional"))
    assert "deni" not in {m.action for m in g.legal_moves(s)}
    with pytest.raises(IllegalMoveError, match="no Deni"):
        play(s, Move(0, "deni", tuple(C("rama-5", "rama-9"))))


def test_a_deni_needs_a_lower_card_of_the_suit():
    hands = [C("rama-vizier", "kalki-1"), C("rama-raja", "kalki-2"), C("rama-8", "kalki-3")]
    s = g.position(hands, 0)
    assert not [m for m in g.legal_moves(s) if m.action == "deni"]


DOUBLE = [C("rama-vizier", "rama-3", "kalki-1", "kalki-2"),
          C("rama-raja", "rama-10", "kalki-3", "kalki-4"),
          C("kalki-5", "kalki-6", "kalki-7", "kalki-8")]


def test_doubling_the_deni_and_the_forced_sacrifice_of_the_high_card():
    s = g.position(DOUBLE, 0)
    s, ev = play(s, Move(0, "deni", tuple(C("rama-3", "rama-vizier"))))
    assert ev[0].text == "A Deni for the Raja"
    double = Move(1, "double", tuple(C("rama-raja", "rama-10")))
    assert set(g.legal_moves(s)) == {Move(1, "follow", tuple(C("rama-raja"))), double}
    s, ev = play(s, double)
    assert ev[0].announce and ev[0].text == "Deni doubled"
    # "each other player must then play an extra card"
    assert g.current_player(s) == 2
    s, _ = play(s, g.legal_moves(s)[0])
    s, _ = play(s, g.legal_moves(s)[0])
    # "the player who originally led must play another card of the same suit (and thus may
    # be forced to give up the card that would have become unbeatable ...)"
    assert g.legal_moves(s) == [Move(0, "follow", tuple(C("rama-vizier")))]
    s, ev = play(s, g.legal_moves(s)[0])
    assert "Player 2 wins the trick (6 cards)" in texts(ev)
    assert g.current_player(s) == 1 and not s.table.exposed[0]


def test_a_second_low_card_protects_the_high_card_from_a_double():
    hands = [h + extra for h, extra in zip(DOUBLE, (C("rama-2"), C("kalki-9"), C("kalki-10")))]
    s = g.position(hands, 0)
    s, _ = play(s, Move(0, "deni", tuple(C("rama-3", "rama-vizier"))))
    s, _ = play(s, Move(1, "double", tuple(C("rama-raja", "rama-10"))))
    s, _ = play(s, g.legal_moves(s)[0])
    s, _ = play(s, g.legal_moves(s)[0])
    assert {m.cards[0] for m in g.legal_moves(s)} == set(C("rama-2", "rama-vizier"))
    with pytest.raises(IllegalMoveError, match="another Rama card"):
        play(s, Move(0, "follow", tuple(C("kalki-1"))))


def test_only_the_holder_of_the_called_card_and_the_card_below_can_double():
    hands = [C("rama-vizier", "rama-3", "kalki-1"), C("rama-raja", "kalki-3", "kalki-4"),
             C("rama-10", "kalki-6", "kalki-7")]
    s = g.position(hands, 0)
    s, _ = play(s, Move(0, "deni", tuple(C("rama-3", "rama-vizier"))))
    assert g.legal_moves(s) == [Move(1, "follow", tuple(C("rama-raja")))]
    with pytest.raises(IllegalMoveError, match="called for"):
        play(s, Move(1, "follow", tuple(C("kalki-3"))))


# ---- passing the lead --------------------------------------------------------------------

def test_with_no_deni_the_leader_leads_the_rest_and_the_lead_passes_to_the_right():
    hands = [C("kalki-raja", "rama-1"), C("rama-2", "kalki-2"), C("rama-3", "kalki-3"),
             C("rama-4", "kalki-4")]
    s = g.position(hands, 0)
    assert g.legal_moves(s) == [Move(0, "lead", tuple(C("kalki-raja")))]
    with pytest.raises(IllegalMoveError, match="remaining unbeatable"):
        play(s, Move(0, "pass"))
    s, _ = play(s, g.legal_moves(s)[0])
    s, _ = follow_round(s, lambda moves: moves[-1])  # the others discard Kalki
    assert g.legal_moves(s) == [Move(0, "pass")]
    s, ev = play(s, Move(0, "pass"))
    assert ev[0].announce and "passes to the right: Player 2 takes the lead" in ev[0].text
    assert g.current_player(s) == 1 and not s.table.led_this_turn  # seat 1 is on the right


SACRIFICE = [C("rama-5", "rama-4", "kalki-2"), C("rama-raja", "kalki-3", "kalki-9"),
             C("rama-9", "kalki-4", "kalki-10")]


def test_with_no_unbeatable_card_the_leader_gives_up_their_highest_card_of_a_suit():
    s = g.position(SACRIFICE, 0)
    assert set(g.legal_moves(s)) == {Move(0, "sacrifice", tuple(C("rama-5"))),
                                     Move(0, "sacrifice", tuple(C("kalki-2")))}
    with pytest.raises(IllegalMoveError, match="highest card in the chosen suit"):
        play(s, Move(0, "sacrifice", tuple(C("rama-4"))))
    with pytest.raises(IllegalMoveError, match="highest card in a suit"):
        play(s, Move(0, "pass"))
    s, _ = play(s, Move(0, "sacrifice", tuple(C("rama-5"))))
    # "The player with the highest card in that suit must play it and take the lead"
    assert g.legal_moves(s) == [Move(1, "follow", tuple(C("rama-raja")))]
    s, _ = play(s, g.legal_moves(s)[0])
    assert len(g.legal_moves(s)) == 3  # the other player may play any card
    s, ev = play(s, Move(2, "follow", tuple(C("rama-9"))))
    assert "Player 2 takes the lead" in texts(ev) and g.current_player(s) == 1


# ---- winning -----------------------------------------------------------------------------

def test_most_cards_won_wins_and_ties_are_shared():
    s = g.position([C("rama-1"), C("rama-2"), C("rama-3")], 0, won=(40, 37, 40))
    s, _ = play(s, g.legal_moves(s)[0])  # the 3 of Rama is not unbeatable: a sacrifice
    s, ev = follow_round(s)
    assert g.is_over(s)
    r = g.result(s)
    assert r.scores == (40.0, 37.0, 43.0) and r.winners == (2,) and "Player 3 wins" in r.text
    assert ev[-1].kind == "result" and ev[-1].announce
    with pytest.raises(IllegalMoveError, match="over"):
        play(s, Move(0, "pass"))
    tie = g.result(g.position([C("rama-1")] * 1 + [C("rama-2"), C("rama-3")], 0,
                              won=(39, 39, 39)))
    assert tie.winners == (0, 1, 2) and "tie" in tie.text


def test_apply_refuses_a_move_out_of_turn():
    s = g.position(SACRIFICE, 0)
    with pytest.raises(IllegalMoveError, match="turn"):
        play(s, Move(1, "sacrifice", tuple(C("rama-raja"))))


def test_a_card_made_unbeatable_by_the_others_discards_must_be_led_before_passing():
    hands = [C("kalki-raja", "rama-1"), C("rama-2", "kalki-2"), C("rama-3", "kalki-3"),
             C("rama-4", "kalki-4")]
    s = g.position(hands, 0)
    s, _ = play(s, g.legal_moves(s)[0])
    s, _ = follow_round(s, lambda moves: moves[0])  # the others discard their Rama
    assert g.legal_moves(s) == [Move(0, "lead", tuple(C("rama-1")))]
