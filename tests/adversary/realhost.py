"""A real host process under attack: started headless with an easy bot, an attack run
against its port, and what it leaves (the one line it stops with, its record checked by
``replay --check``).  The hostile side is :class:`~tests.adversary.hostile.Hostile`."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2p_spite.core.game import GameCore
from tests.adversary.hostile import ADDR, Hostile
from tests.support.net import CLI, finish, spawn, wait_listening

TIMEOUT = 60.0
SEED = "5e" * 32


def one_line(err: str) -> str:
    """The one line that says why the honest side stopped (the host's warnings about the
    connections it dropped while waiting are apart); no traceback."""
    assert "Traceback" not in err, err
    lines = [x for x in err.splitlines() if x.strip() and "warning:" not in x]
    assert len(lines) == 1, err
    return lines[0]


def check_record(path: Path) -> dict[str, Any]:
    """``replay --check`` passes on the honest record; the record itself (none: a match
    stopped before its first move keeps no record, so it holds no forged action either)."""
    if not path.exists():
        return {"games": []}
    r = subprocess.run([*CLI, "replay", "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    rec: dict[str, Any] = json.loads(path.read_text())
    return rec


def start_host(tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], int]:
    host = spawn(["host", "--bind", ADDR, "--port", "0", "--no-code", "--name", "Ann", "--record", "h.json",
                  "--bot", "easy", "--grace", "2", *extra], tmp)  # fmt: skip
    port, _ = wait_listening(host)
    return host, port


def run_host(tmp: Path, attack: Callable[[int], dict[str, Any] | None], *extra: str) -> tuple[int, str, Any]:
    host, port = start_host(tmp, *extra)
    try:
        told = attack(port)
        if told is not None and told["code"] == "position":
            # refused inside the handshake: no match began; the host keeps waiting for a
            # real joiner (Ctrl-C stops it)
            time.sleep(0.3)
            assert host.poll() is None
            host.send_signal(signal.SIGINT)
        rc, _out, err = finish(host, TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    return rc, err, told


def on_our_turn(port: int) -> tuple[Hostile, GameCore]:
    """Join the host honestly (sync at 0) and let its bot play until the joiner is on turn."""
    p = Hostile.dial(port)
    p.join_seeded()
    p.sync()
    c = p.core
    assert c is not None
    while c.match.game.turn != 1:
        p.receive_action()
    return p, c
