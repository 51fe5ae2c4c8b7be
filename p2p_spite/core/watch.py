"""Watchers, sans I/O: the messages of a watcher's connection and its two endpoints.

A watcher is not a player: it gets its own small state machines, beside the
player's :class:`~.protocol.Endpoint`.  The host's door reads the first message
of each connection: a ``watch`` makes it a watcher's (:class:`WatcherDoor`, the
host's side), anything else a player's.  :class:`WatchEndpoint` is the
watcher's side.  Bytes in, events out, hard limits; nothing here does I/O.

What crosses to a watcher is only ever a :class:`~p2p_spite.engine.PublicView`
(the ``table`` message): no hand, no stock order, no seed, no digest, no tag.
Nothing a watcher sends reaches the match: it may say ``ping`` and ``bye``,
and anything else is refused.  See docs/protocol.md, *Watchers*.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Final, Generic, Self, TypeVar

from ..contracts.news import WatchStop
from ..contracts.plaintext import MAX_NAME
from ..contracts.spectator import TableShown, Watching
from ..engine import Card, EndReason, Move, PublicView, Result, move_from_json
from .messages import (
    APP,
    HOST,
    MAX_GAMES,
    MAX_POSITION,
    MAX_TARGET,
    MAX_WATCHERS,
    MESSAGES,
    NONCE_BYTES,
    Bye,
    Hello,
    Message,
    Ping,
    Pong,
    Refuse,
    clean_text,
    shown,
)
from .protocol import PROTOCOL_VERSION, Liveness, NeedData, PeerRefused
from .wire import FrameDecoder, LocalProtocolError, Refusal, RemoteProtocolError, encode

DEFAULT_WATCHERS: Final = 4  # watchers a host lets in at once unless told otherwise
WATCH: Final = "watch"  # the first message of a watcher's connection
# the flags of a table (its ``f``)
LOT: Final = 1  # the deal's starter was drawn by lot
OVER: Final = 2  # the last table of the match
BACK: Final = 4  # its move was taken back
MAX_CARD: Final = 103
CARDS: Final = 104
MAX_WHY: Final = 32  # characters of the code of the host's bye (its ``why``)
# the players' messages a watcher may not send (every one but those of any connection:
# ping, pong, bye, refuse)
GAME_MESSAGES: Final = frozenset(MESSAGES) - {"ping", "pong", "bye", "refuse"}

__all__ = [
    "DEFAULT_WATCHERS",
    "MAX_WATCHERS",
    "WATCH",
    "HostBye",
    "MatchShown",
    "Table",
    "WatchEndpoint",
    "WatchHello",
    "WatcherDoor",
    "WatcherIn",
    "WatcherLeft",
    "first_type",
    "table_frame",
    "watching_frame",
]


def _check(ok: bool, what: str, code: Refusal = Refusal.MALFORMED) -> None:
    if not ok:
        raise RemoteProtocolError(what, code)


def _int(v: object, lo: int, hi: int) -> bool:
    return type(v) is int and lo <= v <= hi


def _card(v: object) -> bool:
    return _int(v, 0, MAX_CARD)


# -- the messages ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WatchHello(Message):
    """A watcher's first message: its version, ``code`` (always false from this version:
    a code is the opening's, docs/protocol.md, *Watchers*; no name: the players are never
    shown a stranger's words) and whether it follows the next
    match on the connection (``again``; the key is absent otherwise)."""

    T: ClassVar[str] = WATCH
    proto: int
    nonce: bytes
    code: bool
    app: str = APP
    again: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {
            "t": WATCH,
            "proto": self.proto,
            "app": self.app,
            "nonce": self.nonce,
            "code": self.code,
        } | ({"again": True} if self.again else {})

    @classmethod
    def from_wire(cls, m: dict[str, Any], *, proto: int = PROTOCOL_VERSION) -> Self:
        _check(m.get("app") == APP, "not a p2p-spite watcher", Refusal.NOT_P2P_SPITE)
        version = m.get("proto")
        _check(type(version) is int, f"watch: proto must be an integer, not {shown(version)}")
        _check(
            version == proto,
            f"protocol version mismatch: the host speaks version {proto}, the watcher speaks "
            f"version {version}",
            Refusal.VERSION,
        )
        nonce, code = m.get("nonce"), m.get("code")
        _check(type(nonce) is bytes and len(nonce) == NONCE_BYTES, "watch: nonce must be 16 bytes")
        _check(type(code) is bool, "watch: code must be true or false")
        assert isinstance(version, int) and isinstance(nonce, bytes)
        return cls(version, nonce, bool(code), again=m.get("again") is True)


@dataclass(frozen=True, slots=True)
class MatchShown(Message):
    """The match a watcher is let in to: its players (seat 0 first) and settings."""

    T: ClassVar[str] = "watching"
    players: tuple[str, str]
    target: int
    games: int | None
    private: bool

    def to_wire(self) -> dict[str, Any]:
        return {
            "t": "watching",
            "players": list(self.players),
            "target": self.target,
            "games": self.games,
            "private": self.private,
        }

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        players = m.get("players")
        _check(
            isinstance(players, list)
            and len(players) == 2
            and all(type(p) is str and len(p) <= MAX_NAME * 4 for p in players),
            "watching: players must be two names",
        )
        assert isinstance(players, list)
        target, games, private = m.get("target"), m.get("games"), m.get("private")
        _check(_int(target, 1, MAX_TARGET), f"watching: target must be an integer in 1..{MAX_TARGET}")
        _check(games is None or _int(games, 1, MAX_GAMES), "watching: games must be nil or 1..10000")
        _check(type(private) is bool, "watching: private must be true or false")
        assert isinstance(target, int) and (games is None or isinstance(games, int))
        names = (clean_text(players[0], MAX_NAME), clean_text(players[1], MAX_NAME))
        return cls(names, target, games, bool(private))


_ANYONE: Final = "the other player"
# the plain words of each code, for watchers older than ``why`` (never read back)
_WORDS: Final = {
    WatchStop.OVER: "the match is over",
    WatchStop.NOT_BEGUN: "the host stopped before the match began",
    WatchStop.HOST_LEFT: "the host left the match",
    WatchStop.STOPPED: "the match stopped",
    WatchStop.PEER_LEFT: "the match stopped: {name} left the match",
    WatchStop.CONNECTION_LOST: "the match stopped: the players' connection was lost",
    WatchStop.BROKE_PROTOCOL: "the match stopped: a player's program broke the protocol",
    WatchStop.REFUSED: "the match stopped: a player's program was refused",
    WatchStop.DEAL_ABANDONED: "the match stopped: a player left during the deal",
    WatchStop.STORAGE: "the match stopped: the host cannot write its record",
}
_STOPS: Final = {s.value: s for s in WatchStop}


@dataclass(frozen=True, slots=True)
class HostBye(Message):
    """The host's goodbye to a watcher: ``why`` it ends the watch (a code), ``name`` the
    player who left (PEER_LEFT only; "" unnamed), ``reason`` the same in plain words for
    watchers older than the code.  Those words are never read back: a code this version
    does not know, or none (an older host), is :attr:`WatchStop.UNKNOWN`, and ``reason``
    is then all a watcher can show."""

    T: ClassVar[str] = "bye"
    why: WatchStop
    name: str = ""
    reason: str = ""

    @classmethod
    def saying(cls, why: WatchStop, name: str = "") -> Self:
        """The host's goodbye for ``why`` (``name``: the player who left), its words made."""
        if why is WatchStop.UNKNOWN or (name and why is not WatchStop.PEER_LEFT):
            raise LocalProtocolError(f"a watcher's bye cannot say {why.value!r} (name {name!r})")
        name = clean_text(name, MAX_NAME)
        return cls(why, name, _WORDS[why].format(name=name or _ANYONE))

    def to_wire(self) -> dict[str, Any]:
        return {"t": "bye", "reason": self.reason, "why": self.why.value} | (
            {"name": self.name} if self.name else {}
        )

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        """``why`` a code of 1..32 characters (one not known: UNKNOWN, not a fault), ``name``
        at most 40 characters and only with ``peer-left`` (or a code not known)."""
        why, name = m.get("why"), m.get("name")
        _check(
            why is None or (type(why) is str and 1 <= len(why) <= MAX_WHY),
            f"bye: why must be a code of 1..{MAX_WHY} characters",
        )
        stop = _STOPS.get(why, WatchStop.UNKNOWN) if isinstance(why, str) else WatchStop.UNKNOWN
        _check(
            name is None or (type(name) is str and len(name) <= MAX_NAME),
            f"bye: name must be a name of at most {MAX_NAME} characters",
        )
        _check(
            name is None or stop is WatchStop.PEER_LEFT or (why is not None and stop is WatchStop.UNKNOWN),
            "bye: a name only with peer-left",
        )
        said = clean_text(name, MAX_NAME) if isinstance(name, str) and stop is WatchStop.PEER_LEFT else ""
        return cls(stop, said, Bye.from_wire(m).reason)


