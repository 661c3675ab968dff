"""Kendra Kari: one test (at least) per rule of the 2015 book and of the 2011 options.

Positions are built from card ids with ``position``; the rule each test checks is quoted
in the engine's docstrings and mapped in docs/rulings/kendra-kari.md."""

from __future__ import annotations

import random

import pytest

from companion.cards import Card
from companion.games import kendra_kari as kk
from companion.games.base import (
    IllegalMoveError,
    Move,
    NotYourTurnError,
    OptionsError,
    options_from_json,
    options_to_json,
)

# ---- helpers (also imported by the other Kendra Kari test modules) ----------------------


def ci(card_id: str) -> int:
    return kk.INDEX[Card.parse(card_id)]


def mask(ids) -> int:
    return sum(1 << ci(i) for i in ids)


def position(hands, *, ring=None, centre="cheng-3", last=None, turn=0, stock=None,
             options=None, stage=kk.Stage.NORMAL, last_ninth=-1) -> kk.State:
    """A state with the given hands (lists of card ids), ring ({position: card id}) and
    centre card. Every other card is in the stock (deck order), or, when ``stock`` is
    given, the rest counts as captured by earlier bridges."""
    ring = ring or {}
    laid = [c for h in hands for c in h] + list(ring.values()) + ([centre] if centre else [])
    assert len(set(laid)) == len(laid) and not set(stock or ()) & set(laid), "placed twice"
    tops = [ci(centre) if centre else -1] + [ci(ring[p]) if p in ring else -1
                                             for p in range(1, 7)]
    table = mask(ring.values()) | (mask([centre]) if centre else 0)
    used = mask([c for h in hands for c in h]) | table
    if stock is None:
        stock_cards, cap = tuple(i for i in range(96) if not (used >> i) & 1), 0
    else:
        stock_cards, cap = tuple(ci(c) for c in stock), kk.FULL & ~(used | mask(stock))
    last = (max(ring) if ring else 0) if last is None else last
    return kk.State(options or kk.Options(), len(hands), tuple(mask(h) for h in hands),
                    stock_cards, 0, tuple(tops), last, table, cap, 0, turn, stage, -1, 0,
                    last_ninth, 0, 1234, (), "", ((), 0, ()))


def mv(player, action, cards=(), target="") -> Move:
    return Move(player, action, tuple(Card.parse(c) for c in cards), target)


def accounted(state: kk.State) -> bool:
    """hands + stock + table (ring and Position 7) + captured + dead = 96, each card once."""
    parts = list(state.hands) + [sum(1 << c for c in state.stock[state.pos:]), state.table,
                                 state.captured, state.dead]
    union = 0
    for p in parts:
        if union & p:
            return False
        union |= p
    return union == kk.FULL and sum(p.bit_count() for p in parts) == 96


def refused(state, move, reason_start):
    with pytest.raises(IllegalMoveError) as e:
        kk.apply(state, move)
    assert e.value.reason.startswith(reason_start), e.value.reason
    assert move not in kk.legal_moves(state)
    return e.value.reason


def hand(state, seat):
    return {c.id for c in kk.hand_of(state, seat)}


# A full ring: the last card is Phul 9 on position 6, opposite Surya 7 on position 3; the
# next position is 1, opposite Surya 2 on position 4.
RING = {1: "ghulam-5", 2: "ghulam-7", 3: "surya-7", 4: "surya-2", 5: "phul-2", 6: "phul-9"}
DEAD = ["barat-4", "kumancha-10"]  # match neither Phul 9 nor anything useful
OTHERS = [["cheng-1", "cheng-2"], ["chandra-1", "chandra-2"]]

# ---- preliminaries and deal ---------------------------------------------------------------


