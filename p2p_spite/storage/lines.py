"""The journal's lines: one JSON object each, written and read by the same code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core.game import KEY_BYTES, RESIGN, Action
from ..core.messages import DECK_MSG, Deck, DeckBytes
from ..core.tape import SECRET_BYTES, TapeEntry, TapeKind
from ..core.wire import RemoteProtocolError
from ..engine import Move, move_from_json
from ..fairdeck import MAX_WIRE

# bytes in one journal line: the longest is a private-deck tape line, a SHUFFLE with its
# proof (MAX_WIRE = 20,557 bytes as hex, 41,114 characters, and its keys); a longer one
# (a file without newlines) is where the journal's trustworthy part ends
MAX_JOURNAL_LINE = 2 * MAX_WIRE + 4096


@dataclass(frozen=True, slots=True)
class KeyLine:
    """This seat's action key (None when read back damaged)."""

    key: bytes | None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key.hex() if self.key is not None else None}


@dataclass(frozen=True, slots=True)
class TagLine:
    """The peer's tag on its action ``n`` (carried over from an earlier journal)."""

    n: int
    tag: bytes

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.n, "a": self.tag.hex()}


@dataclass(frozen=True, slots=True)
class RequestLine:
    """This seat asked to resign ``game`` while off turn."""

    game: int

    def to_json(self) -> dict[str, Any]:
        return {"req": self.game}


MAX_HOST = 255  # the longest host name (RFC 1035) or address a PortLine keeps


@dataclass(frozen=True, slots=True)
class PortLine:
    """The host's listening port, and in the joiner's journal the host's address it
    dialed (``host``), so that ``history`` can say exactly how to resume."""

    port: int
    host: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"port": self.port, "host": self.host} if self.host else {"port": self.port}


@dataclass(frozen=True, slots=True)
class ActionLine:
    """Action ``n``; ``tag``: the peer's tag on it when the peer made it."""

    n: int
    action: Action
    tag: bytes | None = None

    def to_json(self) -> dict[str, Any]:
        a = self.action
        obj: dict[str, Any] = {"n": self.n, "g": a.game}
        if a.move is None:
            obj[RESIGN] = a.seat
        else:
            obj["m"] = list(a.move)
        if self.tag is not None:
            obj["a"] = self.tag.hex()
        return obj


def action_text(n: int, a: Action, tag: bytes | None) -> str:
    """The journal line of action ``n`` (``ActionLine(n, a, tag)``), formatted directly: a
    line is written for every action, and the JSON encoder costs twice as much.  The
    move's fields are checked (plain ints, known words), so nothing needs escaping;
    tests/storage/test_journal_lines.py holds it byte for byte to the compact JSON of
    ``ActionLine.to_json()``, the form every other line is written in."""
    t = "" if tag is None else f',"a":"{tag.hex()}"'
    m = a.move
    if m is None:
        return f'{{"n":{n},"g":{a.game},"{RESIGN}":{a.seat}{t}}}\n'
    arg = "null" if m.arg is None else m.arg
    return f'{{"n":{n},"g":{a.game},"m":[{m.seat},"{m.source}",{arg},"{m.target}",{m.slot}]{t}}}\n'


@dataclass(frozen=True, slots=True)
class TapeLine:
    """A private-deck tape entry (core/private.py): ``{"pk": g, "at": n, "k": secret}``,
    ``{"pd"|"po": g, "at": n, "i": index, "b": hex}`` or ``... "i", "m", "s"}``, or a
    takeback, ``{"pu": g, "at": n}``."""

    entry: TapeEntry

    def to_json(self) -> dict[str, Any]:
        e = self.entry
        obj: dict[str, Any] = {e.kind.value: e.game, "at": e.at}
        if e.kind is TapeKind.SECRET:
            obj["k"] = e.secret.hex()
            return obj
        if e.kind is TapeKind.UNDO:
            return obj
        msg = e.msg
        assert msg is not None
        obj["i"] = e.index
        if isinstance(msg, DeckBytes):
            obj["b"] = msg.data.hex()
        else:
            obj["m"], obj["s"] = list(msg.move), msg.slot
        return obj


