"""The Kendra Kari table referee: simulated games round-trip (nothing legal is called
illegal, only the "I cannot play" claims are unverifiable), it keeps the same public
state as the engine, and each class of illegal play injected into a record gets its
reason."""

from __future__ import annotations

import random

import pytest

from companion.games import kendra_kari as kk
from companion.games.base import Move, Verdict, options_from_json
from companion.record import referee_record, simulate, table_view

OPTION_SETS = [
    {},
    {"direction": "anticlockwise"},
    {"stock_exhausted": "reshuffle"},
    {"first_play_2011": "true"},
    {"first_play_2011": "true", "play_drawn_card": "false", "hand_limit_nine": "true"},
    {"hand_limit_nine": "true", "stock_exhausted": "reshuffle"},
]


def _games(options, players=(3, 4, 5, 6), seeds=range(12)):
    opts = options_from_json(kk.Options, options)
    for n in players:
        for seed in seeds:
            state = kk.new_game(n, opts, seed)
            rng = random.Random(seed)
            states, moves = [state], []
            while not kk.is_over(state):
                move = kk.bot_move(state, rng)
                state, _ = kk.apply(state, move)
                states.append(state)
                moves.append(move)
            yield opts, n, states, moves


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "2015")
def test_simulated_games_round_trip_and_the_referee_tracks_the_table(options):
    kinds = set()
    for opts, n, states, moves in _games(options):
        kinds |= _round_trip(opts, n, states, moves)
    assert ("bridge", Verdict.LEGAL) in kinds and ("start", Verdict.LEGAL) in kinds
    if "hand_limit_nine" in options:
        assert ("turnup", Verdict.LEGAL) in kinds and ("pass", Verdict.UNVERIFIABLE) in kinds


def test_round_trip_through_reshuffles_and_fewest_card_endings():
    reshuffled = fewest = 0
    for options in ({"stock_exhausted": "reshuffle"}, {}):
        for opts, n, states, moves in _games(options, seeds=range(60)):
            if states[-1].reshuffles or "fewest" in states[-1].ending:
                _round_trip(opts, n, states, moves)
                reshuffled += states[-1].reshuffles > 0
                fewest += "fewest" in states[-1].ending
    assert reshuffled >= 3 and fewest >= 3


def _round_trip(opts, n, states, moves):
    """Feed a game's public moves to a fresh referee; check every verdict, the events
    and the public state it keeps against the engine's."""
    kinds = set()
    ref = kk.TableReferee(n, opts)
    for before, move, after in zip(states, moves, states[1:]):
        _, events = kk.apply(before, move)
        if move.action in ("draw", "pass"):  # what a player who cannot play does
            assert ref.cannot_play(move.player) == kk.public_move(move)
        ruling = ref.observe(kk.public_move(move))
        kinds.add((move.action, ruling.verdict))
        if move.action in ("draw", "pass"):
            assert ruling.verdict is Verdict.UNVERIFIABLE, (move, ruling)
            assert "cannot see their hand" in ruling.reason
        else:
            assert ruling.verdict is Verdict.LEGAL, (move, ruling.reason)
        assert list(ruling.events) == events  # same words, same announcements
        seen = ref.state
        assert seen.counts == tuple(h.bit_count() for h in after.hands)
        assert seen.stock == kk.stock_left(after) or kk.is_over(after)
        assert seen.tops == after.tops and seen.last == after.last
    assert ref.state.winners == kk.result(states[-1]).winners
    assert any(e.announce and "win" in e.text for e in ruling.events)
    return kinds


def test_cli_pipeline_records_round_trip():
    for seed in range(5):
        rec = simulate("kendra-kari", 4, {"hand_limit_nine": "true"}, seed)
        rulings = list(referee_record(table_view(rec)))
        assert len(rulings) == len(rec.moves)
        for move, r in zip(rec.moves, rulings):
            want = Verdict.UNVERIFIABLE if move.action in ("draw", "pass") else Verdict.LEGAL
            assert r.verdict is want, (move, r.reason)


def test_a_record_without_the_deal_move_leaves_only_the_first_match_unverifiable():
    rec = simulate("kendra-kari", 4, None, 3)
    moves = [kk.public_move(m) for m in rec.moves[1:]]
    ref = kk.TableReferee(4)
    rulings = [ref.observe(m) for m in moves]
    first_play = next(i for i, m in enumerate(moves) if m.action == "play")
    assert rulings[first_play].verdict is Verdict.UNVERIFIABLE
    assert all(r.verdict is not Verdict.ILLEGAL for r in rulings)


