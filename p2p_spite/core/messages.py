"""The protocol's messages, one small frozen type each (docs/protocol.md, "Messages").

``to_wire()`` is the map that goes in a frame (its key order is part of the bytes
on the wire, which tests pin).  ``from_wire(m)`` takes a decoded map whose ``t``
names the type and checks every field's type, size and range, raising
:class:`~p2p_spite.core.wire.RemoteProtocolError` (``malformed``, unless said
otherwise) at the first wrong one; it never passes peer data whole to ``repr()``.
What depends on the match (sequence numbers, whose turn, the state digest) is
the endpoint's to check (:mod:`p2p_spite.core.protocol`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final, Self

from ..contracts.plaintext import MAX_CHAT, MAX_NAME, printable
from ..engine import Move, move_from_json
from ..fairdeck import MAX_WIRE
from .wire import Refusal, RemoteProtocolError

APP: Final = "p2p-spite"


class Role(StrEnum):
    """A player's side of the connection: the host listens (seat 0), the joiner dials (seat 1)."""

    HOST = "host"
    JOIN = "join"


HOST: Final = Role.HOST
JOIN: Final = Role.JOIN
NONCE_BYTES: Final = 16
MATCH_ID_BYTES: Final = 16
HASH_BYTES: Final = 32  # MACs, commitments, secrets, seeds, digests, history hashes, tags
DEFAULT_PORT: Final = 4747  # the host's TCP port when none is given
MAX_GAMES: Final = 10_000
MAX_TARGET: Final = 100_000
MAX_POSITION: Final = 10_000_000  # action numbers
MAX_PING: Final = 2**53
MAX_REASON: Final = 200  # characters of a bye's reason
MAX_REFUSAL: Final = 400  # characters of a refusal's text
_WHO: Final = {HOST: "host", JOIN: "joiner"}


def clean_text(text: str, most: int) -> str:
    """Printable characters only (a peer must not drive the terminal), at most ``most``."""
    return printable(text)[:most]


def shown(value: object) -> str:
    """A value from the peer, for a message: short, printable, never an unbounded repr()
    (a list nested a thousand deep made repr() raise RecursionError)."""
    if isinstance(value, str):
        return repr(clean_text(value, 20))
    if value is None or isinstance(value, bool | int | float):
        return repr(value)[:30]
    return f"a {type(value).__name__}"


# -- field checks -------------------------------------------------------------------


def _int(m: dict[str, Any], key: str, lo: int, hi: int) -> int:
    v = m.get(key)
    if type(v) is not int or not lo <= v <= hi:
        raise RemoteProtocolError(f"{m['t']}: {key} must be an integer in {lo}..{hi}", Refusal.MALFORMED)
    return v


def _opt_int(m: dict[str, Any], key: str, lo: int, hi: int) -> int | None:
    return None if m.get(key) is None else _int(m, key, lo, hi)


def _bin(m: dict[str, Any], key: str, size: int = HASH_BYTES) -> bytes:
    v = m.get(key)
    if type(v) is not bytes or len(v) != size:
        raise RemoteProtocolError(f"{m['t']}: {key} must be {size} bytes", Refusal.MALFORMED)
    return v


def _opt_bin(m: dict[str, Any], key: str, size: int = HASH_BYTES) -> bytes | None:
    return None if m.get(key) is None else _bin(m, key, size)


def _str(m: dict[str, Any], key: str, most: int) -> str:
    v = m.get(key)
    if type(v) is not str or len(v) > most:
        raise RemoteProtocolError(
            f"{m['t']}: {key} must be a string of at most {most} characters", Refusal.MALFORMED
        )
    return v


def _bool(m: dict[str, Any], key: str) -> bool:
    v = m.get(key)
    if type(v) is not bool:
        raise RemoteProtocolError(f"{m['t']}: {key} must be true or false", Refusal.MALFORMED)
    return v


# -- the messages ---------------------------------------------------------------------


