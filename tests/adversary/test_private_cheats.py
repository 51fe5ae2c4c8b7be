"""A modified peer (tests/adversary/cheater.py) against the real program, two processes
on 127.0.0.1, both directions: every false pass is refused the moment it arrives, before
any card is shown, with one clear line and the evidence in the honest side's record."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.net import finish_all, spawn, wait_listening

TIMEOUT = 120
CHEATER = [sys.executable, "-m", "tests.adversary.cheater"]


def _host(record: str, games: int) -> list[str]:
    return [
        "host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--private", "--games", str(games),
        "--target", "1000", "--bot", "easy", "--bot-seed", "1", "--record", record, "--grace", "2",
    ]  # fmt: skip


def _join(port: int, record: str) -> list[str]:
    return [
        "join", f"127.0.0.1:{port}", "--no-code", "--private", "--bot", "easy", "--bot-seed", "2",
        "--record", record, "--grace", "2",
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("cheater", ["host", "join"])
@pytest.mark.parametrize("attack", ["own-order", "duplicate", "replace", "foreign"])
def test_a_false_pass_is_refused_on_arrival(tmp_path: Path, attack: str, cheater: str) -> None:
    honest_role = "host" if cheater == "join" else "join"
    # (a reshuffle's attack needs a center completed: a private deal is new in every run, and
    # a game may end before one is; the match stops at the first forged pass anyway)
    games = 5 if attack == "foreign" else 1
    host = spawn(
        _host("h.json", games), tmp_path, program=[*CHEATER, attack] if cheater == "host" else _cli()
    )
    try:
        port, _ = wait_listening(host)
        join = spawn(
            _join(port, "j.json"), tmp_path, program=[*CHEATER, attack] if cheater == "join" else _cli()
        )
        (jrc, _jout, jerr), (hrc, _hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    rc, err = (hrc, herr) if honest_role == "host" else (jrc, jerr)
    assert "Traceback" not in herr + jerr
    seat = 0 if cheater == "host" else 1
    rec = json.loads((tmp_path / ("h.json" if honest_role == "host" else "j.json")).read_text())
    if attack == "own-order" and cheater == "host":
        # Fresh encryptions of an order of its choice ARE a shuffle of the deal's first input
        # (trivial encryptions): the proof holds, and the joiner's pass hides that order.
        # Only the end-of-game check sees that the host's secret does not give its pass.
        assert "seat 0 cheated (reveal)" in err, err
        assert rec["games"][-1]["cheat"]["kind"] == "reveal" and rec["games"][-1]["moves"]
        return
    lines = [ln for ln in err.splitlines() if "has no valid proof" in ln]
    assert lines, err
    assert rc != 0, (rc, err)
    assert f"seat {seat}" in lines[0], lines
    cheat = rec["games"][-1]["cheat"]
    assert cheat["kind"] == "shuffle-proof" and cheat["seat"] == seat
    assert cheat["round"] == (1 if attack == "foreign" else 0)
    assert bytes.fromhex(cheat["message"])[0] == 2  # the whole SHUFFLE message, to check again


def _cli() -> list[str]:
    return [sys.executable, "-m", "p2p_spite"]
