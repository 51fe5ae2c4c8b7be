"""The move syntax players type: every legal move prints and reads back as itself,
card names and separators, and the README's own examples."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Match, Move, PlayerView, view
from p2p_spite.engine.cards import card_str, card_symbol, parse_card, same_card
from p2p_spite.ui.board import hand_slots
from p2p_spite.ui.notation import NotationError, move_notation, parse_move
from tests.support.positions import make_state

README = Path(__file__).resolve().parents[2] / "README.md"


def _position(seed: int, plies: int) -> PlayerView:
    """The view of the seat on turn after ``plies`` random legal moves from a seeded deal."""
    rng = random.Random(seed)
    match = Match(rng.randbytes(32))
    g = match.game
    for _ in range(plies):
        if g.result is not None:
            break
        g.apply(rng.choice(g.legal_moves()))
    return view(g, g.turn)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 120))
def test_every_legal_move_prints_and_reads_back_as_itself(seed: int, plies: int) -> None:
    v = _position(seed, plies)
    slots = hand_slots(v.hand, (), v.my_turn)
    for m in v.legal_moves():
        text = move_notation(m, slots)
        assert parse_move(text, v, slots) == m, text
        assert parse_move(text.upper(), v, slots) == m
        src, dst = text.split()
        for sep in (" -> ", "->", " to ", " on ", ">", "  "):
            assert parse_move(f"{src}{sep}{dst}", v, slots) == m
        card = m.hand_card
        if card is not None:  # by the card's name: that card, or its twin of the other deck
            named = parse_move(f"{card_str(card).lower()} {dst}", v, slots)
            assert named.hand_card is not None and same_card(named.hand_card, card)
            assert named._replace(arg=card) == m


def test_card_names_round_trip_for_both_decks() -> None:
    for card in range(104):
        name = card_str(card)
        assert parse_card(name, deck=card // 52) == card
        assert parse_card(name.lower(), deck=card // 52) == card
        symbol = card_symbol(card, "cdhs")
        assert parse_card(symbol, deck=card // 52) == card  # 10h, 7s: what the screen shows
    assert card_str(parse_card("10h")) == "TH" and card_symbol(parse_card("TH")) == "10♥"
    for bad in ("", "1h", "11h", "7x", "h7", "7hh", "10"):
        with pytest.raises(ValueError):
            parse_card(bad)


@pytest.mark.parametrize(
    "text",
    [
        "h1 c1",
        "h1c1",
        "h1 -> c1",
        "h1->c1",
        "h1 to c1",
        "h1 on c1",
        "h1 > c1",
        "hand 1 center 1",
        "h1 centre1",
    ],
)
def test_the_separators_all_mean_the_same_move(text: str) -> None:
    s = make_state(hands=("AC 2C 3C 4D KS", "6D 7D 8D 9H TH"))
    v = view(s, 0)
    assert parse_move(text, v, hand_slots(v.hand, (), True)) == Move(0, HAND, v.hand[0], CENTER, 0)


@pytest.mark.parametrize("text", ["h1", "c1", "h1 c4", "h9 c1", "p s1", "s5 c1", "xx c1", "5s c1", "h1 x1"])
def test_what_is_not_a_move_says_so(text: str) -> None:
    s = make_state(hands=("AC 2C 3C 4D KS", "6D 7D 8D 9H TH"))
    v = view(s, 0)
    with pytest.raises(NotationError):
        parse_move(text, v, hand_slots(v.hand, (), True))


def _readme_moves() -> list[tuple[str, str]]:
    """The README's table of what you type: each example form, with the row's words."""
    text = README.read_text()
    table = text[text.index("| you type | it does |") :].split("\n\n", 1)[0]
    out = []
    for row in table.splitlines()[2:]:
        typed, does = row.strip("|").split("|")
        for form in re.findall(r"`([^`]+)`", typed):
            out.append((form, does.strip()))
    return out


def test_the_readmes_move_syntax_does_what_the_readme_says() -> None:
    examples = _readme_moves()
    assert [f for f, _ in examples] == ["7h c1", "h3 c1", "p c2", "s4 c1", "9s s3", "h2 s3"]
    # A hand holding the 7♥ (hand card 3 once sorted) and the 9♠; center 1 needs a 7
    # (the 7♥ or side stack 4's 7♣), center 2 a 9 (the pay-off top, 9♦).
    s = make_state(
        payoff=("5C 9D", "4H 8S"),
        hands=("AC 6D 7H 9S KS", "6C 7D 8D 9H TH"),
        sides=(("", "", "", "7C"), ("", "", "", "")),
        center=("AC 2D 3S 4C 5C 6C", "AD 2S 3H 4S 5D 6S 7S 8C", ""),
    )
    v = view(s, 0)
    slots = hand_slots(v.hand, (), True)
    seven, nine = parse_card("7H"), parse_card("9S")
    assert slots[2] == seven  # so the README's h3 is the 7♥
    want = {
        "7h c1": Move(0, HAND, seven, CENTER, 0),
        "h3 c1": Move(0, HAND, seven, CENTER, 0),
        "p c2": Move(0, PAYOFF, None, CENTER, 1),
        "s4 c1": Move(0, SIDE, 3, CENTER, 0),
        "9s s3": Move(0, HAND, nine, SIDE, 2),
        "h2 s3": Move(0, HAND, slots[1], SIDE, 2),
    }
    for form, does in examples:
        move = parse_move(form, v, slots)
        assert move == want[form], (form, does)
        # the row's words end with the target: "onto center stack 1", "onto your side stack 3"
        where = re.findall(r"(center|side) (?:stack )?(\d)", does)[-1]
        assert (where[0], int(where[1])) == (move.target, move.slot + 1), (form, does)
        assert v.check(move) is None  # and each is a legal move there
    # the separators the README gives, each the same move as the plain form
    line = next(ln for ln in README.read_text().splitlines() if ln.endswith("are `h3 c1` too."))
    *forms, plain = re.findall(r"`([^`]+)`", line)
    assert forms == ["7h to c1", "h3->c1", "h3c1"]
    for form in forms:
        assert parse_move(form, v, slots) == parse_move(plain, v, slots) == want["h3 c1"], form
