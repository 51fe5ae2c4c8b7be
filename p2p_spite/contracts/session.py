"""The contract between a seat's match session and whoever drives it.

A :class:`Session` is one seat's side of a match in progress: the network
layer implements it (a LAN peer, or the local computer joined over loopback),
and the terminal interface or a headless bot drives it.  It hands out only
that seat's :class:`PlayerView`, and tells what happens as a stream of
events, each carrying the view right after it, so a driver that paces what
it shows never reads state that is ahead of what it has shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Protocol

from ..engine import Card, Move, Played, PlayerView, Result
from .news import News, Repeated, StorageProblem


@dataclass(frozen=True, slots=True)
class GameStarted:
    """A game is dealt (the first event of a session: also of a resumed match)."""

    game: int
    starter: int
    view: PlayerView
    scores: tuple[int, int]  # the match totals so far
    target: int  # the points that win the match
    by_lot: bool = False  # the pay-off tops dealt were of one rank: the starter was drawn by lot


class _MoveFacts:
    """The move of an event about one (``played``: what the engine says it did)."""

    __slots__ = ()
    played: Played

    @property
    def move(self) -> Move:
        return self.played.move

    @property
    def card(self) -> Card:
        """The card the move placed."""
        return self.played.card


@dataclass(frozen=True, slots=True)
class MovePlayed(_MoveFacts):
    """A move by either seat (the local one too), already checked and applied;
    ``played`` says what it did (a center completed, cards drawn, the turn passed)."""

    seat: int
    played: Played
    view: PlayerView


@dataclass(frozen=True, slots=True)
class MoveTakenBack(_MoveFacts):
    """A move of ``seat`` taken back (undo): the game is exactly as it was before it, and
    the move is not in the record; ``played`` says what the move had done."""

    seat: int
    played: Played
    view: PlayerView


@dataclass(frozen=True, slots=True)
class TakebackAsked:
    """The other seat, ``seat``, asks to take back its last move (``played``): answer with
    :meth:`Session.answer_takeback` (its next move, or the game's end, voids the request)."""

    seat: int
    played: Played


@dataclass(frozen=True, slots=True)
class TakebackRefused:
    """The other seat, ``seat``, did not allow our takeback (``lost``: the request went with
    the connection, unanswered: it may be asked again; ``rule``: its standing rule said no,
    ``--takebacks never``: nobody was asked)."""

    seat: int
    lost: bool = False
    rule: bool = False


class Takebacks(StrEnum):
    """How a side answers the other's takeback requests (``--takebacks``; the value is the word)."""

    ASK = "ask"  # ask the player (a computer: allow)
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class GameEnded:
    game: int
    result: Result
    scores: tuple[int, int]
    view: PlayerView
    # a private-deck game: every shuffle of it was proven on receipt (a pass without a valid
    # proof stops the match before any card is shown), so the other program could see no
    # card the rules hid from this seat (docs/fairness.md)
    deck_proven: bool = False


@dataclass(frozen=True, slots=True)
class MatchEnded:
    winner: int | None  # None: stopped before anyone reached the target
    scores: tuple[int, int]
    record_path: str | None


@dataclass(frozen=True, slots=True)
class ChatReceived:
    seat: int
    text: str


class EndCause(Enum):
    """Why a session stopped before the match was over."""

    PEER_LEFT = "peer-left"  # the peer said goodbye (quit) before the end
    PEER_BROKE_PROTOCOL = "peer-broke-protocol"  # this side refused what the peer sent
    PEER_REFUSED = "peer-refused"  # the peer refused this side (its reason in ``reason``)
    DEAL_ABANDONED = "deal-abandoned"  # the peer left during the seed exchange, after the deal was fixed
    CONNECTION_LOST = "connection-lost"  # the connection did not come back in time
    STORAGE = "storage"  # this side cannot write its record


@dataclass(frozen=True, slots=True)
class Ending:
    """Why a session stopped, as data (the one line for the user is beside it)."""

    cause: EndCause
    peer: str = ""  # the peer's name
    code: str | None = None  # the refusal code (``net.wire.Refusal``) when a refusal stopped it
    reason: str = ""  # the peer's own words (a goodbye's reason, a refusal's text), printable


class LinkState(StrEnum):
    """The state of the connection to the peer (its value is the word shown)."""

    CONNECTED = "connected"
    RECONNECTING = "reconnecting"  # lost for now: redialing, or keeping the seat open
    LOST = "lost"  # it did not come back
    CLOSED = "closed"  # this side closed it


@dataclass(frozen=True, slots=True)
class ConnectionChanged:
    """The connection's new ``state``, and its news (lost: redialing for 60 s; the peer
    is back), as data (:mod:`p2p_spite.contracts.news`; the interface words it); a LOST one that
    stops the session says why in ``news`` and ``ending``."""

    state: LinkState
    news: News | None = None
    ending: Ending | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the player that changes nothing in the match, e.g. a
    stranger's connection the host dropped while the match went on (``news``: what,
    as data; the interface words it)."""

    news: News | Repeated


class Rematch(Enum):
    """How the offer of another match on the same connection settled (:meth:`Session.rematch`)."""

    STARTED = "started"  # both said yes: the next match's events follow
    DECLINED = "declined"  # the peer said no
    GONE = "gone"  # the peer left, or the connection closed, before the next match began
    SILENT = "silent"  # the peer did not answer in time
    # the next match's handshake was refused, by this side or the peer (its setup was not
    # the match both agreed to...): the session's ``again.refused`` says why
    REFUSED = "refused"
    NOT_OFFERED = "not-offered"  # this side said no (or the match is not over, or cannot go on)


@dataclass(frozen=True, slots=True)
class RematchAnswered:
    """The peer answered "another match?" before this side did (``yes``: it would)."""

    yes: bool


@dataclass(frozen=True, slots=True)
class WatchersChanged:
    """How many watch the match now (``host --watchers``): the toolbar shows it."""

    count: int


@dataclass(frozen=True, slots=True)
class SessionFailed:
    """The match cannot go on (peer vanished, desync, a peer's illegal move...).

    ``news`` says why for the user (as data: the interface words it), ``ending`` why
    for the code.  The record was saved first (``record_path``), unless ``unsaved``
    says why it could not be.
    """

    news: News
    record_path: str | None = None
    ending: Ending | None = None
    unsaved: StorageProblem | None = None


Event = (
    GameStarted
    | MovePlayed
    | MoveTakenBack
    | TakebackAsked
    | TakebackRefused
    | GameEnded
    | MatchEnded
    | ChatReceived
    | ConnectionChanged
    | Notice
    | RematchAnswered
    | WatchersChanged
    | SessionFailed
)


def view_of(ev: Event) -> PlayerView | None:
    """The seat's view right after ``ev``, for the events that carry one."""
    return ev.view if isinstance(ev, GameStarted | MovePlayed | MoveTakenBack | GameEnded) else None


class Session(Protocol):
    """One seat's side of a match."""

    @property
    def seat(self) -> int: ...

    @property
    def names(self) -> tuple[str, str]: ...

    @property
    def private(self) -> bool:
        """A private-deck match (docs/fairness.md): its games end with
        ``GameEnded.deck_proven``."""
        ...

    def view(self) -> PlayerView | None:
        """The current view of this seat (of the current game); None while a private
        game's deal is being made (there is no table yet: its GameStarted brings it)."""
        ...

    @property
    def closed_for_play(self) -> bool:
        """No more moves: the match ended, failed or was closed (play() would refuse)."""
        ...

    async def play(self, move: Move) -> None:
        """Check ``move`` locally (IllegalMoveError if refused; nothing changes),
        apply it, record it and send it.  A MovePlayed event follows."""
        ...

    async def take_back(self) -> Played | None:
        """Take back our last move of this turn: IllegalMoveError (a
        :class:`~p2p_spite.engine.refusals.NoTakeback` reason; nothing changes) if it
        cannot be.  None: it is taken back now (a MoveTakenBack event follows); else the
        other player is asked to allow taking back that move, and MoveTakenBack or
        TakebackRefused follows (or nothing, if we play on: that voids the request)."""
        ...

    async def answer_takeback(self, yes: bool) -> bool:
        """Answer the other seat's takeback request (TakebackAsked); False: nothing to
        answer (the request was voided meanwhile: a move, the game's end, a lost connection)."""
        ...

    async def chat(self, text: str) -> None: ...

    async def resign(self) -> None:
        """Resign the current game (the opponent scores; the match goes on)."""
        ...

    async def close(self, reason: str = "quit") -> None:
        """Leave the match: tell the peer, save the record, close the connection."""
        ...

    async def rematch(self, yes: bool) -> Rematch:
        """Once the match is over (MatchEnded): this side's answer to "play another
        match?".  A yes waits for the peer's answer (with a deadline); STARTED when both
        said yes: the next match's events follow, on the same seat."""
        ...

    async def next_event(self) -> Event:
        """Wait for the next event, in order."""
        ...