class Message:
    """A protocol message: ``T`` is its type on the wire (the frame's ``t``)."""

    __slots__ = ()
    T: ClassVar[str]

    def to_wire(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The first message of each side.  ``match``: the match a returning joiner goes on
    with (never sent by the host); ``deal``: a returning joiner that has not seen the
    seed of a cut seed exchange; ``watchers``: a joiner that shows how many watch (the
    host may send it ``watchers``; the key is absent otherwise)."""

    T: ClassVar[str] = "hello"
    proto: int
    role: Role
    name: str
    nonce: bytes
    code: bool
    match: bytes | None = None
    deal: bool = False
    app: str = APP
    watchers: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {
            "t": "hello",
            "proto": self.proto,
            "app": self.app,
            "role": self.role,
            "name": self.name,
            "nonce": self.nonce,
            "code": self.code,
            "match": self.match,
            "deal": self.deal,
        } | ({"watchers": True} if self.watchers else {})

    @classmethod
    def from_wire(cls, m: dict[str, Any], *, proto: int | None = None, role: Role | None = None) -> Self:
        """``proto``/``role``: the version this side speaks and the role the peer must have.
        What every version shares (app, proto, role) is checked first, so a peer of another
        version or the wrong role hears so, whatever its other fields are."""
        if m.get("app") != APP:
            raise RemoteProtocolError("not a p2p-spite peer", Refusal.NOT_P2P_SPITE)
        version = m.get("proto")
        if type(version) is not int:  # not True, not 1.0, not a list
            raise RemoteProtocolError(
                f"hello: proto must be an integer, not {shown(version)}", Refusal.MALFORMED
            )
        peer_role = m.get("role")
        expected = role if role is not None else Role(peer_role) if peer_role in _WHO else None
        if proto is not None and version != proto and expected is not None:
            mine = HOST if expected == JOIN else JOIN
            raise RemoteProtocolError(
                f"protocol version mismatch: the {_WHO[expected]} speaks version {version}, "
                f"the {_WHO[mine]} speaks version {proto}",
                Refusal.VERSION,
            )
        if peer_role != expected or expected is None:
            wanted = expected.value if expected is not None else "host or join"
            raise RemoteProtocolError(
                f"the peer says it is {shown(peer_role)}, expected {wanted!r}",
                Refusal.ROLE,
            )
        name = clean_text(_str(m, "name", MAX_NAME), MAX_NAME)
        nonce = _bin(m, "nonce", NONCE_BYTES)
        code = _bool(m, "code")
        match = m.get("match")
        if match is not None and (type(match) is not bytes or len(match) != MATCH_ID_BYTES):
            raise RemoteProtocolError("hello: match must be 16 bytes or nil", Refusal.MALFORMED)
        deal, watchers = m.get("deal") is True, m.get("watchers") is True
        return cls(version, expected, name, nonce, code, match, deal, watchers=watchers)


@dataclass(frozen=True, slots=True)
class Proof(Message):
    """A returning joiner and the host prove they hold the match."""

    T: ClassVar[str] = "proof"
    mac: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": "proof", "mac": self.mac}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_bin(m, "mac"))


@dataclass(frozen=True, slots=True)
class Setup(Message):
    """Host to joiner: the match (``seed`` None: commit-reveal, or a resumed match;
    ``private``: a private-deck match, the key sent only then: a seeded setup is unchanged)."""

    T: ClassVar[str] = "setup"
    match: bytes
    seed: bytes | None
    target: int
    games: int | None
    players: tuple[str, str]
    resume: bool
    private: bool = False

    def to_wire(self) -> dict[str, Any]:
        msg = {
            "t": "setup",
            "match": self.match,
            "seed": self.seed,
            "target": self.target,
            "games": self.games,
            "players": list(self.players),
            "resume": self.resume,
        }
        if self.private:
            msg["private"] = True
        return msg

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        private = m.get("private", False)
        if type(private) is not bool:
            raise RemoteProtocolError("setup: private must be true or false", Refusal.MALFORMED)
        match = _bin(m, "match", MATCH_ID_BYTES)
        seed = _opt_bin(m, "seed")
        target = _int(m, "target", 1, MAX_TARGET)
        games = _opt_int(m, "games", 1, MAX_GAMES)
        players = m.get("players")
        if not (
            isinstance(players, list)
            and len(players) == 2
            and all(type(p) is str and len(p) <= MAX_NAME for p in players)
        ):
            raise RemoteProtocolError("setup: players must be two names", Refusal.MALFORMED)
        resume = m.get("resume")
        if type(resume) is not bool or (resume and seed is not None):
            raise RemoteProtocolError(
                "setup: resume must be true or false (and a resumed match's seed is not sent)",
                Refusal.MALFORMED,
            )
        return cls(match, seed, target, games, (players[0], players[1]), resume, private)


@dataclass(frozen=True, slots=True)
class Commit(Message):
    """A seat's commitment to its half of the seed."""

    T: ClassVar[str] = "commit"
    c: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": "commit", "c": self.c}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_bin(m, "c"))


@dataclass(frozen=True, slots=True)
class Reveal(Message):
    """A seat's half of the seed, opening its commitment."""

    T: ClassVar[str] = "reveal"
    r: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": "reveal", "r": self.r}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_bin(m, "r"))


@dataclass(frozen=True, slots=True)
class Sync(Message):
    """How many actions the sender has, and their history hash."""

    T: ClassVar[str] = "sync"
    pos: int
    hist: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": "sync", "pos": self.pos, "hist": self.hist}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "pos", 0, MAX_POSITION), _bin(m, "hist"))


@dataclass(frozen=True, slots=True)
class MoveAction(Message):
    """Action ``n``: a move; ``d`` the state digest after it, ``a`` its author's tag
    (None: not known, an action resent from a record that lost it)."""

    T: ClassVar[str] = "move"
    n: int
    d: bytes
    a: bytes | None
    move: Move

    def to_wire(self) -> dict[str, Any]:
        if self.a is None:
            return {"t": "move", "n": self.n, "d": self.d, "m": list(self.move)}
        return {"t": "move", "n": self.n, "d": self.d, "a": self.a, "m": list(self.move)}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        n = _int(m, "n", 0, MAX_POSITION)
        d = _bin(m, "d")
        a = _opt_bin(m, "a")
        try:
            move = move_from_json(m.get("m"))
        except ValueError as e:
            raise RemoteProtocolError(f"a malformed move: {e}", Refusal.MALFORMED) from None
        return cls(n, d, a, move)


@dataclass(frozen=True, slots=True)
class ResignAction(Message):
    """Action ``n``: seat ``s`` resigns game ``g`` (``d``, ``a``: as for a move)."""

    T: ClassVar[str] = "resign"
    n: int
    d: bytes
    a: bytes | None
    g: int
    s: int

    def to_wire(self) -> dict[str, Any]:
        if self.a is None:
            return {"t": "resign", "n": self.n, "d": self.d, "g": self.g, "s": self.s}
        return {"t": "resign", "n": self.n, "d": self.d, "a": self.a, "g": self.g, "s": self.s}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        n = _int(m, "n", 0, MAX_POSITION)
        d = _bin(m, "d")
        a = _opt_bin(m, "a")
        return cls(n, d, a, _int(m, "g", 1, MAX_GAMES), _int(m, "s", 0, 1))


@dataclass(frozen=True, slots=True)
class ResignRequest(Message):
    """The sender, off turn, resigns game ``g``: the side on turn makes it its next action."""

    T: ClassVar[str] = "resign-request"
    g: int

    def to_wire(self) -> dict[str, Any]:
        return {"t": "resign-request", "g": self.g}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "g", 1, MAX_GAMES))


