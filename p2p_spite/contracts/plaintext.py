"""Text that people type for each other (names, chat), made safe to print.

A peer, a record or the keyboard may carry escape codes and newlines; every
part that shows or sends such text filters it with :func:`printable`.  The
limits are those of the protocol (docs/protocol.md), the one place a name or a
chat line crosses to the other player.
"""

from __future__ import annotations

import os
import shlex
from typing import Final

MAX_NAME: Final = 40  # characters of a player's name
MAX_CHAT: Final = 500  # characters of one chat line


def printable(text: str) -> str:
    """``text`` with every character that is not printable (control codes,
    newlines, tabs, escape sequences' introducers) made a space."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def clean_name(name: str, most: int = MAX_NAME) -> str:
    """A name safe to print: printable characters only (no escape codes, no
    newlines), runs of blanks made one space, at most ``most`` characters."""
    return " ".join(printable(name).split())[:most]


def shown_path(path: str | os.PathLike[str]) -> str:
    """A file's path as a shell word, safe to print and to type back as shown: quoted
    when the shell needs it; a name with characters that are not printable (escape codes,
    newlines, bytes that are not text: anyone may name a file so) is written ``$'...'``
    with their bytes as ``\\xNN``, which bash and zsh read back as the same name."""
    text = os.fspath(path)
    if text.isprintable():
        return shlex.quote(text)
    out = []
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}" for b in os.fsencode(ch))
    return "$'" + "".join(out) + "'"


__all__ = ["MAX_CHAT", "MAX_NAME", "clean_name", "printable", "shown_path"]
