"""What one side of a network match is set up with: :class:`HostSettings` for
``host_session``, :class:`JoinSettings` for ``join_session``, the options both
share in :class:`Settings` (the session is made from them, match after match)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.messages import DEFAULT_PORT
from ..core.watch import DEFAULT_WATCHERS
from ..engine import DEFAULT_TARGET
from ..storage.resume import Saved
from .again import REMATCH_WAIT
from .link import HANDSHAKE_TIMEOUT
from .reconnect import DEAD_AFTER, DEFAULT_GRACE, HEARTBEAT


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """The options both sides share.

    ``record_path``: where the record goes (None: the data directory; a later match
    on the same connection: beside the first, ``-2``, ``-3``...).  ``code``: the join
    code (None: none).  ``resume``: a saved match to continue (its names, code and
    deck are kept).  ``private``: a private deck (the joiner: insist on one).
    ``grace``: seconds a lost peer is waited for (the joiner: redialed);
    ``heartbeat``, ``dead_after``: seconds between pings, and of silence that means
    the peer is gone.  ``rematch_wait``: seconds a yes to another match waits for the
    peer's answer.  ``notes``: keys of this side's own its records carry besides
    (``play``: the computer's level, so that ``play --resume`` and ``history`` know it)."""

    name: str
    record_path: str | Path | None = None
    code: str | None = None
    resume: Saved | None = None
    private: bool = False
    grace: float = DEFAULT_GRACE
    heartbeat: float = HEARTBEAT
    dead_after: float = DEAD_AFTER
    rematch_wait: float = REMATCH_WAIT
    notes: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HostSettings(Settings):
    """The host's: where it listens (``bind`` ``""``: every interface; ``port`` 0: any
    free one) and the match it offers (``seed`` None: drawn by both; ``games``: a
    game limit); ``watchers``: how many may watch at once (0: nobody; net/watch.py)."""

    name: str = "host"
    bind: str = ""
    port: int = DEFAULT_PORT
    seed: bytes | None = None
    target: int = DEFAULT_TARGET
    games: int | None = None
    watchers: int = DEFAULT_WATCHERS


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinSettings(Settings):
    """The joiner's: the host to dial, and how long one attempt may take."""

    host: str
    name: str = "joiner"
    port: int = DEFAULT_PORT
    timeout: float = HANDSHAKE_TIMEOUT


def nth_record_path(first: Path, number: int) -> Path:
    """The record of match ``number`` on a connection whose first match's record is ``first``."""
    return first.with_name(f"{first.stem}-{number}{first.suffix}")


__all__ = ["HostSettings", "JoinSettings", "Settings", "nth_record_path"]
