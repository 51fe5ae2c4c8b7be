"""Match records (SPEC section 3): read, write, verify.

A record is one UTF-8 JSON object; with only ``format``, ``version`` and
``seed`` it is a bare seed file.  Version 1 is SPEC's; version 2 is a
private-deck match (docs/fairness.md): each game also carries the deck order
and the reshuffles that its end-of-game reveal established.  :func:`verify` replays a record through the
engine and raises :class:`RecordError` naming the game, the move and the
reason at the first thing that disagrees.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, ParamSpec, TypeVar

from ..contracts.errors import SpiteError
from ..contracts.news import BadRecord, Keeping, StorageProblem
from ..contracts.plaintext import printable, shown_path
from ..engine import DEFAULT_TARGET, GameState, Illegal, IllegalMoveError, Match, Result, parse_seed
from ..engine.state import DRAW_STOCK, WIN_PAYOFF, WIN_RESIGN, EndReason
from ..fairdeck import DeckStream, GameDeck, private_game

FORMAT = "p2p-spite-record"
VERSION = 1
PRIVATE_VERSION = 2  # a private-deck match: docs/fairness.md
MAX_RECORD_BYTES = 256 * 1024 * 1024  # about 30,000 games of easy bots

_KNOWN_KEYS = {"format", "version", "seed", "players", "target", "games", "scores", "private"}
_PRIVATE_GAME_KEYS = ("moves", "result", "deck", "reshuffles")


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _gc_paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """``fn`` run with the cyclic garbage collector paused.  Reading and replaying
    a record makes hundreds of thousands of small lists and tuples and no cycle;
    the collections they set off cost about as much as the replay itself
    (scripts/bench engine).  Reference counting still frees everything."""

    @functools.wraps(fn)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return paused


class RecordError(SpiteError, ValueError):
    """A record that cannot be read or does not replay; says where and why.

    ``bad_move``: the record's move that the rules refused, as written, and ``why``
    their reason (an interface words it in its own terms,
    :func:`p2p_spite.ui.replay.check_failure`).
    """

    def __init__(
        self,
        reason: str,
        game: int | None = None,
        move: int | None = None,
        bad_move: Any = None,
        why: Illegal | None = None,
        unreadable: StorageProblem | None = None,
    ) -> None:
        self.reason = reason
        self.game = game
        self.move = move
        self.bad_move = bad_move
        self.why = why  # the rules' reason, with the position's facts, when they refused bad_move
        # (the words, in the language spoken: p2p_spite.ui.networds)
        super().__init__(unreadable if unreadable is not None else BadRecord(reason, game, move))


@dataclass
class GameRecord:
    moves: list[Any]
    result: Any = None  # the raw JSON result, checked by verify()
    extra: dict[str, Any] = field(default_factory=dict)
    deck: list[int] | None = None  # version 2: the deal, in SPEC's layout
    reshuffles: list[list[int]] = field(default_factory=list)  # version 2: the stock after each


@dataclass
class Record:
    seed: bytes
    players: tuple[str, str] = ("", "")
    target: int = DEFAULT_TARGET
    games: list[GameRecord] = field(default_factory=list)
    scores: list[Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    private: bool = False  # version 2

    @property
    def seed_hex(self) -> str:
        return self.seed.hex()


def _is_int(v: Any) -> bool:
    return type(v) is int


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


@_gc_paused
def loads(text: str | bytes) -> Record:
    """Parse a record's text and check its shape (not its moves: see verify)."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError) as e:
        raise RecordError(f"not a JSON record: {e}") from None
    except RecursionError:
        raise RecordError("not a record: JSON nested too deeply") from None
    return from_json(data)


