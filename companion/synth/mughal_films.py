"""How the Mughal games a camera referees are filmed (``companion.synth.video``): each
script yields (move index, frame the move is true, frame its gather is true, or -1).

Hamrang and Ekrang: each turn's cards go onto the seat's play spot (a Hamrang pair side by
side, overlapping a little), and a finished trick is swept to the winner's won pile (a
Hamrang player who drops out leaves her cards face down on her spot). Komi
and Nakash: each hand is turned up card by card on the seat's hand zone, spread as a hand
is, and the hands are taken up once the round is settled. Sama: the deal, the exchanges
and the reveal on the hand zones (``exchanges``). Udvasa: the
starting Rajas and 1s lie on the build spots; dealt cards go onto the working spots, and
a moved or built card is picked up from its working spot and laid where it goes.
"""

from __future__ import annotations

from collections.abc import Iterator

from companion.cards import Card
from companion.games import udvasa
from companion.games.udvasa_stacks import SUITS, down_flags
from companion.synth.director import Director, VideoError

Script = Iterator[tuple[int, int, int]]
# Cards a seat lays together overlap a little, side by side (card centres this far apart;
# a card is 65 mm across): a Hamrang pair, a hand turned up
PAIR_GAP_MM = 40.0
HAND_GAP_MM = 40.0


def tricks(d: Director, record, n_moves: int) -> Script:
    """Hamrang: "If a player has no face cards left she is out of the game. She places her
    cards face-down in front of her": a squared pile of backs on her play spot, left
    there (the tricks' sweeps pass it by)."""
    plays = [f"play{s}" for s in range(record.players)]
    played: set[str] = set()
    for i, move in enumerate(record.moves[:n_moves]):
        played |= {c.id for c in move.cards}
        for k, card in enumerate(move.cards):
            d.carry(move.player, card, f"play{move.player}",
                    offset=d.spread(move.player, k, len(move.cards), PAIR_GAP_MM))
        if move.action == "out":
            hand = [c for c in record.deal["hands"][move.player] if c not in played]
            if hand:  # (the pile seen from above is its top card's back)
                d.carry(move.player, Card.parse(hand[0]), f"play{move.player}", face_up=False)
            plays.remove(f"play{move.player}")
        landed, swept = len(d.frames), -1
        trick = [e for e in record.events[i] if e.kind == "trick"]
        if trick:
            d.pause(int(d.rng.integers(1, 4) if d.brisk else d.rng.integers(6, 14)))
            d.sweep(trick[0].player, plays, f"won{trick[0].player}")
            swept = len(d.frames)
        yield i, landed, swept


def reveals(d: Director, record, n_moves: int) -> Script:
    for i, move in enumerate(record.moves[:n_moves]):
        if move.action == "reveal":
            for k, card in enumerate(move.cards):
                d.carry(move.player, card, f"hand{move.player}",
                        offset=d.spread(move.player, k, len(move.cards), HAND_GAP_MM))
        elif move.action != "bet":  # (bets are said aloud)
            raise VideoError(f"cannot film the {record.game} move {move.action!r}")
        landed, swept = len(d.frames), -1
        if any(e.kind == "round" for e in record.events[i]):
            d.pause(int(d.rng.integers(10, 30)))
            for seat in range(record.players):
                d.take_up(seat, f"hand{seat}")
            swept = len(d.frames)
        yield i, landed, swept


def exchanges(d: Director, record, n_moves: int) -> Script:
    """Sama: "two cards face down and one card face up to each player, one at a time",
    each hand spread on its zone (face-down cards first); a face-up card exchanged goes to
    the stock pile and its replacement is dealt face up where it lay; face-down cards
    exchanged likewise, face down; at the reveal each face-down card is turned up where it
    lies; the hands are taken up once the round is won."""
    n, rounds = record.players, iter(record.deal["decks"])
    slot = {}  # card -> (seat, place in the hand)
    dealer = 0

    def lay(seat: int, card, k: int, face_up: bool, by: int, pick: str | None = None):
        d.carry(by, card, f"hand{seat}", face_up=face_up, pick_from=pick,
                offset=d.spread(seat, k, 3, HAND_GAP_MM))
        slot[card] = (seat, k)

    for i, move in enumerate(record.moves[:n_moves]):
        swept, p = -1, move.player
        if move.action == "deal":
            dealer, deck = p, [Card.parse(c) for c in next(rounds)]
            order = [(p + 1 + k) % n for k in range(n)]
            for k in range(2 * n):
                lay(order[k % n], deck[k], k // n, False, p)
            for seat, card in zip(order, move.cards):
                lay(seat, card, 2, True, p)
        elif move.action == "exchange":
            gone, new = move.cards[:len(move.cards) // 2], move.cards[len(move.cards) // 2:]
            for old, card in zip(gone, new):
                k = slot[old][1]
                d.carry(p, old, "stock", face_up=False, pick_from=f"hand{p}")
                lay(p, card, k, move.target == "up", dealer)
        elif move.action == "reveal":
            for card in move.cards[:2]:
                lay(p, card, slot[card][1], True, p, pick=f"hand{p}")
        landed = len(d.frames)
        if any(e.kind == "round-winner" for e in record.events[i]):
            d.pause(int(d.rng.integers(10, 30)))
            for seat in range(n):
                d.take_up(seat, f"hand{seat}")
            swept = len(d.frames)
        yield i, landed, swept


def patience(d: Director, record, n_moves: int) -> Script:
    options = udvasa.Options(**record.options)
    down = down_flags(options.down_suits)
    # the layout's build spots: the four suits building down first, then the four up
    spots = {s: f"build{k}" for k, s in enumerate(
        [s for s, f in zip(SUITS, down) if f] + [s for s, f in zip(SUITS, down) if not f])}
    for card in udvasa.start_cards(options):
        d.put(spots[card.suit], card, True)
    for i, move in enumerate(record.moves[:n_moves]):
        if move.action == "deal":
            for j, card in enumerate(move.cards):
                d.carry(0, card, f"work{j}")
        elif move.action in ("move", "build"):
            card = move.cards[0]
            to = f"work{int(move.target[4:]) - 1}" if move.action == "move" else spots[card.suit]
            d.carry(0, card, to, pick_from=d.find(card))
        else:
            raise VideoError(f"cannot film the Udvasa move {move.action!r}")
        yield i, len(d.frames), -1


SCRIPTS = {"hamrang": tricks, "ekrang": tricks, "komi": reveals, "nakash": reveals,
           "sama": exchanges, "udvasa": patience}
