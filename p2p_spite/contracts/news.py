"""What the network and the storage have to tell the player, as data.

The network layer (and the record keeping under it) says what happened with one
of these small frozen types: a notice (a stranger's connection dropped, the
peer's chat coming too fast), a connection's news (lost: redialing; the peer is
back), why a match stopped (the peer left, refused, went silent, cheated; a
record that cannot be written), or why a command could not start (nobody is
hosting there, the port is taken).  It never writes the sentence: the words, in
the language spoken, are made in one place, :mod:`p2p_spite.ui.networds`.

The fields are facts: names (as the peer gave them: printed only after
:func:`~p2p_spite.contracts.plaintext.clean_name`), addresses, seconds, counts, and a
refusal's code (the wire's word, ``net.wire.Refusal``).  ``detail`` fields hold
the protocol's own description of a fault (docs/protocol.md: the text of a
``refuse``), which is technical and language-neutral like the wire itself.

Standard library only; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

# -- the record and the journal ------------------------------------------------------------


class Keeping(Enum):
    """What could not be written or read."""

    RECORD = "record"  # the match's record (JSON)
    JOURNAL = "journal"  # the journal beside it
    FILE = "file"  # a file the user named (a record to resume, ...)


@dataclass(frozen=True, slots=True)
class StorageProblem:
    """``path`` cannot be written (or read, ``reading``): ``why`` is the system's words
    (``strerror``: "No space left on device"), as the system gave them."""

    what: Keeping
    path: str
    why: str
    reading: bool = False


# -- notices: nothing in the match changes ---------------------------------------------------


class DropKind(Enum):
    """Why the host dropped a stranger's connection (counted by kind in a summary)."""

    REFUSED_MATCH = "refused the match"  # it refused our terms
    WRONG_CODE = "wrong join code"
    PROTOCOL = "protocol errors"  # its bytes broke the protocol (``code`` says how)
    NO_HELLO = "no hello in time"
    NO_HANDSHAKE = "no handshake in time"
    SAID_GOODBYE = "said goodbye during the handshake"
    CLOSED = "closed during the handshake"
    SEAT_TAKEN = "seat taken"  # it had the code, but the match already has its two players
    CROWDED_OUT = "crowded out"  # by newer connections while it had not authenticated
    TURNED_AWAY = "turned away"  # every handshake slot holds an authenticated connection
    STOPPED_READING = "stopped reading"  # a watcher that left too much unread
    SILENT = "silent"  # a watcher that sent nothing for too long


@dataclass(frozen=True, slots=True)
class ConnectionDropped:
    """The host refused a stranger's connection from ``peer`` (its IP address, as
    ``gate.shown_address`` gives it) during its handshake: not an error of the match."""

    peer: str
    kind: DropKind
    code: str = ""  # PROTOCOL: the refusal's code
    seconds: float = 0.0  # NO_HELLO: the deadline it missed
    detail: str = ""  # PROTOCOL: how it broke the protocol (the host needs to know what it claimed)


@dataclass(frozen=True, slots=True)
class DropsSummary:
    """``n`` more connections dropped in ``seconds``: the addresses most of them came
    from (``(address, count)``), ``rest`` more from ``others`` more addresses (``at_least``:
    more addresses than were counted), and how many of each kind."""

    n: int
    seconds: float
    top: tuple[tuple[str, int], ...]
    rest: int
    others: int
    at_least: bool
    kinds: tuple[tuple[DropKind, int], ...]


@dataclass(frozen=True, slots=True)
class ChatFlood:
    """``peer``'s chat comes faster than the player reads it: some is dropped."""

    peer: str


@dataclass(frozen=True, slots=True)
class SecretNotRevealed:
    """A private game's end: ``peer`` did not reveal its secret of ``game``, so its deck
    order is not in the record (every card shown was proven when it was shown)."""

    peer: str
    game: int


@dataclass(frozen=True, slots=True)
class RecordNotAmended:
    """The record, closed already, could not take a late private-deck outcome."""

    problem: StorageProblem


# -- the connection during a match ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Redialing:
    """The connection to ``peer`` was lost: this side redials (``redial``) or keeps the
    seat open, for up to ``seconds``."""

    peer: str
    seconds: float
    redial: bool


@dataclass(frozen=True, slots=True)
class PeerBack:
    """``peer`` is back (``now_called``: under another name): game ``game`` goes on,
    ``moves`` moves in (as the side that came back says it)."""

    peer: str
    game: int
    moves: int
    now_called: str = ""


# -- why a match stopped --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PeerLeft:
    """``peer`` said goodbye before the end (``reason``: its own word, ``quit`` usually)."""

    peer: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class PeerStopped:
    """``peer`` refused this side and stopped the match (``code``, and its own ``detail``);
    ``resuming``: it refused to go on after a reconnection."""

    peer: str
    code: str
    detail: str = ""
    resuming: bool = False


@dataclass(frozen=True, slots=True)
class WeStopped:
    """This side refused what ``peer`` sent and stopped the match (``code``: why, ``detail``:
    the protocol's words); ``resuming``: when it came back."""

    peer: str
    code: str
    detail: str = ""
    resuming: bool = False