def _json_excerpt(value: Any, most: int = 40) -> str:
    """A value of the record as its JSON says it (null, not Python's None), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= most else text[: most - 3] + "..."


def from_json(data: Any) -> Record:
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if "format" not in data:
        raise RecordError(f'no "format" key: not a p2p-spite record (it says "format": "{FORMAT}")')
    if data["format"] != FORMAT:
        raise RecordError(f'format must be "{FORMAT}", not {_json_excerpt(data["format"])}')
    version = data.get("version")
    if not _is_int(version) or version not in (VERSION, PRIVATE_VERSION):
        raise RecordError(
            f"unsupported record version {_json_excerpt(version)} "
            f"(this reads versions {VERSION} and {PRIVATE_VERSION})"
        )
    private = version == PRIVATE_VERSION
    if private and data.get("private") is not True:
        raise RecordError('a version 2 record is a private-deck match: "private": true')
    try:
        seed = parse_seed(data.get("seed"))  # type: ignore[arg-type]
    except ValueError as e:
        raise RecordError(f"bad seed: {e}") from None
    players: tuple[str, str] = ("", "")
    if "players" in data:
        p = data["players"]
        if not (isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)):
            raise RecordError("players must be an array of two strings")
        players = (p[0], p[1])
    target = data.get("target", DEFAULT_TARGET)
    if not _is_int(target) or target < 1:
        raise RecordError(f"target must be a positive integer, not {target!r}")
    games_raw = data.get("games", [])
    if not isinstance(games_raw, list):
        raise RecordError("games must be an array")
    games: list[GameRecord] = []
    for n, g in enumerate(games_raw, 1):
        if not isinstance(g, dict):
            raise RecordError("a game is a JSON object", game=n)
        moves = g.get("moves", [])
        if not isinstance(moves, list):
            raise RecordError("moves must be an array", game=n)
        if private:
            extra = {k: v for k, v in g.items() if k not in _PRIVATE_GAME_KEYS}
            deck, reshuffles = _parse_private(g, n)
            games.append(GameRecord(moves, g.get("result"), extra, deck, reshuffles))
        else:
            extra = {k: v for k, v in g.items() if k not in ("moves", "result")}
            games.append(GameRecord(moves, g.get("result"), extra))
    scores = data.get("scores")
    if scores is not None and not (
        isinstance(scores, list) and len(scores) == 2 and all(_is_int(s) for s in scores)
    ):
        raise RecordError("scores must be an array of two integers")
    extra = {k: v for k, v in data.items() if k not in _KNOWN_KEYS or (k == "private" and not private)}
    return Record(seed, players, target, games, scores, extra, private)


def _card_list(value: Any, what: str, game: int) -> list[int]:
    if not isinstance(value, list) or not all(_is_int(c) and 0 <= c < 104 for c in value):
        raise RecordError(f"{what} must be an array of card ids 0..103", game=game)
    return value


def _parse_private(g: dict[str, Any], n: int) -> tuple[list[int] | None, list[list[int]]]:
    deck = g.get("deck")
    if deck is not None:
        deck = _card_list(deck, "deck", n)
        if sorted(deck) != list(range(104)):
            raise RecordError("deck must hold each card id 0..103 exactly once", game=n)
    raw = g.get("reshuffles", [])
    if not isinstance(raw, list):
        raise RecordError("reshuffles must be an array of stock orders", game=n)
    reshuffles = [_card_list(r, f"reshuffle {i}", n) for i, r in enumerate(raw, 1)]
    if deck is None and reshuffles:
        raise RecordError("reshuffles without a deck", game=n)
    return deck, reshuffles


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file (after symlinks): a FIFO, a
    device (a link to /dev/zero) or a directory raises OSError, and opening never blocks
    (a FIFO without a writer would hang a plain ``open``)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else "a device"
            raise OSError(errno.EINVAL, f"not a regular file ({kind})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def load(path: str | os.PathLike[str]) -> Record:
    """Read a record file (RecordError if it is unreadable, not a regular file or malformed)."""
    try:
        with open_regular(path) as f:
            raw = f.read(MAX_RECORD_BYTES + 1)
    except OSError as e:
        why = str(e.strerror or e)
        problem = StorageProblem(Keeping.FILE, shown_path(path), why, reading=True)
        raise RecordError(f"cannot read {shown_path(path)}: {why}", unreadable=problem) from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"larger than {MAX_RECORD_BYTES} bytes")
    return loads(raw)


def _parse_result(raw: Any, game: int) -> Result:
    if not isinstance(raw, dict):
        raise RecordError("result must be an object", game=game)
    winner, points, reason = raw.get("winner"), raw.get("points"), raw.get("reason")
    if reason == DRAW_STOCK:
        if winner is not None or points != 0 or not _is_int(points):
            raise RecordError('a draw is {"winner": null, "points": 0, "reason": "stock"}', game=game)
        return Result(None, 0, DRAW_STOCK)
    if reason not in (WIN_PAYOFF, WIN_RESIGN):
        raise RecordError(f"unknown result reason {reason!r}", game=game)
    if type(winner) is not int or winner not in (0, 1):
        raise RecordError(f"result winner must be 0 or 1, not {winner!r}", game=game)
    if type(points) is not int or points < 0:
        raise RecordError(f"result points must be a non-negative integer, not {points!r}", game=game)
    return Result(winner, points, EndReason(reason))


@_gc_paused
def verify(
    record: Record,
    *,
    in_play: bool = False,
    keep_all: bool = True,
    watch: Callable[[GameState, list[Any]], None] | None = None,
) -> Match:
    """Replay ``record`` from its seed (and, in a private-deck record, each
    game's deck and reshuffles); return the match, or raise RecordError.
    ``keep_all=False``: the match keeps only its last game's moves (and every
    result: enough to check a long record, or sum it up, in flat memory).

    The last game of a private-deck record may still be in play, its deck not
    yet revealed: its moves cannot be checked, and the match returned ends
    with the game before it (``in_play``: even when it is the first game, as
    ``--resume`` reads it; ``replay --check`` says there is nothing to check).
    So may a last game whose deck the record cannot give (a cheat caught, a secret
    that never came): the match returned ends with the game before it, and the
    record's scores are those of the games checked plus that game's result as the
    record gives it (:func:`unchecked_result`), which nothing can check.

    ``watch``: called with each game's state and the record's move before the move is
    played (``review`` takes the seat's views from it)."""
    match = Match(record.seed, record.target, record.players)
    if not keep_all:
        match.keep_current_only()
    last = len(record.games)
    unchecked: Result | None = None
    for n, g in enumerate(record.games, 1):
        if record.private and g.deck is None:
            why = unchecked_reason(g)
            if why is not None:  # a cheat caught, or a secret that never came: the record says so
                if n == last and in_play:
                    if n > 1 and match.over:
                        raise RecordError(f"the match was already decided after game {n - 1}", game=n)
                    unchecked = unchecked_result(g, n)
                    break
                raise RecordError(f"cannot be checked: {why}", game=n)
            if n != last or g.result is not None:
                raise RecordError("a finished private-deck game must give its deck", game=n)
            if n == 1 and not in_play:
                raise RecordError("still being played: its private deck is not revealed yet", game=1)
            break
        if n > 1:
            if match.over:
                raise RecordError(f"the match was already decided after game {n - 1}", game=n)
            match.next_game()
        if g.deck is not None:
            match.use_deal(_dealer(record.seed, n, g.deck, g.reshuffles))
        state = match.game
        apply: Callable[[Any], None] = state.apply  # (the hot path: the match takes the moves later)
        if watch is not None:
            apply = _watched(state, watch)
        for i, m in enumerate(g.moves, 1):
            if state.result is not None:
                raise RecordError(f"a move after the game ended ({state.result.describe()})", game=n, move=i)
            if type(m) is not list:
                raise RecordError("a move is an array [seat, source, arg, target, index]", game=n, move=i)
            try:
                apply(m)
            except IllegalMoveError as e:
                raise RecordError(
                    f"illegal move {json.dumps(m)}: {e.reason}", game=n, move=i, bad_move=m, why=e.why
                ) from None
            except ValueError as e:  # a private deck's reshuffle that is missing or wrong
                raise RecordError(str(e), game=n, move=i) from None
        match.took(g.moves)
        if isinstance(state.stream, DeckStream) and state.stream.used != len(g.reshuffles):
            raise RecordError(
                f"the record gives {len(g.reshuffles)} reshuffles, the game made {state.stream.used}", game=n
            )
        if g.result is None:
            if state.result is not None:
                raise RecordError(
                    f"the game ended after {len(g.moves)} moves ({state.result.describe()}) "
                    "but the record gives no result",
                    game=n,
                )
            if n != last:
                raise RecordError("only the last game may be unfinished, and this one has no result", game=n)
            continue
        claimed = _parse_result(g.result, n)
        if claimed.reason == WIN_RESIGN:
            if state.result is not None:
                raise RecordError(
                    f"the record says a resignation, but the game had already ended "
                    f"({state.result.describe()})",
                    game=n,
                )
            actual = match.resign(1 - claimed.winner)  # type: ignore[operator]
        else:
            if state.result is None:
                raise RecordError(
                    f"the record says {claimed.describe()}, but the game is not over "
                    f"after its {len(g.moves)} moves",
                    game=n,
                )
            actual = state.result
        if actual != claimed:
            raise RecordError(
                f"the record says {claimed.describe()}, but the replay gives {actual.describe()}",
                game=n,
            )
    scores = list(match.scores)
    if unchecked is not None and unchecked.winner is not None:
        scores[unchecked.winner] += unchecked.points
    if record.scores is not None and list(record.scores) != scores:
        with_last = f" with game {last}'s result as the record gives it" if unchecked is not None else ""
        raise RecordError(
            f"the record's scores {record.scores} disagree with the replay's {scores}{with_last}"
        )
    return match


def unchecked_result(g: GameRecord, game: int) -> Result | None:
    """The result a game the replay cannot check gives itself (None: none), read as
    :func:`verify` reads a result (RecordError if it is malformed)."""
    return None if g.result is None else _parse_result(g.result, game)


def _watched(state: GameState, watch: Callable[[GameState, list[Any]], None]) -> Callable[[Any], None]:
    def apply(m: Any) -> None:
        watch(state, m)
        state.apply(m)

    return apply


def unchecked_reason(g: GameRecord) -> str | None:
    """Why a private-deck game's moves cannot be checked, as its record says: the evidence
    of a cheat caught, or of a secret that never came (None: nothing of the kind)."""
    cheat = g.extra.get("cheat")
    if isinstance(cheat, dict) and isinstance(cheat.get("reason"), str):
        return printable(cheat["reason"])[:300]
    return None


def _dealer(seed: bytes, game: int, deck: list[int], orders: list[list[int]]) -> Callable[[], GameState]:
    return lambda: private_game(seed, game, deck, orders)


def to_json(
    match: Match,
    extra: Mapping[str, Any] | None = None,
    private: Sequence[GameDeck | dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """The record of ``match`` as a JSON-ready dict.  ``private`` makes it a
    version-2 private-deck record: ``private[i]`` is what game i+1's
    end-of-game check established (None while that game is played), or the
    evidence of the cheat it found (kept under the game's ``cheat`` key)."""
    return head(match, extra, private, list(_Games(match, private)))


def head(
    match: Match,
    extra: Mapping[str, Any] | None,
    private: Sequence[GameDeck | dict[str, Any] | None] | None = None,
    games: Any = None,
) -> dict[str, Any]:
    """:func:`to_json` with ``games`` in place of the match's games (a lazy sequence, or
    None for a writer that gives their text to :func:`iter_record`)."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION if private is None else PRIVATE_VERSION,
        "seed": match.seed.hex(),
        "players": list(match.players),
        "target": match.target,
        "games": games,
        "scores": list(match.scores),
    }
    if private is not None:
        data["private"] = True
    if extra:
        for k, v in extra.items():
            data.setdefault(k, v)
    return data


class _Games(Sequence[dict[str, Any]]):
    """A match's games as record JSON, each built only when it is read: writing a long
    match's record never holds all of it twice."""

    def __init__(self, match: Match, private: Sequence[GameDeck | dict[str, Any] | None] | None) -> None:
        if not match.keeps_all:
            raise ValueError(
                f"this match keeps only its games from {match.first_kept} on: its record is written "
                "by the one who kept the rest (net.journal.RecordKeeper)"
            )
        self._match = match
        self._private = private

    def __len__(self) -> int:
        return len(self._match.games)

    def __getitem__(self, i: int) -> dict[str, Any]:  # type: ignore[override]
        state, moves = self._match.games[i], self._match.moves[i]
        g: dict[str, Any] = {"moves": [list(m) for m in moves]}
        if state.result is not None:
            g["result"] = state.result.to_json()
        g.update(private_keys(self._private, i + 1))
        return g


def private_keys(private: Sequence[GameDeck | dict[str, Any] | None] | None, game: int) -> dict[str, Any]:
    """The keys a private-deck record adds to game ``game``: its ``deck`` and ``reshuffles``
    once its end-of-game check established them, or the ``cheat`` it found (its evidence)."""
    deck = private[game - 1] if private is not None and game <= len(private) else None
    if isinstance(deck, dict):
        return {"cheat": deck}
    if deck is not None:
        return {"deck": list(deck.deal), "reshuffles": [list(r) for r in deck.reshuffles]}
    return {}


def dumps(data: Mapping[str, Any]) -> str:
    """Readable JSON: one line per move, the rest indented."""
    return "".join(iter_dumps(data))


def iter_dumps(data: Mapping[str, Any]) -> Iterator[str]:
    """:func:`dumps` piece by piece (a game at a time)."""
    games = data.get("games")
    if isinstance(games, Sequence) and not isinstance(games, str):
        return iter_record(data, join_games(game_text(games[i]) for i in range(len(games))))
    return iter_record(data, None)


def join_games(texts: Iterable[str]) -> Iterator[str]:
    """The inside of a record's games array: each game's :func:`game_text`, then ``,\n``
    before the next."""
    for i, text in enumerate(texts):
        if i:
            yield ",\n"
        yield text


def game_text(game: Mapping[str, Any]) -> str:
    """One game as :func:`dumps` lays it out (one line per move), without the comma and
    the newline after it.  Plain ASCII (json.dumps escapes the rest)."""
    lines = ["    {"]
    gitems = list(game.items())
    for j, (gk, gv) in enumerate(gitems):
        jcomma = "," if j < len(gitems) - 1 else ""
        if gk == "moves" and gv:
            lines.append('      "moves": [')
            for mi, mv in enumerate(gv):
                mcomma = "," if mi < len(gv) - 1 else ""
                lines.append("        " + json.dumps(mv) + mcomma)
            lines.append("      ]" + jcomma)
        else:
            lines.append(f"      {json.dumps(gk)}: {json.dumps(gv)}{jcomma}")
    lines.append("    }")
    return "\n".join(lines)


def iter_record(data: Mapping[str, Any], games: Iterable[str] | None) -> Iterator[str]:
    """:func:`dumps` of ``data`` piece by piece, its games array's inside given as text
    (``games``: pieces that join into the games' texts with ``,\n`` between them, as
    :func:`join_games` makes them; None: ``data["games"]`` as plain JSON)."""
    yield "{\n"
    items = list(data.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k < len(items) - 1 else ""
        if key == "games" and games is not None:
            yield '  "games": [\n'
            some = False
            for piece in games:
                some = some or bool(piece)
                yield piece
            if some:
                yield "\n"
            yield "  ]" + comma + "\n"
        else:
            yield f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}\n"
    yield "}\n"


def save(match: Match, path: str | os.PathLike[str], extra: Mapping[str, Any] | None = None) -> Path:
    """Write the record of ``match`` atomically (never a half-written file), a game at
    a time (a long match's record is never all in memory as text)."""
    return write_atomic(path, iter_dumps(head(match, extra, None, _Games(match, None))))


def _read_umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it...
    os.umask(mask)  # ...and put it back: done once, at import
    return mask


_UMASK = _read_umask()


def check_writable(path: str | os.PathLike[str]) -> Path:
    """Raise OSError now if a record could not be written at ``path`` later
    (a directory, a folder that cannot be made or written to)."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + target.name + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    os.unlink(tmp)
    return target


def write_atomic(path: str | os.PathLike[str], text: str | Iterable[str]) -> Path:
    """Write ``text`` (or its pieces, in order) to ``path`` via a temporary file, fsync
    and rename."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if isinstance(text, str):
                f.write(text)
            else:
                for piece in text:
                    f.write(piece)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(target.parent)
    return target


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a rename in directory ``path`` durable (as far as the system lets us)."""
    try:
        dirfd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(dirfd)
    finally:
        os.close(dirfd)
