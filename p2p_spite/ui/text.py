"""Words and glyphs shared by every part of the interface (no prompt_toolkit here).

* Which glyphs the terminal can show: the suit symbols, ``▮ · ─ \u203a │``, or
  letters and ASCII when the locale is not UTF-8 (``LC_ALL=C``).  Python's
  UTF-8 mode makes ``sys.stdout.encoding`` say UTF-8 even then, so the locale
  variables decide first.
* Text from elsewhere made safe to print: echoed lines cut to a sane length
  (names: :func:`p2p_spite.contracts.plaintext.clean_name`).
* Small pieces of words: ``1 point`` / ``3 points`` (in the language spoken, :mod:`p2p_spite.contracts.i18n`).
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Mapping

from ..contracts.i18n import ngettext
from ..contracts.plaintext import printable
from ..contracts.session import LinkState
from ..engine import Card
from ..engine.cards import SUIT_CHARS, SUIT_SYMBOLS, card_symbol

MAX_ECHO = 200  # a line typed back in an error message

_GLYPHS = "♣♦♥♠▮·─\u203a│●◌✕○↑→╭╮╰╯"


def unicode_ok(env: Mapping[str, str] | None = None, encoding: str | None = None) -> bool:
    """Can the terminal show the suit symbols and box characters?

    The locale decides first (the first set of LC_ALL, LC_CTYPE, LANG must name
    UTF-8: ``C``, ``POSIX`` or ``en_US.ISO-8859-1`` do not), then the output's
    encoding must be able to encode them.
    """
    env = os.environ if env is None else env
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(var, "")
        if value:
            if not re.search(r"utf-?8", value, re.IGNORECASE):
                return False
            break
    enc = (encoding if encoding is not None else getattr(sys.stdout, "encoding", None) or "").lower()
    if not enc:
        return True
    try:
        _GLYPHS.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


UNICODE = unicode_ok()
SUITS = SUIT_SYMBOLS if UNICODE else SUIT_CHARS.lower()
BACK = "▮" if UNICODE else "#"
DOT = "·" if UNICODE else "."
RULE = "─" if UNICODE else "-"
VBAR = "│" if UNICODE else "|"
PROMPT = "\u203a" if UNICODE else ">"
ARROW = "→" if UNICODE else ">"
UP = "↑" if UNICODE else "^"
_LS = LinkState
CONNECTION_MARKS: dict[LinkState, str] = (
    {_LS.CONNECTED: "●", _LS.RECONNECTING: "◌", _LS.LOST: "✕", _LS.CLOSED: "○"}
    if UNICODE
    else {_LS.CONNECTED: "*", _LS.RECONNECTING: "~", _LS.LOST: "x", _LS.CLOSED: "o"}
)


def card_label(card: Card) -> str:
    """``7♥``, ``10♣``, ``K♠`` (``7h`` when the terminal cannot show symbols)."""
    return card_symbol(card, SUITS)


def clip_text(text: str, most: int = MAX_ECHO) -> str:
    """``text`` made printable and cut to ``most`` characters (with ``…`` when cut)."""
    text = printable(text)
    if len(text) <= most:
        return text
    return text[: most - 1] + ("…" if UNICODE else "~")


LINE_WIDTH = (
    79  # a line of plain words (the line prompt's words, wrapped between words (an 80-column terminal)
)


def wrapped(text: str, lead: str = "") -> str:
    """``text`` after ``lead``, its lines broken between words to fit LINE_WIDTH (the
    continuations indented under the text): a terminal would cut them mid-word.  A line
    with a word too long for any line (a pasted URL in a chat) is left as it is."""
    indent = " " * len(lead) if lead else "  "
    out = []
    for line in text.split("\n"):
        fits = len(lead) + len(line) <= LINE_WIDTH
        if fits or max(map(len, line.split() or [""])) > LINE_WIDTH - len(indent):
            out.append(lead + line)
        else:
            out.append(
                textwrap.fill(
                    line,
                    LINE_WIDTH,
                    initial_indent=lead,
                    subsequent_indent=indent,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
        lead = " " * len(lead)
    return "\n".join(out)


def points(n: int) -> str:
    """``1 point``, ``0 points``, ``12 points``."""
    return ngettext("{n} point", "{n} points", n).format(n=n)


__all__ = [
    "BACK",
    "DOT",
    "LINE_WIDTH",
    "PROMPT",
    "RULE",
    "UNICODE",
    "card_label",
    "clip_text",
    "points",
    "unicode_ok",
    "wrapped",
]
