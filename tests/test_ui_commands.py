"""A typed line to its intent (ui/commands.py), the same for both interfaces."""

from __future__ import annotations

import pytest

from p2p_spite import plaintext
from p2p_spite.net import protocol
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


def test_the_text_limits_are_the_protocols() -> None:
    assert (plaintext.MAX_CHAT, plaintext.MAX_NAME) == (protocol.MAX_CHAT, protocol.MAX_NAME)
    assert protocol.clean_text("a\x1bb\nc", 99) == plaintext.printable("a\x1bb\nc") == "a b c"
