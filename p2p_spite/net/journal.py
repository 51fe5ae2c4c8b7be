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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import record as recordmod
from ..engine import Match, Move, RulesError, move_from_json
from ..engine.state import WIN_RESIGN
from ..errors import UserError
from .game import KEY_BYTES, RESIGN, Action, GameCore

FSYNC_EVERY = 0.5  # seconds
# The journal holds the games since the last rewrite (up to half the match), at about
# three times the record's bytes per move.
MAX_JOURNAL_BYTES = 2 * recordmod.MAX_RECORD_BYTES


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


def carried(core: GameCore) -> str:
    """The lines a journal starts with: this seat's action key, the peer's tags on its
    actions of the last two games (our journal may lose the tail of the peer's: it may
    need them back), and a pending resignation request."""
    lines = [f'{{"key":"{core.key.hex()}"}}\n']
    first = core.match.game_number - 1
    n = core.position
    while n > 0 and core.actions[n - 1].game >= first:
        n -= 1
    for k in range(n, core.position):
        tag = core.tags[k]
        if tag is not None and core.authors[k] != core.seat:
            lines.append(f'{{"tag":{k},"a":"{tag.hex()}"}}\n')
    lines.extend(f'{{"req":{g}}}\n' for g in sorted(core.requests) if g == core.match.game_number)
    return "".join(lines)


class RecordKeeper:
    """The :class:`~p2p_spite.net.game.ActionSink` that writes the record and its journal."""

    def __init__(
        self,
        path: Path,
        match: Match,
        match_id: bytes,
        max_games: int | None,
        code_key: bytes | None = None,
        seed_from_host: bool | None = None,
    ) -> None:
        self.path = Path(path)
        self.extra = record_extra(match_id, max_games, code_key, seed_from_host)
        self._match = match
        self._core: GameCore | None = None
        self._fd: int | None = None
        self._last_sync = 0.0
        self.save()
        jp = journal_path(self.path)
        try:  # the record just saved holds every action so far: start the journal afresh
            # (appending after a torn last line would merge it with the next one)
            self._fd = os.open(jp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        except OSError as e:
            raise UserError(f"cannot write {jp}: {e.strerror or e}") from None

    def save(self) -> Path:
        try:
            return recordmod.save(self._match, self.path, self.extra)
        except OSError as e:
            raise UserError(f"cannot write the record {self.path}: {e.strerror or e}") from None

    def append(self, n: int, action: Action, tag: bytes | None) -> None:
        if self._fd is None:
            return
        m = action.move
        a = "" if tag is None else f',"a":"{tag.hex()}"'
        if m is None:
            line = f'{{"n":{n},"g":{action.game},"{RESIGN}":{action.seat}{a}}}\n'
        else:  # the fields were checked (move_from_json + engine): plain ints and known words
            arg = "null" if m.arg is None else m.arg
            mv = f"[{m.seat},\"{m.source}\",{arg},\"{m.target}\",{m.slot}]"
            line = f'{{"n":{n},"g":{action.game},"m":{mv}{a}}}\n'
        self._write(line)

    def request(self, game: int) -> None:
        self._write(f'{{"req":{game}}}\n', sync=True)

    def carry(self, core: GameCore) -> None:
        """Start the journal with what must outlive this session (:func:`carried`); the
        journal started afresh after each rewrite of the record starts with it too."""
        self._core = core
        self._write(carried(core), sync=True)

    def _fresh_journal(self) -> None:
        """The record was just rewritten with every action so far: start the journal afresh
        (what :func:`carried` says, then the actions to come).  The new file replaces the old
        one only once it is written and fsynced, so a crash leaves one or the other."""
        if self._fd is None:
            return
        jp = journal_path(self.path)
        tmp = jp.with_name(jp.name + ".new")
        text = carried(self._core) if self._core is not None else ""
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
            raise UserError(f"cannot write {jp}: {e.strerror or e}") from None
        if self._fd is not None:
            os.close(self._fd)
        self._fd = fd
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
            raise UserError(f"cannot write {journal_path(self.path)}: {e.strerror or e}") from None

    def game_over(self, match: Match) -> None:
        """A game ended: rewrite the record when it is due, and then start the journal
        afresh if it has grown past ``FRESH_JOURNAL_BYTES`` (a small one is kept whole:
        the peer's tags in it can still be given back)."""
        if checkpoint_due(match.game_number):
            self.save()
            if self._fd is not None and os.fstat(self._fd).st_size > FRESH_JOURNAL_BYTES:
                self._fresh_journal()

    def close(self, *, keep_journal: bool = False) -> Path:
        """Write the full record; the journal is no longer needed (unless kept)."""
        path = self.save()
        if self._fd is not None:
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


def record_actions(rec: recordmod.Record) -> list[Action]:
    actions: list[Action] = []
    for g, game in enumerate(rec.games, 1):
        for i, raw in enumerate(game.moves, 1):
            try:
                m = move_from_json(raw)
            except ValueError as e:
                raise recordmod.RecordError(str(e), game=g, move=i) from None
            actions.append(Action(g, m.seat, m))
        res = game.result
        if isinstance(res, dict) and res.get("reason") == WIN_RESIGN and res.get("winner") in (0, 1):
            actions.append(Action(g, 1 - res["winner"]))
    return actions


def load_saved(path: Path) -> Saved:
    """Read a record written by a network match, plus its journal if one is beside it."""
    rec = recordmod.load(path)
    recordmod.verify(rec)  # raises RecordError naming the problem
    mid = rec.extra.get("match_id")
    try:
        match_id = bytes.fromhex(mid) if isinstance(mid, str) else b""
    except ValueError:
        match_id = b""
    if len(match_id) != 16:
        raise UserError(f"{path} is not the record of a network match (no match_id)")
    mg = rec.extra.get("max_games")
    max_games = mg if type(mg) is int and mg > 0 else None
    actions = record_actions(rec)
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
    )