def test_three_to_six_players():
    for n in (3, 4, 5, 6):
        assert kk.new_game(n, seed=1).players == n
    for n in (2, 7):
        with pytest.raises(OptionsError):
            kk.new_game(n, seed=1)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_deal_six_each_one_to_position_7_rest_is_the_stock(n):
    s = kk.new_game(n, seed=n)
    deal = kk.deal_of(s)
    assert [len(h) for h in deal["hands"]] == [6] * n
    assert len(deal["stock"]) == 96 - 6 * n - 1 == kk.stock_left(s)
    ids = [c for h in deal["hands"] for c in h] + [deal["centre"]] + deal["stock"]
    assert len(set(ids)) == 96
    assert kk.CARDS[s.tops[0]].id == deal["centre"] and accounted(s)
    assert kk.deal_of(kk.new_game(n, seed=n)) == deal != kk.deal_of(kk.new_game(n, seed=n + 9))


@pytest.mark.parametrize("direction,dealer,second", [("clockwise", 3, 1),
                                                     ("anticlockwise", 1, 3)])
def test_direction_decides_dealer_and_who_is_next(direction, dealer, second):
    opts = options_from_json(kk.Options, {"direction": direction})
    s = kk.new_game(4, opts, seed=2)
    (deal,) = kk.legal_moves(s)
    assert (deal.player, deal.action, deal.target) == (dealer, "deal", "7")
    assert deal.cards == (kk.CARDS[s.tops[0]],)
    s, evs = kk.apply(s, deal)
    assert kk.current_player(s) == 0 and "face up on Position 7" in evs[0].text
    s, _ = kk.apply(s, kk.legal_moves(s)[0])
    assert kk.current_player(s) == second
    # positions still run 1, 2, ... in the direction of play (anticlockwise-mirrors-ring)
    p = position([["cheng-9", "phul-1"], ["cheng-8"], ["cheng-7"], ["cheng-6"]], options=opts)
    p, _ = kk.apply(p, mv(0, "play", ["cheng-9"], "1"))
    assert p.turn == second and kk.legal_moves(p)[0].target == "2"


def test_only_the_player_to_act_may_move():
    s = position([["cheng-9"], ["cheng-8"], ["cheng-7"]])
    with pytest.raises(NotYourTurnError):
        kk.apply(s, mv(1, "play", ["cheng-8"], "1"))


# ---- normal play ----------------------------------------------------------------------------


def test_first_play_matches_position_7_by_suit_or_rank_and_goes_to_position_1():
    s = position([["cheng-9", "surya-3", "phul-5"]] + OTHERS)
    assert {(m.cards[0].id, m.target) for m in kk.legal_moves(s)} == {
        ("cheng-9", "1"), ("surya-3", "1")}
    refused(s, mv(0, "play", ["phul-5"], "1"), "Wrong match")
    refused(s, mv(0, "play", ["cheng-9"], "2"), "Wrong position: the next position is 1")


def test_next_position_wraps_from_6_to_1_and_7_is_not_played_to():
    s = position([["phul-1", "chandra-9"]] + OTHERS, ring=RING)
    assert {m.target for m in kk.legal_moves(s) if m.action == "play"} == {"1"}
    refused(s, mv(0, "play", ["phul-1"], "7"), "Wrong position: the next position is 1, not 7")
    s2 = position([["phul-1"]] + OTHERS, ring={1: "phul-3", 2: "phul-4"})
    s2, evs = kk.apply(s2, mv(0, "play", ["phul-1"], "3"))
    assert evs[0].text == "Player 1 plays 1 of Phul to Position 3"


def test_must_play_if_able():
    s = position([["phul-1"] + DEAD] + OTHERS, ring=RING)
    assert all(m.action == "play" for m in kk.legal_moves(s))
    refused(s, mv(0, "draw", [kk.CARDS[s.stock[0]].id]), "Player 1 must play")


def test_unplayable_drawn_card_joins_the_hand_and_play_moves_on():
    s = position([DEAD] + OTHERS, ring=RING, stock=["shamsher-4", "cheng-10"])
    assert kk.legal_moves(s) == [mv(0, "draw", ["shamsher-4"])]
    refused(s, mv(0, "draw", ["cheng-10"]), "The next card is 4 of Shamsher")
    s, evs = kk.apply(s, mv(0, "draw", ["shamsher-4"]))
    assert "shamsher-4" in hand(s, 0) and s.turn == 1 and accounted(s)
    assert evs[0].text == "Player 1 cannot play and draws a card" and not evs[0].cards


