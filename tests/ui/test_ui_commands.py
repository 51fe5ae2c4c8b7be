"""A typed line to its intent (ui/commands.py), the same for both interfaces."""

from __future__ import annotations

import pytest

from p2p_spite.contracts import plaintext
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move
from p2p_spite.ui.commands import (
    Chat,
    Command,
    Enter,
    Help,
    Hint,
    PlayText,
    Quit,
    Resign,
    chat_line,
    is_yes,
    parse_command,
)
from p2p_spite.ui.notation import move_notation, source_token, target_token, typed_source


@pytest.mark.parametrize(
    ("line", "intent"),
    [
        ("", Enter()),
        ("   ", Enter()),
        ("help", Help()),
        (" ? ", Help()),
        ("H", Help()),
        ("quit", Quit()),
        ("EXIT", Quit()),
        ("q", Quit()),
        ("resign", Resign()),
        ("hint", Hint()),
        ("chat hello there", Chat("hello there")),
        ("say  hi ", Chat("hi")),
        ("chat", Chat("")),
        ("chat \x1b[31mred\n", Chat("[31mred")),
        ("h3 c1", PlayText("h3 c1")),
        ("  7h c2 ", PlayText("7h c2")),
        ("quit now", PlayText("quit now")),  # a command word with more after it is not the command
        ("resign please", PlayText("resign please")),
        ("hint h1", PlayText("hint h1")),
    ],
)
def test_a_line_reads_as_one_intent(line: str, intent: Command) -> None:
    assert parse_command(line) == intent


def test_only_y_or_yes_is_a_yes() -> None:
    assert is_yes("y") and is_yes(" YES ") and is_yes("Yes\n")
    assert not any(is_yes(t) for t in ("", "n", "no", "yep", "y y", "quit"))


def test_chat_is_cut_to_what_the_protocol_carries() -> None:
    assert chat_line("x" * (plaintext.MAX_CHAT + 9)) == "x" * plaintext.MAX_CHAT
    assert chat_line("\ta\tb\t") == "a b"


def test_the_board_tokens_are_the_notations() -> None:
    hand = (7, None, 20)
    assert source_token(Move(0, HAND, 20, CENTER, 1), hand) == "h3"
    assert source_token(Move(0, SIDE, 3, CENTER, 0), hand) == "s4"
    assert source_token(Move(0, PAYOFF, None, CENTER, 2), hand) == "p"
    assert target_token(Move(0, HAND, 7, CENTER, 2)) == "c3"
    assert target_token(Move(1, HAND, 7, SIDE, 1)) == "s2"
    assert target_token(Move(1, HAND, 7, SIDE, 1), own=False) == "os2"
    assert move_notation(Move(0, HAND, 7, SIDE, 0), hand) == "h1 s1"
    typed = ("H3 c1", "p", " s2 ", "s5", "h3c1", "7h c1")
    assert [typed_source(t) for t in typed] == ["h3", "p", "s2", None, None, None]
