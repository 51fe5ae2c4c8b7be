"""Text that people type for each other (names, chat), made safe to print.

A peer, a record or the keyboard may carry escape codes and newlines; every
part that shows or sends such text filters it with :func:`printable`.  The
limits are those of the protocol (docs/protocol.md), the one place a name or a
chat line crosses to the other player.
"""

from __future__ import annotations

from typing import Final

MAX_NAME: Final = 40  # characters of a player's name
MAX_CHAT: Final = 500  # characters of one chat line


def printable(text: str) -> str:
    """``text`` with every character that is not printable (control codes,
    newlines, tabs, escape sequences' introducers) made a space."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


__all__ = ["MAX_CHAT", "MAX_NAME", "printable"]
