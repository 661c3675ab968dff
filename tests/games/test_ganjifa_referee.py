"""The Ganjifa table referee: it sees the table, not the hands.

Legal games (simulated by the bot, which gives and doubles Denis when it can) must pass
with no false error; each kind of error a player can make is injected into a real game and
must be called with the book's reason, at the move that proves it.
"""

import random
from dataclasses import replace

import pytest

from companion.cards import Card
from companion.games import ganjifa as g
from companion.games.base import Move, Verdict
from companion.games.ganjifa_table import advance, others
from companion.record import GameRecord, referee_record, replay, simulate, table_view

CONFIGS = [(3, {}), (4, {}), (3, {"deck": "mughal"}),
           (4, {"ranking": "straight", "face_up_deal": "true"}),
           (3, {"deni": "traditional", "opening_double": "false", "leading_raja": "night"})]


def C(i):
    return Card.parse(i)


@pytest.mark.parametrize("players,options", CONFIGS)
def test_simulated_games_pass_with_no_false_error_and_the_same_announcements(players, options):
    # 5 configurations x 40 games = 200 games here; `make`-free command for thousands in
    # docs/rulings/ganjifa.md.
    actions = set()
    for seed in range(40):
        rec = simulate("ganjifa", players, options, seed)
        actions |= {m.action for m in rec.moves}
        if seed == 0:  # the record replays exactly through the engine, deal and all
            again = GameRecord.loads(rec.dumps())
            assert [tuple(e) for _, _, e in replay(again)] == list(rec.events)
        rulings = list(referee_record(table_view(rec)))
        bad = [(i, r.reason) for i, r in enumerate(rulings) if r.verdict is Verdict.ILLEGAL]
        assert not bad, f"seed {seed}: {bad[:2]}"
        # The referee announces exactly what the engine announced, from the table alone.
        assert [r.events for r in rulings] == list(rec.events)
        for r in rulings:
            if r.verdict is Verdict.UNVERIFIABLE:
                assert r.move.action in ("pass", "sacrifice") and "cannot see" in r.reason
    assert {"lead", "follow", "deni", "double", "pass"} <= actions


# ---- helpers: play a real game to a position, then inject moves -------------------------

def play_until(players, pred, options=None, seeds=range(300)):
    """The first position of a bot game where ``pred(state)`` holds: (state, moves)."""
    opts = options or g.Options()
    for seed in seeds:
        s, rng, moves = g.new_game(players, opts, seed), random.Random(seed), []
        while not g.is_over(s):
            found = pred(s)
            if found:
                return s, moves, found
            m = g.bot_move(s, rng)
            s, _ = g.apply(s, m)
            moves.append(m)
    raise AssertionError("no such position in the games tried")


def judge(players, moves, options=None):
    ref = g.TableReferee(players, options or g.Options())
    return ref, [ref.observe(m) for m in moves]


def leading(s):
    return s.table.phase is g.Phase.LEAD


def first_illegal(rulings):
    return next(((i, r) for i, r in enumerate(rulings) if r.verdict is Verdict.ILLEGAL),
                (None, None))


# ---- injected errors --------------------------------------------------------------------

def test_a_led_card_beaten_by_another_player_proves_a_beatable_lead():
    def beatable(s):
        if not leading(s):
            return None
        p, t = s.table.leader, s.table
        q = (p + 1) % t.players
        unb = set(g.unbeatable(s.rules, t.played, s.hands[p]))
        for c in s.rules.sort(s.hands[p] - unb):
            above = [x for x in t.unplayed_above(c) if x in s.hands[q]]
            if above:
                return Move(p, "lead", (c,)), Move(q, "follow", (above[0],))
        return None
    s, moves, (lead, beat) = play_until(4, beatable)
    with pytest.raises(g.IllegalMoveError, match="not unbeatable"):
        g.apply(s, lead)
    _, rulings = judge(4, moves + [lead, beat])
    i, r = first_illegal(rulings)
    assert i == len(moves) + 1  # called when the higher card lands, not before
    assert rulings[len(moves)].verdict is Verdict.LEGAL
    assert "a beatable card was led" in r.reason and f"withdraw move {len(moves) + 1}" in r.reason
    assert any(e.kind == "withdraw" and e.player == lead.player and e.cards == lead.cards
               for e in r.events)


