"""Takebacks in a private-deck match between two processes on 127.0.0.1: the real
``p2p-spite host --private --bot easy`` (the computer allows every takeback) against the
real program whose bot takes its moves back (tests/adversary/taker.py).  Honest, both
records are identical and pass ``replay --check``; lying, the host refuses with the right
code in one line, exits 1, and its record holds the moves that stand and checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.net import CLI, Outcome, host_and_join

pytestmark = pytest.mark.slow
TIMEOUT = 120
TAKER = [sys.executable, "-m", "tests.adversary.taker"]


def _run(tmp: Path, mode: str) -> tuple[Outcome, Outcome]:
    return host_and_join(
        [
            "--bind", "127.0.0.1", "--port", "0", "--no-code", "--private", "--games", "1",
            "--target", "1000", "--bot", "easy", "--bot-seed", "1", "--record", "h.json", "--grace", "2",
        ],
        ["--no-code", "--private", "--bot", "easy", "--bot-seed", "2", "--record", "j.json", "--grace", "2"],
        tmp,
        TIMEOUT,
        join_program=[*TAKER, mode],
    )  # fmt: skip


def _check(path: Path) -> str:
    out = subprocess.run([*CLI, "replay", "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_takebacks_between_two_processes_leave_two_identical_records_that_check(tmp_path: Path) -> None:
    (hrc, _hout, herr), (jrc, _jout, jerr) = _run(tmp_path, "honest")
    assert hrc == 0 and jrc == 0, (herr, jerr)
    assert "Traceback" not in herr + jerr
    assert "taker: took back" in jerr, jerr  # (the computer allowed, at once)
    h, j = (tmp_path / n for n in ("h.json", "j.json"))
    assert h.read_text() == j.read_text()
    rec = json.loads(h.read_text())
    assert rec["version"] == 2 and rec["games"][0]["deck"] is not None
    assert _check(h).startswith("ok:")


@pytest.mark.parametrize(
    ("mode", "words"), [("lying-undo", "(desync)"), ("other-slot", "an illegal move (the move names card")]
)
def test_a_lying_taker_is_refused_and_the_hosts_record_checks(tmp_path: Path, mode: str, words: str) -> None:
    (hrc, _hout, herr), (_jrc, _jout, jerr) = _run(tmp_path, mode)
    assert "Traceback" not in herr + jerr
    assert hrc == 1, (herr, jerr)
    lines = [ln for ln in herr.splitlines() if ln.strip()]
    assert len(lines) == 1 and words in lines[0], herr
    rec = json.loads((tmp_path / "h.json").read_text())
    assert rec["version"] == 2
    # the game was left unfinished: the deck was not revealed (a refusal reveals nothing)
    # or the record holds it; either way what stands replays
    if rec["games"][0].get("deck") is not None:
        _check(tmp_path / "h.json")
