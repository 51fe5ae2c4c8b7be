"""``p2p-spite history``: the matches saved in the records folder, newest first.

Whose side a record is told from comes from its file name: ``host`` writes
``...-host-PID.json`` and ``play`` ``...-play-PID.json`` (seat 0), ``join`` writes
``...-join-PID.json`` (seat 1); the later matches played on the same connection
add their number, ``...-host-PID-2.json``.  A ``play`` match (against the computer on this
machine) is resumed with ``play --resume`` (not a private-deck one: the computer's keys
left with its program); its record names the computer's level.  Both peers' records are
the same bytes, so the record itself cannot say.  A record named otherwise is
listed by its two names and left out of the totals.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..contracts.i18n import _, ngettext, pgettext
from ..contracts.plaintext import clean_name, shown_path
from ..engine import Match
from ..net import DEFAULT_PORT
from ..net.localaddr import dial_form
from ..storage import record
from ..storage.journal import journal_path, journal_where
from ..storage.paths import data_dir

_KIND = re.compile(r"-(host|join|play)-\d+(?:-\d+)?\.json$")


def records_dir() -> Path:
    return data_dir() / "records"


@dataclass(frozen=True)
class Entry:
    path: Path
    mtime: float
    players: tuple[str, str]
    seat: int | None  # ours, when the file name says it
    scores: tuple[int, int]
    winner: int | None  # of the match
    finished: bool  # decided, or stopped at its game limit
    network: bool  # a network match's record (``play``'s too: the computer joins as a peer)
    resumable: bool  # unfinished, and ``--resume`` can take it up
    games: tuple[int, int, int]  # won, lost, drawn, from ``seat``'s side (seat 0's if unknown)
    port: int | None = None  # the host's listening port, from the journal of an unfinished match
    host: str = ""  # (a joiner's record: the host's address, as it dialed it)
    computer: str | None = None  # a match against the computer (``play``): its level ("" not known)
    winners: tuple[int | None, ...] = ()  # each finished game's winner (None: drawn), in order


def _finished(match: Match, max_games: object) -> bool:
    if match.over:
        return True
    done = [r for r in match.results if r is not None]
    return type(max_games) is int and len(done) >= max_games


def seat_of(path: Path) -> int | None:
    """Our seat in a record, from its file name (None: it does not say)."""
    m = _KIND.search(path.name)
    return None if m is None else (1 if m.group(1) == "join" else 0)


def read_entry(path: Path) -> Entry:
    """One record summed up; raises ValueError (RecordError) or OSError if it cannot be read."""
    rec = record.load(path)
    match = record.verify(rec, in_play=True, keep_all=False)
    m = _KIND.search(path.name)
    seat = seat_of(path)
    me = seat or 0
    won = lost = drawn = 0
    # a last game whose deck the record cannot give (a cheat, a secret that never came): the
    # match stopped there; its result counts as the record gives it (verify checked the scores)
    stopped = rec.private and bool(rec.games) and record.unchecked_reason(rec.games[-1]) is not None
    last = record.unchecked_result(rec.games[-1], len(rec.games)) if stopped else None
    scores = rec.scores if stopped and rec.scores is not None else match.scores
    for r in [*match.results, last]:
        if r is None:
            continue
        if r.winner is None:
            drawn += 1
        elif r.winner == me:
            won += 1
        else:
            lost += 1
    computer = None
    if m is not None and m.group(1) == "play":
        level = rec.extra.get("computer")
        computer = level if isinstance(level, str) and level.isprintable() and len(level) <= 20 else ""
    network = isinstance(rec.extra.get("match_id"), str)
    finished = stopped or _finished(match, rec.extra.get("max_games"))
    where = None if finished or computer is not None else journal_where(journal_path(path))
    return Entry(
        path=path,
        mtime=path.stat().st_mtime,
        players=rec.players,
        seat=seat,
        scores=(scores[0], scores[1]),
        winner=match.winner,
        finished=finished,
        network=network,
        resumable=network and not finished and _resumable(rec, path, computer is not None),
        games=(won, lost, drawn),
        port=where.port if where is not None else None,
        host=where.host if where is not None else "",
        computer=computer,
        winners=tuple(r.winner for r in match.results if r is not None),
    )


def _resumable(rec: record.Record, path: Path, computer: bool) -> bool:
    """Can ``--resume`` take up this unfinished match?  Not a private one against the computer
    (``computer``): the computer's keys to the deck left with its program."""
    if rec.private:
        return not computer and _private_resumable(rec, path)
    return True