def test_a_deni_while_another_player_holds_a_card_above_the_called_one():
    def wrong_deni(s):
        if not leading(s):
            return None
        p, t = s.table.leader, s.table
        q = (p + 1) % t.players
        for h in s.rules.sort(s.hands[p]):
            above = t.unplayed_above(h)
            lower = [c for c in s.hands[p] if c.suit is h.suit and s.rules.power[c] <
                     s.rules.power[h]]
            if len(above) >= 2 and lower and above[0] not in s.hands[p] \
                    and above[1] in s.hands[q]:
                return Move(p, "deni", (lower[0], h)), Move(q, "follow", (above[1],))
        return None
    _s, moves, (deni, show) = play_until(3, wrong_deni)
    _, rulings = judge(3, moves + [deni, show])
    i, r = first_illegal(rulings)
    assert i == len(moves) + 1
    assert "a higher card than the one called for" in r.reason
    assert f"withdraw move {len(moves) + 1}" in r.reason


def test_a_called_card_not_played_is_called_when_its_holder_shows_it():
    def good_deni(s):
        if not leading(s):
            return None
        denis = [m for m in g.legal_moves(s) if m.action == "deni"]
        return denis[0] if denis else None
    s, moves, deni = play_until(3, good_deni)
    called = s.table.unplayed_above(deni.cards[1])[0]
    holder = next(i for i, h in enumerate(s.hands) if called in h)
    hands = [set(h) for h in s.hands]
    hands[deni.player].discard(deni.cards[0])
    injected = [deni]
    # Everyone follows with anything but the called card (the holder withholds it).
    for seat in others(deni.player, 3):
        c = next(c for c in s.rules.sort(hands[seat]) if c != called and c.suit is not
                 called.suit)
        hands[seat].discard(c)
        injected.append(Move(seat, "follow", (c,)))
    ref, rulings = judge(3, moves + injected)
    assert [r.verdict for r in rulings[-3:]] == [Verdict.LEGAL, Verdict.LEGAL,
                                                 Verdict.UNVERIFIABLE]
    assert f"without the {called.name}" in rulings[-1].reason
    # The trick went to the Deni-giver (only his card was of the suit led); he leads a card
    # of another suit and the holder of the called card shows it.
    leader = ref.picture.table.leader
    assert leader == deni.player
    lead = next(c for c in s.rules.sort(hands[leader]) if c.suit is not called.suit
                and c not in s.table.exposed[leader])
    more = [Move(leader, "lead", (lead,))]
    for seat in others(leader, 3):
        if seat == holder:
            more.append(Move(seat, "follow", (called,)))
            break
        more.append(Move(seat, "follow", (next(c for c in s.rules.sort(hands[seat])
                                                 if c.suit is not lead.suit),)))
    rulings = [ref.observe(m) for m in more]
    i, r = first_illegal(rulings)
    assert i == len(more) - 1
    assert "did not play it: the called-for card must be played" in r.reason
    assert f"Deni at move {len(moves) + 1}" in r.reason
    assert r.events[0].player == holder and r.events[0].cards == (called,)


def test_a_wrong_count_of_follow_cards_is_caught():
    rec = simulate("ganjifa", 4, {}, 12)
    moves = list(rec.moves)
    i = next(k for k, m in enumerate(moves) if m.action == "lead" and k > 8)
    # A follower plays twice: he has already played his one card for the one card led.
    twice = moves[:i + 2] + [Move(moves[i + 1].player, "follow", moves[i + 4].cards)]
    _, rulings = judge(4, twice)
    j, r = first_illegal(rulings)
    assert j == i + 2 and "one card for each card led" in r.reason
    # A follower is skipped: the next one plays out of turn.
    skipped = moves[:i + 1] + moves[i + 2:i + 3]
    _, rulings = judge(4, skipped)
    j, r = first_illegal(rulings)
    assert j == i + 1 and f"it is Player {moves[i + 1].player + 1}'s turn" in r.reason
    # The leader leads again before everyone has followed.
    early = moves[:i + 2] + [Move(moves[i].player, "lead", moves[i + 3].cards)]
    _, rulings = judge(4, early)
    j, r = first_illegal(rulings)
    assert j == i + 2 and "the trick is not complete" in r.reason


