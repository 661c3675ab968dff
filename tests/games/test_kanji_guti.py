"""Kanji-guti (seed 004): sowing, relays, captures, passes, the end and the Ludii options."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import kanji_guti as k
from companion.games.base import IllegalMoveError, Move, OptionsError, Verdict

LUDII = k.Options(neutral_seeds="1,0", opening_skips_neutral=False, relay_from_neutral=True,
                  capture=k.Capture.OPPOSITE, ending=k.Ending.CAPTURES_ONLY)


def board(**holes):
    b = [0] * 14
    for name, n in holes.items():
        b[int(name[1:])] = n
    return tuple(b)


DEFAULT = k.Options()


def midgame(b, options=DEFAULT, to_move=0, captured=(0, 0)):
    return k.State(options, b, captured, to_move, ply=1)  # ply 1: not the opening move


def test_initial_board_twelve_per_owned_hole_one_per_neutral():
    s = k.new_game(2)
    assert [s.board[h] for h in k.OWNED[0] + k.OWNED[1]] == [12] * 12
    assert (s.board[3], s.board[10]) == (1, 1)
    assert sum(s.board) == 146
    ludii = k.new_game(2, LUDII)
    assert (ludii.board[3], ludii.board[10]) == (1, 0)


def test_each_player_owns_three_columns_in_both_rows():
    # columns 0-2 are holes 0,1,2 (bottom) and 13,12,11 (top); columns 4-6 are 4,5,6 / 9,8,7
    assert set(k.OWNED[0]) == {0, 1, 2, 11, 12, 13}
    assert set(k.OWNED[1]) == {4, 5, 6, 7, 8, 9}
    assert k.legal_moves(k.new_game(2)) == [Move(0, "sow", (), str(h))
                                            for h in (0, 1, 2, 11, 12, 13)]


def test_plain_sowing_ends_before_an_empty_hole_without_capture():
    s, _ = k.apply(midgame(board(h0=2, h5=4)), Move(0, "sow", (), "0"))
    assert s.board == board(h1=1, h2=1, h5=4)
    assert s.captured == (0, 0) and s.to_move == 1


def test_capture_after_an_empty_neutral_hole_takes_the_next_hole():
    s, evs = k.apply(midgame(board(h0=2, h4=5, h8=1)), Move(0, "sow", (), "0"))
    assert s.board == board(h1=1, h2=1, h8=1)
    assert s.captured == (5, 0)
    assert any(e.kind == "capture" and e.announce for e in evs)


def test_capture_from_a_neutral_hole():
    # last seed in 1, hole 2 empty, neutral hole 3 holds 6: "even from neutral holes"
    s, _ = k.apply(midgame(board(h0=1, h3=6, h5=1)), Move(0, "sow", (), "0"))
    assert s.captured == (6, 0) and s.board[3] == 0


def test_ludii_capture_takes_the_hole_opposite_the_empty_one():
    opts = replace(k.Options(), capture=k.Capture.OPPOSITE)
    s, _ = k.apply(midgame(board(h0=2, h4=5, h10=7), opts), Move(0, "sow", (), "0"))
    assert s.captured == (7, 0)  # hole 3 empty, opposite 13 - 3 = 10
    assert s.board[4] == 5


def test_relay_picks_up_the_next_hole_and_sows_on():
    s = midgame(board(h0=1, h2=3, h9=1))
    sw = k.sow(s.board, 0, s.options, opening=False)
    assert sw.laps == 2 and sw.last == 5
    assert sw.board == board(h1=1, h3=1, h4=1, h5=1, h9=1)


def test_no_relay_from_a_neutral_hole_unless_the_ludii_option():
    b = board(h0=2, h3=5, h9=1)
    sw = k.sow(b, 0, k.Options(), opening=False)
    assert sw.laps == 1 and sw.board == board(h1=1, h2=1, h3=5, h9=1)
    sw = k.sow(b, 0, replace(k.Options(), relay_from_neutral=True), opening=False)
    # 5 seeds from hole 3 end in hole 8; hole 9's single seed is relayed on into hole 10
    assert sw.laps == 3
    assert sw.board == board(h1=1, h2=1, h4=1, h5=1, h6=1, h7=1, h8=1, h10=1)


def test_the_opening_move_skips_the_neutral_holes_throughout():
    for h in (0, 1, 2, 11, 12, 13):
        s, _ = k.apply(k.new_game(2), Move(0, "sow", (), str(h)))
        assert (s.board[3], s.board[10]) == (1, 1), h
    # without the skip some opening move changes a neutral hole
    opts = replace(k.Options(), opening_skips_neutral=False)
    changed = [h for h in (0, 1, 2) if
               k.apply(k.new_game(2, opts), Move(0, "sow", (), str(h)))[0].board[3] != 1]
    assert changed


def test_origin_hole_option():
    b = board(h0=14, h5=1)  # 14 seeds: one lap of the board and one more
    first_lap = replace(k.Options(), max_laps=1)
    sw = k.sow(b, 0, first_lap, opening=False)
    assert (sw.last, sw.board[0], sw.board[1]) == (0, 1, 1)
    sw = k.sow(b, 0, replace(first_lap, skip_origin=True), opening=False)
    assert (sw.last, sw.board[0], sw.board[1]) == (1, 0, 2)


def test_endless_sowing_is_cut_at_max_laps():
    opts = replace(k.Options(), max_laps=1)
    s, evs = k.apply(midgame(board(h0=1, h2=3, h9=1), opts), Move(0, "sow", (), "0"))
    assert s.board == board(h1=1, h2=3, h9=1)
    assert any(e.kind == "endless" for e in evs)


def test_a_blocked_player_passes_and_only_then():
    s = midgame(board(h0=2, h5=3), to_move=0)
    with pytest.raises(IllegalMoveError):
        k.apply(s, Move(0, "pass"))
    blocked = midgame(board(h5=3), to_move=0)
    assert k.legal_moves(blocked) == [Move(0, "pass")]
    after, _ = k.apply(blocked, Move(0, "pass"))
    assert after.to_move == 1


@pytest.mark.parametrize("target,why", [("3", "neutral"), ("5", "belongs"), ("1", "empty"),
                                        ("x", "hole number"), ("14", "no hole")])
def test_illegal_sowings_say_why(target, why):
    with pytest.raises(IllegalMoveError, match=why):
        k.apply(midgame(board(h0=2, h3=1, h5=3)), Move(0, "sow", (), target))


def test_end_splits_the_neutral_seeds_and_discards_an_odd_one():
    s = midgame(board(h3=3, h10=2), captured=(10, 7))
    assert k.is_over(s)
    assert k.final_scores(s) == ((12, 9), 1)
    r = k.result(s)
    assert r.winners == (0,) and r.scores == (12.0, 9.0)
    ludii = midgame(board(h3=3, h10=2), LUDII, captured=(10, 7))
    assert k.result(ludii).scores == (10.0, 7.0)
    tie = midgame(board(h3=1), captured=(4, 4))
    assert k.result(tie).winners == () and "draw" in k.result(tie).text


def test_options_are_validated():
    with pytest.raises(OptionsError):
        k.Options(neutral_seeds="1")
    with pytest.raises(OptionsError):
        k.Options(max_laps=0)


def test_referee_follows_and_flags():
    ref = k.TableReferee(2, k.Options())
    assert ref.observe(Move(0, "sow", (), "1")).verdict is Verdict.LEGAL
    assert ref.observe(Move(1, "sow", (), "1")).verdict is Verdict.ILLEGAL
    ref.undo()
    assert ref.observe(Move(0, "sow", (), "1")).verdict is Verdict.LEGAL


def test_render_shows_every_hole():
    s = midgame(board(h0=7, h3=41, h10=5, h13=2))
    text = k.render(s)
    for n in ("7]", "( 41)", "(  5)", "2]"):
        assert n in text


OPTIONS = st.builds(k.Options, neutral_seeds=st.sampled_from(["1,1", "1,0"]),
                    opening_skips_neutral=st.booleans(), relay_from_neutral=st.booleans(),
                    capture=st.sampled_from(list(k.Capture)),
                    ending=st.sampled_from(list(k.Ending)), skip_origin=st.booleans(),
                    seeds_per_hole=st.integers(1, 12))


@settings(max_examples=40, deadline=None)
@given(opts=OPTIONS, seed=st.integers(0, 10_000))
def test_seeds_are_conserved_games_end_and_scores_add_up(opts, seed):
    rng = random.Random(seed)
    s = k.new_game(2, opts)
    total = sum(s.board)
    while not k.is_over(s):
        assert s.ply < opts.max_moves
        s, _ = k.apply(s, rng.choice(k.legal_moves(s)))
        assert min(s.board) >= 0
        assert sum(s.board) + sum(s.captured) == total
    scores, discarded = k.final_scores(s)
    assert sum(scores) + discarded == total
    if opts.ending is k.Ending.SPLIT_NEUTRAL:
        assert discarded in (0, 1)
    r = k.result(s)
    assert r.scores == tuple(float(x) for x in scores)
    assert (r.winners == ()) == (scores[0] == scores[1])


def test_move_limit_ends_the_game_and_own_holes_count():
    opts = replace(k.Options(), max_moves=5)
    s = k.State(opts, board(h0=4, h3=3, h5=6), (10, 2), 0, ply=5)
    assert k.is_over(s) and k.legal_moves(s) == []
    assert k.final_scores(s) == ((10 + 4 + 1, 2 + 6 + 1), 1)
    assert "move limit" in k.result(s).text
