"""A closed terminal (SIGHUP; a dropped SSH session) is a lost connection, not a goodbye:
real ``host`` and ``join`` processes over 127.0.0.1.  The other side keeps waiting (it
never says the player left), the journal stays, and ``--resume`` finishes the match."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p_spite.contracts.errors import EXIT_LOST
from tests.adversary.cut_matches import record_core
from tests.support.net import (
    CLI,
    ROOT,
    bot_host_args,
    bot_join_args,
    finish,
    finish_all,
    free_port,
    reader,
    sigint_default,
    spawn,
    wait_listening,
)

GAMES = 40  # up to the target: long enough to hang up in the middle
GRACE = 60  # the survivor waits this long (the test never waits it out)


def _host(port: int, seed_hex: str, extra: list[str]) -> list[str]:
    return bot_host_args(seed_hex, ["--port", str(port), "--no-announce", *extra], GAMES, GRACE)


def _join(port: int, extra: list[str]) -> list[str]:
    return bot_join_args(port, extra, GRACE)


@contextlib.contextmanager
def _reaped(procs: list[subprocess.Popen[str]]) -> Iterator[list[subprocess.Popen[str]]]:
    """The processes the test starts (appended as it goes): killed if still running at the end."""
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def _all_ok(codes: list[tuple[int, str, str]]) -> None:
    for rc, out, err in codes:
        assert rc == 0, (err, out[-2000:])
        assert "Traceback" not in err


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
    port = free_port()
    seed_hex = "5e" * 32
    host = spawn(_host(port, seed_hex, []), tmp_path)
    with _reaped([host]) as procs:
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
        back = reader(survivor).wait(r"is back: (game \d+ goes on, \d+ moves? in)", 30).group(1)
        if victim == "join":  # both sides say where the match goes on in the same words
            assert (
                reader(again).wait(r"^back in host's match: (game \d+ goes on, \d+ moves? in)", 5).group(1)
                == back
            )
        codes = finish_all([again, survivor], 120)
    _all_ok(codes)
    said = "".join(reader(survivor).lines)
    assert "left the match" not in said and "left the match" not in codes[1][2]
    h = json.loads((tmp_path / "h.json").read_text())
    j = json.loads((tmp_path / "j.json").read_text())
    assert record_core(h) == record_core(j)
    assert max(h["scores"]) >= 50 or len(h["games"]) == GAMES


@pytest.mark.slow
def test_after_a_lost_connection_the_exact_resume_command_is_said_once(tmp_path: Path) -> None:
    """The joiner waits 3 s for a host that hung up, then says once how to go on: the
    command with the host's address and port; ``history`` shows the exact commands of
    both sides too (no ``HOST`` placeholder), and running them finishes the match."""
    port = free_port()
    seed_hex = "6a" * 32
    host_args = [a for a in _host(port, seed_hex, []) if a not in ("--record", "h.json")]
    host = spawn(host_args, tmp_path)
    with _reaped([host]) as procs:
        wait_listening(host)
        join_args = [a for a in _join(port, []) if a not in ("--record", "j.json")]
        join = spawn([*join_args[:-2], "--grace", "3"], tmp_path)
        procs.append(join)
        reader(host).wait(r"^game 1 started", 30)
        records = tmp_path / "xdg" / "p2p-spite" / "records"
        deadline = time.monotonic() + 30
        while not (journals := list(records.glob("*-host-*.json.journal"))) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert journals, "the host wrote no journal"
        _wait_for_moves(journals[0], 60)
        os.kill(host.pid, signal.SIGHUP)
        assert finish(host, 30)[0] == 129
        rc, out, err = finish(join, 60)
        assert rc == EXIT_LOST, (out, err)  # README: the connection was lost
        said = out + err
        assert said.count("did not come back") == 1, said
        command = f"p2p-spite join 127.0.0.1:{port} --resume "
        assert said.count("to go on with this match: ") == 1 and said.count(command) == 1, said
        rc, history, err = finish(spawn(["history"], tmp_path), 60)
        assert rc == 0, err
        resumes = [line.split("resumable: ", 1)[1] for line in history.splitlines() if "resumable: " in line]
        assert len(resumes) == 2 and "HOST" not in history, history
        by_side = {("join" if " join " in c else "host"): shlex.split(c)[1:] for c in resumes}
        assert by_side["join"][:2] == ["join", f"127.0.0.1:{port}"]
        assert by_side["host"][:3] == ["host", "--port", str(port)]
        extra = ["--bind", "127.0.0.1", "--no-announce", "--bot", "easy", "--grace", str(GRACE)]
        again_host = spawn([*by_side["host"], *extra], tmp_path)
        procs.append(again_host)
        wait_listening(again_host)
        again_join = spawn([*by_side["join"], "--bot", "easy"], tmp_path)
        procs.append(again_join)
        codes = finish_all([again_join, again_host], 120)
    _all_ok(codes)


def test_ctrl_c_at_the_join_code_prompt_leaves(tmp_path: Path) -> None:
    """``join`` at a terminal asks for the code the host wants; Ctrl-C there stops at once
    (exit 130, README), not only Enter."""
    host = spawn(["host", "--bind", "127.0.0.1", "--port", "0", "--no-announce", "--bot", "easy"], tmp_path)
    master, slave = pty.openpty()
    try:
        port, _ = wait_listening(host)
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(ROOT)}
        join = subprocess.Popen(
            [*CLI, "join", f"127.0.0.1:{port}"], cwd=tmp_path, env=env, stdin=slave, stdout=slave,
            stderr=slave, preexec_fn=sigint_default,
        )  # fmt: skip
        seen = _read_until(master, b"join code (", join)
        _wait_reading_stdin(join.pid)  # (a person's Ctrl-C comes once the prompt waits)
        join.send_signal(signal.SIGINT)  # (what the terminal sends for Ctrl-C)
        assert join.wait(30) == 130, seen
        seen += _read_until(master, b"interrupted", join)
        assert b"interrupted" in seen and b"Traceback" not in seen, seen
    finally:
        os.close(master)
        os.close(slave)
        host.kill()
        host.wait(10)


def _read_until(master: int, text: bytes, proc: subprocess.Popen[bytes], timeout: float = 30) -> bytes:
    """What the terminal shows, until ``text`` (or the deadline)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _w, _x = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:  # (the other end closed)
                break
    assert text in seen, seen
    return seen