def test_the_deni_giver_must_follow_suit_after_a_double():
    def doubled(s):
        if s.table.phase is g.Phase.FOLLOW and s.table.deni and s.table.deni.doubled_by \
                is not None and g.current_player(s) == s.table.deni.giver:
            other = [c for c in s.hands[s.table.deni.giver]
                     if c.suit is not s.table.deni.high.suit]
            return Move(s.table.deni.giver, "follow", (other[0],)) if other else None
        return None
    _s, moves, wrong = play_until(3, doubled)
    _, rulings = judge(3, moves + [wrong])
    assert [r.verdict for r in rulings[:-1]].count(Verdict.ILLEGAL) == 0
    assert rulings[-1].verdict is Verdict.ILLEGAL
    assert "must play another card of the same suit" in rulings[-1].reason


def test_a_pass_without_a_lead_and_a_sacrifice_after_leads_are_illegal():
    def fresh(s):
        return leading(s) and not s.table.led_this_turn and s.table.won != (0,) * 3
    s, moves, _ = play_until(3, fresh)
    _, rulings = judge(3, moves + [Move(s.table.leader, "pass")])
    assert rulings[-1].verdict is Verdict.ILLEGAL
    assert "gives up their highest card in a suit instead of passing" in rulings[-1].reason

    def after_lead(s):
        return leading(s) and s.table.led_this_turn
    s, moves, _ = play_until(3, after_lead)
    card = s.rules.sort(s.hands[s.table.leader])[0]
    _, rulings = judge(3, moves + [Move(s.table.leader, "sacrifice", (card,))])
    assert rulings[-1].verdict is Verdict.ILLEGAL
    assert "the lead passes to the right" in rulings[-1].reason


def test_the_opening_must_be_the_leading_raja_and_cards_cannot_be_played_twice():
    ref = g.TableReferee(3, g.Options())
    r = ref.observe(Move(0, "lead", (C("kalki-raja"),)))
    assert r.verdict is Verdict.ILLEGAL and "Raja of Rama" in r.reason
    ref.undo()
    assert ref.observe(Move(2, "lead", (C("rama-raja"),))).verdict is Verdict.LEGAL
    r = ref.observe(Move(0, "follow", (C("rama-raja"),)))
    assert r.verdict is Verdict.ILLEGAL and "already been played" in r.reason


# ---- undo and the tracker ---------------------------------------------------------------

def test_undo_restores_the_state_before_the_move():
    rec = simulate("ganjifa", 3, {}, 5)
    ref = g.TableReferee(3, g.Options())
    pictures = []
    for m in rec.moves[:60]:
        pictures.append(ref.picture)
        ref.observe(m)
    for k in range(59, 29, -1):
        ref.undo()
        assert ref.picture == pictures[k]
    # After an illegal move and its withdrawal, the game goes on as if it never happened.
    bad = ref.observe(Move(rec.moves[30].player, rec.moves[30].action, rec.moves[0].cards))
    assert bad.verdict is Verdict.ILLEGAL
    ref.undo()
    assert [ref.observe(m).verdict for m in rec.moves[30:]].count(Verdict.ILLEGAL) == 0