def test_playable_drawn_card_must_be_played_at_once_and_cannot_bridge():
    # Surya 9 matches Phul 9 (rank) and Surya 7 opposite (suit): it would bridge.
    s = position([DEAD + ["phul-1"][:0]] + OTHERS, ring=RING, stock=["surya-9", "phul-7"])
    s, _ = kk.apply(s, mv(0, "draw", ["surya-9"]))
    assert s.stage is kk.Stage.DRAWN and kk.current_player(s) == 0
    assert kk.legal_moves(s) == [mv(0, "play", ["surya-9"], "1")]
    refused(s, mv(0, "bridge", ["surya-9"], "7"), "Drawn card used to bridge")
    refused(s, mv(0, "bridge", ["surya-9", "barat-4"], "1,7"), "Drawn card used to bridge")
    refused(s, mv(0, "play", ["barat-4"], "1"), "The drawn card 9 of Surya is playable")
    refused(s, mv(0, "draw", ["phul-7"]), "Player 1 already drew")
    s, evs = kk.apply(s, mv(0, "play", ["surya-9"], "1"))
    assert evs[0].text == "Player 1 plays the drawn card 9 of Surya to Position 1"
    assert s.turn == 1 and s.stage is kk.Stage.NORMAL  # drawn-card-ends-turn


def test_a_drawn_card_played_ends_the_turn_even_if_a_hand_card_would_then_bridge():
    # after Surya 9 goes to 1, Surya 2 (hand) would bridge it to Surya 2 on 4: not allowed
    s = position([DEAD + ["shamsher-2"]] + OTHERS, ring=RING, stock=["surya-9"])
    s, _ = kk.apply(s, mv(0, "draw", ["surya-9"]))
    refused(s, mv(0, "bridge", ["surya-9", "shamsher-2"], "1,7"), "Drawn card used to bridge")


# ---- special play -------------------------------------------------------------------------


def test_opposite_positions():
    assert [(p, kk.OPP[p]) for p in range(1, 7)] == [(1, 4), (2, 5), (3, 6), (4, 1), (5, 2),
                                                     (6, 3)]


def test_bridge_shares_suit_or_rank_with_last_card_and_the_card_opposite():
    s = position([["phul-7", "surya-9", "phul-1", "surya-3"]] + OTHERS, ring=RING)
    bridges = {m.cards[0].id for m in kk.legal_moves(s) if m.action == "bridge"
               and len(m.cards) == 1}
    assert bridges == {"phul-7", "surya-9"}
    refused(s, mv(0, "bridge", ["phul-1"], "7"), "Bridge not valid: 1 of Phul shares neither "
            "suit nor rank with 7 of Surya on Position 3, opposite Position 6")
    refused(s, mv(0, "bridge", ["surya-3"], "7"), "Bridge not valid: 3 of Surya shares neither "
            "suit nor rank with 9 of Phul on Position 6")
    refused(s, mv(0, "bridge", ["phul-7"], "1"), "Wrong position: a bridge goes to Position 7")


def test_bridge_gathers_every_card_and_the_builder_begins_a_new_phase():
    s = position([["phul-7", "barat-4", "barat-6"]] + OTHERS, ring=RING)
    s, evs = kk.apply(s, mv(0, "bridge", ["phul-7"], "7"))
    assert evs[0].announce and evs[0].text == ("Bridge! Player 1 links Positions 3 and 6 "
                                               "with 7 of Phul")
    assert s.tops == kk.EMPTY_TOPS and s.table == 0 and accounted(s)
    assert s.captured & mask(list(RING.values()) + ["cheng-3", "phul-7"]) == mask(
        list(RING.values()) + ["cheng-3", "phul-7"])
    assert s.stage is kk.Stage.START and kk.current_player(s) == 0
    assert {m.action for m in kk.legal_moves(s)} == {"start"}
    refused(s, mv(0, "play", ["barat-4"], "1"), "Player 1 built a bridge and must begin")
    refused(s, mv(0, "draw", [kk.CARDS[s.stock[0]].id]), "Player 1 built a bridge")


