"""Cards are plain integers 0..103 (SPEC section 2).

For card ``c``: rank = ``c % 13 + 1`` (1 = Ace ... 13 = King), suit =
``(c // 13) % 4`` (0 clubs, 1 diamonds, 2 hearts, 3 spades) and ``c // 52``
tells the two decks apart.  Keeping cards as ints keeps the hot paths (replay,
bots) fast; these helpers give them names.
"""

from __future__ import annotations

from typing import Final

Card = int

ACE: Final = 1
QUEEN: Final = 12
KING: Final = 13

RANK_CHARS: Final = "A23456789TJQK"
SUIT_CHARS: Final = "CDHS"
SUIT_SYMBOLS: Final = "♣♦♥♠"
# A card of each rank in words, by rank - 1: "which needs an Ace", "a Jack"...
RANK_WORDS: Final = (
    "an Ace", "a 2", "a 3", "a 4", "a 5", "a 6", "a 7", "an 8", "a 9", "a 10", "a Jack", "a Queen", "a King",
)  # fmt: skip


def rank(card: Card) -> int:
    """1 (Ace) .. 13 (King)."""
    return card % 13 + 1


def suit(card: Card) -> int:
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return (card // 13) % 4


def is_king(card: Card) -> bool:
    return card % 13 == 12


def same_card(a: Card, b: Card) -> bool:
    """Are ``a`` and ``b`` the same card of the two decks (same rank and suit)?"""
    return a % 52 == b % 52


def is_red(card: Card) -> bool:
    return suit(card) in (1, 2)


def card_str(card: Card) -> str:
    """Two-letter name such as ``7S`` or ``TC`` (ranks A 2-9 T J Q K)."""
    return RANK_CHARS[card % 13] + SUIT_CHARS[(card // 13) % 4]


def card_symbol(card: Card, suits: str = SUIT_SYMBOLS) -> str:
    """Name with a suit symbol and 10 spelled out, such as ``10♥`` (``suits``:
    the four marks in club, diamond, heart, spade order, e.g. ``"cdhs"``)."""
    r = card % 13
    label = "10" if r == 9 else RANK_CHARS[r]
    return label + suits[suit(card)]


def parse_card(text: str, deck: int = 0) -> Card:
    """The id of a card written ``7S`` / ``10h``, in deck 0 or 1."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUIT_CHARS:
        raise ValueError(f"not a card: {text!r}")
    if deck not in (0, 1):
        raise ValueError(f"deck must be 0 or 1, not {deck}")
    return deck * 52 + SUIT_CHARS.index(t[1]) * 13 + RANK_CHARS.index(t[0])
