"""Two real processes on 127.0.0.1: `p2p-spite host` and `p2p-spite join`, headless bots."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.net import CLI, ROOT, finish, finish_all, read_code, reader, spawn, wait_listening

TIMEOUT = 60


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    return finish(proc, TIMEOUT)


def _check(path: Path) -> str:
    r = subprocess.run(
        [*CLI, "replay", "--check", str(path)], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def _play(tmp: Path, host_args: list[str], join_args: list[str]) -> tuple[str, str, str, str]:
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--record", "h.json", *host_args], tmp)
    try:
        port, _lines = wait_listening(host)
        code_args: list[str] = []
        if "--no-code" not in host_args:
            code_args = ["--code", read_code(host)]
        join = spawn(["join", f"127.0.0.1:{port}", "--record", "j.json", *code_args, *join_args], tmp)
        (jrc, jout, jerr), (hrc, hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert jrc == 0, jerr
    assert hrc == 0, herr
    assert "Traceback" not in herr + jerr
    return hout, herr, jout, jerr


@pytest.mark.slow
def test_two_bots_play_a_whole_match(tmp_path: Path) -> None:
    hout, _herr, jout, _jerr = _play(
        tmp_path, ["--bot", "easy", "--name", "Ann"], ["--bot", "easy", "--name", "Bob"]
    )
    h, j = tmp_path / "h.json", tmp_path / "j.json"
    assert h.read_bytes() == j.read_bytes()
    rec = json.loads(h.read_text())
    assert rec["players"] == ["Ann", "Bob"]
    assert max(rec["scores"]) >= 50
    assert "match won by" in _check(h) and "match won by" in _check(j)
    assert "final scores" in hout and "final scores" in jout
    assert "record: h.json" in hout
    assert not (tmp_path / "h.json.journal").exists()
    # A finished match cannot be resumed: one line, at once.
    r = subprocess.run(
        [*CLI, "host", "--port", "0", "--resume", "h.json"],
        capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 1
    assert "the match is already over" in r.stderr and r.stderr.count("\n") == 1


def test_a_chosen_seed_is_shown_to_the_joiner_and_games_stop_the_match(tmp_path: Path) -> None:
    seed = "ab" * 32
    _hout, _herr, jout, _jerr = _play(
        tmp_path,
        ["--bot", "easy", "--no-code", "--seed", seed, "--games", "2", "--target", "500"],
        ["--bot", "easy"],
    )
    assert f"the host chose the seed: {seed}" in jout
    rec = json.loads((tmp_path / "h.json").read_text())
    assert rec["seed"] == seed and len(rec["games"]) == 2 and rec["target"] == 500
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()
    _check(tmp_path / "j.json")


def test_seed_file(tmp_path: Path) -> None:
    (tmp_path / "seed.json").write_text(
        json.dumps({"format": "p2p-spite-record", "version": 1, "seed": "cd" * 32, "target": 20})
    )
    _play(tmp_path, ["--bot", "easy", "--no-code", "--seed-file", "seed.json"], ["--bot", "easy"])
    rec = json.loads((tmp_path / "j.json").read_text())
    assert rec["seed"] == "cd" * 32 and rec["target"] == 20


def test_unreachable_host_is_one_line(tmp_path: Path) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    r = subprocess.run(
        [*CLI, "join", f"127.0.0.1:{port}", "--bot", "easy"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=tmp_path,
    )
    assert r.returncode != 0
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"nobody is hosting at 127.0.0.1:{port} (is the host running? is the port right?)" in r.stderr


def test_bad_arguments_are_one_line(tmp_path: Path) -> None:
    for args in (
        ["join", "[::1", "--bot", "easy"],
        ["join", "127.0.0.1:99999"],
        ["host", "--bind", "256.1.1.1"],
    ):
        r = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
        assert r.returncode != 0, args
        assert "Traceback" not in r.stderr and r.stderr.strip().count("\n") == 0, r.stderr


def _seed_where(starter: int) -> str:
    """A seed whose first game the seat ``starter`` begins."""
    from p2p_spite.engine import Match

    return next(s.hex() for i in range(100) if Match(s := bytes([i]) * 32).game.turn == starter)


def test_a_peer_that_vanishes_mid_match(tmp_path: Path) -> None:
    """The joiner is killed mid-match: the host says so in one line, saves the record, exits non-zero."""
    host = spawn(
        [
            "host",
            "--seed",
            _seed_where(0),  # the host's bot begins: there are moves to keep
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--no-code",
            "--record",
            "h.json",
            "--bot",
            "easy",
            "--grace",
            "0",
        ],
        tmp_path,
    )
    try:
        port, _ = wait_listening(host)
        # a joiner whose moves are typed slowly: a human side fed from a pipe that we cut.
        # Its line prompt writes into a pipe: the line must come without PYTHONUNBUFFERED.
        join = spawn(["join", f"127.0.0.1:{port}", "--record", "j.json"], tmp_path, stdin=True)
        try:
            reader(join).wait(r"^You are ", TIMEOUT)
        finally:
            join.kill()
            join.wait(TIMEOUT)
        rc, out, err = _finish(host)
    finally:
        for p in (host,):
            if p.poll() is None:
                p.kill()
    assert rc == 4  # the connection was lost (README: exit codes)
    assert "Traceback" not in err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "lost" in lines[0], err
    assert "record: h.json" in out
    _check(tmp_path / "h.json")


def test_python_is_the_venv() -> None:
    assert Path(sys.executable).exists() and ROOT.exists()


def test_host_target_and_games_are_bounded_by_what_the_joiner_accepts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Above the protocol's limits the joiner refused the setup as 'malformed': the CLI
    says so up front instead."""
    from p2p_spite.commands.cli import build_parser
    from p2p_spite.core.messages import HOST, JOIN, MAX_GAMES, MAX_TARGET
    from p2p_spite.core.protocol import Handshaken, LocalConfig
    from tests.support.net import pair

    parser = build_parser()
    ok = parser.parse_args(["host", "--target", str(MAX_TARGET), "--games", str(MAX_GAMES)])
    assert (ok.target, ok.games) == (MAX_TARGET, MAX_GAMES)
    _h, _j, eh, ej = pair(
        LocalConfig(HOST, "Ann", target=MAX_TARGET, max_games=MAX_GAMES), LocalConfig(JOIN, "Bob")
    )
    assert isinstance(eh[0], Handshaken) and isinstance(ej[0], Handshaken)
    for opt, value in (("--target", MAX_TARGET + 1), ("--games", MAX_GAMES + 1)):
        with pytest.raises(SystemExit) as info:
            parser.parse_args(["host", opt, str(value)])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert f"at most {MAX_TARGET if opt == '--target' else MAX_GAMES}" in err, err