def test_no_card_opposite_means_no_bridge():
    s = position([["ghulam-3", "ghulam-9"]] + OTHERS, ring={1: "ghulam-5"})
    assert not [m for m in kk.legal_moves(s) if m.action == "bridge"]
    refused(s, mv(0, "bridge", ["ghulam-3"], "7"), "Bridge not valid: no card lies on Position "
            "4, opposite Position 1")
    s = position([["cheng-9"]] + OTHERS)  # only Position 7 is laid
    refused(s, mv(0, "bridge", ["cheng-9"], "7"), "Bridge not valid: the last card is on "
            "Position 7")


def test_two_card_turn_whose_second_card_bridges():
    s = position([["phul-1", "surya-1", "kumancha-1"] + DEAD] + OTHERS, ring=RING)
    two = [m for m in kk.legal_moves(s) if len(m.cards) == 2]
    assert two == [mv(0, "bridge", ["surya-1", "phul-1"], "1,7")] or \
        mv(0, "bridge", ["phul-1", "surya-1"], "1,7") in two
    refused(s, mv(0, "bridge", ["phul-1", "kumancha-1"], "1,7"), "Second card did not bridge")
    refused(s, mv(0, "bridge", ["barat-4", "surya-1"], "1,7"), "Wrong match")
    refused(s, mv(0, "bridge", ["phul-1", "surya-1"], "2,7"), "Wrong position")
    s, evs = kk.apply(s, mv(0, "bridge", ["phul-1", "surya-1"], "1,7"))
    assert [e.text for e in evs[:2]] == ["Player 1 plays 1 of Phul to Position 1",
                                         ("Bridge! Player 1 links Positions 1 and 4 with "
                                          "1 of Surya")]
    assert s.stage is kk.Stage.START and accounted(s)


def test_new_phase_with_one_card_then_the_next_player_plays_to_1():
    s = position([["phul-7", "barat-4", "kumancha-10"], ["barat-9"], ["chandra-1"]], ring=RING)
    s, _ = kk.apply(s, mv(0, "bridge", ["phul-7"], "7"))
    refused(s, mv(0, "start", ["barat-4", "kumancha-10"], "7,1"), "Wrong match: the second card")
    refused(s, mv(0, "start", ["barat-4"], "1"), "Wrong position")
    s, evs = kk.apply(s, mv(0, "start", ["barat-4"], "7"))
    assert evs[0].announce and evs[0].text.startswith("New phase: Player 1 lays 4 of Barat")
    assert s.turn == 1 and kk.legal_moves(s) == [mv(1, "play", ["barat-9"], "1")]


def test_new_phase_with_two_cards_second_to_1_and_four_cards_in_one_turn():
    s = position([["phul-1", "surya-1", "kumancha-5", "kumancha-8", "barat-4"], ["kumancha-2"],
                  ["chandra-1"]], ring=RING)
    s, _ = kk.apply(s, mv(0, "bridge", ["phul-1", "surya-1"], "1,7"))
    s, _ = kk.apply(s, mv(0, "start", ["kumancha-5", "kumancha-8"], "7,1"))
    assert hand(s, 0) == {"barat-4"} and s.turn == 1 and s.last == 1 and accounted(s)
    assert kk.legal_moves(s) == [mv(1, "play", ["kumancha-2"], "2")]


def test_ruling_no_bridge_straight_after_a_new_phase():
    """Ruling *no-opposite-no-bridge*: a new phase leaves no card opposite the last one."""
    for start in (["kumancha-5"], ["kumancha-5", "kumancha-8"]):
        s = position([["phul-7"] + start + ["barat-4"], ["kumancha-2", "kumancha-9"],
                      ["chandra-1"]], ring=RING)
        s, _ = kk.apply(s, mv(0, "bridge", ["phul-7"], "7"))
        s, _ = kk.apply(s, mv(0, "start", start, "7,1"[:len(start) * 2 - 1]))
        assert [m.action for m in kk.legal_moves(s)] == ["play", "play"]


# ---- winning ----------------------------------------------------------------------------