def _private_resumable(rec: record.Record, path: Path) -> bool:
    """A private match resumes from its journal's private-deck tape, and not once the
    unfinished game's deck was revealed (a player left it: docs/fairness.md)."""
    last = rec.games[-1] if rec.games else None
    if last is not None and last.result is None and last.deck is not None:
        return False
    from ..storage.journal import journal_path

    try:  # (only a regular file, never blocking on a FIFO, and a bounded read)
        fd = os.open(journal_path(path), os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return last is not None and last.result is not None  # the next game starts afresh
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and b'"pk"' in os.read(fd, 1 << 20)
    except OSError:
        return False
    finally:
        os.close(fd)


def scan(folder: Path | None = None) -> tuple[list[Entry], list[Path]]:
    """The records of ``folder`` (default: the records folder), newest first, and
    the files that could not be read."""
    folder = records_dir() if folder is None else folder
    entries: list[Entry] = []
    bad: list[Path] = []
    try:
        paths = sorted(folder.glob("*.json"))
    except OSError:
        return [], []
    for p in paths:
        try:
            entries.append(read_entry(p))
        except (OSError, ValueError):
            bad.append(p)
    entries.sort(key=lambda e: (e.mtime, e.path.name), reverse=True)
    return entries, bad


def _results() -> dict[str, str]:
    return {
        "finished": pgettext("match", "finished"),
        "unfinished": pgettext("match", "unfinished"),
        "won": pgettext("match", "won"),
        "lost": pgettext("match", "lost"),
        "stopped": pgettext("match", "stopped"),
    }


def describe(e: Entry) -> str:
    """One line: when, who (ours first), the result and score (ours first), games, resumable."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.mtime))
    a, b = (clean_name(n) or _("seat {n}").format(n=i) for i, n in enumerate(e.players))
    if e.seat is None:
        who = _("{a} vs {b}").format(a=a, b=b)
        score = f"{e.scores[0]}-{e.scores[1]}"
        result = "finished" if e.finished else "unfinished"
    else:
        who = _("{a} vs {b}").format(a=(a, b)[e.seat], b=(a, b)[1 - e.seat])  # ours first
        mine, theirs = e.scores[e.seat], e.scores[1 - e.seat]
        score = f"{mine}-{theirs}"
        if e.winner is not None:
            result = "won" if e.winner == e.seat else "lost"
        else:
            result = "stopped" if e.finished else "unfinished"
    words = _results()
    wide = max(map(len, words.values()))
    won, lost, drawn = e.games
    if drawn:
        games = ngettext("games {won}-{lost}, {n} drawn", "games {won}-{lost}, {n} drawn", drawn).format(
            won=won, lost=lost, n=drawn
        )
    else:
        games = _("games {won}-{lost}").format(won=won, lost=lost)
    line = f"{when}  {who:<22}  {words[result]:<{wide}} {score:<7}  {games}"
    if e.resumable:
        if e.computer is not None:
            how = "play"
        elif e.seat == 1:
            known = e.host and e.port is not None
            how = f"join {dial_form(e.host, e.port or 0, DEFAULT_PORT)}" if known else "join HOST"
        else:
            how = "host" if e.port is None else f"host --port {e.port}"
        line += "  " + _("resumable: {command}").format(
            command=f"p2p-spite {how} --resume {shown_path(e.path)}"
        )
    return line


def totals(entries: list[Entry]) -> str:
    mine = [e for e in entries if e.seat is not None]
    won = sum(1 for e in mine if e.winner == e.seat)
    lost = sum(1 for e in mine if e.winner is not None and e.winner != e.seat)
    gw, gl, gd = (sum(e.games[i] for e in mine) for i in range(3))
    open_ = sum(1 for e in mine if not e.finished)
    if open_:
        text = ngettext(
            "matches: {won} won, {lost} lost, {open} unfinished",
            "matches: {won} won, {lost} lost, {open} unfinished",
            open_,
        ).format(won=won, lost=lost, open=open_)
    else:
        text = _("matches: {won} won, {lost} lost").format(won=won, lost=lost)
    text += _("; games: {won} won, {lost} lost, {drawn} drawn").format(won=gw, lost=gl, drawn=gd)
    left_out = len(entries) - len(mine)
    if left_out:
        text += ngettext(
            " ({n} record of unknown side not counted)",
            " ({n} records of unknown side not counted)",
            left_out,
        ).format(n=left_out)
    return text


def _mtime(path: Path) -> float | None:
    """When ``path`` was last written; None if it cannot be told (a dangling link...)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None


@dataclass
class Opponent:
    """``history --stats``: one opponent's record against us (a computer: one per level)."""

    name: str
    level: str | None  # the computer's level (None: a person; "": not known)
    matches: list[int]  # won, lost, undecided (unfinished, or stopped at its game limit)
    games: list[int]  # won, lost, drawn
    points: list[int]  # for, against
    streak: int = 0  # the most games won in a row (across its matches, oldest first)
    margins: list[int] = field(default_factory=list)  # each decided match's score, ours minus theirs

    @property
    def margin(self) -> float | None:
        """The average margin of the decided matches (None: none decided)."""
        return sum(self.margins) / len(self.margins) if self.margins else None


def stats(entries: list[Entry]) -> list[Opponent]:
    """Our record against each opponent (the records of a known side; the computer by
    level), most matches first."""
    found: dict[tuple[str, str | None], Opponent] = {}
    runs: dict[tuple[str, str | None], int] = {}
    for e in sorted(entries, key=lambda e: (e.mtime, e.path.name)):  # oldest first, for the streaks
        if e.seat is None:
            continue
        name = clean_name(e.players[1 - e.seat]) or _("seat {n}").format(n=1 - e.seat)
        key = (name, e.computer)
        o = found.get(key)
        if o is None:
            o = found[key] = Opponent(name, e.computer, [0, 0, 0], [0, 0, 0], [0, 0])
        if e.winner is None:
            o.matches[2] += 1
        else:
            o.matches[0 if e.winner == e.seat else 1] += 1
            o.margins.append(e.scores[e.seat] - e.scores[1 - e.seat])
        for i in range(3):
            o.games[i] += e.games[i]
        o.points[0] += e.scores[e.seat]
        o.points[1] += e.scores[1 - e.seat]
        run = runs.get(key, 0)
        for w in e.winners:
            run = run + 1 if w == e.seat else 0
            o.streak = max(o.streak, run)
        runs[key] = run
    return sorted(found.values(), key=lambda o: (-sum(o.matches), o.name, o.level or ""))


def stats_lines(opponents: list[Opponent]) -> list[str]:
    """``history --stats``: a table, one line per opponent."""
    head = [
        _("opponent"),
        _("matches won-lost"),
        _("games won-lost-drawn"),
        _("points for-against"),
        _("longest streak"),
        _("average margin"),
    ]
    rows = []
    for o in opponents:
        level = o.level or "?"
        who = o.name if o.level is None else _("{name} ({level})").format(name=o.name, level=level)
        matches = f"{o.matches[0]}-{o.matches[1]}"
        if o.matches[2]:
            matches += " " + ngettext("(+{n} undecided)", "(+{n} undecided)", o.matches[2]).format(
                n=o.matches[2]
            )
        margin = o.margin
        rows.append(
            [
                who,
                matches,
                "-".join(map(str, o.games)),
                "-".join(map(str, o.points)),
                str(o.streak),
                "-" if margin is None else f"{margin:+.1f}",
            ]
        )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]


def latest_unfinished_play(folder: Path | None = None) -> Entry | None:
    """The newest match against the computer that ``play --resume`` can take up."""
    entries, _bad = scan(folder)
    return next((e for e in entries if e.computer is not None and e.resumable), None)


def latest(folder: Path | None = None) -> Entry | None:
    """The newest record that reads (without reading every older one)."""
    folder = records_dir() if folder is None else folder
    try:
        dated = [(m, p) for p in folder.glob("*.json") if (m := _mtime(p)) is not None]
    except OSError:
        return None
    dated.sort(key=lambda mp: mp[0], reverse=True)
    for _m, p in dated:
        try:
            return read_entry(p)
        except (OSError, ValueError):
            continue
    return None


__all__ = [
    "Entry",
    "Opponent",
    "describe",
    "latest",
    "latest_unfinished_play",
    "read_entry",
    "records_dir",
    "scan",
    "seat_of",
    "stats",
    "stats_lines",
    "totals",
]