def test_the_tracker_shows_played_exposed_and_provably_unbeatable_cards():
    def exposed(s):
        t = s.table
        return leading(s) and any(t.exposed) and t.led_this_turn
    s, moves, _ = play_until(3, exposed)
    ref, _ = judge(3, moves)
    tr = ref.tracker()
    cells = {c.card: c for _, row in tr.rows for c in row}
    assert len(cells) == len(s.rules.cards)
    for card, cell in cells.items():
        assert (cell.state in ("played", "in-trick")) == (card in s.table.played)
    for seat, cards in enumerate(s.table.exposed):
        for c in cards:
            assert cells[c].state == "exposed" and cells[c].seat == seat
            # provable exactly when every higher card is played
            assert cells[c].unbeatable == all(x in s.table.played
                                               for x in s.table.unplayed_above(c) or ())
            assert cells[c].unbeatable <= (c in g.unbeatable(s.rules, s.table.played,
                                                              s.hands[seat]))
    for suit, top in tr.highest_unplayed:
        assert top == next((c for c in s.rules.order[suit] if c not in s.table.played), None)
    assert tr.to_json()["suits"][0]["cards"][0]["card"].endswith("raja")


# ---- errors proved much later: force the error, let the game go on legally ---------------

def force(s, m):
    """Put ``m`` on the table even though the engine forbids it (a player's error)."""
    table, _ = advance(s.table, m)
    gone = set(m.cards[:1]) if m.action == "deni" else set(m.cards)
    hands = tuple(h - gone if i == m.player else h for i, h in enumerate(s.hands))
    return replace(s, table=table, hands=hands)


def finish(s, moves, seed=0):
    rng = random.Random(seed)
    moves = list(moves)
    while not g.is_over(s):
        m = g.bot_move(s, rng)
        s, _ = g.apply(s, m)
        moves.append(m)
    return moves


def test_a_sacrifice_that_was_not_the_highest_card_is_called_when_the_higher_one_shows():
    def two_in_suit(s):
        if not leading(s):
            return None
        for m in g.legal_moves(s):
            if m.action == "sacrifice":
                lower = [c for c in s.rules.order[m.cards[0].suit][1:]
                         if c in s.hands[m.player] and c != m.cards[0]]
                if lower:
                    return Move(m.player, "sacrifice", (lower[0],)), m.cards[0]
        return None
    s, moves, (wrong, higher) = play_until(3, two_in_suit)
    allm = finish(force(s, wrong), moves + [wrong])
    _, rulings = judge(3, allm)
    assert rulings[len(moves)].verdict is Verdict.UNVERIFIABLE
    i, r = first_illegal(rulings)
    assert allm[i].player == wrong.player and higher in allm[i].cards
    assert f"gave up the {wrong.cards[0].name} at move {len(moves) + 1}" in r.reason


def test_the_highest_card_withheld_from_a_sacrifice_is_called_when_it_shows():
    def sacrifice(s):
        return leading(s) and next((m for m in g.legal_moves(s) if m.action == "sacrifice"),
                                   None)
    s, moves, sac = play_until(3, sacrifice)
    s, _ = g.apply(s, sac)
    moves.append(sac)
    target = s.table.target
    while s.table.phase is g.Phase.FOLLOW:
        p = g.current_player(s)
        card = g.legal_moves(s)[0].cards[0]
        if card == target:
            card = next(c for c in s.rules.sort(s.hands[p]) if c != target)
            holder = p
        m = Move(p, "follow", (card,))
        s = force(s, m)
        moves.append(m)
    allm = finish(s, moves)
    _, rulings = judge(3, allm)
    assert rulings[len(moves) - 1].verdict is Verdict.UNVERIFIABLE
    i, r = first_illegal(rulings)
    assert allm[i].player == holder and target in allm[i].cards
    assert "the highest card must be played" in r.reason and r.events[0].player == holder


def test_a_pass_while_holding_an_unbeatable_card_is_called_when_it_is_proved():
    def hold_back(s):
        return leading(s) and s.table.led_this_turn and \
            g.unbeatable(s.rules, s.table.played, s.hands[s.table.leader])
    s, moves, _ = play_until(4, hold_back)
    p = s.table.leader
    wrong = Move(p, "pass")
    allm = finish(force(s, wrong), moves + [wrong])
    _, rulings = judge(4, allm)
    assert rulings[len(moves)].verdict is Verdict.UNVERIFIABLE
    i, r = first_illegal(rulings)
    assert i is not None and allm[i].player == p
    assert f"gave up the lead at move {len(moves) + 1}" in r.reason and "unbeatable" in r.reason


