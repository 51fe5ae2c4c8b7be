"""What ``--resume`` and ``replay`` read from a record and its journal."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contracts.errors import UserError
from ..contracts.news import NotResumable
from ..contracts.plaintext import shown_path
from ..core.game import Action
from ..core.handshake import SeedOrigin
from ..core.tape import TapeEntry
from ..engine import Match, RulesError, move_from_json
from ..engine.state import WIN_RESIGN
from ..fairdeck import GameDeck
from . import record as recordmod
from .journal import journal_path, read_journal_tail


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
    seed_by: SeedOrigin | None = None  # who chose the seed (None: not known)
    key: bytes | None = None  # this seat's action key, from its journal
    tags: dict[int, bytes] = field(default_factory=dict)  # the peer's tags on its actions
    requests: set[int] = field(default_factory=set)  # games this seat asked to resign
    # a private-deck match (docs/fairness.md): each game's deck the record holds, and the tape
    private: bool = False
    decks: list[GameDeck | None] = field(default_factory=list)
    tape: list[TapeEntry] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)  # the record's other keys (``play``'s level)


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
        raise UserError(NotResumable(shown_path(path), len(rec.games)))
    mid = rec.extra.get("match_id")
    try:
        match_id = bytes.fromhex(mid) if isinstance(mid, str) else b""
    except ValueError:
        match_id = b""
    if len(match_id) != 16:
        raise UserError(NotResumable(shown_path(path)))
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
    origin = next((o for o in SeedOrigin if o.value == by), None)
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
        dict(rec.extra),
    )


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
