"""Private-deck matches between two real processes on 127.0.0.1 (`host --private`, `join --private`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from p2p_spite.storage.resume import load_saved
from tests.support.net import CLI, finish_all, free_port, read_code, spawn, wait_listening
from tests.support.proxy import FaultProxy, Plan

TIMEOUT = 240  # a private game costs seconds of pure-Python curve work on a loaded 2-CPU machine


def _check(path: Path) -> str:
    r = subprocess.run(
        [*CLI, "replay", "--check", str(path)], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.slow
def test_a_private_match_between_two_processes_gives_identical_checked_records(tmp_path: Path) -> None:
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--record", "h.json", "--private", "--games", "2",
         "--target", "1000", "--bot", "easy", "--bot-seed", "1", "--name", "Ann"],
        tmp_path,
    )  # fmt: skip
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        join = spawn(
            ["join", f"127.0.0.1:{port}", "--code", code, "--record", "j.json", "--private",
             "--bot", "easy", "--bot-seed", "2", "--name", "Bob"],
            tmp_path,
        )  # fmt: skip
        (jrc, jout, jerr), (hrc, hout, herr) = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert (jrc, hrc) == (0, 0), jerr + herr
    assert "Traceback" not in herr + jerr
    assert "private deck: no one sees a hidden card" in jout  # the joiner is shown it before play
    assert "private deck" in hout
    h, j = tmp_path / "h.json", tmp_path / "j.json"
    assert h.read_bytes() == j.read_bytes()
    rec = json.loads(h.read_text())
    assert rec["version"] == 2 and rec["private"] is True and len(rec["games"]) == 2
    assert all(sorted(g["deck"]) == list(range(104)) for g in rec["games"])
    assert "ok: 2 games" in _check(h)


def test_join_private_refuses_a_host_that_does_not_offer_it(tmp_path: Path) -> None:
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--no-code", "--bot", "easy"], tmp_path)
    try:
        port, _ = wait_listening(host)
        join = spawn(["join", f"127.0.0.1:{port}", "--no-code", "--private", "--bot", "easy"], tmp_path)
        ((jrc, _jout, jerr),) = finish_all([join], 60)
    finally:
        host.kill()
        host.wait()
    assert jrc == 1
    assert "does not offer a private-deck match" in jerr and jerr.count("\n") == 1, jerr
    assert "Traceback" not in jerr


def _host(port: int, *extra: str) -> list[str]:
    return [
        "host", "--bind", "127.0.0.1", "--port", str(port), "--no-code", "--private", "--games", "2",
        "--target", "1000", "--bot", "easy", "--bot-seed", "1", "--record", "h.json", "--grace", "60", *extra,
    ]  # fmt: skip


def _join(port: int, *extra: str) -> list[str]:
    return [
        "join", f"127.0.0.1:{port}", "--private", "--bot", "easy", "--bot-seed", "2", "--record", "j.json",
        "--grace", "60", *extra,
    ]  # fmt: skip


def _actions(path: Path) -> list[tuple[int, int, object]]:
    return [(a.game, a.seat, a.move) for a in load_saved(path).actions]


@pytest.mark.slow
@pytest.mark.parametrize("victim,at", [("join", 40), ("host", 170)])
def test_resume_after_kill_9_in_a_private_match_loses_nothing(tmp_path: Path, victim: str, at: int) -> None:
    """Killed mid-game (the deck tape in its journal), the side comes back with --resume:
    its deck is rebuilt from its secret and the tape, and the match ends as one."""
    # A private deck is new in every run, so the match is too: about 1 in 300 two-game
    # matches of easy bots ends within 170 moves, before the kill.  Then play another.
    for attempt in range(3):
        work = tmp_path / f"match{attempt}"
        work.mkdir()
        port = free_port()
        host = spawn(_host(port), work)
        procs = [host]
        try:
            wait_listening(host)
            join = spawn(_join(port), work)
            procs.append(join)
            proc = host if victim == "host" else join
            path = work / ("h.json" if victim == "host" else "j.json")
            journal = path.with_name(path.name + ".journal")
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline and proc.poll() is None:
                if journal.exists() and journal.read_bytes().count(b'"n":') >= at:
                    break
                time.sleep(0.01)
            if proc.poll() is not None:  # the match ended before the kill
                continue
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            before = _actions(path)
            assert len(before) >= at and b'"pk"' in journal.read_bytes()
            resume = ("--resume", path.name)
            again = spawn(_host(port, *resume) if victim == "host" else _join(port, *resume), work)
            procs.append(again)
            codes = finish_all([again, join if victim == "host" else host], TIMEOUT)
            break
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    else:
        pytest.fail(f"three matches in a row ended within {at} moves, before the kill")
    for rc, out, err in codes:
        assert rc == 0, (err, out[-1500:])
        assert "Traceback" not in err
    h, j = work / "h.json", work / "j.json"
    assert h.read_bytes() == j.read_bytes()
    assert "ok: 2 games" in _check(h)
    assert _actions(h)[: len(before)] == before, "a move made before the kill was lost or changed"


@pytest.mark.slow
def test_a_private_match_through_cut_connections_finishes(tmp_path: Path) -> None:
    host = spawn(_host(0), tmp_path)
    try:
        port, _ = wait_listening(host)
        with FaultProxy(port, Plan(cuts=[700, 9000, 40000, 120000])) as proxy:  # the deal, play, game 2
            join = spawn(_join(proxy.port), tmp_path)
            codes = finish_all([join, host], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    for rc, _out, err in codes:
        assert rc == 0, err
    assert proxy.stats.cuts == 4
    h = tmp_path / "h.json"
    assert h.read_bytes() == (tmp_path / "j.json").read_bytes()
    assert "ok: 2 games" in _check(h)