@dataclass
class JournalTail:
    actions: list[Action]
    key: bytes | None = None
    tags: dict[int, bytes] = field(default_factory=dict)
    requests: set[int] = field(default_factory=set)


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
        with open(path, "rb") as f:
            size = 0
            for line in f:
                size += len(line)
                if size > MAX_JOURNAL_BYTES or not line.endswith(b"\n"):  # a torn last line
                    break
                if not _read_line(tail, line, start):
                    break
    except FileNotFoundError:
        pass
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror or e}") from None
    return tail


def _read_line(tail: JournalTail, line: bytes, start: int) -> bool:
    """Take in one journal line; False at a bad line or one out of sequence (stop there)."""
    out = tail.actions
    try:
        obj = json.loads(line)
        if "key" in obj:
            tail.key = _hex(obj["key"], KEY_BYTES)
            return True
        if "req" in obj:
            if type(obj["req"]) is int:
                tail.requests.add(obj["req"])
            return True
        if "tag" in obj:
            t = _hex(obj.get("a"), 32)
            if type(obj["tag"]) is int and t is not None:
                tail.tags[obj["tag"]] = t
            return True
        n, g = obj["n"], obj["g"]
        if type(n) is not int or type(g) is not int:
            return False
        if RESIGN in obj:
            seat = obj[RESIGN]
            if seat not in (0, 1) or type(seat) is not int:
                return False
            action = Action(g, seat)
        else:
            mv: Move = move_from_json(obj["m"])
            action = Action(g, mv.seat, mv)
    except (ValueError, KeyError, TypeError):
        return False
    t = _hex(obj.get("a"), 32)
    if t is not None and n < start + len(out) + 1:
        tail.tags[n] = t
    if n < start + len(out):
        return True  # already in the record
    if n != start + len(out):
        return False
    out.append(action)
    return True


def replay_with_journal(path: Path, rec: recordmod.Record, match: Match) -> int:
    """Play onto ``match`` (``rec``, the record at ``path``, verified) the actions its
    journal holds beyond the record: a match that was interrupted (a crash, ``kill -9``,
    a lost connection) is complete only in record + journal, as ``--resume`` reads it.
    Returns how many actions came from the journal; the engine checks each one."""
    jpath = journal_path(path)
    tail = read_journal_tail(jpath, len(record_actions(rec)))
    for i, a in enumerate(tail.actions, 1):
        try:
            if match.game.result is not None:
                match.next_game()
            if a.move is None:
                match.resign(a.seat)
            else:
                match.apply(a.move)
        except RulesError as e:
            raise UserError(f"{jpath}: its action {i} beyond the record does not replay: {e}") from None
    return len(tail.actions)
