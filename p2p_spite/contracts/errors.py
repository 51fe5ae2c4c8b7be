"""The errors of p2p-spite, under one root: :class:`SpiteError`.

The CLI catches only the root: it prints the message as one line and exits with
the error's ``exit_code``.  An error of the network or the storage carries what
happened as data (``news``, a :mod:`p2p_spite.contracts.news` type), which
:mod:`p2p_spite.ui.networds` words in the language spoken (``str()`` of such an
error asks it too); the interface's own errors (a bad address typed, ...) carry
their line, in the language already.  Anything else that escapes is a bug and shows as one
(a traceback), never as a user's mistake.

* :class:`UserError`: something the user can fix (bad address, unreadable file...).
* :class:`StorageError`: this side cannot write its record or journal.
* :class:`RecordError` (in :mod:`p2p_spite.storage.record`): a record that is malformed or
  does not replay.
* :class:`SessionClosed`: a session asked to act after it stopped.

The errors of the inner layers are not under it, on purpose: the engine's
``RulesError`` (an illegal move), the protocol's ``ProtocolError`` (a peer's
bad message) and ``fairdeck.FairDeckError`` are met and answered by the code
that calls those layers (a refusal shown, a RecordError, a SessionFailed); one
that reaches the CLI is a bug.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .news import Keeping, News, StorageProblem

# Exit codes of play, host and join (README "Exit codes"); 2 is a usage error, 130 Ctrl-C.
EXIT_FINISHED = 0  # the match ended, or you left it
EXIT_ERROR = 1
EXIT_PEER_LEFT = 3  # the opponent left the match
EXIT_LOST = 4  # the connection was lost and did not come back


class SpiteError(Exception):
    """The root.  ``exit_code`` is what the process exits with when this ends it."""

    exit_code: int = 1

    def __init__(self, message: str | News, exit_code: int | None = None) -> None:
        self.news: News | None = None if isinstance(message, str) else message
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        if self.news is None or _wording is None:
            return super().__str__() or repr(self.news)
        return _wording(self.news)


# How an error's news is worded: the program gives the interface's wording here when it
# starts (cli.main: ui/networds.py), so that this, the lowest module, imports nothing above.
_wording: Callable[[News], str] | None = None


def set_wording(words: Callable[[News], str]) -> None:
    """``str()`` of an error that carries news gives ``words(news)``."""
    global _wording
    _wording = words


class UserError(SpiteError):
    """Something the user can fix (bad address, unreadable file, ...)."""


class StorageError(UserError):
    """This side cannot write what it must keep (the record, the journal): ``problem``."""

    @property
    def problem(self) -> StorageProblem | None:
        return self.news if isinstance(self.news, StorageProblem) else None


def storage_problem(
    e: BaseException, what: Keeping = Keeping.RECORD, path: str | os.PathLike[str] = "", reading: bool = False
) -> StorageProblem:
    """What a StorageError says, or an OSError's words (on one line) as a StorageProblem."""
    if isinstance(e, StorageError) and e.problem is not None:
        return e.problem
    why = getattr(e, "strerror", None) or " ".join(str(e).split()) or type(e).__name__
    return StorageProblem(what, os.fspath(path), why, reading)


class SessionClosed(SpiteError):
    """The session stopped (the match ended, failed or was left): no more actions."""