def _wins(s, seat):
    assert kk.is_over(s) and kk.result(s).winners == (seat,)
    assert kk.result(s).text == f"Player {seat + 1} wins" and kk.legal_moves(s) == []
    assert kk.current_player(s) is None


def test_win_using_up_the_last_card_in_normal_play():
    s = position([["phul-1"]] + OTHERS, ring=RING)
    s, evs = kk.apply(s, mv(0, "play", ["phul-1"], "1"))
    assert evs[-1].announce and evs[-1].text == "Player 1 wins"
    _wins(s, 0)
    with pytest.raises(IllegalMoveError):
        kk.apply(s, mv(1, "play", ["cheng-1"], "2"))


def test_win_using_the_last_card_to_build_a_bridge():
    s, _ = kk.apply(position([["phul-7"]] + OTHERS, ring=RING), mv(0, "bridge", ["phul-7"], "7"))
    _wins(s, 0)
    s = position([["phul-1", "surya-1"]] + OTHERS, ring=RING)
    s, _ = kk.apply(s, mv(0, "bridge", ["phul-1", "surya-1"], "1,7"))
    _wins(s, 0)


def test_win_building_a_bridge_with_one_card_remaining():
    s, _ = kk.apply(position([["phul-7", "barat-4"]] + OTHERS, ring=RING),
                    mv(0, "bridge", ["phul-7"], "7"))
    assert kk.legal_moves(s) == [mv(0, "start", ["barat-4"], "7")]
    s, _ = kk.apply(s, kk.legal_moves(s)[0])
    _wins(s, 0)


def test_win_building_a_bridge_with_two_matching_cards_remaining():
    s, _ = kk.apply(position([["phul-7", "barat-4", "barat-6"]] + OTHERS, ring=RING),
                    mv(0, "bridge", ["phul-7"], "7"))
    s, _ = kk.apply(s, mv(0, "start", ["barat-4", "barat-6"], "7,1"))
    _wins(s, 0)
    s, _ = kk.apply(position([["phul-7"] + DEAD] + OTHERS, ring=RING),
                    mv(0, "bridge", ["phul-7"], "7"))
    assert all(len(m.cards) == 1 for m in kk.legal_moves(s))  # no pair: no win this turn


# ---- the stock runs out -----------------------------------------------------------------


def test_stock_exhausted_fewest_cards_wins_ties_share():
    s = position([DEAD, ["cheng-1"], ["chandra-1"]], ring=RING, stock=[])
    assert kk.legal_moves(s) == [mv(0, "draw")]
    s, evs = kk.apply(s, mv(0, "draw"))
    assert kk.is_over(s) and kk.result(s).winners == (1, 2)
    assert evs[0].announce and "Player 2 and Player 3 win with the fewest cards (1)" in \
        evs[0].text
    s = position([DEAD, ["cheng-1", "cheng-2"], ["chandra-1"]], ring=RING, stock=[])
    s, _ = kk.apply(s, mv(0, "draw"))
    assert kk.result(s).winners == (2,)


def test_stock_exhausted_reshuffle_the_captured_cards():
    opts = kk.Options(stock_exhausted=kk.StockExhausted.RESHUFFLE)
    s = position([DEAD, ["cheng-1"], ["chandra-1"]], ring=RING, stock=[], options=opts)
    captured = s.captured.bit_count()
    (draw,) = kk.legal_moves(s)
    s2, evs = kk.apply(s, draw)
    assert evs[0].announce and evs[0].kind == "reshuffle" and accounted(s2)
    assert s2.captured == 0 and kk.stock_left(s2) == captured - 1 and s2.reshuffles == 1
    assert kk.apply(s, draw)[0] == s2  # deterministic, so records replay
    assert set(s2.stock) == set(kk.bits(s.captured))


def test_reshuffle_with_nothing_captured_ends_on_the_fewest_cards():
    opts = kk.Options(stock_exhausted=kk.StockExhausted.RESHUFFLE)
    rest = [c.id for c in kk.CARDS if c.id not in set(DEAD) | {"cheng-1", "cheng-3"}
            | set(RING.values())]
    s = position([DEAD, ["cheng-1"], rest], ring=RING, options=opts)
    assert kk.stock_left(s) == 0 and s.captured == 0
    s, _ = kk.apply(s, mv(0, "draw"))
    assert kk.result(s).winners == (1,)