# ---- injecting each class of illegal play -------------------------------------------------


def _inject(options, find, corrupt, reason, players=4, seeds=range(40), contains=""):
    """In the first simulated game with a move where ``find(before, move)`` holds, replace
    that move by ``corrupt(before, move)`` and check the referee calls it illegal with a
    reason starting ``reason`` (and everything before it not illegal)."""
    for opts, n, states, moves in _games(options, (players,), seeds):
        for i, (before, move) in enumerate(zip(states, moves)):
            if not find(before, move):
                continue
            bad = corrupt(before, move)
            if bad is None:
                continue
            ref = kk.TableReferee(n, opts)
            for m in moves[:i]:
                assert ref.observe(kk.public_move(m)).verdict is not Verdict.ILLEGAL
            ruling = ref.observe(kk.public_move(bad))
            assert ruling.verdict is Verdict.ILLEGAL, (bad, ruling)
            assert ruling.reason.startswith(reason), ruling.reason
            assert contains in ruling.reason, ruling.reason
            ref.undo()
            assert ref.observe(kk.public_move(move)).verdict is not Verdict.ILLEGAL
            return ruling.reason
    pytest.fail(f"no game offered a place to inject {reason!r}")


def _unseen(before, pred):
    """A card not yet on the table or captured (somewhere hidden) satisfying ``pred``."""
    out = before.table | before.captured | before.dead
    for c in range(96):
        if not (out >> c) & 1 and pred(c):
            return kk.CARDS[c]
    return None


def _normal_play(before, move):
    return move.action == "play" and before.stage is kk.Stage.NORMAL


def _swap(move, **kw):
    d = {"player": move.player, "action": move.action, "cards": move.cards,
         "target": move.target, **kw}
    return Move(d["player"], d["action"], tuple(d["cards"]), d["target"])


def test_inject_wrong_match():
    def corrupt(b, m):
        card = _unseen(b, lambda c: not kk.matches(c, b.tops[b.last]))
        return _swap(m, cards=(card,))
    _inject({}, _normal_play, corrupt, "Wrong match")


def test_inject_wrong_position():
    _inject({}, _normal_play, lambda b, m: _swap(m, target=str(kk.NEXT[int(m.target)])),
            "Wrong position: the next position is")


def test_inject_bridge_not_valid():
    def find(b, m):
        return _normal_play(b, m) and b.last > 0 and b.tops[kk.OPP[b.last]] >= 0

    def corrupt(b, m):
        card = _unseen(b, lambda c: kk.matches(c, b.tops[b.last])
                       and not kk.matches(c, b.tops[kk.OPP[b.last]]))
        return card and _swap(m, action="bridge", cards=(card,), target="7")
    _inject({}, find, corrupt, "Bridge not valid")


def test_inject_second_card_did_not_bridge():
    def corrupt(b, m):
        first = kk.INDEX[m.cards[0]]
        far = b.tops[kk.OPP[kk.NEXT[b.last]]]
        card = _unseen(b, lambda c: c != first and not (kk.matches(c, first)
                                                        and kk.matches(c, far)))
        return _swap(m, cards=(m.cards[0], card))
    _inject({}, lambda b, m: m.action == "bridge" and len(m.cards) == 2, corrupt,
            "Second card did not bridge")


def test_inject_drawn_card_used_to_bridge():
    def find(b, m):
        return b.stage is kk.Stage.DRAWN

    for new in (lambda b, m: _swap(m, action="bridge", target="7"),
                lambda b, m: _swap(m, action="bridge", target=f"{m.target},7",
                                   cards=(m.cards[0], _unseen(b, lambda c: True)))):
        _inject({}, find, new, "Drawn card used to bridge")


def test_inject_not_your_turn():
    _inject({}, _normal_play, lambda b, m: _swap(m, player=(m.player + 1) % 4),
            "Not your turn")


def test_inject_card_already_played():
    reason = _inject({}, lambda b, m: _normal_play(b, m) and b.last > 0,
                     lambda b, m: _swap(m, cards=(kk.CARDS[b.tops[b.last]],)), "")
    assert "was already played" in reason