@dataclass(frozen=True, slots=True)
class TakebackRequest(Message):
    """The sender, on turn, asks to take back its action ``n`` (its last move of the turn)."""

    T: ClassVar[str] = "takeback"
    n: int

    def to_wire(self) -> dict[str, Any]:
        return {"t": "takeback", "n": self.n}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "n", 0, MAX_POSITION))


@dataclass(frozen=True, slots=True)
class TakebackAnswer(Message):
    """The answer to ``takeback{n}``: ``ok`` lets the requester take action ``n`` back;
    ``rule`` (sent only when true): the answer is the sender's standing rule (``--takebacks
    always``/``never``), nobody was asked."""

    T: ClassVar[str] = "takeback-answer"
    n: int
    ok: bool
    rule: bool = False

    def to_wire(self) -> dict[str, Any]:
        wire = {"t": "takeback-answer", "n": self.n, "ok": self.ok}
        return wire | {"rule": True} if self.rule else wire

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "n", 0, MAX_POSITION), _bool(m, "ok"), "rule" in m and _bool(m, "rule"))


@dataclass(frozen=True, slots=True)
class Undo(Message):
    """The sender takes back its action ``n`` (allowed); ``d``: the state digest after it."""

    T: ClassVar[str] = "undo"
    n: int
    d: bytes

    def to_wire(self) -> dict[str, Any]:
        return {"t": "undo", "n": self.n, "d": self.d}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "n", 0, MAX_POSITION), _bin(m, "d"))