# ---- the 2011 book as options ----------------------------------------------------------


def test_2011_first_play_draw_keeps_the_card_and_the_opportunity_moves_on():
    for opts, kept in ((kk.Options(), False), (kk.Options(first_play_2011=True), True)):
        s = position([DEAD, ["cheng-5"], ["chandra-2"]], stock=["cheng-9"], options=opts)
        s, _ = kk.apply(s, mv(0, "draw", ["cheng-9"]))
        if kept:
            assert s.turn == 1 and "cheng-9" in hand(s, 0)
            assert kk.legal_moves(s)[0].target == "1"
        else:
            assert kk.legal_moves(s) == [mv(0, "play", ["cheng-9"], "1")]
    # not in mid-phase: there the 2015 rule stands
    s = position([DEAD] + OTHERS, ring=RING, stock=["phul-1"],
                 options=kk.Options(first_play_2011=True))
    s, _ = kk.apply(s, mv(0, "draw", ["phul-1"]))
    assert s.stage is kk.Stage.DRAWN


def test_ruling_opening_2011_each_phase():
    """After a new phase begun with one card, the next player's draw is kept (2011)."""
    opts = kk.Options(first_play_2011=True)
    s = position([["phul-7", "barat-4", "chandra-5"], ["kumancha-10", "shamsher-8"],
                  ["cheng-1"]], ring=RING,
                 stock=["barat-9", "cheng-2"], options=opts)
    s, _ = kk.apply(s, mv(0, "bridge", ["phul-7"], "7"))
    s, _ = kk.apply(s, mv(0, "start", ["barat-4"], "7"))
    assert kk.legal_moves(s) == [mv(1, "draw", ["barat-9"])]
    s, _ = kk.apply(s, mv(1, "draw", ["barat-9"]))
    assert s.turn == 2 and "barat-9" in hand(s, 1)


def test_2011_drawn_card_goes_to_the_hand():
    s = position([DEAD] + OTHERS, ring=RING, stock=["phul-1"],
                 options=kk.Options(play_drawn_card=False))
    s, _ = kk.apply(s, mv(0, "draw", ["phul-1"]))
    assert s.turn == 1 and "phul-1" in hand(s, 0)


NINE_A = ["barat-1", "barat-2", "barat-3", "barat-4", "barat-5", "barat-6", "barat-7",
          "barat-8", "barat-10"]
NINE_B = [c.replace("barat", "kumancha") for c in NINE_A]
NINE_C = [c.replace("barat", "shamsher") for c in NINE_A]
LIMIT = kk.Options(hand_limit_nine=True)


def test_2011_nine_card_limit_pass_instead_of_drawing():
    s = position([NINE_A, ["cheng-1"], ["chandra-1"]], ring=RING, options=LIMIT)
    assert kk.legal_moves(s) == [mv(0, "pass")]
    refused(s, mv(0, "draw", [kk.CARDS[s.stock[0]].id]), "Player 1 holds nine cards and passes")
    s2, evs = kk.apply(s, mv(0, "pass"))
    assert s2.turn == 1 and evs[0].text.endswith("cannot play and passes")
    eight = position([NINE_A[:8], ["cheng-1"], ["chandra-1"]], ring=RING, options=LIMIT)
    refused(eight, mv(0, "pass"), "Player 1 holds fewer than nine cards")
    refused(position([NINE_A] + OTHERS, ring=RING), mv(0, "pass"), "A player who cannot play "
            "draws")
    refused(position([NINE_A + ["phul-1"]] + OTHERS, ring=RING, options=LIMIT), mv(0, "pass"),
            "Player 1 must play")


