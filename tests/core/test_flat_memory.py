"""Issue 13: a long match's memory stays flat.  The core keeps only the last two games'
actions (its catch-up window), the match only the current game's moves (and every
game's result), and the record keeper rewrites the record from the record it wrote
last and the journal, never from the whole match in memory."""

from __future__ import annotations

import os
import random
import signal
import tracemalloc
from pathlib import Path

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.bots.base import Bot
from p2p_spite.bots.selfplay import play_match
from p2p_spite.core.game import Action, GameCore, Window
from p2p_spite.core.handshake import SeedOrigin
from p2p_spite.core.protocol import PeerRefused
from p2p_spite.core.wire import Refusal, RemoteProtocolError
from p2p_spite.engine import Match, view
from p2p_spite.storage import keeper as keepermod
from p2p_spite.storage import record, resume
from p2p_spite.storage.journal import journal_path
from p2p_spite.storage.keeper import RecordKeeper, record_extra
from p2p_spite.storage.resume import load_saved, play_action
from tests.support.keeping import apply_kept
from tests.support.net import cores, finish, playing, resumed, spawn, wait_listening

SEED = bytes.fromhex("3c" * 32)
MATCH_ID = bytes(range(16))


def _next(match: Match, bots: list[Bot], rng: random.Random) -> Action:
    g = match.game
    if rng.random() < 0.003:
        return Action(g.game, g.turn)  # the player on turn resigns
    move = bots[g.turn].choose(view(g, g.turn))
    return Action(g.game, move.seat, move)


def test_a_window_keeps_only_its_items_from_its_base_on() -> None:
    w: Window[int] = Window([10, 11, 12, 13])
    w.drop_before(2)
    assert (len(w), w.base, w[2], w[3], w[-1], w[-2], w.kept()) == (4, 2, 12, 13, 13, 12, [12, 13])
    for n in (0, 1, 4, 5, -3):
        with pytest.raises(IndexError):
            w[n]
    with pytest.raises(TypeError):
        list(w)  # never a silent iteration over part of it


def test_a_long_match_keeps_only_its_last_two_games() -> None:
    """After every action of a 40-game match: the core's per-action lists hold exactly the
    actions since the start of the previous game, the match holds the current game's moves
    only, and the results, scores and move count still cover the whole match."""
    match = Match(SEED, 100_000, ("a", "b"))
    core = GameCore(match, 0, MATCH_ID, 40)
    full = Match(SEED, 100_000, ("a", "b"))  # the same match, kept whole, to compare with
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    rng = random.Random(5)
    starts = [0]  # the number of each game's first action
    while not core.finished:
        game = match.game_number
        a = _next(match, bots, rng)
        core.apply(a)
        play_action(full, a)
        if match.game_number != game:
            starts.append(core.position)
        n = core.position
        base = starts[-2] if len(starts) > 1 else 0
        assert core.window_start == base
        for w in (core.actions, core.digests, core.tags, core.authors):
            assert (w.base, len(w), len(w.kept())) == (base, n, n - base)
        assert (core.history.base, len(core.history.kept())) == (base, n - base + 1)
        assert core.head == core.history[-1] == core.history[n]  # the head kept at hand
        assert len(match.games) == len(match.moves) == 1 and match.first_kept == match.game_number
        if full.game_number == match.game_number:  # (full deals the next game at its first action)
            assert match.moves[0] == full.moves[-1] and match.game.digest() == full.game.digest()
    assert match.game_number == 40 and len(starts) == 40
    assert match.results == full.results and match.scores == full.scores
    assert match.total_moves == full.total_moves > 40 * 50
    # kept: the moves of the last two games, never the match's
    assert len(core.actions.kept()) < full.total_moves / 10


def test_windowed_match_refuses_to_be_written_as_a_whole() -> None:
    match = Match(SEED, 50)
    match.keep_current_only()
    record.to_json(match)  # game 1: all of it is kept
    match.resign(0)
    match.next_game()
    assert not match.keeps_all and match.results[0] is not None and match.game_number == 2
    with pytest.raises(ValueError):
        record.to_json(match)


