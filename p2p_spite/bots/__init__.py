"""Computer players.  Each decides from its seat's :class:`PlayerView` alone."""

from __future__ import annotations

from .base import Bot
from .simple import EasyBot, RandomBot

LEVELS: dict[str, type] = {"random": RandomBot, "easy": EasyBot}


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level (ValueError naming the levels if unknown)."""
    try:
        cls = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (choose from {', '.join(LEVELS)})") from None
    bot: Bot = cls(seed)
    return bot


__all__ = ["LEVELS", "Bot", "EasyBot", "RandomBot", "make_bot"]
