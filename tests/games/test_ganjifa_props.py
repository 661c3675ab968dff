"""Property tests: random legal games for both decks, 3 and 4 players, both rankings."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import DeckKind, RankOrder
from companion.games import ganjifa as g
from companion.games.base import Verdict

tables = st.one_of(
    st.tuples(st.just(DeckKind.MUGHAL), st.just(3)),
    st.tuples(st.just(DeckKind.DASHAVATARA), st.sampled_from([3, 4])),
)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(table=tables, ranking=st.sampled_from(list(RankOrder)), face_up=st.booleans(),
       deni=st.sampled_from(["expanded", "traditional"]), seed=st.integers(0, 10**6),
       bot=st.booleans())
def test_random_games_account_for_every_card(table, ranking, face_up, deni, seed, bot):
    deck, players = table
    opts = g.Options(deck=deck, ranking=ranking, face_up_deal=face_up, deni=deni)
    s = g.new_game(players, opts, seed)
    rng = random.Random(seed)
    ref = g.TableReferee(players, opts)
    size = len(s.rules.cards)
    tricks = winners = 0
    while not g.is_over(s):
        moves = g.legal_moves(s)
        assert moves, "a player to act always has a legal move"
        move = g.bot_move(s, rng) if bot else rng.choice(moves)
        assert move in moves
        trick_before = len(s.table.trick)
        s, events = g.apply(s, move)
        t = s.table
        # every card is in exactly one hand, or on the table (won or in the current trick)
        assert sum(len(h) for h in s.hands) + len(t.played) == size
        assert not t.played & frozenset().union(*s.hands)
        assert sum(t.won) + len(t.trick) == len(t.played)
        assert all(e <= h for e, h in zip(t.exposed, s.hands))
        assert [len(h) for h in s.hands] == list(t.hand_sizes)
        won = [e for e in events if e.kind == "trick"]
        if won:
            tricks += 1
            winners += len(won)
            assert not t.trick and trick_before + len(move.cards) >= players
        if t.phase is g.Phase.LEAD:
            # each trick takes one card per player per card led: hands stay level
            assert len(set(t.hand_sizes)) == 1
        ruling = ref.observe(move)
        assert ruling.verdict is not Verdict.ILLEGAL, ruling.reason
        assert list(ruling.events) == events
    assert tricks == winners and tricks > 0  # each trick has exactly one winner
    r = g.result(s)
    assert sum(r.scores) == size and not any(s.hands)
    assert r.winners == tuple(i for i, x in enumerate(r.scores) if x == max(r.scores))


@settings(max_examples=15, derandomize=True, deadline=None)
@given(players=st.sampled_from([3, 4]), seed=st.integers(0, 10**6))
def test_the_referee_survives_junk_moves_and_undo_withdraws_them(players, seed):
    from companion.cards import deck_cards
    from companion.games.base import Move
    deck = list(deck_cards(DeckKind.DASHAVATARA))
    actions = ["lead", "follow", "deni", "double", "sacrifice", "pass", "show", "bid"]
    s = g.new_game(players, g.Options(), seed)
    rng = random.Random(seed)
    ref = g.TableReferee(players, g.Options())
    while not g.is_over(s):
        if rng.random() < 0.3:
            junk = Move(rng.randrange(players + 1), rng.choice(actions),
                        tuple(rng.sample(deck, rng.randrange(3))))
            before = ref.picture
            ruling = ref.observe(junk)  # must not raise, whatever it is
            assert ruling.verdict in Verdict
            ref.undo()
            assert ref.picture == before
        move = g.bot_move(s, rng)
        s, events = g.apply(s, move)
        ruling = ref.observe(move)
        assert ruling.verdict is not Verdict.ILLEGAL, ruling.reason
        assert list(ruling.events) == events
