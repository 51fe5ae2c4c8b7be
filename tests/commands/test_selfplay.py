"""`p2p-spite selfplay`: computer against computer, written as a record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from p2p_spite.commands.cli import main
from p2p_spite.storage import record


@pytest.mark.parametrize(
    ("bots", "games"), [("random,random", "3"), ("easy,random", "2"), ("easy,easy", None)]
)
def test_selfplay_records_pass_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bots: str, games: str | None
) -> None:
    path = tmp_path / "m.json"
    args = ["selfplay", "--seed", "ab" * 32, "--record", str(path), "--bots", bots, "--target", "30"]
    if games:
        args += ["--games", games]
    assert main(args) == 0
    capsys.readouterr()
    assert main(["replay", "--check", str(path)]) == 0
    assert capsys.readouterr().out.startswith("ok: ")
    m = record.verify(record.load(path))
    if games:
        assert m.game_number <= int(games)
    else:
        assert m.over


def test_selfplay_without_a_seed_prints_the_fresh_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.json"
    assert main(["selfplay", "--record", str(path), "--games", "1", "--bots", "random,random"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"seed ([0-9a-f]{64})", out)
    assert found
    assert json.loads(path.read_text())["seed"] == found.group(1)


def test_selfplay_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for p in (a, b):
        assert main(["selfplay", "--seed", "01" * 32, "--record", str(p), "--games", "2"]) == 0
    assert a.read_text() == b.read_text()


def test_the_default_seats_have_two_names(tmp_path: Path) -> None:
    path, other = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["selfplay", "--seed", "01" * 32, "--record", str(path), "--games", "1"]) == 0
    assert json.loads(path.read_text())["players"] == ["easy bot 1", "easy bot 2"]
    assert (
        main(
            ["selfplay", "--seed", "01" * 32, "--record", str(other), "--games", "1", "--bots", "easy,random"]
        )
        == 0
    )
    assert json.loads(other.read_text())["players"] == ["easy bot", "random bot"]


def test_unknown_bot_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--record", str(tmp_path / "x.json"), "--bots", "easy,genius"]) == 2
    assert "unknown bot level 'genius'" in capsys.readouterr().err


def test_an_unwritable_record_path_is_refused_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (tmp_path, tmp_path / "file" / "under-a-file.json"):
        (tmp_path / "file").write_text("")
        assert main(["selfplay", "--games", "1", "--record", str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"p2p-spite: cannot write the record {path}:") and err.count("\n") == 1


def test_selfplay_without_games_stops_at_a_cap_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2p_spite.commands.cli import SELFPLAY_GAMES

    path = tmp_path / "m.json"
    # random bots almost always draw, and draws score nothing: 50 points would take hours
    assert main(["selfplay", "--seed", "AB" * 32, "--record", str(path), "--bots", "random,random"]) == 0
    out = capsys.readouterr().out
    m = record.verify(record.load(path))
    assert m.game_number == SELFPLAY_GAMES and not m.over
    assert f"stopped after {SELFPLAY_GAMES} games, the default cap" in out and "--games N" in out
    assert record.load(path).seed == bytes.fromhex("ab" * 32)  # upper-case hex is a seed too
