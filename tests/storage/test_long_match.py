"""A long match's record: rewritten on a doubling schedule, journaled in between,
nothing shown ever lost (issue 13: a long match costs the same per game at its end)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.bots.base import Bot
from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.handshake import SeedOrigin
from p2p_spite.engine import Match, view
from p2p_spite.storage import keeper as keepermod
from p2p_spite.storage import record
from p2p_spite.storage.journal import journal_path
from p2p_spite.storage.keeper import RecordKeeper, checkpoint_due, record_extra
from p2p_spite.storage.resume import load_saved
from tests.support.keeping import apply_kept

SEED = bytes.fromhex("7a" * 32)
MATCH_ID = bytes(range(16))


def test_the_record_is_rewritten_after_games_1_2_4_8_and_so_on() -> None:
    assert [g for g in range(1, 70) if checkpoint_due(g)] == [1, 2, 4, 8, 16, 32, 64]
    assert not checkpoint_due(0)


def test_the_streamed_record_is_byte_for_byte_dumps(tmp_path: Path) -> None:
    """record.save writes a game at a time: the same bytes as dumps(to_json(...))."""
    match = Match(SEED, 50, ("Ann\u00e9", 'B"b'))
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    extra = record_extra(MATCH_ID, 9, None, SeedOrigin.HOST)
    for _ in range(3):
        while match.game.result is None:
            match.apply(bots[match.game.turn].choose(view(match.game, match.game.turn)))
        match.next_game()
    match.apply(match.game.legal_moves()[0])  # an unfinished last game too
    for m in (Match(SEED, 50), match):
        path = tmp_path / "r.json"
        record.save(m, path, extra)
        assert path.read_text("utf-8") == record.dumps(record.to_json(m, extra))


def _play(core: GameCore, bots: list[Bot], rng: random.Random) -> Action:
    g = core.match.game
    if rng.random() < 0.002:
        return core.check_resign(g.turn)
    move = bots[g.turn].choose(view(g, g.turn))
    return Action(g.game, move.seat, move)


def _step(
    core: GameCore, keeper: RecordKeeper, bots: list[Bot], rng: random.Random, played: list[Action]
) -> None:
    """Play the next action, kept as the session keeps it (and remember it: the core keeps
    only the last two games')."""
    a = _play(core, bots, rng)
    apply_kept(core, keeper, a)
    played.append(a)


def _journaled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seat: int, games: int
) -> tuple[Path, Match, GameCore, RecordKeeper]:
    """A fresh match of ``games`` games kept by a RecordKeeper that starts the journal
    afresh at every rewrite of the record."""
    monkeypatch.setattr(keepermod, "FRESH_JOURNAL_BYTES", 0)
    path = tmp_path / "r.json"
    match = Match(SEED, 100_000, ("a", "b"))
    core = GameCore(match, seat, MATCH_ID, games)
    keeper = RecordKeeper(path, match, MATCH_ID, games)
    keeper.carry(core)
    return path, match, core, keeper


@pytest.mark.parametrize("seed", [1, *(pytest.param(s, marks=pytest.mark.slow) for s in (2, 3))])
def test_record_and_journal_hold_every_action_at_any_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """A kill -9 leaves the files as they are after the last write: at seeded moments
    across a 20-game match (through the rewrites after games 1, 2, 4, 8 and 16, and the
    journal started afresh at each), a copy of record + journal resumes to exactly the
    actions applied so far; the record is rewritten only on the schedule."""
    path, match, core, keeper = _journaled(tmp_path, monkeypatch, seed % 2, 20)
    rng = random.Random(seed)
    bots = [make_bot("easy", seed), make_bot("easy", seed + 10)]
    rewrites: list[int] = []
    last = path.stat().st_mtime_ns, path.read_bytes()
    snapshots = 0
    played: list[Action] = []
    while not core.finished:
        game = match.game_number
        _step(core, keeper, bots, rng, played)
        now = path.stat().st_mtime_ns, path.read_bytes()
        if now != last:
            rewrites.append(game)
            last = now
        if rng.random() < 0.01 or match.game_number != game:  # seeded moments, and every game's end
            snap = tmp_path / f"s{snapshots}"
            snap.mkdir()
            shutil.copy(path, snap / "r.json")
            if journal_path(path).exists():
                shutil.copy(journal_path(path), journal_path(snap / "r.json"))
            saved = load_saved(snap / "r.json")
            assert saved.actions == played, f"after action {core.position - 1}"
            assert saved.key == core.key
            snapshots += 1
    assert rewrites == [1, 2, 4, 8, 16]
    assert snapshots > 30
    keeper.close()
    assert not journal_path(path).exists()
    final = record.load(path)
    assert record.verify(final).scores == match.scores
    assert len(final.games) == 20