def _keeper_match(
    tmp_path: Path, games: int, monkeypatch: pytest.MonkeyPatch, fresh_bytes: int
) -> tuple[Path, Match, GameCore, RecordKeeper]:
    monkeypatch.setattr(keepermod, "FRESH_JOURNAL_BYTES", fresh_bytes)
    path = tmp_path / "r.json"
    match = Match(SEED, 100_000, ("Ann\u00e9", "Bob"))
    core = GameCore(match, 0, MATCH_ID, games)
    keeper = RecordKeeper(path, match, MATCH_ID, games)
    keeper.carry(core)
    return path, match, core, keeper


@pytest.mark.parametrize("fresh_bytes", [0, 1 << 20])
def test_every_rewrite_is_the_whole_match_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_bytes: int
) -> None:
    """The keeper copies the finished games from its last record and adds the journal's:
    after each rewrite (games 1, 2, 4, 8, 16) and at the end the file is exactly dumps()
    of the whole match (kept aside here), with a journal started afresh or kept whole."""
    path, match, core, keeper = _keeper_match(tmp_path, 21, monkeypatch, fresh_bytes)
    full = Match(SEED, 100_000, match.players)
    extra = record_extra(MATCH_ID, 21)
    bots = [make_bot("easy", 3), make_bot("easy", 4)]
    rng = random.Random(2)
    rewrites = 0
    last = path.read_bytes()
    assert last == record.dumps(record.to_json(full, extra)).encode()
    while not core.finished:
        a = _next(match, bots, rng)
        play_action(full, a)
        apply_kept(core, keeper, a)
        now = path.read_bytes()
        if now != last:
            rewrites += 1
            assert now == record.dumps(record.to_json(full, extra)).encode()
            last = now
        if match.game_number == 7 and len(match.moves[0]) == 3:
            keeper.save()  # a rewrite in the middle of a game (as at a close)
            assert path.read_bytes() == record.dumps(record.to_json(full, extra)).encode()
            last = path.read_bytes()
    assert rewrites == 5
    keeper.close()
    assert path.read_bytes() == record.dumps(record.to_json(full, extra)).encode()
    assert not journal_path(path).exists()