@dataclass(frozen=True, slots=True)
class AgainRefused:
    """The next match on the connection was refused before any deal (``ours``: this side
    refused what ``peer`` sent, such as a setup other than the match both agreed to; else
    ``peer`` refused ours), with the refusal's ``code`` and the protocol's ``detail``."""

    peer: str
    code: str
    detail: str = ""
    ours: bool = True


class Owed(Enum):
    """What a peer owed and did not send in time (pings do not count)."""

    DECK = "deck"  # the private deck's next message (its key, pass, a share, its secret)
    CATCH_UP = "catch-up"  # the actions its sync claimed
    UNDO_ACK = "undo-ack"  # its acknowledgement of our undo (our next action waits for it)


@dataclass(frozen=True, slots=True)
class Stalled:
    """``peer`` did not send what it ``owed`` within ``seconds``: this side stopped the match."""

    peer: str
    owed: Owed
    seconds: float


@dataclass(frozen=True, slots=True)
class ConnectionLost:
    """The connection to ``peer`` was lost (``seconds``: and did not come back within
    them; 0: this side was not to wait)."""

    peer: str
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class CannotKeepRecord:
    """This side cannot write its record: it stopped the match (``over``: the match was
    over already, only its record is missing)."""

    problem: StorageProblem
    over: bool = False


# -- why a command could not start or go on --------------------------------------------------


class Dial(Enum):
    """How dialing the host failed before any handshake."""

    NO_ANSWER = "no-answer"  # no answer in ``seconds`` (a wrong address, a firewall)
    NOBODY = "nobody"  # the connection was refused: nobody listens there
    OTHER = "other"  # the system's words in ``detail``


@dataclass(frozen=True, slots=True)
class CannotDial:
    where: str
    how: Dial
    seconds: float = 0.0
    detail: str = ""


@dataclass(frozen=True, slots=True)
class HostRefused:
    """The host refused this side during the handshake (``code``, its own ``detail``)."""

    code: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class HostStopped:
    """The host at ``where`` said goodbye during the handshake (``reason``: its own word)."""

    where: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class RefusedHost:
    """This side refused the host at ``where`` (``code``: why; ``foreign``: it speaks
    another protocol altogether)."""

    where: str
    code: str
    detail: str = ""
    foreign: bool = False


@dataclass(frozen=True, slots=True)
class HandshakeFailed:
    """The handshake with ``where`` did not finish (``timeout``: not within ``seconds``)."""

    where: str
    detail: str = ""
    timeout: bool = False
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class DealSeen:
    """The peer left (or refused, or broke the protocol: ``then``) after it had this
    side's half of the seed, so it may have seen the deal: the match is stopped before a
    move.  ``host``: the host did (we are the joiner); else the joiner, who did not come
    back within ``seconds``."""

    host: bool
    peer: str = ""
    seconds: float = 0.0
    then: HostRefused | HostStopped | RefusedHost | HandshakeFailed | None = None


@dataclass(frozen=True, slots=True)
class CannotListen:
    """The host cannot listen on ``where`` (``taken``: the port is in use; ``not_here``:
    ``bind`` is not an address of this machine; else the system's ``detail``)."""

    where: str
    port: int = 0
    taken: bool = False
    not_here: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class SavedMatchUnusable:
    """A record given to ``--resume`` cannot be taken up (``over``: the match is over,
    ``scores`` then; else it does not replay, ``detail`` says where)."""

    path: str
    over: bool = False
    scores: tuple[int, int] = (0, 0)
    detail: str = ""
    private: bool = False


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A record that is malformed or does not replay: where (``game``, ``move``, from
    1 and 0 as the record counts them), and ``reason``, the validator's technical
    words about the file's JSON (language-neutral, like the file itself)."""

    reason: str
    game: int | None = None
    move: int | None = None


@dataclass(frozen=True, slots=True)
class NotResumable:
    """``path`` cannot be resumed: it is no network match's record (``game`` 0), or a
    player left its private game ``game`` midway and both secrets were revealed."""

    path: str
    game: int = 0


class WatchEnd(Enum):
    """Why a watch stopped before the match's end (besides a refusal)."""

    HOST_SILENT = "host-silent"  # nothing from the host, not even a pong, for ``seconds``
    HOST_STOPPED = "host-stopped"  # the host said goodbye (``reason``: its own words)
    LOST = "lost"  # the connection closed


class WatchStop(Enum):
    """Why the host ended a watch: the code of its ``bye`` to a watcher (its ``why``, the
    value here; docs/protocol.md, *Watchers*).  A code this version does not know, or
    none (an older host), is UNKNOWN: the host's own words are all there is."""

    OVER = "over"  # the match is over (a watch after the last table ended with it)
    NOT_BEGUN = "not-begun"  # the host stopped before the match began
    HOST_LEFT = "host-left"
    STOPPED = "stopped"  # the match stopped, no more said
    PEER_LEFT = "peer-left"  # a player left the match (the bye names it, or not)
    CONNECTION_LOST = "connection-lost"  # the players' connection was lost
    BROKE_PROTOCOL = "broke-protocol"  # a player's program broke the protocol
    REFUSED = "refused"  # a player's program was refused
    DEAL_ABANDONED = "deal-abandoned"  # a player left during the deal
    STORAGE = "storage"  # the host cannot write its record
    UNKNOWN = "unknown"  # no code this version knows: see the host's words