JournalLine = KeyLine | TagLine | RequestLine | PortLine | ActionLine | TapeLine


# compact JSON with no default: a journal line holds only JSON's own types (an action's
# line, the one written for every move, is formatted by :func:`action_text` instead)
_COMPACT = json.JSONEncoder(separators=(",", ":")).encode


def dump_line(entry: JournalLine) -> str:
    """One journal line (compact JSON, the keys in a fixed order, a newline)."""
    if type(entry) is ActionLine:
        return action_text(entry.n, entry.action, entry.tag)
    obj = entry.to_json()
    return _COMPACT(obj) + "\n"


def parse_line(line: bytes) -> JournalLine | None:
    """The entry a journal line holds (what :func:`dump_line` wrote); None: a line to pass
    over (a tag or request that does not read right); ValueError: a bad line, where the
    journal's trustworthy part ends."""
    try:
        obj = json.loads(line)
        if "key" in obj:
            return KeyLine(_hex(obj["key"], KEY_BYTES))
        if "req" in obj:
            return RequestLine(obj["req"]) if type(obj["req"]) is int else None
        if "port" in obj:
            port, host = obj["port"], obj.get("host", "")
            if type(host) is not str or len(host) > MAX_HOST or not host.isprintable() or " " in host:
                host = ""  # (a host name of a line torn or tampered with: the port is still good)
            return PortLine(port, host) if type(port) is int and 0 < port < 65536 else None
        if any(k.value in obj for k in TapeKind):  # the private deck's tape (core/private.py)
            tape = _tape_entry(obj)
            if tape is None:
                raise ValueError("a bad tape line")
            return TapeLine(tape)
        if "tag" in obj:
            t = _hex(obj.get("a"), 32)
            return TagLine(obj["tag"], t) if type(obj["tag"]) is int and t is not None else None
        n, g = obj["n"], obj["g"]
        if type(n) is not int or type(g) is not int:
            raise ValueError("n and g must be integers")
        if RESIGN in obj:
            seat = obj[RESIGN]
            if seat not in (0, 1) or type(seat) is not int:
                raise ValueError("a resignation's seat must be 0 or 1")
            action = Action(g, seat)
        else:
            mv: Move = move_from_json(obj["m"])
            action = Action(g, mv.seat, mv)
    except (KeyError, TypeError) as e:
        raise ValueError(f"a bad journal line ({type(e).__name__})") from None
    return ActionLine(n, action, _hex(obj.get("a"), 32))


def _tape_entry(obj: dict[str, Any]) -> TapeEntry | None:
    """The tape entry of a journal line (None: not one, or a bad one)."""
    kind = next((k for k in TapeKind if k.value in obj), None)
    if kind is None:
        return None
    g, at = obj[kind.value], obj.get("at")
    if type(g) is not int or type(at) is not int or g < 1 or at < 0:
        return None
    if kind is TapeKind.SECRET:
        k = _hex(obj.get("k"), SECRET_BYTES)
        return None if k is None else TapeEntry(kind, g, at, secret=k)
    if kind is TapeKind.UNDO:
        return TapeEntry(kind, g, at) if at > 0 else None
    i = obj.get("i")
    if type(i) is not int:
        return None
    wire: dict[str, Any] = {"t": DECK_MSG, "g": g, "i": i}
    if "b" in obj:
        b = obj["b"]
        try:
            wire["b"] = bytes.fromhex(b) if isinstance(b, str) else None
        except ValueError:
            return None
    else:
        wire["m"], wire["s"] = obj.get("m"), obj.get("s")
    try:  # the same checks as the wire's
        body = Deck.from_wire(wire).body
    except RemoteProtocolError:
        return None
    return TapeEntry(kind, g, at, i, body)


def _hex(v: object, size: int) -> bytes | None:
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else b""
    except ValueError:
        return None
    return b if len(b) == size else None