def test_2011_ninth_card_by_keeping_a_draw():
    s = position([NINE_A[:8], ["cheng-1"], ["chandra-1"]], ring=RING, options=LIMIT,
                 stock=["cheng-4"])
    s, _ = kk.apply(s, kk.legal_moves(s)[0])
    assert s.last_ninth == 0 and len(hand(s, 0)) == 9
    # a ninth card played at once is not "acquired"
    s = position([NINE_A[:8], ["cheng-1"], ["chandra-1"]], ring=RING, options=LIMIT,
                 stock=["cheng-9"])
    s, _ = kk.apply(s, kk.legal_moves(s)[0])
    s, _ = kk.apply(s, kk.legal_moves(s)[0])
    assert s.last_ninth == -1 and len(hand(s, 0)) == 8


def test_2011_footnote_all_nine_turn_up_until_playable_then_play_and_bridge():
    s = position([NINE_A, NINE_B + [], NINE_C], ring=RING, options=LIMIT, last_ninth=1,
                 stock=["chandra-4", "phul-1", "cheng-2"])
    # Player 2 holds Kumancha 1; after Phul 1 goes to position 1 it bridges to Surya 2? No:
    # it shares rank 1 with Phul 1 but not Surya 2, so only the play is offered.
    for seat in range(3):
        s, evs = kk.apply(s, mv(seat, "pass"))
    assert s.stage is kk.Stage.TURNUP and kk.current_player(s) == 1
    assert evs[-1].announce and "Player 2 turns up cards" in evs[-1].text
    refused(s, mv(1, "pass"), "Every player holds nine cards")
    assert kk.legal_moves(s) == [mv(1, "turnup", ["chandra-4"])]
    s, evs = kk.apply(s, mv(1, "turnup", ["chandra-4"]))
    assert "not playable, out of the game" in evs[-1].text and s.dead == mask(["chandra-4"])
    s, evs = kk.apply(s, mv(1, "turnup", ["phul-1"]))
    assert s.stage is kk.Stage.NORMAL and s.turn == 1 and accounted(s)
    assert {(m.action, m.cards[0].id) for m in kk.legal_moves(s)} == {("play", "phul-1")}
    s, _ = kk.apply(s, mv(1, "play", ["phul-1"], "1"))
    assert s.turn == 2 and s.passes == 0 and hand(s, 1) == set(NINE_B)


def test_2011_footnote_turned_up_card_may_be_followed_by_a_bridge():
    b = NINE_B[1:] + ["surya-1"]  # Surya 1: bridges Phul 1 (rank) to Surya 2 (suit)
    s = position([NINE_A, b, NINE_C], ring=RING, options=LIMIT, last_ninth=1,
                 stock=["phul-1"])
    for seat in range(3):
        s, _ = kk.apply(s, mv(seat, "pass"))
    s, _ = kk.apply(s, mv(1, "turnup", ["phul-1"]))
    assert mv(1, "bridge", ["phul-1", "surya-1"], "1,7") in kk.legal_moves(s)


# ---- record plumbing --------------------------------------------------------------------


def test_public_move_hides_only_the_drawn_card():
    assert kk.public_move(mv(1, "draw", ["phul-1"])) == mv(1, "draw")
    for m in (mv(1, "play", ["phul-1"], "3"), mv(1, "turnup", ["phul-1"]),
              mv(1, "bridge", ["phul-1", "surya-1"], "1,7")):
        assert kk.public_move(m) == m


def test_options_round_trip_and_defaults_are_the_2015_book():
    o = kk.Options()
    assert (o.direction, o.stock_exhausted, o.first_play_2011, o.play_drawn_card,
            o.hand_limit_nine) == (kk.Direction.CLOCKWISE, kk.StockExhausted.FEWEST_CARDS,
                                   False, True, False)
    o2 = options_from_json(kk.Options, {"direction": "anticlockwise",
                                        "stock_exhausted": "reshuffle",
                                        "hand_limit_nine": "true"})
    assert options_from_json(kk.Options, options_to_json(o2)) == o2


def test_bot_prefers_bridges():
    s = position([["phul-7", "phul-1", "chandra-9"]] + OTHERS, ring=RING)
    rng = random.Random(0)
    assert all(kk.bot_move(s, rng).action == "bridge" for _ in range(20))
