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


def _host(record: str) -> list[str]:
    return [
        "host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--private", "--games", "1",
        "--target", "1000", "--bot", "easy", "--bot-seed", "1", "--record", record, "--grace", "2",
    ]  # fmt: skip


def _join(port: int, record: str) -> list[str]:
    return [
        "join", f"127.0.0.1:{port}", "--no-code", "--private", "--bot", "easy", "--bot-seed", "2",
        "--record", record, "--grace", "2",
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    "attack,cheater",
    [("own-order", "join"), ("duplicate", "host"), ("replace", "host"), ("foreign", "host")],
)
def test_a_false_pass_is_refused_on_arrival(tmp_path: Path, attack: str, cheater: str) -> None:
    honest_role = "host" if cheater == "join" else "join"
    host = spawn(_host("h.json"), tmp_path, program=[*CHEATER, attack] if cheater == "host" else _cli())
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
    lines = [ln for ln in err.splitlines() if "has no valid proof" in ln]
    assert lines, err
    assert rc != 0, (rc, err)
    seat = 0 if cheater == "host" else 1
    assert f"seat {seat}" in lines[0], lines
    rec = json.loads((tmp_path / ("h.json" if honest_role == "host" else "j.json")).read_text())
    cheat = rec["games"][-1]["cheat"]
    assert cheat["kind"] == "shuffle-proof" and cheat["seat"] == seat
    assert cheat["round"] == (1 if attack == "foreign" else 0)
    assert bytes.fromhex(cheat["message"])[0] == 2  # the whole SHUFFLE message, to check again


def _cli() -> list[str]:
    return [sys.executable, "-m", "p2p_spite"]