def test_inject_play_instead_of_beginning_the_new_phase():
    _inject({}, lambda b, m: m.action == "start",
            lambda b, m: _swap(m, action="play", cards=m.cards[:1], target="1"),
            "Player", contains="built a bridge and must begin the new phase")


def test_inject_new_phase_second_card_does_not_match():
    def corrupt(b, m):
        first = kk.INDEX[m.cards[0]]
        return _swap(m, cards=(m.cards[0], _unseen(b, lambda c: c != first and
                                                   not kk.matches(c, first))))
    _inject({}, lambda b, m: m.action == "start" and len(m.cards) == 2, corrupt,
            "Wrong match: the second card of a new phase")


def test_inject_passing_without_the_nine_card_rule_and_with_fewer_than_nine():
    _inject({}, lambda b, m: m.action == "draw", lambda b, m: Move(m.player, "pass"),
            "A player who cannot play draws")
    _inject({"hand_limit_nine": "true"},
            lambda b, m: m.action == "draw" and b.hands[m.player].bit_count() < 9,
            lambda b, m: Move(m.player, "pass"), "Player", contains="fewer than nine")


def test_inject_drawing_with_nine_cards():
    _inject({"hand_limit_nine": "true"}, lambda b, m: m.action == "pass",
            lambda b, m: Move(m.player, "draw"), "Player", seeds=range(200),
            contains="holds nine cards and passes instead of drawing")


def test_inject_two_cards_from_a_one_card_hand():
    def find(b, m):
        return _normal_play(b, m) and b.hands[m.player].bit_count() == 1

    def corrupt(b, m):
        return _swap(m, action="bridge", cards=(m.cards[0], _unseen(b, lambda c: True)),
                     target=f"{m.target},7")
    reason = _inject({}, find, corrupt, "Player")
    assert "has only 1 card in hand" in reason


def test_inject_turning_up_out_of_time_and_moving_after_the_end():
    _inject({}, lambda b, m: m.action == "draw",
            lambda b, m: Move(m.player, "turnup", (_unseen(b, lambda c: True),)),
            "Cards are turned up only when")
    rec = simulate("kendra-kari", 4, None, 2)
    ref = kk.TableReferee(4)
    for m in rec.moves:
        ref.observe(kk.public_move(m))
    late = ref.observe(Move(0, "draw"))
    assert late.verdict is Verdict.ILLEGAL and late.reason == "The game is over"


def test_after_an_illegal_play_the_referee_follows_the_table_as_seen():
    """Ruling *illegal-followed-as-seen*: one mistake is reported once."""
    state = kk.new_game(4, seed=8)
    centre = kk.CARDS[state.tops[0]]
    wrong = next(c for c in kk.CARDS if not c.same_suit_or_rank(centre))
    follow = next(c for c in kk.CARDS if c.same_suit_or_rank(wrong) and c not in (centre, wrong)
                  and not c.same_suit_or_rank(centre))
    ref = kk.TableReferee(4)
    assert ref.observe(kk.legal_moves(state)[0]).verdict is Verdict.LEGAL  # the deal
    bad = ref.observe(Move(0, "play", (wrong,), "1"))
    assert bad.verdict is Verdict.ILLEGAL and bad.reason.startswith("Wrong match")
    assert ref.state.counts[0] == 5 and ref.state.turn == 1
    nxt = ref.observe(Move(1, "play", (follow,), "2"))
    assert nxt.verdict is Verdict.LEGAL, nxt.reason
    ref.undo()
    ref.undo()  # the table took the wrong card back
    assert ref.observe(Move(1, "play", (follow,), "1")).reason.startswith("Not your turn")


@pytest.mark.parametrize("seed", range(10))
def test_the_cards_that_could_lie_on_a_position_hold_every_card_played_there(seed):
    """``TableReferee.could_lie``: of the 96, the cards not seen played that match the last
    card (and, on Position 7, the card opposite it). Every card of a legal game laid on the
    next position or bridged is among them; a new phase leaves the card open (None)."""
    from companion.games.kendra_kari_referee import TableReferee
    ref, checked = TableReferee(4), 0
    for move in table_view(simulate("kendra-kari", 4, {}, seed)).moves:
        if move.action in ("play", "bridge"):
            could = ref.could_lie(int(move.target.split(",")[0]))
            assert could is not None and move.cards[0] in could and len(could) <= 18
            checked += 1
        elif move.action == "start":
            assert ref.could_lie(7) is None
        ref.observe(move)
    assert checked
