"""What a typed line means: one small type per intent, shared by both interfaces.

The full-screen game (:mod:`.app`) and the line prompt (:mod:`.lineplay`) read
a line the same way: :func:`parse_command` says which intent it is (a move, a
hint, a chat line, resign, quit, help, or just Enter) without looking at the
board; the :class:`~.controller.Controller` then acts on the intent for
either interface.  The chat line as sent and the default hint live here too.

No prompt_toolkit and no session here: a line in, data out.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Move, PlayerView
from ..plaintext import MAX_CHAT, printable


@dataclass(frozen=True, slots=True)
class Enter:
    """An empty line: play the hint offered, start the next game, or show the help."""


@dataclass(frozen=True, slots=True)
class Help:
    pass


@dataclass(frozen=True, slots=True)
class Quit:
    """Leave the match (asks first while it goes on)."""


@dataclass(frozen=True, slots=True)
class Resign:
    """Resign the current game (asks first)."""


@dataclass(frozen=True, slots=True)
class Hint:
    pass


@dataclass(frozen=True, slots=True)
class Chat:
    """``chat TEXT`` / ``say TEXT``: ``text`` as it is sent (:func:`chat_line`; empty: nothing to send)."""

    text: str


@dataclass(frozen=True, slots=True)
class PlayText:
    """Anything else: a move in the notation, read against the board shown
    (:func:`p2p_spite.ui.notation.parse_move`)."""

    text: str


Command = Enter | Help | Quit | Resign | Hint | Chat | PlayText

HELP_WORDS = ("help", "?", "h")
QUIT_WORDS = ("quit", "exit", "q")
YES = ("y", "yes")

# What the move line completes besides the moves (the full screen's Tab).
COMPLETIONS = ("help", "hint", "chat ", "resign", "quit")


def parse_command(line: str) -> Command:
    """The intent of one typed line (surrounding blanks ignored)."""
    text = line.strip()
    if not text:
        return Enter()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if word in ("chat", "say"):
        return Chat(chat_line(rest))
    if not rest:
        if word in HELP_WORDS:
            return Help()
        if word in QUIT_WORDS:
            return Quit()
        if word == "resign":
            return Resign()
        if word == "hint":
            return Hint()
    return PlayText(text)


def is_yes(line: str) -> bool:
    """The answer to a y/N question: only ``y`` or ``yes`` is a yes."""
    return line.strip().lower() in YES


def chat_line(text: str) -> str:
    """What ``chat TEXT`` sends: trimmed, printable, at most MAX_CHAT characters
    (what the peer receives; the echo shows the same)."""
    return printable(text).strip()[:MAX_CHAT]


def default_hint(view: PlayerView) -> Move:
    """The strongest computer level's move for ``view``."""
    from ..bots import best_move  # (the bots are loaded only when a hint is asked for)

    return best_move(view)


__all__ = [
    "COMPLETIONS",
    "Chat",
    "Command",
    "Enter",
    "Help",
    "Hint",
    "PlayText",
    "Quit",
    "Resign",
    "chat_line",
    "default_hint",
    "is_yes",
    "parse_command",
]
