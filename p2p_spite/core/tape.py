"""The private deck's tape: what a seat must not lose of its deck, for its journal.

A seat's private deck (:mod:`p2p_spite.core.private`) notes on its :class:`Tape`, as
:class:`TapeEntry` lines, its game secret of each game, every deck message it takes
from the peer, every intent of its own and every takeback, each with the number of
actions made when it happened.  The shell takes the entries noted (:meth:`Tape.take_unwritten`) and
writes them to the journal before any byte leaves; a restarted seat replays the tape
between the actions it replays (``resume_core``), so that its deck is in the state it
was and makes again exactly what it sent.  The journal's line codec is
:mod:`p2p_spite.storage.lines`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .messages import DeckBody

SECRET_BYTES: Final = 32


class TapeKind(StrEnum):
    """What a tape line holds (its value is the journal line's key)."""

    SECRET = "pk"  # this seat's game secret
    TAKEN = "pd"  # a deck message from the peer, taken
    OWN = "po"  # this seat's own intent
    UNDO = "pu"  # the last action was taken back (``at``: the actions made before)


@dataclass(frozen=True, slots=True)
class TapeEntry:
    """One line of a seat's private-deck tape, in the journal: this seat's secret of
    ``game`` (``secret``), a deck message from the peer it took, its own intent (``msg``,
    numbered ``index``), or a takeback of the last action; ``at`` is the number of actions
    made when it happened (a restarted seat replays the tape between them)."""

    kind: TapeKind
    game: int
    at: int
    index: int = 0
    msg: DeckBody | None = None
    secret: bytes = b""


class Tape:
    """One seat's tape: the entries of this game and the one before (``entries``, which
    a checkpoint of the journal carries), and those noted since the shell last took them.

    Before the shell first attaches (``writing`` False) only secrets are queued for it:
    the journal's ``carried()`` writes the rest of ``entries`` when it starts."""

    def __init__(self) -> None:
        self.entries: list[TapeEntry] = []
        self.writing = False  # attached: every entry noted is queued for the shell to write
        self.secrets: dict[int, bytes] = {}  # a restarted seat: the secrets its tape holds
        self._unwritten: list[TapeEntry] = []  # noted, not yet taken by the shell

    def note(self, e: TapeEntry, *, carried: bool = False) -> None:
        """``e`` happened.  ``carried``: the shell does not write it by itself; it goes into
        the journal with the next one started afresh (a takeback's: with the record that no
        longer holds the move, RecordKeeper.withdraw)."""
        self.entries.append(e)
        if not carried and (self.writing or e.kind is TapeKind.SECRET):
            self._unwritten.append(e)

    def take_unwritten(self) -> list[TapeEntry]:
        """The tape entries noted since the last call, in order, for the shell to write
        down before it sends anything (a ``pk`` fsynced: its KEY may be queued behind it)."""
        out, self._unwritten = self._unwritten, []
        return out

    def secret(self, game: int, at: int) -> bytes:
        """Game ``game`` starts (``at`` actions made): the tape keeps only the game before,
        and this seat's secret of ``game`` goes on it -- the one a restarted seat's tape
        holds (written already), else a fresh one (to be written before its KEY goes out)."""
        self.entries = [e for e in self.entries if e.game == game - 1]
        secret = self.secrets.pop(game, None)
        if secret is not None:
            self.entries.append(TapeEntry(TapeKind.SECRET, game, at, secret=secret))
        else:
            secret = secrets.token_bytes(SECRET_BYTES)
            self.note(TapeEntry(TapeKind.SECRET, game, at, secret=secret))
        return secret
