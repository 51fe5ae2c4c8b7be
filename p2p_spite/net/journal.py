"""Keeping the record on disk as the match goes (SPEC section 3 plus a journal).

The scheme: the record file itself is rewritten atomically (``record.save``:
temporary file, fsync, rename) when the session starts, after games 1, 2, 4,
8, ... (:func:`checkpoint_due`: the cost of the rewrites stays proportional to
the match, not to its square) and when the session closes; every action is
appended, as one JSON line, to ``RECORD.journal`` beside it *before* it is
sent to the peer or shown to anyone.  The journal is started afresh (once it
has grown past a megabyte) only right after the record has been rewritten, so
record plus journal always hold every action shown.  A plain ``write`` puts the line in the operating system's
hands, so it survives the process being killed (even ``kill -9``); the
journal is also fsynced at most every half second, to bound what a power cut
can take.  A torn last line (a crash mid-write) is ignored when reading.
``--resume`` reads the record, then the journal lines that go beyond it.
A bot-against-bot match writes ~50 bytes per move instead of rewriting and
fsyncing the whole record thousands of times.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .. import record as recordmod
from ..engine import Match, Move, RulesError, move_from_json
from ..engine.state import WIN_RESIGN
from ..errors import StorageError, UserError
from ..fairdeck import MAX_WIRE, GameDeck
from ..plaintext import shown_path
from ..record import game_text
from .game import KEY_BYTES, RESIGN, Action, GameCore
from .messages import DECK_MSG, Deck, DeckBytes
from .private import SECRET_BYTES, GameOutcome, TapeEntry, TapeKind
from .wire import RemoteProtocolError

FSYNC_EVERY = 0.5  # seconds
# The journal holds the games since the last rewrite (up to half the match), at about
# three times the record's bytes per move.
MAX_JOURNAL_BYTES = 2 * recordmod.MAX_RECORD_BYTES
# bytes in one journal line: the longest is a private-deck tape line, a SHUFFLE with its
# proof (MAX_WIRE = 20,557 bytes as hex, 41,114 characters, and its keys); a longer one
# (a file without newlines) is where the journal's trustworthy part ends
MAX_JOURNAL_LINE = 2 * MAX_WIRE + 4096


FRESH_JOURNAL_BYTES = 1024 * 1024  # a smaller journal is kept whole at a rewrite


def checkpoint_due(game: int) -> bool:
    """Is the record rewritten when game ``game`` ends?  After games 1, 2, 4, 8, ...:
    each rewrite costs about as much as the games played since the one before it."""
    return game > 0 and game & (game - 1) == 0


def journal_path(record_path: Path) -> Path:
    return record_path.with_name(record_path.name + ".journal")


def record_extra(
    match_id: bytes, max_games: int | None, code_key: bytes | None = None, seed_from_host: bool | None = None
) -> dict[str, Any]:
    """The record's extra keys, the same on both sides.  ``join_key`` is the key the
    join code stands for (not the code), so that a resumed match needs no new code;
    ``seed_by`` who chose the seed ("host", or "both": commit-reveal; null: not known),
    so that a resumed match still says it right."""
    return {
        "match_id": match_id.hex(),
        "max_games": max_games,
        "join_key": code_key.hex() if code_key else None,
        "seed_by": None if seed_from_host is None else "host" if seed_from_host else "both",
    }


# -- the journal's lines: one JSON object each, written and read by the same code ------


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


@dataclass(frozen=True, slots=True)
class PortLine:
    """The host's listening port (so that ``history`` can say how to resume on it)."""

    port: int

    def to_json(self) -> dict[str, Any]:
        return {"port": self.port}


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
    tests/test_journal_lines.py holds it byte for byte to the compact JSON of
    ``ActionLine.to_json()``, the form every other line is written in."""
    t = "" if tag is None else f',"a":"{tag.hex()}"'
    m = a.move
    if m is None:
        return f'{{"n":{n},"g":{a.game},"{RESIGN}":{a.seat}{t}}}\n'
    arg = "null" if m.arg is None else m.arg
    return f'{{"n":{n},"g":{a.game},"m":[{m.seat},"{m.source}",{arg},"{m.target}",{m.slot}]{t}}}\n'


@dataclass(frozen=True, slots=True)
class TapeLine:
    """A private-deck tape entry (net/private.py): ``{"pk": g, "at": n, "k": secret}``,
    ``{"pd"|"po": g, "at": n, "i": index, "b": hex}`` or ``... "i", "m", "s"}``."""

    entry: TapeEntry

    def to_json(self) -> dict[str, Any]:
        e = self.entry
        obj: dict[str, Any] = {e.kind.value: e.game, "at": e.at}
        if e.kind is TapeKind.SECRET:
            obj["k"] = e.secret.hex()
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


def _no_default(obj: object) -> object:
    raise TypeError(f"a journal line cannot hold {type(obj).__name__}")


# The compact encoder, made once: JSONEncoder.encode builds a new one for every call (a
# third of a line's cost), and the journal writes a line for every action.  The same C
# encoder and arguments JSONEncoder(separators=(",", ":")) uses, so the same bytes.
_make_encoder: Callable[..., Callable[[object, int], Iterable[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_ENCODE = (
    _make_encoder(None, _no_default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
    if _make_encoder is not None
    else None
)
_COMPACT = json.JSONEncoder(separators=(",", ":")).encode


def dump_line(entry: JournalLine) -> str:
    """One journal line (compact JSON, the keys in a fixed order, a newline)."""
    if type(entry) is ActionLine:
        return action_text(entry.n, entry.action, entry.tag)
    obj = entry.to_json()
    return ("".join(_ENCODE(obj, 0)) if _ENCODE is not None else _COMPACT(obj)) + "\n"


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
            port = obj["port"]
            return PortLine(port) if type(port) is int and 0 < port < 65536 else None
        if "pk" in obj or "pd" in obj or "po" in obj:  # the private deck's tape (net/private.py)
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


def carried(core: GameCore) -> str:
    """The lines a journal starts with: this seat's action key, the peer's tags on its
    actions of the last two games (our journal may lose the tail of the peer's: it may
    need them back), and a pending resignation request."""
    lines = [dump_line(KeyLine(core.key))]
    first = core.match.game_number - 1
    for k in range(core.window_start, core.position):  # the window: the last two games
        tag = core.tags[k]
        if tag is not None and core.authors[k] != core.seat and core.actions[k].game >= first:
            lines.append(dump_line(TagLine(k, tag)))
    lines.extend(dump_line(RequestLine(g)) for g in sorted(core.requests) if g == core.match.game_number)
    if core.private is not None:  # the private deck's tape of this game and the one before
        lines.extend(dump_line(TapeLine(e)) for e in core.private.entries)
    return "".join(lines)


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


@dataclass
class _Written:
    """The record file as this keeper last wrote it: its finished games' text is copied
    from it, byte for byte, into the next rewrite."""

    fd: int  # open for reading on the file written (its inode: a rename over it cannot change it)
    start: int  # the byte offset of the first game's text
    end: int  # the byte offset just after the last finished game's text
    games: int  # how many finished games it holds
    actions: int  # how many actions those games hold


COPY_BYTES = 1 << 20  # the finished games are copied a mebibyte at a time


class RecordKeeper:
    """Writes the record and its journal; every write that fails raises StorageError.
    The session calls it before an action is sent or shown (``append``), when this
    seat asks to resign off turn (``request``, fsynced) and at a game's end
    (``game_over``: the record's checkpoint, when due).

    It never needs the whole match in memory (the match keeps only its current game):
    a rewrite copies the finished games from the record it wrote last (their text does
    not change), then writes the games played since then from the journal (their
    results from ``match.results``), then the current game.  ``played``: the actions of
    the match so far (a resumed match's; None: the match's own, which it must keep all
    of), written into the first record.
    """

    def __init__(
        self,
        path: Path,
        match: Match,
        match_id: bytes,
        max_games: int | None,
        code_key: bytes | None = None,
        seed_from_host: bool | None = None,
        played: Sequence[Action] | None = None,
        private: Sequence[GameOutcome] | None = None,
    ) -> None:
        if played is None:
            played = match_actions(match)
        moves = sum(a.move is not None for a in played)
        resigned = sum(r is not None and r.reason == WIN_RESIGN for r in match.results)
        if (moves, len(played) - moves) != (match.total_moves, resigned):
            raise ValueError(
                f"{len(played)} actions given for a match of {match.total_moves} moves "
                f"and {resigned} resignations"
            )
        self.path = Path(path)
        self.extra = record_extra(match_id, max_games, code_key, seed_from_host)
        self.private = private  # a private-deck match: each game's deck (a version-2 record)
        self.port: int | None = None  # the host's listening port, kept in the journal
        self._match = match
        self._core: GameCore | None = None
        self._fd: int | None = None
        self._last_sync = 0.0
        self._written: _Written | None = None
        # the actions beyond the last record's finished games that the journal does not hold
        self._pending: list[Action] = list(played)
        self._position = len(played)  # the actions of the match so far
        self._closed: Path | None = None  # the final record, once closed
        # (n, offset): the journal's lines from byte ``offset`` on hold its actions from n on
        # (the next rewrite reads the journal from there, not from its start)
        self._mark = (0, 0)
        self.save()
        jp = journal_path(self.path)
        try:  # the record just saved holds every action so far: start the journal afresh
            # (appending after a torn last line would merge it with the next one)
            self._fd = os.open(jp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        except OSError as e:
            raise StorageError(f"cannot write {jp}: {e.strerror or e}") from None
        self._mark = (self._position, 0)

    def save(self) -> Path:
        """Write the whole record (atomically: temporary file, fsync, rename)."""
        try:
            return self._rewrite()
        except OSError as e:
            raise StorageError(f"cannot write the record {self.path}: {e.strerror or e}") from None

    def _rewrite(self) -> Path:
        old = self._written
        written = [0]  # bytes handed to the file so far

        def counted(pieces: Iterable[str]) -> Iterator[str]:
            for piece in pieces:
                written[0] += len(piece.encode())
                yield piece

        new = _Written(-1, 0, 0, 0, 0)
        pending: list[Action] = []

        def games() -> Iterator[str]:
            new.start = new.end = offset = written[0]
            first = 1
            if old is not None and old.games:
                for at in range(old.start, old.end, COPY_BYTES):
                    chunk = os.pread(old.fd, min(COPY_BYTES, old.end - at), at)
                    if not chunk:
                        raise OSError(f"{self.path} was cut short while it was being rewritten")
                    yield chunk.decode("ascii")
                new.games, new.actions = old.games, old.actions
                new.end = offset = old.end - old.start + new.start
                first = old.games + 1
            source = self._actions_since(new.actions)
            nxt = next(source, None)
            results = self._match.results
            for g in range(first, self._match.game_number + 1):
                acts: list[Action] = []
                while nxt is not None and nxt.game == g:
                    acts.append(nxt)
                    nxt = next(source, None)
                game: dict[str, Any] = {"moves": [list(a.move) for a in acts if a.move is not None]}
                result = results[g - 1]
                if result is not None:
                    game["result"] = result.to_json()
                game.update(recordmod.private_keys(self.private, g))
                text = game_text(game) if g == 1 else ",\n" + game_text(game)
                yield text
                offset += len(text)
                if result is not None:
                    new.games, new.actions, new.end = g, new.actions + len(acts), offset
                else:
                    pending.extend(acts)
            if nxt is not None:
                raise OSError(f"an action of game {nxt.game} after game {self._match.game_number}")

        head = recordmod.head(self._match, self.extra, self.private)
        path = recordmod.write_atomic(self.path, counted(recordmod.iter_record(head, games())))
        new.fd = os.open(path, os.O_RDONLY)
        if old is not None:
            os.close(old.fd)
        self._written, self._pending = new, pending
        if self._fd is not None:  # the actions to come are written from here on
            self._mark = (self._position, os.fstat(self._fd).st_size)
        return path

    def _actions_since(self, first: int) -> Iterator[Action]:
        """The match's actions numbered ``first`` and on: those kept from the last rewrite,
        then the journal's; OSError if they do not reach the match's position."""
        n = first
        for a in self._pending:
            yield a
            n += 1
        if n < self._position:
            at, offset = self._mark
            for a in iter_journal(journal_path(self.path), n, offset if at <= n else 0):
                yield a
                n += 1
                if n == self._position:
                    break
        if n != self._position:
            raise OSError(f"its journal holds actions {first} to {n - 1}, not up to {self._position - 1}")

    def append(self, n: int, action: Action, tag: bytes | None) -> None:
        if self._fd is not None:
            self._write(action_text(n, action, tag))
        self._position = n + 1  # (a line that could not be written is not counted)

    def request(self, game: int) -> None:
        self._write(dump_line(RequestLine(game)), sync=True)

    def deck_tape(self, entry: TapeEntry) -> None:
        """The private deck's tape (net/private.py), fsynced: the shell writes it before
        anything that depends on it leaves (a secret before its KEY, a peer's pass before
        our pass over it, a share owed before the share), so a restarted seat never makes
        a pass, a key or a share again over an input it has forgotten."""
        self._write(dump_line(TapeLine(entry)), sync=True)

    def carry(self, core: GameCore) -> None:
        """Start the journal with what must outlive this session (:func:`carried`); the
        journal started afresh after each rewrite of the record starts with it too."""
        self._core = core
        self._write(self._carried(core), sync=True)

    def _carried(self, core: GameCore) -> str:
        """:func:`carried`, the host's port line second (``history`` reads no further)."""
        text = carried(core)
        if self.port is None:
            return text
        first, _nl, rest = text.partition("\n")
        return first + "\n" + dump_line(PortLine(self.port)) + rest

    def _fresh_journal(self) -> None:
        """The record was just rewritten with every action so far: start the journal afresh
        (what :func:`carried` says, then the actions to come).  The new file replaces the old
        one only once it is written and fsynced, so a crash leaves one or the other."""
        if self._fd is None:
            return
        jp = journal_path(self.path)
        tmp = jp.with_name(jp.name + ".new")
        text = self._carried(self._core) if self._core is not None else ""
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
            try:
                os.write(fd, text.encode())
                os.fsync(fd)
                os.replace(tmp, jp)
            except BaseException:
                os.close(fd)
                raise
            recordmod.fsync_dir(jp.parent)
        except OSError as e:
            raise StorageError(f"cannot write {jp}: {e.strerror or e}") from None
        if self._fd is not None:
            os.close(self._fd)
        self._fd = fd
        self._mark = (self._position, len(text.encode()))
        self._last_sync = time.monotonic()

    def _write(self, text: str, sync: bool = False) -> None:
        if self._fd is None:
            return
        try:
            os.write(self._fd, text.encode())
            now = time.monotonic()
            if sync or now - self._last_sync >= FSYNC_EVERY:
                self._last_sync = now
                os.fsync(self._fd)
        except OSError as e:
            raise StorageError(f"cannot write {journal_path(self.path)}: {e.strerror or e}") from None

    def game_over(self, match: Match) -> None:
        """A game ended: rewrite the record when it is due, and then start the journal
        afresh if it has grown past ``FRESH_JOURNAL_BYTES`` (a small one is kept whole:
        the peer's tags in it can still be given back)."""
        if checkpoint_due(match.game_number) and not self._outcome_due(match.game_number):
            self.save()
            try:
                big = self._fd is not None and os.fstat(self._fd).st_size > FRESH_JOURNAL_BYTES
            except OSError as e:
                raise StorageError(f"cannot read {journal_path(self.path)}: {e.strerror or e}") from None
            if big:
                self._fresh_journal()

    def amend(self) -> None:
        """After :meth:`close`: a private game's outcome that came after the record was
        written (the peer's secret follows a resignation): the record is written again."""
        path = self._closed
        if path is None or self.private is None:
            return
        try:
            data = json.loads(path.read_text())
            for g, game in enumerate(data["games"], 1):
                for k in ("deck", "reshuffles", "cheat"):
                    game.pop(k, None)
                game.update(recordmod.private_keys(self.private, g))
            recordmod.write_atomic(path, recordmod.dumps(data))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise StorageError(f"cannot write the record {path}: {e}") from None

    def _outcome_due(self, games: int) -> bool:
        """A private game finished whose deck has not come yet (the peer's secret follows a
        resignation): no checkpoint then, since a checkpoint's finished games are copied
        as they are into every later rewrite; the next one, or the journal, keeps it."""
        p = self.private
        return p is not None and (len(p) < games or any(o is None for o in p[:games]))

    def close(self, *, keep_journal: bool = False) -> Path:
        """Write the full record; the journal is no longer needed (unless kept)."""
        if self._closed is not None:
            return self._closed
        path = self._closed = self.save()
        if self._written is not None:
            os.close(self._written.fd)
        if self._fd is not None:
            with contextlib.suppress(OSError):  # the record just saved holds every action
                os.close(self._fd)
            self._fd = None
            if not keep_journal:
                with contextlib.suppress(OSError):
                    os.unlink(journal_path(self.path))
        return path


@dataclass
class Saved:
    """What ``--resume`` needs from a record (and its journal)."""

    seed: bytes
    target: int
    players: tuple[str, str]
    match_id: bytes
    max_games: int | None
    actions: list[Action]
    path: Path | None = None
    code_key: bytes | None = None  # the join code's key the match was played with
    seed_from_host: bool | None = None  # the host chose the seed (False: both drew it; None: not known)
    key: bytes | None = None  # this seat's action key, from its journal
    tags: dict[int, bytes] = field(default_factory=dict)  # the peer's tags on its actions
    requests: set[int] = field(default_factory=set)  # games this seat asked to resign
    # a private-deck match (docs/fairness.md): each game's deck the record holds, and the tape
    private: bool = False
    decks: list[GameDeck | None] = field(default_factory=list)
    tape: list[TapeEntry] = field(default_factory=list)


def _resigns(result: Any) -> bool:
    """Does a record's (verified) game result say a resignation (an action of its own)?"""
    return isinstance(result, dict) and result.get("reason") == WIN_RESIGN and result.get("winner") in (0, 1)


def record_actions(rec: recordmod.Record, *, drop: bool = False) -> list[Action]:
    """The actions of a record's games; ``drop``: forget each game's moves as read (the
    record is not needed afterwards: a long one is then never in memory twice)."""
    actions: list[Action] = []
    for g, game in enumerate(rec.games, 1):
        for i, raw in enumerate(game.moves, 1):
            try:
                m = move_from_json(raw)
            except ValueError as e:
                raise recordmod.RecordError(str(e), game=g, move=i) from None
            actions.append(Action(g, m.seat, m))
        if drop:
            game.moves = []
        if _resigns(game.result):
            actions.append(Action(g, 1 - game.result["winner"]))
    return actions


def match_actions(match: Match) -> list[Action]:
    """The actions of a match that keeps all its games (its moves and resignations)."""
    if not match.keeps_all:
        raise ValueError(f"the match keeps only its games from {match.first_kept} on")
    actions: list[Action] = []
    for state, moves in zip(match.games, match.moves, strict=True):
        actions.extend(Action(state.game, m.seat, m) for m in moves)
        r = state.result
        if r is not None and r.reason == WIN_RESIGN and r.winner is not None:
            actions.append(Action(state.game, 1 - r.winner))
    return actions


def load_saved(path: Path) -> Saved:
    """Read a record written by a network match, plus its journal if one is beside it."""
    rec = recordmod.load(path)
    recordmod.verify(rec, in_play=True, keep_all=False)  # raises RecordError naming the problem
    if rec.private and rec.games and rec.games[-1].result is None and rec.games[-1].deck is not None:
        raise UserError(
            f"{path}: a player left this private match in the middle of game {len(rec.games)} and both "
            "secrets were revealed, so it cannot be resumed (start a new match)"
        )
    mid = rec.extra.get("match_id")
    try:
        match_id = bytes.fromhex(mid) if isinstance(mid, str) else b""
    except ValueError:
        match_id = b""
    if len(match_id) != 16:
        raise UserError(f"{shown_path(path)} is not the record of a network match (no match_id)")
    mg = rec.extra.get("max_games")
    max_games = mg if type(mg) is int and mg > 0 else None
    actions = record_actions(rec, drop=True)
    tail = read_journal_tail(journal_path(path), len(actions))
    actions.extend(tail.actions)
    jk = rec.extra.get("join_key")
    try:
        code_key = bytes.fromhex(jk) if isinstance(jk, str) else None
    except ValueError:
        code_key = None
    by = rec.extra.get("seed_by")
    origin = True if by == "host" else False if by == "both" else None
    return Saved(
        rec.seed,
        rec.target,
        rec.players,
        match_id,
        max_games,
        actions,
        Path(path),
        code_key,
        origin,
        tail.key,
        {n: t for n, t in tail.tags.items() if n < len(actions)},
        tail.requests,
        rec.private,
        [GameDeck(g.deck, g.reshuffles) if g.deck is not None else None for g in rec.games],
        tail.tape,
    )


@dataclass
class JournalTail:
    actions: list[Action]
    key: bytes | None = None
    tape: list[TapeEntry] = field(default_factory=list)  # a private-deck match's tape
    tags: dict[int, bytes] = field(default_factory=dict)
    requests: set[int] = field(default_factory=set)
    port: int | None = None  # the host's listening port


def _hex(v: object, size: int) -> bytes | None:
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else b""
    except ValueError:
        return None
    return b if len(b) == size else None


def read_journal(path: Path, start: int) -> list[Action]:
    """The journal's actions numbered ``start`` and on, stopping at the first bad or torn line."""
    return read_journal_tail(path, start).actions


def read_journal_tail(path: Path, start: int) -> JournalTail:
    """What the journal holds: the actions numbered ``start`` and on (stopping at the first
    bad or torn line), the action key, the peer's tags and the resignation requests.
    Read a line at a time: a long match's journal is never all in memory."""
    tail = JournalTail([])
    try:
        with recordmod.open_regular(path) as f:
            size = 0
            for line in _lines(f):
                size += len(line)
                if size > MAX_JOURNAL_BYTES or not line.endswith(b"\n"):  # a torn last line
                    break
                if not _read_line(tail, line, start):
                    break
    except FileNotFoundError:
        pass
    except OSError as e:
        raise UserError(f"cannot read {shown_path(path)}: {e.strerror or e}") from None
    return tail


def journal_port(path: Path) -> int | None:
    """The host's listening port from the journal's first lines (None: none there)."""
    try:
        with recordmod.open_regular(path) as f:
            for _k, line in zip(range(2), _lines(f), strict=False):
                with contextlib.suppress(ValueError):
                    entry = parse_line(line)
                    if isinstance(entry, PortLine):
                        return entry.port
    except OSError:
        pass
    return None


def _lines(f: BinaryIO) -> Iterator[bytes]:
    """The file's lines, none longer than MAX_JOURNAL_LINE: a longer one comes out cut
    (without its newline, so the reader stops there), and nothing after it is read."""
    while line := f.readline(MAX_JOURNAL_LINE):
        yield line
        if not line.endswith(b"\n"):
            return


def _read_line(tail: JournalTail, line: bytes, start: int) -> bool:
    """Take in one journal line; False at a bad line or one out of sequence (stop there)."""
    try:
        entry = parse_line(line)
    except ValueError:
        return False
    if isinstance(entry, KeyLine):
        tail.key = entry.key
    elif isinstance(entry, RequestLine):
        tail.requests.add(entry.game)
    elif isinstance(entry, PortLine):
        tail.port = entry.port
    elif isinstance(entry, TagLine):
        tail.tags[entry.n] = entry.tag
    elif isinstance(entry, TapeLine):
        tail.tape.append(entry.entry)
    if not isinstance(entry, ActionLine):
        return True
    out = tail.actions
    n, action, t = entry.n, entry.action, entry.tag
    if t is not None and n < start + len(out) + 1:
        tail.tags[n] = t
    if n < start + len(out):
        return True  # already in the record
    if n != start + len(out):
        return False
    out.append(action)
    return True


def iter_journal(path: Path, start: int, offset: int = 0) -> Iterator[Action]:
    """The journal's actions numbered ``start`` and on, one at a time (nothing else of it
    is kept: writing a long match's record from it needs no more than a line in memory),
    stopping at the first bad, torn or out-of-sequence line.  ``offset``: where to start
    reading (a line's start, with no action numbered ``start`` or more before it)."""
    try:
        with recordmod.open_regular(path) as f:
            f.seek(offset)
            for line in _lines(f):
                if not line.endswith(b"\n"):
                    return
                try:
                    entry = parse_line(line)
                except ValueError:
                    return
                if isinstance(entry, ActionLine):
                    if entry.n > start:
                        return
                    if entry.n == start:
                        start += 1
                        yield entry.action
    except FileNotFoundError:
        return
    except OSError as e:
        raise UserError(f"cannot read {shown_path(path)}: {e.strerror or e}") from None


def play_action(match: Match, action: Action) -> None:
    """Play ``action`` on ``match`` (RulesError if the rules refuse it), dealing the next
    game first if the current one is over."""
    if match.game.result is not None:
        match.next_game()
    if action.move is None:
        match.resign(action.seat)
    else:
        match.apply(action.move)


def unchecked_private(path: Path, rec: recordmod.Record) -> int:
    """The actions of a private-deck match that cannot be checked yet: those of a last game
    whose deck is not revealed (stopped by a crash or a lost connection), in the record and
    beyond it in the journal; ``--resume`` finishes the game and reveals the deck."""
    if not rec.private or not rec.games or rec.games[-1].deck is not None:
        return 0
    last = rec.games[-1]
    done = sum(len(g.moves) + _resigns(g.result) for g in rec.games)
    return len(last.moves) + len(read_journal_tail(journal_path(path), done).actions)


def replay_with_journal(path: Path, rec: recordmod.Record, match: Match) -> int:
    """Play onto ``match`` (``rec``, the record at ``path``, verified) the actions its
    journal holds beyond the record: a match that was interrupted (a crash, ``kill -9``,
    a lost connection) is complete only in record + journal, as ``--resume`` reads it.
    Returns how many actions came from the journal; the engine checks each one."""
    jpath = journal_path(path)
    if rec.private:
        return 0  # a private-deck game in play: its deck is not revealed, its moves cannot be checked
    tail = read_journal_tail(jpath, sum(len(g.moves) + _resigns(g.result) for g in rec.games))
    for i, a in enumerate(tail.actions, 1):
        try:
            play_action(match, a)
        except RulesError as e:
            raise UserError(
                f"{shown_path(jpath)}: its action {i} beyond the record does not replay: {e}"
            ) from None
    return len(tail.actions)
