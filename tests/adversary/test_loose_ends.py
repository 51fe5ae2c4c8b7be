"""Issue 27: loose ends an attacker and a newcomer found, against real ``p2p-spite``
processes over 127.0.0.1 where the issue asks for it: a stranger's ``hello`` + ``bye``
prints no traceback; a hostile host that stops after it holds the joiner's half of the
seed (refuses, says goodbye, breaks the protocol or stalls) gets the documented warning
and exit 3."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.net.keys import commitment
from p2p_spite.net.protocol import PROTOCOL_VERSION
from p2p_spite.net.wire import encode
from tests.adversary.hostile import ADDR, Hostile, listener
from tests.support.net import finish, finish_all, read_code, reader, spawn, wait_listening

TIMEOUT = 60.0


def _tracebacks(err: str) -> int:
    return err.count("Traceback")


def _hello_bye(port: int, n: int, budget: float = 30.0) -> None:
    """``n`` strangers, one after the other: a valid hello (saying it has a code), then bye
    at once; each waits (a second at most) for the host to close.  ``budget``: seconds in all."""
    deadline = time.monotonic() + budget
    for _ in range(n):
        if time.monotonic() > deadline:
            return
        with socket.create_connection((ADDR, port), timeout=10) as s:
            hello = {"t": "hello", "proto": PROTOCOL_VERSION, "app": "p2p-spite", "role": "join",
                     "name": "mallory", "nonce": os.urandom(16), "code": True, "match": None}  # fmt: skip
            s.sendall(encode(hello) + encode({"t": "bye", "reason": "bye"}))
            s.settimeout(1)
            try:
                while s.recv(65536):
                    pass
            except OSError:
                pass


# -- a stranger's hello + bye ------------------------------------------------------------------


def test_strangers_saying_hello_and_bye_print_no_traceback_at_the_host(tmp_path: Path) -> None:
    """20 strangers before the match, 200 during it (the host wants a code: each is in the
    join-code step when its bye comes), against a real host and a real joiner."""
    host = spawn(["host", "--bind", ADDR, "--port", "0", "--no-announce", "--name", "Ann", "--bot", "easy",
                  "--record", "h.json", "--grace", "2"], tmp_path)  # fmt: skip
    procs = [host]
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        _hello_bye(port, 20)
        # the real joiner, a person who takes their time (its stdin a pipe nobody types into)
        join = spawn(["join", f"{ADDR}:{port}", "--code", code, "--name", "Bob", "--record", "j.json",
                      "--grace", "2"], tmp_path, stdin=True)  # fmt: skip
        procs.append(join)
        reader(join).wait(r"^joined ", 30)
        _hello_bye(port, 200)
        assert host.poll() is None and join.poll() is None
        assert join.stdin is not None
        join.stdin.write("quit\ny\n")
        join.stdin.flush()
        join.stdin.close()
        (hrc, _hout, herr), (jrc, _jout, jerr) = finish_all([host, join], TIMEOUT)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert _tracebacks(herr) == 0 and _tracebacks(jerr) == 0, herr[-3000:] + jerr[-2000:]
    # the first before the match is told in full, the rest merged
    warnings = [x for x in herr.splitlines() if "warning:" in x]
    assert warnings and "said goodbye during the handshake" in warnings[0], herr
    assert len(warnings) <= 3, warnings
    assert "Fatal error" not in herr, herr[-2000:]
    assert (hrc, jrc) == (3, 0), (hrc, jrc, herr[-1000:], jerr)  # the joiner quit: the host says so


# -- a hostile host that stops after it holds the joiner's half of the seed ----------------------


def _to_the_joiners_reveal(p: Hostile) -> dict[str, Any]:
    """As a host: hello, a setup without a seed, commits; returns once the joiner revealed."""
    peer = p.hello()
    setup = {"t": "setup", "match": b"\x77" * 16, "seed": None, "target": 50, "games": None,
             "players": [p.name, peer["name"]], "resume": False}  # fmt: skip
    p.send(setup)
    p.expect("commit")
    p.send({"t": "commit", "c": commitment("host", b"\1" * 32, setup["match"])})
    return p.expect("reveal")


def _refuses(p: Hostile) -> None:
    p.send({"t": "refuse", "code": "history", "msg": "no"})


def _says_bye(p: Hostile) -> None:
    p.send({"t": "bye", "reason": "no"})


def _breaks_the_protocol(p: Hostile) -> None:
    p.send({"t": "reveal", "r": b"\2" * 32})  # not what it committed to


def _stalls(p: Hostile) -> None:
    # pings only: the handshake's deadline (15 s) is not put off by them
    for k in range(40):
        p.send({"t": "ping", "k": k})
        time.sleep(0.5)


@pytest.mark.parametrize(
    ("then", "how"),
    [
        (_refuses, "it refused: no"),
        (_says_bye, "it said goodbye during the handshake (no)"),
        (_breaks_the_protocol, "then broke the protocol"),
        pytest.param(_stalls, "did not finish the handshake within 15 s", marks=pytest.mark.slow),
    ],
)
def test_a_host_that_stops_after_the_joiners_reveal_gets_the_warning_and_exit_3(
    tmp_path: Path, then: Callable[[Hostile], None], how: str
) -> None:
    server, port = listener()
    join = spawn(["join", f"{ADDR}:{port}", "--name", "Bob", "--record", "j.json", "--bot", "easy",
                  "--grace", "2"], tmp_path)  # fmt: skip
    try:
        p = Hostile.accept(server, timeout=30)
        try:
            _to_the_joiners_reveal(p)
            then(p)
            rc, _out, err = finish(join, TIMEOUT)
        finally:
            p.close()
    finally:
        server.close()
        if join.poll() is None:
            join.kill()
            join.wait()
    assert _tracebacks(err) == 0, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert "the host left after it had your half of the seed" in lines[0], lines
    assert how in lines[0] and "may have seen the deal" in lines[0], lines
    assert rc == 3, (rc, err)
