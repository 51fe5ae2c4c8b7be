"""What a seat's machine asks its shell to do, in the order it must be done.

The seat machine (:mod:`p2p_spite.core.machine`) does no I/O: for each input it
returns a list of these small frozen values, and the shell
(:mod:`p2p_spite.net.session`) carries them out one after another, stopping at
the first that fails.  The order of the list *is* the durability rule: an entry is
written down before any byte that depends on it is let go, and before the driver
is shown what it did.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..contracts.news import News, Stalled
from ..contracts.session import EndCause, Event
from ..engine import Match
from .game import Action
from .tape import TapeEntry
from .wire import Refusal


@dataclass(frozen=True, slots=True)
class WriteTape:
    """Write a private deck's tape entry into the journal (fsynced)."""

    entry: TapeEntry


@dataclass(frozen=True, slots=True)
class WriteEntry:
    """Write action ``n`` into the journal (``tag``: the peer's, on its own action)."""

    n: int
    action: Action
    tag: bytes | None


@dataclass(frozen=True, slots=True)
class Flush:
    """Let the bytes queued for the peer go (everything they depend on is written)."""


@dataclass(frozen=True, slots=True)
class MakeDurable:
    """A game of ``match`` just ended: the record's checkpoint, when one is due
    (before the next game is dealt)."""

    match: Match


@dataclass(frozen=True, slots=True)
class WakeAt:
    """Give the machine a tick of the clock at ``when`` (the shell's clock, in seconds)."""

    when: float


@dataclass(frozen=True, slots=True)
class PeerOverdue:
    """The peer did not pay ``what`` in time: refuse it (``code``) and stop the match."""

    what: Stalled
    code: Refusal


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Action ``n``, the last, was taken back: rewrite the record without it (and start
    the journal afresh)."""

    n: int


@dataclass(frozen=True, slots=True)
class PeerHolds:
    """The peer holds the first ``n`` actions now: whoever waits for them goes on."""

    n: int


@dataclass(frozen=True, slots=True)
class MakeDue:
    """Make ``action``, ours, now due (one kept while our undo was unacknowledged, or a
    resignation asked for while the connection was down); ``unseen``: the driver did not
    see it coming (a move it chose before is dropped)."""

    action: Action
    unseen: bool = True


@dataclass(frozen=True, slots=True)
class Unseen:
    """The board changed under the driver: a move it chose before it has seen the events
    shown so far is dropped."""


@dataclass(frozen=True, slots=True)
class StartNext:
    """Both said yes to another match: this match stops sending (no pings, no bye) and
    the next match's hello goes out over its connection."""


@dataclass(frozen=True, slots=True)
class Redial:
    """The peer is away: dial it again (if no dial is under way), with back-off, until it
    answers or the match stops."""


@dataclass(frozen=True, slots=True)
class WaitedOut:
    """The grace period ended and the peer did not come back (``news`` says so)."""

    news: News


@dataclass(frozen=True, slots=True)
class DropLink:
    """The connection of the moment is dead (``why``): drop it, as lost."""

    why: str


@dataclass(frozen=True, slots=True)
class GiveUp:
    """The peer cannot be got back: stop the match (``news``, ``cause``, ``code``, ``reason``)."""

    news: News
    cause: EndCause
    code: Refusal | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Show:
    """Tell the driver ``event``."""

    event: Event


# -- the private deck's (core/deckside.py) --------------------------------------------


@dataclass(frozen=True, slots=True)
class WorkAhead:
    """Once what was just sent is on its way (the loop idle), give the machine
    :meth:`~p2p_spite.core.deckside.DeckSide.ahead`: the deck works ahead while the
    peer answers."""


@dataclass(frozen=True, slots=True)
class Amend:
    """A private game's outcome came after the record was closed: write the record
    again (a failure is only told: the match is over)."""


Effect = (
    WriteTape
    | WriteEntry
    | Flush
    | MakeDurable
    | WakeAt
    | PeerOverdue
    | Withdraw
    | PeerHolds
    | MakeDue
    | Unseen
    | StartNext
    | Redial
    | WaitedOut
    | DropLink
    | GiveUp
    | Show
    | WorkAhead
    | Amend
)

__all__ = [
    "Amend",
    "DropLink",
    "Effect",
    "Flush",
    "GiveUp",
    "MakeDue",
    "MakeDurable",
    "PeerHolds",
    "PeerOverdue",
    "Redial",
    "Show",
    "StartNext",
    "Unseen",
    "WaitedOut",
    "WakeAt",
    "Withdraw",
    "WorkAhead",
    "WriteEntry",
    "WriteTape",
]
