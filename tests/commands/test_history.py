"""``p2p-spite history`` and ``replay`` with no file, on the records folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.bots.selfplay import play_match
from p2p_spite.commands.cli import main
from p2p_spite.engine import Match, view
from p2p_spite.storage import record
from tests.support.net import finish_all, records_folder, spawn, wait_listening

SEED = bytes(range(32))


def _finished(path: Path, names: tuple[str, str], mtime: float) -> Match:
    match = Match(SEED, 20, names)
    play_match(match, [make_bot("easy", 1), make_bot("easy", 2)])
    record.save(match, path, {"match_id": "ab" * 16, "max_games": None})
    os.utime(path, (mtime, mtime))
    return match


def _unfinished(path: Path, mtime: float) -> None:
    match = Match(SEED, 50, ("Ann", "Bob"))
    bots = [make_bot("easy", 1), make_bot("easy", 2)]
    for _ in range(7):
        g = match.game
        match.apply(bots[g.turn].choose(view(g, g.turn)))
    record.save(match, path, {"match_id": "cd" * 16, "max_games": None})
    os.utime(path, (mtime, mtime))


def test_history_lists_newest_first_with_totals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["history"]) == 0
    assert "no records in" in capsys.readouterr().out

    folder = records_folder(tmp_path)
    t0 = 1_800_000_000  # 2027-01-15 08:00 UTC

    def at(t: float) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))

    won = _finished(folder / "20270115-080000-host-11.json", ("Ann", "Bob"), t0)
    _unfinished(folder / "20270115-090000-join-12.json", t0 + 3600)
    _finished(folder / "copied.json", ("Cy", "Dee"), t0 - 3600)
    (folder / "broken.json").write_text("{not json")
    assert main(["history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5, lines
    newest, older, foreign, total, bad = lines
    assert newest.startswith(f"{at(t0 + 3600)}  Bob vs Ann") and "unfinished" in newest
    assert f"resumable: p2p-spite join HOST --resume {folder / '20270115-090000-join-12.json'}" in newest
    me, op = won.scores
    assert won.winner is not None
    res = "won" if won.winner == 0 else "lost"
    assert older.startswith(f"{at(t0)}  Ann vs Bob") and f"{res:<10} {me}-{op}" in older
    assert "resumable" not in older
    assert "Cy vs Dee" in foreign and "finished" in foreign
    gw = sum(1 for r in won.results if r is not None and r.winner == 0)
    gl = sum(1 for r in won.results if r is not None and r.winner == 1)
    gd = sum(1 for r in won.results if r is not None and r.winner is None)
    assert f"games {gw}-{gl}" in older
    assert total == (
        f"matches: {int(res == 'won')} won, {int(res == 'lost')} lost, 1 unfinished; "
        f"games: {gw} won, {gl} lost, {gd} drawn (1 record of unknown side not counted)"
    )
    assert bad.startswith("(1 file in ") and "could not be read" in bad

    # replay with no file: the newest record
    assert main(["replay", "--check"]) == 0
    out = capsys.readouterr().out
    assert "the latest record: " + str(folder / "20270115-090000-join-12.json") in out
    assert "ok: 1 game, 7 moves" in out


@pytest.fixture
def quit_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An unfinished match against the computer, in the records folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    path = records_folder(tmp_path) / "20270115-090000-play-13.json"
    _unfinished(path, 1_800_000_000)
    return path


def test_a_match_against_the_computer_is_ours_and_offered_to_play_on(
    quit_play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = quit_play
    assert main(["history"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.split("  ")[1].startswith("Ann vs Bob") and "unfinished" in line
    assert line.endswith(f"resumable: p2p-spite play --resume {path}")


def test_play_resume_refuses_what_would_change_the_match(
    quit_play: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = quit_play
    for extra in (["--target", "9"], ["--name", "Zed"], ["--private"]):
        assert main(["play", "--resume", str(path), *extra]) == 2
        err = capsys.readouterr().err
        assert f"{extra[0]} does not go with --resume" in err
    with pytest.raises(SystemExit):  # argparse: --seed and --resume exclude each other
        main(["play", "--resume", str(path), "--seed", "00" * 32])


def test_replay_with_no_file_and_no_records_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["replay"]) == 2
    assert "no record to replay in" in capsys.readouterr().err


@pytest.mark.slow
def test_history_after_a_lan_match_names_both_players(tmp_path: Path) -> None:
    """Host and join write to the default folder (both here: one XDG_DATA_HOME)."""
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--no-announce",
                  "--bot", "easy", "--name", "Ann"], tmp_path)  # fmt: skip
    try:
        port, _ = wait_listening(host)
        join = spawn(["join", f"127.0.0.1:{port}", "--bot", "easy", "--name", "Bob"], tmp_path)
        (jrc, _jout, jerr), (hrc, _hout, herr) = finish_all([join, host], 60)
    finally:
        if host.poll() is None:
            host.kill()
    assert (jrc, hrc) == (0, 0), (jerr, herr)
    records = sorted(records_folder(tmp_path).glob("*.json"))
    assert len(records) == 2
    rec = record.load(records[0])
    a, b = rec.scores or [0, 0]
    ((rc, out, err),) = finish_all([spawn(["history"], tmp_path)], 60)
    assert rc == 0, err
    lines = out.splitlines()
    ann_side = next(x for x in lines if "Ann vs Bob" in x)
    bob_side = next(x for x in lines if "Bob vs Ann" in x)
    assert f"{a}-{b}" in ann_side and f"{b}-{a}" in bob_side
    assert ("won" in ann_side) == (a > b) and ("won" in bob_side) == (b > a)
    assert lines[-1].startswith("matches: 1 won, 1 lost; games: ")


def _saved(path: Path, seed: bytes, names: tuple[str, str], mtime: float, level: str | None = None) -> Match:
    match = Match(seed, 20, names)
    play_match(match, [make_bot("easy", 1), make_bot("medium", 2)])
    extra: dict[str, object] = {"match_id": "ab" * 16, "max_games": None}
    if level is not None:
        extra["computer"] = level
    record.save(match, path, extra)
    os.utime(path, (mtime, mtime))
    return match


def _streak(won: list[bool]) -> int:
    best = run = 0
    for w in won:
        run = run + 1 if w else 0
        best = max(best, run)
    return best


def test_history_stats_per_opponent_and_the_computer_by_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    folder = records_folder(tmp_path)
    t0 = 1_800_000_000
    # against Bob: as the host (seat 0) then as the joiner (seat 1), where Bob is seat 0
    a = _saved(folder / "20270115-080000-host-11.json", bytes([1] * 32), ("Ann", "Bob"), t0)
    b = _saved(folder / "20270115-090000-join-12.json", bytes([2] * 32), ("Bob", "Ann"), t0 + 60)
    c = _saved(
        folder / "20270115-100000-play-13.json", bytes([3] * 32), ("Ann", "Computer"), t0 + 120, "hard"
    )
    d = _saved(
        folder / "20270115-110000-play-14.json", bytes([4] * 32), ("Ann", "Computer"), t0 + 180, "easy"
    )
    _saved(folder / "copied.json", bytes([5] * 32), ("Cy", "Dee"), t0 + 240)  # unknown side: left out
    assert main(["history", "--stats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "opponent",
        "matches",
        "won-lost",
        "games",
        "won-lost-drawn",
        "points",
        "for-against",
        "longest",
        "streak",
        "average",
        "margin",
    ]
    rows = {line.split("  ")[0]: line.split() for line in lines[1:-1]}
    assert set(rows) == {"Bob", "Computer (hard)", "Computer (easy)"}

    def expect(pairs: list[tuple[Match, int]]) -> list[str]:
        won = sum(m.winner == me for m, me in pairs)
        lost = sum(m.winner == 1 - me for m, me in pairs)
        games = [0, 0, 0]
        for m, me in pairs:
            for r in m.results:
                assert r is not None
                games[0 if r.winner == me else 2 if r.winner is None else 1] += 1
        pf = sum(m.scores[me] for m, me in pairs)
        pa = sum(m.scores[1 - me] for m, me in pairs)
        # the streak runs across the matches, oldest first
        streak = _streak([r.winner == me for m, me in pairs for r in m.results if r is not None])
        margin = sum(m.scores[me] - m.scores[1 - me] for m, me in pairs) / len(pairs)
        return [f"{won}-{lost}", "-".join(map(str, games)), f"{pf}-{pa}", str(streak), f"{margin:+.1f}"]

    assert rows["Bob"][1:] == expect([(a, 0), (b, 1)])
    assert rows["Computer (hard)"][2:] == expect([(c, 0)])
    assert rows["Computer (easy)"][2:] == expect([(d, 0)])
    assert lines[-1].startswith("matches: ") and "(1 record of unknown side not counted)" in lines[-1]
