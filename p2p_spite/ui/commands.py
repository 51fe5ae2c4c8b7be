"""What a typed line means: one small type per intent, shared by both interfaces.

The full-screen game (:mod:`.app`) and the line prompt (:mod:`.lineplay`) read
a line the same way: :func:`parse_command` says which intent it is (a move, a
hint, undo, a chat line, resign, quit, help, or just Enter) without looking at the
board; the :class:`~.controller.Controller` then acts on the intent for
either interface.  The chat line as sent and the default hint live here too.

No prompt_toolkit and no session here: a line in, data out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..contracts.i18n import language
from ..contracts.plaintext import MAX_CHAT, printable
from ..engine import Move, PlayerView

if TYPE_CHECKING:
    from ..bots.review import HintReason


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
class Undo:
    """Take back our last move of this turn (against a person: they are asked)."""


@dataclass(frozen=True, slots=True)
class Chat:
    """``chat TEXT`` / ``say TEXT``: ``text`` as it is sent (:func:`chat_line`; empty: nothing to send)."""

    text: str


@dataclass(frozen=True, slots=True)
class Again:
    """At a match's end: ask whether to play another match on the same connection
    (both interfaces hand it over when they show the match's end)."""


@dataclass(frozen=True, slots=True)
class PlayText:
    """Anything else: a move in the notation, read against the board shown
    (:func:`p2p_spite.ui.notation.parse_move`)."""

    text: str


Command = Enter | Help | Quit | Resign | Hint | Undo | Chat | Again | PlayText

HELP_WORDS = ("help", "?", "h")
QUIT_WORDS = ("quit", "exit", "q")
CHAT_WORDS = ("chat", "say")
YES = ("y", "yes")

# Each language's own command words, accepted beside the English ones while it is spoken
# (the first of each is the one its help names and Tab completes), and its yes to a y/N
# question.  The move notation (h3 c1) is the same in every language.
LOCAL_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "tl": {
        "help": ("tulong",),
        "hint": ("payo",),
        "undo": ("bawi",),
        "chat": ("usap",),
        "resign": ("suko",),
        "quit": ("alis",),
    },
    "ms": {
        "help": ("bantuan",),
        "hint": ("petunjuk",),
        "undo": ("undur",),
        "chat": ("sembang",),
        "resign": ("mengalah",),
        "quit": ("keluar",),
    },
    "pl": {
        "help": ("pomoc",),
        "hint": ("podpowiedź", "podpowiedz"),
        "undo": ("cofnij",),
        "chat": ("czat",),
        "resign": ("poddaj", "poddaję", "poddaje"),
        "quit": ("wyjdź", "wyjdz", "koniec"),
    },
    "es": {
        "help": ("ayuda",),
        "hint": ("pista",),
        "undo": ("deshacer",),
        "chat": ("charla", "di"),
        "resign": ("rendirse", "rindo", "abandonar"),
        "quit": ("salir",),
    },
}
LOCAL_YES = {"tl": ("o", "oo"), "ms": ("y", "ya"), "pl": ("t", "tak"), "es": ("s", "si", "sí")}

# What the move line completes besides the moves (the full screen's Tab).
COMPLETIONS = ("help", "hint", "undo", "chat ", "resign", "quit")


def _local(intent: str) -> tuple[str, ...]:
    return LOCAL_WORDS.get(language(), {}).get(intent, ())


def completions() -> tuple[str, ...]:
    """The commands Tab completes: the English ones, then the language's own."""
    local = [
        w + " " * (intent == "chat")
        for intent in ("help", "hint", "undo", "chat", "resign", "quit")
        for w in _local(intent)[:1]
    ]
    return COMPLETIONS + tuple(local)


def parse_command(line: str) -> Command:
    """The intent of one typed line (surrounding blanks ignored)."""
    text = line.strip()
    if not text:
        return Enter()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if word in CHAT_WORDS or word in _local("chat"):
        return Chat(chat_line(rest))
    if not rest:
        if word in HELP_WORDS or word in _local("help"):
            return Help()
        if word in QUIT_WORDS or word in _local("quit"):
            return Quit()
        if word == "resign" or word in _local("resign"):
            return Resign()
        if word == "hint" or word in _local("hint"):
            return Hint()
        if word == "undo" or word in _local("undo"):
            return Undo()
    return PlayText(text)


def is_yes(line: str) -> bool:
    """The answer to a y/N question: only ``y`` or ``yes`` is a yes, or the language's own
    (``t``/``tak``, ``s``/``sí``, ``y``/``ya``, ``o``/``oo``)."""
    answer = line.strip().lower()
    return answer in YES or answer in LOCAL_YES.get(language(), ())


def chat_line(text: str) -> str:
    """What ``chat TEXT`` sends: trimmed, printable, at most MAX_CHAT characters
    (what the peer receives; the echo shows the same)."""
    return printable(text).strip()[:MAX_CHAT]


def default_hint(view: PlayerView) -> Move:
    """The strongest computer level's move for ``view``."""
    from ..bots import best_move  # (the bots are loaded only when a hint is asked for)

    return best_move(view)


def default_why(view: PlayerView, move: Move) -> HintReason:
    """Why the hint ``move``: the review's evaluation of its turn against the plain one."""
    from ..bots.review import hint_reason

    return hint_reason(view, move)


__all__ = [
    "COMPLETIONS",
    "Again",
    "Chat",
    "Command",
    "Enter",
    "Help",
    "Hint",
    "PlayText",
    "Quit",
    "Resign",
    "Undo",
    "chat_line",
    "completions",
    "default_hint",
    "default_why",
    "is_yes",
    "parse_command",
]
