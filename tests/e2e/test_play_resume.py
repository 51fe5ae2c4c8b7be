"""``play --resume``: a match against the computer, killed or quit, goes on where it
stopped (real processes, the computer a real peer over 127.0.0.1), and its record checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2p_spite.commands.cli import main
from p2p_spite.commands.history import scan
from p2p_spite.storage import record
from tests.support.net import play_by_hints, spawn

MATCH_TIMEOUT = 600.0  # seconds for a whole match of random's (a few games to the target; each
# hint is expert's turn and its reason: minutes on a loaded machine)


def _records(tmp: Path) -> list[Path]:
    return sorted((tmp / "xdg" / "p2p-spite" / "records").glob("*.json"))


@pytest.mark.slow
@pytest.mark.watchdog(900)
def test_a_killed_then_quit_play_goes_on_to_the_end_with_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"TERM": "dumb"}
    first = spawn(["play", "--bot", "random", "--target", "3", "--name", "Ann"], tmp_path, env, stdin=True)
    play_by_hints(first, turns=3, stop="kill")  # kill -9: the record and its journal are all there is
    assert first.returncode == -9
    [path] = _records(tmp_path)
    assert json.loads(path.read_text())["computer"] == "random"

    # history offers the exact command, and it is the default of play --resume
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert f"resumable: p2p-spite play --resume {path}" in out, out

    second = spawn(["play", "--resume"], tmp_path, env, stdin=True)
    said = play_by_hints(second, turns=2, stop="quit")
    assert second.returncode == 0, "\n".join(said)[-2000:]
    assert said[0].startswith("going on with the match against the computer: game 1, scores 0-0"), said[:3]
    assert "You are Ann against Computer." in said
    assert _records(tmp_path) == [path]  # the same record, written on
    rec = record.load(path)
    moved = sum(len(g.moves) for g in rec.games)
    assert moved >= 4  # (at least our three turns' discards and one more)

    third = spawn(["play", "--resume", str(path)], tmp_path, env, stdin=True)
    said = play_by_hints(third, timeout=MATCH_TIMEOUT)
    assert third.returncode == 0, "\n".join(said)[-2000:]
    rec = record.load(path)
    match = record.verify(rec)
    assert match.over and rec.players == ("Ann", "Computer")
    assert match.total_moves > moved
    assert main(["replay", "--check", str(path)]) == 0
    assert "match won by" in capsys.readouterr().out
    # finished: no longer offered, and --resume says so
    assert not any(e.resumable for e in scan()[0])
    assert main(["play", "--resume"]) == 2
    assert "no unfinished match against the computer" in capsys.readouterr().err
    assert main(["play", "--resume", str(path)]) == 1  # named: it is over, one line
    err = capsys.readouterr().err
    assert err.startswith("p2p-spite: ") and len(err.splitlines()) == 1 and "over" in err, err


@pytest.mark.slow
def test_a_private_match_against_the_computer_is_not_offered_and_resume_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TERM": "dumb", "TMPDIR": str(scratch)}
    proc = spawn(["play", "--private", "--bot", "random", "--name", "Ann"], tmp_path, env, stdin=True)
    play_by_hints(proc, turns=1, stop="kill")  # its deck not revealed: the computer's keys are gone
    [path] = _records(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "unfinished" in out and "resumable" not in out, out
    assert main(["play", "--resume"]) == 2  # none to take up
    assert "no unfinished match against the computer" in capsys.readouterr().err
    assert main(["play", "--resume", str(path)]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("p2p-spite: ") and "private-deck match against the computer cannot be resumed" in err
    )
    assert len(err.splitlines()) == 1