@dataclass(frozen=True, slots=True)
class RematchAnswer(Message):
    """After a match's end, the sender's answer to "play another match?" (``match``: the
    id of the match just over; docs/protocol.md, *Playing again*)."""

    T: ClassVar[str] = "rematch"
    match: bytes
    yes: bool

    def to_wire(self) -> dict[str, Any]:
        return {"t": "rematch", "match": self.match, "yes": self.yes}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_bin(m, "match", MATCH_ID_BYTES), _bool(m, "yes"))


MAX_WATCHERS: Final = 32  # watchers a host may let in at once (host --watchers)


@dataclass(frozen=True, slots=True)
class Watchers(Message):
    """Host to joiner: ``n`` watch the match now, of the ``most`` the host lets in
    (docs/protocol.md, *Watchers*: only to a joiner whose hello asked for it)."""

    T: ClassVar[str] = "watchers"
    n: int
    most: int

    def to_wire(self) -> dict[str, Any]:
        return {"t": "watchers", "n": self.n, "most": self.most}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        most = _int(m, "most", 1, MAX_WATCHERS)
        return cls(_int(m, "n", 0, most), most)


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """The sender has checked, applied and written down the first ``n`` actions."""

    T: ClassVar[str] = "ack"
    n: int

    def to_wire(self) -> dict[str, Any]:
        return {"t": "ack", "n": self.n}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "n", 0, MAX_POSITION))


@dataclass(frozen=True, slots=True)
class Chat(Message):
    """A chat line (printable, at most MAX_CHAT characters once received)."""

    T: ClassVar[str] = "chat"
    text: str

    def to_wire(self) -> dict[str, Any]:
        return {"t": "chat", "text": self.text}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(clean_text(_str(m, "text", MAX_CHAT * 4), MAX_CHAT))


@dataclass(frozen=True, slots=True)
class Ping(Message):
    T: ClassVar[str] = "ping"
    k: int

    def to_wire(self) -> dict[str, Any]:
        return {"t": "ping", "k": self.k}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "k", 0, MAX_PING))


@dataclass(frozen=True, slots=True)
class Pong(Message):
    T: ClassVar[str] = "pong"
    k: int

    def to_wire(self) -> dict[str, Any]:
        return {"t": "pong", "k": self.k}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        return cls(_int(m, "k", 0, MAX_PING))


@dataclass(frozen=True, slots=True)
class Bye(Message):
    """The sender leaves (any reason that is not a string is read as none)."""

    T: ClassVar[str] = "bye"
    reason: str

    def to_wire(self) -> dict[str, Any]:
        return {"t": "bye", "reason": self.reason}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        reason = m.get("reason")
        return cls(clean_text(reason, MAX_REASON) if isinstance(reason, str) else "")


