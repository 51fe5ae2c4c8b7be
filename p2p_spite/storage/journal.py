"""Reading a journal back: the actions beyond the record, the key, tags, requests and tape."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ..contracts.errors import UserError, storage_problem
from ..contracts.news import Keeping
from ..contracts.plaintext import shown_path
from ..core.game import Action
from ..core.tape import TapeEntry
from . import record as recordmod
from .lines import MAX_JOURNAL_LINE, ActionLine, KeyLine, PortLine, RequestLine, TagLine, TapeLine, parse_line

# The journal holds the games since the last rewrite (up to half the match), at about
# three times the record's bytes per move.
MAX_JOURNAL_BYTES = 2 * recordmod.MAX_RECORD_BYTES


def journal_path(record_path: Path) -> Path:
    """The journal beside the record at ``record_path``."""
    return record_path.with_name(record_path.name + ".journal")


@dataclass
class JournalTail:
    actions: list[Action]
    key: bytes | None = None
    tape: list[TapeEntry] = field(default_factory=list)  # a private-deck match's tape
    tags: dict[int, bytes] = field(default_factory=dict)
    requests: set[int] = field(default_factory=set)
    port: int | None = None  # the host's listening port


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
        raise UserError(storage_problem(e, Keeping.JOURNAL, shown_path(path), reading=True)) from None
    return tail


def journal_port(path: Path) -> int | None:
    """The host's listening port from the journal's first lines (None: none there)."""
    where = journal_where(path)
    return where.port if where is not None else None


def journal_where(path: Path) -> PortLine | None:
    """Where the match was played from the journal's first lines: the host's port (and
    in the joiner's journal, the host it dialed); None: not there."""
    try:
        with recordmod.open_regular(path) as f:
            for _k, line in zip(range(2), _lines(f), strict=False):
                with contextlib.suppress(ValueError):
                    entry = parse_line(line)
                    if isinstance(entry, PortLine):
                        return entry
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
        raise UserError(storage_problem(e, Keeping.JOURNAL, shown_path(path), reading=True)) from None


MAX_CLAIMS = 1000  # names tried for a later match's record before giving up


def claim_record(wanted: Path) -> Path:
    """A record file of our own for a new match, near ``wanted``: ``wanted`` itself if
    neither it nor its journal exists, else the first free of ``NAME-2``, ``NAME-3``...
    The file is created empty at once (``O_EXCL``), so that no file already there is ever
    written over, even by a program that takes a name meanwhile.  OSError when none is free."""
    wanted.parent.mkdir(parents=True, exist_ok=True)
    for k in range(1, MAX_CLAIMS + 1):
        path = wanted if k == 1 else wanted.with_name(f"{wanted.stem}-{k}{wanted.suffix}")
        if journal_path(path).exists():
            continue
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"no free name for a record beside {wanted}")