_REASONS: Final = {r.value: r for r in EndReason}


@dataclass(frozen=True, slots=True)
class Table(Message):
    """The table as both players see it (:class:`~p2p_spite.engine.PublicView`), with the
    match scores, the move that led here and its card, and whether the match is over."""

    T: ClassVar[str] = "table"
    shown: TableShown

    def to_wire(self) -> dict[str, Any]:
        s = self.shown
        v = s.view
        r = v.result
        return {
            "t": "table",
            "g": v.game,
            "turn": v.turn,
            "ply": v.ply,
            "hands": list(v.hand_counts),
            "tops": list(v.payoff_tops),
            "left": list(v.payoff_counts),
            "sides": [[bytes(st) for st in sd] for sd in v.sides],
            "center": [bytes(st) for st in v.center],
            "stock": v.stock_count,
            "scores": list(s.scores),
            "end": None if r is None else [r.winner, r.points, r.reason.value],
            "m": None if s.move is None else list(s.move),
            "c": s.card,
            "f": (LOT if s.by_lot else 0) | (OVER if s.match_over else 0) | (BACK if s.taken_back else 0),
        }

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        """Every field checked, and the table itself: 104 distinct cards in all, no pile
        larger than the rules let it grow."""
        g, turn, ply, stock = m.get("g"), m.get("turn"), m.get("ply"), m.get("stock")
        _check(_int(g, 1, MAX_GAMES), "table: g must be a game number")
        _check(_int(turn, 0, 1), "table: turn must be 0 or 1")
        _check(_int(ply, 0, MAX_POSITION), "table: ply must be a move count")
        _check(_int(stock, 0, CARDS), "table: stock must be a card count")
        hands, left, tops = _pair(m, "hands", 0, 5), _pair(m, "left", 0, 20), m.get("tops")
        _check(
            isinstance(tops, list) and len(tops) == 2 and all(t is None or _card(t) for t in tops),
            "table: tops must be two cards or nil",
        )
        assert isinstance(tops, list)
        _check(
            all((tops[i] is None) == (left[i] == 0) for i in (0, 1)), "table: a pay-off top without its pile"
        )
        sides_raw, center_raw = m.get("sides"), m.get("center")
        _check(
            isinstance(sides_raw, list)
            and len(sides_raw) == 2
            and all(isinstance(sd, list) and len(sd) == 4 for sd in sides_raw),
            "table: sides must be two seats' four stacks",
        )
        _check(isinstance(center_raw, list) and len(center_raw) == 3, "table: center must be three stacks")
        assert isinstance(sides_raw, list) and isinstance(center_raw, list)
        sides = tuple(tuple(_stack(st, CARDS) for st in sd) for sd in sides_raw)
        center = tuple(_stack(st, 11) for st in center_raw)
        face_up = [t for t in tops if t is not None]
        face_up += [c for sd in sides for st in sd for c in st] + [c for st in center for c in st]
        _check(len(set(face_up)) == len(face_up), "table: a card shown twice")
        assert isinstance(stock, int)
        down = sum(hands) + sum(left) - len([t for t in tops if t is not None]) + stock
        _check(down + len(face_up) == CARDS, f"table: the cards do not add up to {CARDS}")
        scores = _pair(m, "scores", 0, MAX_TARGET * 2)
        end = m.get("end")
        result: Result | None = None
        if end is not None:
            _check(
                isinstance(end, list)
                and len(end) == 3
                and (end[0] is None or _int(end[0], 0, 1))
                and _int(end[1], 0, 20)
                and end[2] in _REASONS,
                "table: end must be [winner, points, reason] or nil",
            )
            assert isinstance(end, list)
            result = Result(end[0], end[1], _REASONS[end[2]])
        move: Move | None = None
        card, raw = m.get("c"), m.get("m")
        if raw is not None:
            try:
                move = move_from_json(raw)
            except ValueError as e:
                raise RemoteProtocolError(f"table: a malformed move: {e}", Refusal.MALFORMED) from None
        _check(
            (move is None) == (card is None) and (card is None or _card(card)), "table: m and c go together"
        )
        f = m.get("f")
        _check(_int(f, 0, LOT | OVER | BACK), "table: f must be flags in 0..7")
        assert isinstance(f, int)
        _check(move is not None or not f & BACK, "table: a move taken back names the move")
        assert (
            isinstance(g, int) and isinstance(turn, int) and isinstance(ply, int) and isinstance(stock, int)
        )
        s0, s1 = sides
        view = PublicView(
            game=g,
            turn=turn,
            ply=ply,
            hand_counts=hands,
            payoff_tops=(tops[0], tops[1]),
            payoff_counts=left,
            sides=((s0[0], s0[1], s0[2], s0[3]), (s1[0], s1[1], s1[2], s1[3])),
            center=(center[0], center[1], center[2]),
            stock_count=stock,
            result=result,
        )
        c: Card | None = card if isinstance(card, int) else None
        return cls(TableShown(view, scores, move, c, bool(f & LOT), bool(f & OVER), bool(f & BACK)))