def test_a_crash_between_the_rewrite_and_the_fresh_journal_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record rewritten, the old journal still there (the fresh one not renamed in yet):
    its lines are all in the record, nothing is read twice."""
    path, match, core, keeper = _journaled(tmp_path, monkeypatch, 0, 5)
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    rng = random.Random(0)
    kept: list[bytes] = []
    real = keeper._fresh_journal

    def fresh() -> None:
        kept.append(journal_path(path).read_bytes())
        real()

    monkeypatch.setattr(keeper, "_fresh_journal", fresh)
    played: list[Action] = []
    while match.game_number < 3:
        _step(core, keeper, bots, rng, played)
    assert len(kept) == 2  # after games 1 and 2
    crashed = tmp_path / "c.json"
    shutil.copy(path, crashed)
    journal_path(crashed).write_bytes(kept[-1])  # the journal of game 2's time
    assert load_saved(crashed).actions == played
    keeper.close()


def test_a_journal_started_afresh_keeps_the_key_and_the_peers_last_tags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, match, core, keeper = _journaled(tmp_path, monkeypatch, 0, 6)
    bots = [make_bot("easy", 3), make_bot("easy", 4)]
    rng = random.Random(1)
    played: list[Action] = []
    authors: list[int] = []
    while match.game_number < 5 or match.game.turn != 1:
        a = _play(core, bots, rng)
        peer = match.game.turn == 1
        authors.append(match.game.turn)
        apply_kept(core, keeper, a, bytes([core.position % 256]) * 32 if peer else None)
        played.append(a)
    lines = [json.loads(x) for x in journal_path(path).read_text().splitlines()]
    assert lines[0] == {"key": core.key.hex()}
    tagged = {x["tag"] for x in lines if "tag" in x}
    # the record was last rewritten after game 4: the peer's actions of games 3 and 4
    want = {n for n, a in enumerate(played) if a.game in (3, 4) and authors[n] == 1}
    assert tagged == want
    saved = load_saved(path)
    assert saved.actions == played
    for n in want:
        assert saved.tags[n] == bytes([n % 256]) * 32
    keeper.close()


def test_replay_and_check_read_the_journal_of_an_interrupted_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a crash the record holds only the games up to its last rewrite; the rest is in
    the journal: ``replay --check`` and the viewer show record + journal, as --resume reads
    them, and say where the actions came from."""
    from p2p_spite.commands.cli import main
    from p2p_spite.ui.replay import load_replay

    path, match, core, keeper = _journaled(tmp_path, monkeypatch, 0, 20)
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    rng = random.Random(7)
    while match.game_number < 6 or len(match.moves[-1]) < 5:  # the record was last rewritten after game 4
        apply_kept(core, keeper, _play(core, bots, rng))
    snap = tmp_path / "crashed.json"  # what a kill -9 leaves
    shutil.copy(path, snap)
    shutil.copy(journal_path(path), journal_path(snap))
    in_record = record.verify(record.load(snap)).total_moves
    assert in_record < match.total_moves - 5
    assert main(["replay", "--check", str(snap)]) == 0
    out = capsys.readouterr().out
    scores = f"scores {match.scores[0]}-{match.scores[1]}"
    assert out.startswith(f"ok: 6 games, {match.total_moves} moves, {scores}")
    assert "from crashed.json.journal: the match was interrupted" in out
    viewer = load_replay(snap)
    viewer.goto(6, len(match.moves[-1]))
    assert viewer.state().digest() == match.game.digest()
