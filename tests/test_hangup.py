"""A closed terminal (SIGHUP; a dropped SSH session) is a lost connection, not a goodbye:
real ``host`` and ``join`` processes over 127.0.0.1.  The other side keeps waiting (it
never says the player left), the journal stays, and ``--resume`` finishes the match."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.adversary.cut_matches import record_core
from tests.support.net import finish, finish_all, reader, spawn, wait_listening

GAMES = 40  # up to the target: long enough to hang up in the middle
GRACE = 60  # the survivor waits this long (the test never waits it out)


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def _host(port: int, seed_hex: str, extra: list[str]) -> list[str]:
    return [
        "host", "--bind", "127.0.0.1", "--port", str(port), "--no-code", "--seed", seed_hex,
        "--games", str(GAMES), "--bot", "easy", "--bot-seed", "1", "--record", "h.json",
        "--grace", str(GRACE), "--no-announce", *extra,
    ]  # fmt: skip


def _join(port: int, extra: list[str]) -> list[str]:
    return [
        "join", f"127.0.0.1:{port}", "--bot", "easy", "--bot-seed", "2", "--record", "j.json",
        "--grace", str(GRACE), *extra,
    ]  # fmt: skip


def _wait_for_moves(journal: Path, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.01)
    raise AssertionError(f"{journal.name} never held {n} actions")


@pytest.mark.slow
@pytest.mark.parametrize("victim", ["host", "join"])
def test_a_hangup_is_a_lost_connection_and_both_resume(tmp_path: Path, victim: str) -> None:
    port = _free_port()
    seed_hex = "5e" * 32
    host = spawn(_host(port, seed_hex, []), tmp_path)
    procs = [host]
    try:
        wait_listening(host)
        join = spawn(_join(port, []), tmp_path)
        procs.append(join)
        gone, survivor = (host, join) if victim == "host" else (join, host)
        record = tmp_path / ("h.json" if victim == "host" else "j.json")
        reader(gone).wait(r"^game 1 started", 30)
        _wait_for_moves(record.with_name(record.name + ".journal"), 60)
        assert gone.poll() is None, "the match ended before the hangup: make it longer"
        os.kill(gone.pid, signal.SIGHUP)
        rc, _out, err = finish(gone, 30)
        assert rc == 129, err  # README: a closed terminal
        assert "Traceback" not in err
        # the survivor waits for the player to come back, as after a lost connection
        reader(survivor).wait(r"the connection to \w+ was lost", 30)
        assert record.exists() and record.with_name(record.name + ".journal").exists()
        if victim == "host":
            again = spawn(_host(port, seed_hex, ["--resume", "h.json"]), tmp_path)
        else:
            again = spawn(_join(port, ["--resume", "j.json"]), tmp_path)
        procs.append(again)
        reader(survivor).wait(r"is back", 30)
        codes = finish_all([again, survivor], 120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for rc, out, err in codes:
        assert rc == 0, (err, out[-2000:])
        assert "Traceback" not in err
    said = "".join(reader(survivor).lines)
    assert "left the match" not in said and "left the match" not in codes[1][2]
    h = json.loads((tmp_path / "h.json").read_text())
    j = json.loads((tmp_path / "j.json").read_text())
    assert record_core(h) == record_core(j)
    assert max(h["scores"]) >= 50 or len(h["games"]) == GAMES