def _pair(m: dict[str, Any], key: str, lo: int, hi: int) -> tuple[int, int]:
    v = m.get(key)
    _check(
        isinstance(v, list) and len(v) == 2 and all(_int(x, lo, hi) for x in v),
        f"table: {key} must be two integers in {lo}..{hi}",
    )
    assert isinstance(v, list)
    return (v[0], v[1])


def _stack(v: object, most: int) -> tuple[Card, ...]:
    _check(type(v) is bytes and len(v) <= most, f"table: a stack must be at most {most} cards")
    assert isinstance(v, bytes)
    _check(all(c <= MAX_CARD for c in v), "table: a card out of range")
    return tuple(v)


def table_frame(shown_now: TableShown) -> bytes:
    """The ``table`` frame of ``shown_now``: encoded once, sent to every watcher."""
    return encode(Table(shown_now).to_wire())


def watching_frame(names: tuple[str, str], target: int, games: int | None, private: bool) -> bytes:
    return encode(MatchShown(names, target, games, private).to_wire())


def first_type(body: dict[str, Any]) -> str:
    """The type of a connection's first message (the door routes by it)."""
    t = body.get("t")
    return t if isinstance(t, str) else ""


# -- the host's side -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WatcherIn:
    """The watcher passed the door: let it watch."""