def test_a_deni_by_the_holder_of_the_called_card_is_called():
    def own(s):
        if not leading(s):
            return None
        p, t = s.table.leader, s.table
        for h in s.rules.sort(s.hands[p]):
            above = t.unplayed_above(h)
            lower = [c for c in s.hands[p] if c.suit is h.suit
                     and s.rules.power[c] < s.rules.power[h]]
            if above and lower and above[0] in s.hands[p] and h not in t.exposed[p]:
                return Move(p, "deni", (lower[0], h))
        return None
    s, moves, wrong = play_until(3, own)
    allm = finish(force(s, wrong), moves + [wrong])
    _, rulings = judge(3, allm)
    i, r = first_illegal(rulings)
    assert allm[i].player == wrong.player
    assert f"at move {len(moves) + 1} while holding the" in r.reason


def test_a_lead_beaten_by_a_card_shown_at_the_deal_is_called_at_once():
    opts = g.Options(face_up_deal=True)

    def beatable(s):
        if not leading(s):
            return None
        p, t = s.table.leader, s.table
        for c in s.rules.sort(s.hands[p]):
            for q in range(3):
                if q != p and any(x in s.face_up[q] and x in s.hands[q]
                                  for x in t.unplayed_above(c)):
                    return Move(p, "lead", (c,))
        return None
    _s, moves, wrong = play_until(3, beatable, opts)
    _, rulings = judge(3, moves + [wrong], opts)
    i, r = first_illegal(rulings)
    assert i == len(moves) and "a beatable card was led" in r.reason


def test_a_deni_before_leading_two_shown_unbeatable_cards_of_a_suit_is_called():
    opts = g.Options(face_up_deal=True)

    def two_shown(s):
        if not leading(s) or s.table.won == (0, 0, 0):
            return None
        p, t = s.table.leader, s.table
        known = frozenset(s.face_up[p]) & s.hands[p]
        proved = [c for c in known if all(x in known for x in t.unplayed_above(c))]
        suits = [c.suit for c in proved]
        twice = next((x for x in suits if suits.count(x) > 1), None)
        if twice is None:
            return None
        for h in s.rules.sort(s.hands[p]):
            above = t.unplayed_above(h)
            lower = [c for c in s.hands[p] if c.suit is h.suit
                     and s.rules.power[c] < s.rules.power[h]]
            if above and lower and above[0] not in s.hands[p]:
                return Move(p, "deni", (lower[0], h))
        return None
    s, moves, wrong = play_until(3, two_shown, opts)
    with pytest.raises(g.IllegalMoveError, match="except the lowest"):
        g.apply(s, wrong)
    _, rulings = judge(3, moves + [wrong], opts)
    i, r = first_illegal(rulings)
    assert i == len(moves) and "must be led before a Deni" in r.reason


@pytest.mark.parametrize("seed", range(6))
def test_a_trick_calls_for_its_card_from_the_followers_until_it_is_played(seed):
    """``Table.called_of``: a Deni's called card, or a sacrifice's, from followers still to
    play; never from the Deni-giver; nothing once it is in the trick. Its holder, playing
    it, was asked for it."""
    rec = table_view(simulate("ganjifa", 4, {}, seed))
    ref = g.TableReferee(4)
    seen = 0
    for move in rec.moves:
        t = ref.picture.table
        called = {seat: t.called_of(seat) for seat in range(4)}
        wanted = (t.deni.called if t.kind is g.Kind.DENI and t.deni is not None
                  else t.target if t.kind is g.Kind.SACRIFICE else None)
        if t.kind is g.Kind.DENI and t.deni is not None:
            assert called[t.deni.giver] is None  # "must play another card of the same suit"
        in_trick = any(c == wanted for _, c in t.trick)
        for seat, card in called.items():
            assert card in (None, wanted)
            assert card is None or (seat in t.queue and not in_trick)
        if wanted is not None and wanted in move.cards and move.action in ("follow", "double"):
            assert called[move.player] == wanted
            seen += 1
        ref.observe(move)
    assert seen