@pytest.mark.parametrize("starter", [0, 1])
def test_an_opponent_who_quits_is_news_and_exit_3(tmp_path: Path, starter: int) -> None:
    """The person joining types quit (and confirms): the host is told it as news, not an error.
    Before the first move (the joiner begins and quits at once) no record is kept."""
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--record", "h.json",
                  "--bot", "easy", "--name", "Ann", "--seed", _seed_where(starter)], tmp_path)  # fmt: skip
    try:
        port, _ = wait_listening(host)
        args = ["join", f"127.0.0.1:{port}", "--record", "j.json", "--name", "Bob"]
        join = spawn(args, tmp_path, stdin=True)
        reader(join).wait(r"^You are ", TIMEOUT)
        assert join.stdin is not None
        join.stdin.write("quit\ny\n")
        join.stdin.flush()
        (jrc, jout, jerr), (hrc, hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        for p in (host,):
            if p.poll() is None:
                p.kill()
    assert jrc == 0, jerr + jout[-500:]
    assert hrc == 3, herr
    assert "Bob left the match." in hout and herr.strip() == "", herr
    assert "final scores: Ann" in hout
    if starter == 1:  # nothing was played
        assert "no move was played: no record kept" in hout and "no record kept" in jout
        assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".json", ".journal")) == []
    else:
        assert "record: h.json" in hout and "record: j.json" in jout
        assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


@pytest.mark.slow
def test_two_bots_play_two_matches_in_a_row_and_history_lists_each(tmp_path: Path) -> None:
    """``--matches 2`` on both sides: one connection, two matches, each with its own pair
    of identical, valid records (the second's seed drawn by both), both in ``history``."""
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--bot", "easy", "--matches", "2",
         "--target", "20", "--name", "Ann"],
        tmp_path,
    )  # fmt: skip
    try:
        port, _lines = wait_listening(host)
        joiner = ["join", f"127.0.0.1:{port}", "--bot", "easy", "--matches", "2", "--name", "Bob"]
        join = spawn(joiner, tmp_path)
        (jrc, jout, jerr), (hrc, hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert (jrc, hrc) == (0, 0), jerr + herr
    assert "match 2 started; seed drawn by both" in hout and "match 2 started" in jout
    records = tmp_path / "xdg" / "p2p-spite" / "records"

    def of(side: str, number: str) -> Path:
        (path,) = [p for p in records.iterdir() if re.search(rf"-{side}-\d+{number}\.json$", p.name)]
        return path

    seeds = []
    for number in ("", "-2"):
        h, j = of("host", number), of("join", number)
        assert h.read_bytes() == j.read_bytes()
        assert "match won by" in _check(h)
        seeds.append(json.loads(h.read_text())["seed"])
    assert seeds[0] != seeds[1]
    r = subprocess.run(
        [*CLI, "history"], capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.strip().splitlines()) == 5, r.stdout  # four records, then the totals
    assert "matches: 2 won, 2 lost" in r.stdout, r.stdout


@pytest.mark.slow
def test_a_polish_host_and_a_spanish_joiner_play_one_match_each_in_their_language(tmp_path: Path) -> None:
    seed = "00" * 31 + "03"
    host = spawn(
        ["--lang", "pl", "host", "--bind", "127.0.0.1", "--port", "0", "--record", "h.json", "--no-code",
         "--seed", seed, "--games", "2", "--bot", "easy", "--name", "Ania"],
        tmp_path,
    )  # fmt: skip
    try:
        port = int(reader(host).wait(r"^nasłuchuję na .*:(\d+)$", 20).group(1))
        join = spawn(
            ["join", f"127.0.0.1:{port}", "--lang", "es", "--record", "j.json", "--no-code", "--bot", "easy",
             "--name", "Beto"],
            tmp_path,
        )  # fmt: skip
        (jrc, jout, jerr), (hrc, hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert (hrc, jrc) == (0, 0), (herr, jerr)
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()  # one record
    assert "Beto dołącza; ziarno" in hout and "partia 1 się zaczęła" in hout and "wynik końcowy:" in hout
    assert "te has unido al encuentro de Ania" in jout and "empieza la partida 1" in jout
    assert "puntuación final:" in jout and "registro: j.json" in jout
    rec = json.loads((tmp_path / "h.json").read_text())
    assert rec["players"] == ["Ania", "Beto"] and len(rec["games"]) == 2