@dataclass(frozen=True, slots=True)
class WatcherLeft:
    """The watcher said ``bye``."""

    reason: str


E = TypeVar("E")


class _Side(Generic[E]):
    """What both ends of a watcher's connection do alike: frames in, events out (``E``,
    from ``_handle``), bytes out; a rule broken refuses the other end and closes."""

    def __init__(self, proto: int) -> None:
        self.proto = proto
        self._decoder = FrameDecoder()
        self._out = bytearray()

    @property
    def closed(self) -> bool:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def _handle(self, m: dict[str, Any]) -> E | None:
        raise NotImplementedError

    def receive_data(self, data: bytes) -> None:
        if not self.closed:
            self._decoder.feed(data)

    def data_to_send(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def _last(self, msg: Message) -> None:
        """Send ``msg``, then nothing more: the connection is closed."""
        if not self.closed:
            self._out += encode(msg.to_wire())
            self._close()

    def refuse(self, code: Refusal, text: str) -> None:
        self._last(Refuse(code, text))

    def next_event(self) -> NeedData | E:
        """The next event: RemoteProtocolError (its refusal queued) when the other end broke
        a rule, PeerRefused when it refused us; the connection is then closed."""
        while not self.closed:
            try:
                m = self._decoder.next_message()
                if m is None:
                    return NeedData()
                ev = self._handle(m)
            except PeerRefused:
                self._close()
                raise
            except RemoteProtocolError as e:
                self.refuse(e.code, str(e))
                raise
            if ev is not None:
                return ev
        return NeedData()


class DoorPhase(Enum):
    WATCH = "watch"  # waiting for the watcher's first message
    IN = "in"  # let in: only ping and bye from here on
    CLOSED = "closed"


class WatcherDoor(_Side[WatcherIn | WatcherLeft]):
    """The host's side of one watcher's connection (a join code, if the host has one,
    was the opening's: net/opening.py).  ``allowed``: the host lets watchers in at all
    (``--watchers 0``: no).
    The tables the host shows are queued whole with :meth:`show`."""

    def __init__(
        self,
        allowed: bool,
        clock: Callable[[], float] = time.monotonic,
        proto: int = PROTOCOL_VERSION,
    ) -> None:
        super().__init__(proto)
        self.allowed = allowed
        self.phase = DoorPhase.WATCH
        self.again = False  # the watcher follows the next match on the connection
        self._live = Liveness(clock)

    @property
    def closed(self) -> bool:
        return self.phase is DoorPhase.CLOSED

    def _close(self) -> None:
        self.phase = DoorPhase.CLOSED

    def bye(self, bye: HostBye) -> None:
        """Say goodbye (why, as a code: :meth:`HostBye.saying`) and close."""
        self._last(bye)

    def show(self, frame: bytes) -> None:
        """Queue an encoded ``watching`` or ``table`` frame (only once let in)."""
        if self.phase is not DoorPhase.IN:
            raise LocalProtocolError("a table for a watcher not let in")
        self._out += frame

    def _handle(self, m: dict[str, Any]) -> WatcherIn | WatcherLeft | None:
        t = m["t"]
        if t in ("ping", "pong"):
            pong = self._live.heard(Ping.from_wire(m) if t == "ping" else Pong.from_wire(m))
            if pong is not None:
                self._out += encode(pong.to_wire())
            return None
        if t == "bye":
            self.phase = DoorPhase.CLOSED
            return WatcherLeft(Bye.from_wire(m).reason)
        if t == WATCH and self.phase is DoorPhase.WATCH:
            return self._watch(WatchHello.from_wire(m, proto=self.proto))
        if t in GAME_MESSAGES:
            raise RemoteProtocolError(
                f"a watcher cannot take part in the match (it sent {t!r})", Refusal.WATCHER
            )
        if t == WATCH:
            raise RemoteProtocolError(f"{t} at the wrong time", Refusal.UNEXPECTED)
        raise RemoteProtocolError(f"a message of unknown type {shown(t)}", Refusal.UNKNOWN_TYPE)

    def _watch(self, hello: WatchHello) -> WatcherIn:
        self.again = hello.again
        if not self.allowed:
            raise RemoteProtocolError("this host lets nobody watch", Refusal.NO_WATCHERS)
        # a code is the opening's: a watch that brings one would check it here (an older peer)
        _check(not hello.code, "this host needs no join code", Refusal.NO_CODE)
        self.phase = DoorPhase.IN
        return WatcherIn()


# -- the watcher's side ----------------------------------------------------------------


class WatchPhase(Enum):
    HELLO = "hello"  # waiting for the host's hello
    WAITING = "waiting"  # let in: waiting for the match
    WATCHING = "watching"
    BETWEEN = "between"  # the match is over (its last table came): the next one's watching, or bye
    CLOSED = "closed"


class WatchEndpoint(_Side[Watching | TableShown | HostBye]):
    """The watcher's side of its connection (with a join code, inside the opening's
    sealed channel: net/opening.py)."""

    def __init__(self, proto: int = PROTOCOL_VERSION) -> None:
        super().__init__(proto)
        self.phase = WatchPhase.HELLO
        self._game = 0  # the game of the last table
        self._ping = 0

    def initiate(self) -> None:
        """Queue the ``watch`` message (call once, right after connecting)."""
        hello = WatchHello(self.proto, secrets.token_bytes(NONCE_BYTES), False, again=True)
        self._out += encode(hello.to_wire())

    @property
    def closed(self) -> bool:
        return self.phase is WatchPhase.CLOSED

    def _close(self) -> None:
        self.phase = WatchPhase.CLOSED

    def bye(self, reason: str) -> None:
        self._last(Bye(reason))

    def ping(self) -> None:
        if self.phase is not WatchPhase.CLOSED:
            self._ping += 1
            self._out += encode(Ping(self._ping).to_wire())

    def _handle(self, m: dict[str, Any]) -> Watching | TableShown | HostBye | None:
        t, phase = m["t"], self.phase
        if t == "refuse":
            r = Refuse.from_wire(m)
            raise PeerRefused(r.msg, r.code)
        if t == "bye":
            bye = HostBye.from_wire(m)  # (a malformed one is refused, as any message)
            self.phase = WatchPhase.CLOSED
            return bye
        if t in ("ping", "pong"):
            return None
        if t == "hello" and phase is WatchPhase.HELLO:
            hello = Hello.from_wire(m, proto=self.proto, role=HOST)
            if hello.code:  # (a host that would check a code here: an older one)
                raise PeerRefused("the host needs the join code: give it with --code", Refusal.CODE_NEEDED)
            self.phase = WatchPhase.WAITING
            return None
        if t == "watching" and phase in (WatchPhase.WAITING, WatchPhase.BETWEEN):
            shown_match = MatchShown.from_wire(m)
            self.phase = WatchPhase.WATCHING
            self._game = 0  # (a next match starts again from game 1)
            return Watching(shown_match.players, shown_match.target, shown_match.games, shown_match.private)
        if t == "table" and phase is WatchPhase.WATCHING:
            table = Table.from_wire(m).shown
            _check(table.view.game >= self._game, "table: a game that went back", Refusal.SEQUENCE)
            self._game = table.view.game
            if table.match_over:
                self.phase = WatchPhase.BETWEEN
            return table
        if t in ("hello", "watching", "table"):
            raise RemoteProtocolError(f"{t} at the wrong time", Refusal.UNEXPECTED)
        raise RemoteProtocolError(f"a message a watcher is not sent: {shown(t)}", Refusal.UNKNOWN_TYPE)