def _wait_reading_stdin(pid: int, timeout: float = 30) -> None:
    """Until the process waits in read(2) on its stdin (Linux's /proc tells; elsewhere, a
    moment): a signal sent between the prompt and the read would only be seen at the
    next line, which no person can type that fast."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            call = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:
            time.sleep(1)
            return
        if call[:2] == ["0", "0x0"]:  # read(0, ...) (x86-64: read is syscall 0)
            return
        time.sleep(0.01)


@pytest.mark.slow
def test_a_person_at_the_line_prompt_whose_terminal_closes_is_waited_for(tmp_path: Path) -> None:
    """The joiner is a person at the line prompt (TERM=dumb, an SSH session): SIGHUP leaves
    no goodbye; the host keeps the seat, and the joiner's --resume (here a bot) finishes."""
    port = free_port()
    seed_hex = "7b" * 32
    host = spawn(_host(port, seed_hex, []), tmp_path)
    with _reaped([host]) as procs:
        wait_listening(host)
        args = [a for a in _join(port, []) if a not in ("--bot", "easy", "--bot-seed", "2")]
        person = spawn(args, tmp_path, {"TERM": "dumb"}, stdin=True)
        procs.append(person)
        reader(person).wait(r"Game 1 begins", 30)
        os.kill(person.pid, signal.SIGHUP)
        rc, out, err = finish(person, 30)
        assert rc == 129 and "Traceback" not in err, (out, err)
        reader(host).wait(r"the connection to \w+ was lost; keeping the seat open", 30)
        assert (tmp_path / "j.json").exists()
        again = spawn(_join(port, ["--resume", "j.json"]), tmp_path)
        procs.append(again)
        codes = finish_all([again, host], 120)
    _all_ok(codes)
    assert "left the match" not in codes[1][1] + codes[1][2]
    assert record_core(json.loads((tmp_path / "h.json").read_text())) == record_core(
        json.loads((tmp_path / "j.json").read_text())
    )