def test_a_resumed_match_is_written_from_the_actions_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--resume: the first record of the new session holds the saved actions (the
    match's core has only the last two games), then the new ones."""
    path, match, core, keeper = _keeper_match(tmp_path, 12, monkeypatch, 0)
    bots = [make_bot("easy", 5), make_bot("easy", 6)]
    rng = random.Random(3)
    while match.game_number < 6 or len(match.moves[0]) < 7:
        apply_kept(core, keeper, _next(match, bots, rng))
    # kill -9 here: record (last rewritten after game 4) + journal
    saved = load_saved(path)
    assert len(saved.actions) == core.position
    again = GameCore.replay(Match(SEED, 100_000, match.players), 0, MATCH_ID, 12, saved.actions)
    assert again.head == core.head and again.window_start == core.window_start
    other = tmp_path / "other.json"
    k2 = RecordKeeper(other, again.match, MATCH_ID, 12, played=saved.actions)
    k2.carry(again)
    while not again.finished:
        apply_kept(again, k2, _next(again.match, bots, rng))
    k2.close()
    rec = record.load(other)
    assert record.verify(rec).scores == again.match.scores and len(rec.games) == 12
    assert resume.record_actions(rec)[: len(saved.actions)] == saved.actions
    with pytest.raises(ValueError):  # actions that do not make this match
        RecordKeeper(tmp_path / "x.json", again.match, MATCH_ID, 12, played=saved.actions)
    keeper.close()


@pytest.mark.slow
def test_a_rewrite_holds_no_more_than_a_game_and_a_copy_buffer_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewrite streams: its memory peak is far below the record's size (the old
    writer needed the whole match in memory)."""
    monkeypatch.setattr(keepermod, "COPY_BYTES", 16 * 1024)
    path, match, core, keeper = _keeper_match(tmp_path, 260, monkeypatch, 1 << 30)
    bots = [make_bot("random", 7), make_bot("random", 8)]
    rng = random.Random(4)
    while not core.finished:
        apply_kept(core, keeper, _next(match, bots, rng))
    size = path.stat().st_size  # rewritten after game 256
    assert size > 400_000
    tracemalloc.start()
    try:
        keeper.close()  # games 1-256 copied, 257-260 from the journal (kept whole)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert path.stat().st_size > size
    print(f"record {size} bytes, rewrite peak {peak} bytes")
    assert peak < size / 5, (peak, size)
    assert record.verify(record.load(path)).scores == match.scores


def _play_both(cores: tuple[GameCore, GameCore], game: int, moves: int = 0) -> list[Action]:
    """Both sides apply each action, the author first (the other keeps the author's tag),
    until ``moves`` moves into game ``game``; returns the actions."""
    bots = [make_bot("easy", 11), make_bot("easy", 12)]
    rng = random.Random(9)
    played: list[Action] = []
    m = cores[0].match
    while m.game_number < game or (m.game_number == game and len(m.moves[0]) < moves):
        a = _next(m, bots, rng)
        author = cores[m.game.turn]
        other = cores[1 - author.seat]
        author.apply(a)
        other.apply(a, tag=author.own_tag(author.position - 1))
        played.append(a)
    return played


def _as_of(core: GameCore, played: list[Action], n: int) -> GameCore:
    """``core``'s side after only the first ``n`` actions (its journal lost the rest)."""
    m = core.match
    return GameCore.replay(
        Match(m.seed, m.target, m.players), core.seat, core.match_id, core.max_games, played[:n], key=core.key
    )


def test_a_peer_behind_by_the_previous_game_is_caught_up() -> None:
    """The window: everything since the start of the previous game.  A joiner that
    lacks all of it (its journal lost it) is sent every action again and ends level."""
    h, j = playing()
    hc, jc = cores(h, j)
    played = _play_both((hc, jc), 4, 5)  # 5 moves into game 4 (the window: games 3 and 4)
    behind = _as_of(jc, played, hc.window_start)
    assert behind.match.game_number == 3 and behind.position == hc.window_start
    _h2, _j2, eh, ej = resumed(hc, behind)
    assert not any(isinstance(e, RemoteProtocolError | PeerRefused) for e in eh + ej), (eh, ej)
    assert behind.head == hc.head and behind.position == hc.position


@pytest.mark.parametrize("behind_side", ["join", "host"])
def test_a_peer_further_behind_than_the_window_is_refused(behind_side: str) -> None:
    """A side that claims a position before the other's window (the start of the previous
    game) cannot be caught up: it is refused with ``behind`` and nothing changes."""
    h, j = playing()
    hc, jc = cores(h, j)
    played = _play_both((hc, jc), 5, 3)
    ahead, old = (hc, jc) if behind_side == "join" else (jc, hc)
    behind = _as_of(old, played, ahead.window_start - 1)  # one action short of the window
    before = (ahead.position, ahead.head)
    pair_ = (hc, behind) if behind_side == "join" else (behind, jc)
    _h2, _j2, eh, ej = resumed(*pair_)
    e_ahead, e_behind = (eh, ej) if behind_side == "join" else (ej, eh)
    assert isinstance(e_ahead[-1], RemoteProtocolError) and e_ahead[-1].code is Refusal.BEHIND, e_ahead
    assert "too far behind to catch up" in str(e_ahead[-1])
    assert isinstance(e_behind[-1], PeerRefused) and e_behind[-1].code is Refusal.BEHIND, e_behind
    assert (ahead.position, ahead.head) == before
    assert behind.position == ahead.window_start - 1


def test_a_real_joiner_resuming_an_old_copy_is_told_it_is_too_far_behind(tmp_path: Path) -> None:
    """Real processes: the host resumes a match after game 5, the joiner an old copy of
    its record (after game 2, before the host's window).  The joiner stops with one line
    and exit code 1; the host warns, keeps the seat open (the joiner may come back with
    its real record) and its record is unchanged."""
    seed = bytes.fromhex("5a" * 32)
    extra = record_extra(MATCH_ID, 10, None, SeedOrigin.HOST)
    for name, games in (("h.json", 5), ("j.json", 2)):
        m = Match(seed, 100_000, ("host", "joiner"))
        play_match(m, [make_bot("random", 1), make_bot("random", 2)], max_games=games)
        record.save(m, tmp_path / name, extra)
    held, old = load_saved(tmp_path / "h.json").actions, load_saved(tmp_path / "j.json").actions
    assert held[: len(old)] == old and len(held) > len(old)
    before = (tmp_path / "h.json").read_bytes()
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--no-announce", "--bot", "easy",
         "--resume", "h.json"],
        tmp_path,
    )  # fmt: skip
    try:
        port, _lines = wait_listening(host)
        join = spawn(["join", f"127.0.0.1:{port}", "--bot", "easy", "--resume", "j.json"], tmp_path)
        rc, _out, err = finish(join, 60)
        assert rc == 1, (rc, err)
        lines = [x for x in err.splitlines() if x.strip()]
        assert len(lines) == 1 and "too far behind to catch up" in lines[0], err
        assert "Traceback" not in err
    finally:
        host.send_signal(signal.SIGINT)
        hrc, _hout, herr = finish(host, 30)
    assert "too far behind to catch up" in herr and "Traceback" not in herr, herr
    assert hrc == 130, (hrc, herr)  # stopped while waiting for the joiner
    assert load_saved(tmp_path / "h.json").actions == held
    assert (tmp_path / "h.json").read_bytes() == before