@dataclass(frozen=True, slots=True)
class Refuse(Message):
    """The sender stops: ``code`` says why (a word this version does not know is
    :attr:`Refusal.OTHER`)."""

    T: ClassVar[str] = "refuse"
    code: Refusal
    msg: str

    def to_wire(self) -> dict[str, Any]:
        return {"t": "refuse", "code": self.code.value, "msg": self.msg}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        code, text = m.get("code"), m.get("msg")
        return cls(
            Refusal.from_wire(code) if isinstance(code, str) else Refusal.OTHER,
            clean_text(text, MAX_REFUSAL) if isinstance(text, str) else "no reason given",
        )


DECK_MSG: Final = "deck"
MAX_DECK_INDEX: Final = 1_000_000  # deck messages of one seat in one game (a game needs a few hundred)
MAX_SLOT: Final = 1 << 16  # slots a game can reach (104, then 54 + 12 more per reshuffle)


@dataclass(frozen=True, slots=True)
class DeckBytes:
    """One of fairdeck's messages (``data``: its ``to_wire`` bytes), message ``index`` of its
    sender in ``game``: ``deck{g, i, b}``."""

    game: int
    index: int
    data: bytes


@dataclass(frozen=True, slots=True)
class DeckIntent:
    """The seat on turn announces its next move before it makes it, and for a hand card
    the slot it plays: ``deck{g, i, m, s}`` (core/private.py)."""

    game: int
    index: int
    move: Move
    slot: int | None


DeckBody = DeckBytes | DeckIntent


@dataclass(frozen=True, slots=True)
class Deck(Message):
    """A private-deck message (docs/fairness.md): fairdeck's bytes or an intent, numbered
    ``i`` = 0, 1, 2, ... per sender and game.  Its shape is checked here; what it says,
    by :mod:`p2p_spite.core.private`."""

    T: ClassVar[str] = DECK_MSG
    body: DeckBody

    def to_wire(self) -> dict[str, Any]:
        b = self.body
        if isinstance(b, DeckBytes):
            return {"t": DECK_MSG, "g": b.game, "i": b.index, "b": b.data}
        return {"t": DECK_MSG, "g": b.game, "i": b.index, "m": list(b.move), "s": b.slot}

    @classmethod
    def from_wire(cls, m: dict[str, Any]) -> Self:
        g, i = m.get("g"), m.get("i")
        if type(g) is not int or type(i) is not int or not 1 <= g < 1 << 32 or not 0 <= i < MAX_DECK_INDEX:
            raise RemoteProtocolError("deck: g and i must be a game and a message number", Refusal.MALFORMED)
        if "b" in m:
            b = m["b"]
            if type(b) is not bytes or not 0 < len(b) <= MAX_WIRE or "m" in m or "s" in m:
                raise RemoteProtocolError(f"deck: b must be 1..{MAX_WIRE} bytes, alone", Refusal.DECK_FORMAT)
            return cls(DeckBytes(g, i, b))
        raw, slot = m.get("m"), m.get("s")
        if raw is None:
            raise RemoteProtocolError("deck: a resignation is made, not announced", Refusal.DECK_ORDER)
        try:
            move = move_from_json(raw)
        except ValueError as e:
            raise RemoteProtocolError(f"deck: a malformed move: {e}", Refusal.MALFORMED) from None
        if slot is not None and (type(slot) is not int or not 0 <= slot < MAX_SLOT):
            raise RemoteProtocolError(f"deck: s must be a slot in 0..{MAX_SLOT - 1}", Refusal.MALFORMED)
        return cls(DeckIntent(g, i, move, slot))


ActionMessage = MoveAction | ResignAction

MESSAGES: Final[dict[str, type[Message]]] = {
    cls.T: cls
    for cls in (
        Hello,
        Proof,
        Setup,
        Commit,
        Reveal,
        Sync,
        MoveAction,
        ResignAction,
        ResignRequest,
        TakebackRequest,
        TakebackAnswer,
        Undo,
        RematchAnswer,
        Watchers,
        Ack,
        Chat,
        Deck,
        Ping,
        Pong,
        Bye,
        Refuse,
    )
}
"""Every message type, by its ``t`` on the wire."""
