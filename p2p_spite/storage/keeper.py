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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contracts.errors import StorageError, storage_problem
from ..contracts.news import Keeping
from ..core.game import Action, GameCore
from ..core.handshake import SeedOrigin
from ..core.outcomes import GameOutcome
from ..core.private import PrivateDeck
from ..core.tape import TapeEntry
from ..engine import Match
from ..engine.state import WIN_RESIGN
from . import record as recordmod
from .journal import iter_journal, journal_path
from .lines import KeyLine, PortLine, RequestLine, TagLine, TapeLine, action_text, dump_line
from .record import game_text
from .resume import match_actions

FSYNC_EVERY = 0.5  # seconds


FRESH_JOURNAL_BYTES = 1024 * 1024  # a smaller journal is kept whole at a rewrite


def checkpoint_due(game: int) -> bool:
    """Is the record rewritten when game ``game`` ends?  After games 1, 2, 4, 8, ...:
    each rewrite costs about as much as the games played since the one before it."""
    return game > 0 and game & (game - 1) == 0


def record_extra(
    match_id: bytes, max_games: int | None, code_key: bytes | None = None, seed_by: SeedOrigin | None = None
) -> dict[str, Any]:
    """The record's extra keys, the same on both sides.  ``join_key`` is the key the
    join code stands for (not the code), so that a resumed match needs no new code;
    ``seed_by`` who chose the seed ("host", or "both": commit-reveal; null: not known),
    so that a resumed match still says it right."""
    return {
        "match_id": match_id.hex(),
        "max_games": max_games,
        "join_key": code_key.hex() if code_key else None,
        "seed_by": None if seed_by is None else seed_by.value,
    }


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
    if (deck := PrivateDeck.of(core)) is not None:  # the private deck's tape of this game and the one before
        lines.extend(dump_line(TapeLine(e)) for e in deck.tape.entries)
    return "".join(lines)


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
    of), written into the first record.  ``notes``: keys of this side's own the record
    carries besides (``play``: the computer's level).
    """

    def __init__(
        self,
        path: Path,
        match: Match,
        match_id: bytes,
        max_games: int | None,
        code_key: bytes | None = None,
        seed_by: SeedOrigin | None = None,
        played: Sequence[Action] | None = None,
        private: Sequence[GameOutcome] | None = None,
        notes: Mapping[str, Any] | None = None,
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
        self.extra = record_extra(match_id, max_games, code_key, seed_by) | dict(notes or {})
        self.private = private  # a private-deck match: each game's deck (a version-2 record)
        self.port: int | None = None  # the host's listening port, kept in the journal
        self.host = ""  # (the joiner's: the host's address, as it dialed it)
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
            raise StorageError(storage_problem(e, Keeping.JOURNAL, jp)) from None
        self._mark = (self._position, 0)

    def save(self) -> Path:
        """Write the whole record (atomically: temporary file, fsync, rename)."""
        try:
            return self._rewrite()
        except OSError as e:
            raise StorageError(storage_problem(e, Keeping.RECORD, self.path)) from None

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

    def withdraw(self, n: int) -> None:
        """Action ``n``, the last, was taken back (``undo``): the record is rewritten with the
        actions that stand, then the journal started afresh, so every reader (``--resume``,
        ``replay``) sees only those.  A crash in between leaves the record without the move
        and the old journal with it: the move, as both sides had it before the ``undo``
        went out (docs/protocol.md, *Taking back*)."""
        if n != self._position - 1:
            raise ValueError(f"action {n} is not the last one ({self._position - 1})")
        if n < self._mark[0]:  # in the record's current game, not in the journal
            self._pending.pop()
        self._position = n
        self.save()
        self._fresh_journal()

    def request(self, game: int) -> None:
        self._write(dump_line(RequestLine(game)), sync=True)

    def deck_tape(self, entry: TapeEntry) -> None:
        """The private deck's tape (core/private.py), fsynced: the shell writes it before
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
        return first + "\n" + dump_line(PortLine(self.port, self.host)) + rest

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
            raise StorageError(storage_problem(e, Keeping.JOURNAL, jp)) from None
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
            raise StorageError(storage_problem(e, Keeping.JOURNAL, journal_path(self.path))) from None

    def game_over(self, match: Match) -> None:
        """A game ended: rewrite the record when it is due, and then start the journal
        afresh if it has grown past ``FRESH_JOURNAL_BYTES`` (a small one is kept whole:
        the peer's tags in it can still be given back)."""
        if checkpoint_due(match.game_number) and not self._outcome_due(match.game_number):
            self.save()
            try:
                big = self._fd is not None and os.fstat(self._fd).st_size > FRESH_JOURNAL_BYTES
            except OSError as e:
                raise StorageError(
                    storage_problem(e, Keeping.JOURNAL, journal_path(self.path), reading=True)
                ) from None
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
            raise StorageError(storage_problem(e, Keeping.RECORD, path)) from None

    def _outcome_due(self, games: int) -> bool:
        """A private game finished whose deck has not come yet (the peer's secret follows a
        resignation): no checkpoint then, since a checkpoint's finished games are copied
        as they are into every later rewrite; the next one, or the journal, keeps it."""
        p = self.private
        return p is not None and (len(p) < games or any(o is None for o in p[:games]))

    def discard(self) -> bool:
        """Remove the record and its journal, closed or not (a match that holds nothing to
        keep); False if the record could not be removed (it stays, and is named)."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            return False
        with contextlib.suppress(OSError):
            journal_path(self.path).unlink(missing_ok=True)
        if self._closed is None:
            self._closed = self.path  # (nothing is written any more)
            for fd in (self._written.fd if self._written is not None else None, self._fd):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._written, self._fd = None, None
        return True

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