@dataclass(frozen=True, slots=True)
class WatchCut:
    """A watch of the match at ``where`` that stopped before the match's end; ``stop``
    is the code of the host's goodbye (HOST_STOPPED), ``peer`` the player it says left
    ("" unnamed), ``reason`` the host's own words, shown only for an UNKNOWN ``stop``."""

    where: str
    kind: WatchEnd
    reason: str = ""
    seconds: float = 0.0
    stop: WatchStop = WatchStop.UNKNOWN
    peer: str = ""


class Rendezvous(Enum):
    """What went wrong on the way to the other player over the internet (the mailbox
    server, the code, the transit relay)."""

    MAILBOX_UNREACHABLE = "mailbox-unreachable"  # no connection to ``where`` (``detail``)
    MAILBOX_CLOSED = "mailbox-closed"  # the mailbox server ``where`` closed the connection
    MAILBOX_SILENT = "mailbox-silent"  # no answer from ``where`` within ``seconds``
    MAILBOX_REFUSED = "mailbox-refused"  # ``where`` refused us: its own words in ``detail``
    NOT_A_CODE = "not-a-code"  # ``detail`` is no code (a number and two words)
    NO_SUCH_CODE = "no-such-code"  # nobody hosts under the code ``detail``
    CODE_TAKEN = "code-taken"  # the code ``detail`` is in use by two players already
    PEER_VANISHED = "peer-vanished"  # nothing from the other player within ``seconds``
    RELAY_UNREACHABLE = "relay-unreachable"  # no connection to the relay ``where``
    RELAY_REFUSED = "relay-refused"  # the relay ``where`` refused: its words in ``detail``
    RELAY_LONELY = "relay-lonely"  # the other player did not reach the relay in ``seconds``
    NO_PATH = "no-path"  # no connection to the other player within ``seconds`` (``detail``)
    WRONG_CODE = "wrong-code"  # the key confirmation failed: a wrong code, or the other typed another
    PEER_BROKE = "peer-broke"  # the other player's sealed message does not open or is malformed


@dataclass(frozen=True, slots=True)
class RendezvousFailed:
    """The way to the other player failed: ``how``, and the facts it names."""

    how: Rendezvous
    where: str = ""
    seconds: float = 0.0
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Connected:
    """How this side reaches the other player over the internet: ``direct`` to ``where``,
    or through the transit relay at ``where``."""

    direct: bool
    where: str


@dataclass(frozen=True, slots=True)
class WatcherCode:
    """The code a watcher over the internet types (``again``: a code after the first,
    the one before it taken): each code lets one watcher in."""

    code: str
    again: bool = False


@dataclass(frozen=True, slots=True)
class WatcherNotIn:
    """A watcher over the internet did not get in (``failure``: how its meeting or its
    path failed); ``last``: the host offers no more codes after it."""

    failure: RendezvousFailed
    last: bool = False


News = (
    ConnectionDropped
    | DropsSummary
    | ChatFlood
    | SecretNotRevealed
    | RecordNotAmended
    | Redialing
    | PeerBack
    | PeerLeft
    | PeerStopped
    | WeStopped
    | AgainRefused
    | Stalled
    | ConnectionLost
    | CannotKeepRecord
    | StorageProblem
    | CannotDial
    | HostRefused
    | HostStopped
    | RefusedHost
    | HandshakeFailed
    | DealSeen
    | CannotListen
    | SavedMatchUnusable
    | NotResumable
    | BadRecord
    | WatchCut
    | RendezvousFailed
    | Connected
    | WatcherCode
    | WatcherNotIn
)


@dataclass(frozen=True, slots=True)
class Repeated:
    """``news``, and ``more`` like it held back meanwhile (the notices are throttled)."""

    news: News
    more: int


__all__ = [
    "AgainRefused",
    "BadRecord",
    "CannotDial",
    "CannotKeepRecord",
    "CannotListen",
    "ChatFlood",
    "ConnectionDropped",
    "ConnectionLost",
    "DealSeen",
    "Dial",
    "DropKind",
    "DropsSummary",
    "HandshakeFailed",
    "HostRefused",
    "HostStopped",
    "Keeping",
    "News",
    "NotResumable",
    "Owed",
    "PeerBack",
    "PeerLeft",
    "PeerStopped",
    "RecordNotAmended",
    "Redialing",
    "RefusedHost",
    "Rendezvous",
    "RendezvousFailed",
    "Repeated",
    "SavedMatchUnusable",
    "SecretNotRevealed",
    "Stalled",
    "StorageProblem",
    "WatchCut",
    "WatchEnd",
    "WatchStop",
    "WatcherCode",
    "WatcherNotIn",
    "WeStopped",
]