def test_a_record_checked_in_flat_memory_sums_up_the_same(tmp_path: Path) -> None:
    """``replay --check``, ``history`` and ``--resume`` check a record keeping only its
    last game: the same results, scores and moves as the whole match."""
    m = Match(SEED, 100_000, ("a", "b"))
    play_match(m, [make_bot("random", 1), make_bot("random", 2)], max_games=12)
    rec = record.loads(record.dumps(record.to_json(m)))
    whole, flat = record.verify(rec), record.verify(rec, keep_all=False)
    assert len(whole.games) == 12 and len(flat.games) == 1 and flat.game_number == 12
    assert (flat.results, flat.scores, flat.total_moves) == (whole.results, whole.scores, whole.total_moves)
    assert flat.game.digest() == whole.game.digest()


def test_a_rewrite_cut_short_leaves_the_old_record_and_the_journal_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill during the rewrite after game 4 (the new file written but never renamed in):
    the record of game 2 and the journal still hold every action shown."""
    path, match, core, keeper = _keeper_match(tmp_path, 8, monkeypatch, 0)
    bots = [make_bot("easy", 13), make_bot("easy", 14)]
    rng = random.Random(6)
    real = os.replace

    def cut(src: str, dst: str) -> None:
        if str(dst) == str(path):
            raise KeyboardInterrupt("killed before the rename")
        real(src, dst)

    played: list[Action] = []
    while not core.finished:
        a = _next(match, bots, rng)
        played.append(a)
        if match.game_number == 4:
            monkeypatch.setattr(os, "replace", cut)
        try:
            apply_kept(core, keeper, a)
        except KeyboardInterrupt:
            break
    else:
        raise AssertionError("game 4 ended without a rewrite")
    monkeypatch.undo()
    assert match.game_number == 4 and match.game.result is not None
    assert record.load(path).games[-1].result is not None and len(record.load(path).games) == 2
    saved = load_saved(path)
    assert saved.actions == played
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_game_at_says_the_game_and_its_moves_after_any_kept_action() -> None:
    """Where a resumed match goes on (both sides say it from the action they agreed on):
    the game under way after the first n actions and its moves by then, for every n the
    core keeps, checked against the match replayed whole."""
    match = Match(SEED, 100_000, ("a", "b"))
    core = GameCore(match, 0, MATCH_ID, 4)
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    rng = random.Random(7)
    after: list[tuple[int, int]] = [(1, 0)]  # (game, moves in it) after each number of actions
    while not core.finished:
        a = _next(match, bots, rng)
        game = match.game_number
        core.apply(a)
        moves = after[-1][1] + (a.move is not None)  # (a resignation is no move)
        after.append((match.game_number, 0) if match.game_number != game else (game, moves))
        for n in range(core.window_start + 1, core.position + 1):
            assert core.game_at(n) == after[n], (n, core.position)
    assert len(after) > 100
