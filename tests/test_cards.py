import pytest

from companion.cards import (
    Card,
    CardIdError,
    DeckKind,
    Rank,
    RankOrder,
    Suit,
    deck_cards,
    ranks_high_to_low,
    strength,
    suits_of,
)

WEAK = {"surya", "barat", "kumancha", "cheng", "matsya", "kurma", "varaha", "narasimha", "vamana"}


def test_deck_sizes_and_uniqueness():
    mughal, dasha = deck_cards(DeckKind.MUGHAL), deck_cards(DeckKind.DASHAVATARA)
    assert len(mughal) == len(set(mughal)) == 96
    assert len(dasha) == len(set(dasha)) == 120
    assert not set(mughal) & set(dasha)


def test_suit_lists_match_the_decks_readme():
    assert {s.value for s in suits_of(DeckKind.MUGHAL)} == {
        "phul", "chandra", "shamsher", "ghulam", "cheng", "surya", "barat", "kumancha"}
    assert [s.value for s in suits_of(DeckKind.DASHAVATARA)] == [
        "matsya", "kurma", "varaha", "narasimha", "vamana", "parashurama", "rama", "balarama",
        "buddha", "kalki"]


def test_seed_003_colours_and_symbols():
    assert Suit.SURYA.info.colour == "green" and Suit.SURYA.info.symbol == "gold coin"
    assert Suit.SHAMSHER.info.colour == "red" and Suit.SHAMSHER.info.symbol == "sword"
    assert Suit.CHENG.info.symbol == "harp" and Suit.GHULAM.info.colour == "purple"


def test_weak_suits():
    assert {s.value for s in Suit if s.info.weak} == WEAK


@pytest.mark.parametrize("card", deck_cards(DeckKind.MUGHAL) + deck_cards(DeckKind.DASHAVATARA))
def test_id_round_trip(card):
    assert Card.parse(card.id) == card
    assert card.id == f"{card.suit.value}-{card.rank.token}"


def test_examples_from_the_issue():
    assert Card.parse("shamsher-raja") == Card(Suit.SHAMSHER, Rank.RAJA)
    assert Card.parse("surya-7") == Card(Suit.SURYA, Rank.SEVEN)
    assert Card.parse("matsya-vizier").rank is Rank.VIZIER


@pytest.mark.parametrize("bad", ["", "surya", "surya-0", "surya-11", "sun-3", "surya-queen", 7])
def test_invalid_ids_name_the_valid_forms(bad):
    with pytest.raises(CardIdError) as e:
        Card.parse(bad)
    msg = str(e.value)
    assert "suit" in msg or "rank" in msg


def test_traditional_order_reverses_weak_number_cards():
    order = ranks_high_to_low(Suit.SURYA, RankOrder.TRADITIONAL)
    assert order[:3] == (Rank.RAJA, Rank.VIZIER, Rank.ONE) and order[-1] is Rank.TEN
    strong = ranks_high_to_low(Suit.SHAMSHER, RankOrder.TRADITIONAL)
    assert strong[:3] == (Rank.RAJA, Rank.VIZIER, Rank.TEN) and strong[-1] is Rank.ONE
    assert ranks_high_to_low(Suit.SURYA, RankOrder.STRAIGHT) == strong


def test_faces_always_beat_numbers():
    for suit in Suit:
        for order in RankOrder:
            numbers = [strength(Card(suit, Rank(n)), order) for n in range(1, 11)]
            assert max(numbers) < strength(Card(suit, Rank.VIZIER), order) < strength(
                Card(suit, Rank.RAJA), order)
