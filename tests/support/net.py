"""Helpers for the network tests: in-memory endpoint pairs, CLI processes, raw peers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from p2p_spite.contracts.session import Event
from p2p_spite.core.effects import Show
from p2p_spite.core.game import Committed, GameCore
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import (
    NEED_DATA,
    ActionDue,
    ActionReceived,
    Endpoint,
    Handshaken,
    LocalConfig,
    Phase,
    TakebackAnswered,
    TakenBack,
)
from p2p_spite.core.wire import FrameDecoder, ProtocolError, RemoteProtocolError, encode

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "p2p_spite"]
SEED = bytes(range(32))  # the seed Ann's in-memory matches are dealt from (playing)
LIMIT = 60.0  # seconds a test waits on a session's next event
E = TypeVar("E")


def pump(a: Endpoint, b: Endpoint, rounds: int = 50) -> tuple[list[Any], list[Any]]:
    """Move bytes both ways until quiet; return the events each side produced.

    A ProtocolError from either side is stored as the last item of its list.
    """
    ea: list[Any] = []
    eb: list[Any] = []
    for _ in range(rounds):
        moved = False
        for src, dst, evs in ((a, b, eb), (b, a, ea)):
            data = src.data_to_send()
            if data:
                moved = True
                dst.receive_data(data)
            drain(dst, evs)
        if not moved:
            break
    return ea, eb


def messages(data: bytes) -> list[dict[str, Any]]:
    """The messages in ``data``, whole frames as an endpoint sent them."""
    dec = FrameDecoder()
    dec.feed(data)
    out = []
    while (m := dec.next_message()) is not None:
        out.append(m)
    return out


def settled(ep: Endpoint, done: Committed, received: ActionReceived | None = None) -> list[Any]:
    """The action just committed to ``ep``'s core (ours, or ``received``), through the seat
    machine with no journal: ours queued for the peer or the peer's acknowledged (the bytes
    wait for :func:`pump`); the events shown, the next game dealt."""
    assert ep.core is not None
    machine = SeatMachine(ep.core)
    effects = machine.settle(done, ep, received) + machine.deal()
    return [fx.event for fx in effects if isinstance(fx, Show)]


def drain(ep: Endpoint, evs: list[Any]) -> None:
    """The endpoint's events into ``evs``, as a shell with no journal sees them: an action
    received is acknowledged and shown, an action due is made (sent, then shown), a
    takeback allowed is made (sent), one the peer made is acknowledged; the event itself
    is kept too (a takeback request is left for the test to answer)."""
    for _ in range(100_000):
        if evs and isinstance(evs[-1], ProtocolError):
            return
        try:
            ev = ep.next_event()
        except ProtocolError as e:
            evs.append(e)
            return
        if ev is NEED_DATA:
            return
        core = ep.core
        if isinstance(ev, ActionReceived):
            evs.extend(settled(ep, ev.done, ev))
        elif isinstance(ev, ActionDue):
            assert core is not None
            evs.extend(settled(ep, core.commit(ev.action)))
        elif isinstance(ev, TakebackAnswered):
            assert core is not None
            if ev.ok:
                core.take_back(core.seat)
                ep.send_undo(ev.n)
            evs.append(ev)
        elif isinstance(ev, TakenBack):
            ep.acknowledge()
            evs.append(ev)
        else:
            evs.append(ev)


def pair(host: LocalConfig, join: LocalConfig) -> tuple[Endpoint, Endpoint, list[Any], list[Any]]:
    h, j = Endpoint(host), Endpoint(join)
    h.initiate()
    j.initiate()
    eh, ej = pump(h, j)
    return h, j, eh, ej


def playing(clock: Callable[[], float] | None = None) -> tuple[Endpoint, Endpoint]:
    """Ann hosting a match from :data:`SEED` and Bob joining, in memory, through their
    handshake: both endpoints playing (``clock``: both endpoints' clock)."""
    host, join = LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob")
    h, j = (
        (Endpoint(host), Endpoint(join))
        if clock is None
        else (Endpoint(host, clock=clock), Endpoint(join, clock=clock))
    )
    h.initiate()
    j.initiate()
    eh, ej = pump(h, j)
    assert eh and isinstance(eh[0], Handshaken) and ej and isinstance(ej[0], Handshaken), (eh, ej)
    assert h.core is not None and j.core is not None
    return h, j


def cores(h: Endpoint, j: Endpoint) -> tuple[GameCore, GameCore]:
    """Both endpoints' match cores (there are: both are playing)."""
    assert h.core is not None and j.core is not None
    return h.core, j.core


def resumed(hc: GameCore, jc: GameCore) -> tuple[Endpoint, Endpoint, list[object], list[object]]:
    """A reconnection: new endpoints over the same cores, through their handshake."""
    h2, j2 = Endpoint(LocalConfig(HOST, "Ann"), hc), Endpoint(LocalConfig(JOIN, "Bob"), jc)
    h2.initiate()
    j2.initiate()
    eh, ej = pump(h2, j2)
    return h2, j2, eh, ej


def one_game_over() -> tuple[Endpoint, Endpoint]:
    """A one-game match, over: the side on turn resigned it."""
    h, j, _, _ = pair(LocalConfig(HOST, "Ann", seed=SEED, max_games=1), LocalConfig(JOIN, "Bob"))
    assert h.core is not None and j.core is not None
    mover = (h, j)[h.core.match.game.turn]
    assert mover.core is not None
    mover.core.commit(mover.core.check_resign(mover.core.seat))
    mover.send_action(mover.core.position - 1)
    pump(h, j)
    assert h.core.finished and j.core.finished
    return h, j


class Events(Protocol):
    async def next_event(self) -> Event: ...


async def next_of(s: Events, kind: type[E], seconds: float = LIMIT) -> E:
    """The session's next event of ``kind`` (the others before it are passed over),
    within ``seconds``."""
    async with asyncio.timeout(seconds):
        while True:
            ev = await s.next_event()
            if isinstance(ev, kind):
                return ev


def raw_watch() -> bytes:
    """A watcher's first message, in clear (a host with --no-code)."""
    return encode({"t": "watch", "proto": 2, "app": "p2p-spite", "nonce": bytes(16), "code": False})


def refused(ep: Endpoint, msg: dict[str, object]) -> RemoteProtocolError:
    """``msg`` from the peer, refused: the error it is refused with (the endpoint's last
    event).  The endpoint is closed and has told the peer why."""
    ep.receive_data(encode(msg))
    evs: list[Any] = []
    drain(ep, evs)
    assert evs and isinstance(evs[-1], RemoteProtocolError), evs
    assert ep.phase is Phase.CLOSED
    told = messages(ep.data_to_send())
    assert told and told[-1]["t"] == "refuse" and told[-1]["code"] == evs[-1].code.value, told
    return evs[-1]


def frame(body: bytes) -> bytes:
    """``body`` as one frame on the wire (its length, 4 bytes big-endian, first)."""
    return len(body).to_bytes(4, "big") + body


def frames(data: bytes) -> list[bytes]:
    """``data`` cut into its frames, each with its length."""
    out = []
    while data:
        n = int.from_bytes(data[:4], "big")
        out.append(data[: 4 + n])
        data = data[4 + n :]
    return out


def sigint_default() -> None:
    """In a child before it runs: SIGINT back to its default action, whatever the test's
    process set."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def records_folder(tmp: Path) -> Path:
    """The records folder of a CLI run with ``XDG_DATA_HOME`` at ``tmp / "xdg"`` (made)."""
    folder = tmp / "xdg" / "p2p-spite" / "records"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def spawn(
    args: Sequence[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    *,
    stdin: bool = False,
    program: Sequence[str] = CLI,
) -> subprocess.Popen[str]:
    """``p2p-spite ARGS`` with its output piped, as a user's pipe sees it: without
    PYTHONUNBUFFERED (a developer's shell may set it; users' machines don't), so a
    line the program does not flush is a line the test waits for in vain.
    ``stdin``: give it a pipe to type into (else it reads nothing).  ``program``:
    another command line than p2p-spite's (a modified peer in tests/adversary)."""
    e = dict(os.environ)
    e.pop("PYTHONUNBUFFERED", None)
    e["XDG_DATA_HOME"] = str(cwd / "xdg")
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), e.get("PYTHONPATH", "")) if p)
    if env:
        e.update(env)
    return subprocess.Popen(
        [*program, *args],
        cwd=cwd,
        env=e,
        # Ctrl-C as a user's terminal has it: a test run started in the background by a
        # non-interactive shell ignores SIGINT, and its children would inherit that
        preexec_fn=sigint_default,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def line_queue(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """``proc``'s stdout, line by line (without the newline), read in a thread into a
    queue that ends with None: wait on it with a deadline, never forever."""
    q: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    out = proc.stdout

    def run() -> None:
        for line in out:
            q.put(line.rstrip("\n"))
        q.put(None)

    threading.Thread(target=run, daemon=True).start()
    return q


def play_by_hints(
    proc: subprocess.Popen[str], turns: int | None = None, stop: str = "quit", timeout: float = 240.0
) -> list[str]:
    """Play ``proc``'s seat on the line prompt (the hint, then Enter) for ``turns`` of our
    turns (None: to the match's end, refusing another), then ``stop``: "kill" (SIGKILL)
    or "quit"; returns the lines it printed (``timeout``: seconds for all of it)."""
    assert proc.stdin is not None
    lines = line_queue(proc)
    said: list[str] = []
    seen = 0
    deadline = time.monotonic() + timeout
    try:
        while True:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                break
            said.append(line)
            if line.startswith("-- game "):  # the board, on our turn
                seen += 1
                if turns is not None and seen > turns:
                    if stop == "kill":
                        proc.kill()
                        break
                    proc.stdin.write("quit\ny\n")
                else:
                    proc.stdin.write("hint\n")
                proc.stdin.flush()
            elif line.startswith("-- Hint: "):
                proc.stdin.write("\n")
                proc.stdin.flush()
            elif line.startswith("Play another match? [y/N]"):
                proc.stdin.write("n\n")
                proc.stdin.flush()
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    return said


class LineReader:
    """Reads a process's stdout in a thread, so waiting for a line never blocks forever."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        import queue
        import threading

        self.proc = proc
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        assert proc.stdout is not None
        stream = proc.stdout

        def run() -> None:
            for line in stream:
                self._q.put(line)
            self._q.put(None)

        threading.Thread(target=run, daemon=True).start()

    def wait(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        import queue
        import time

        rx = re.compile(pattern)
        for line in self.lines:
            m = rx.search(line)
            if m:
                return m
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                item = self._q.get(timeout=left)
            except queue.Empty:
                break
            if item is None:
                break
            self.lines.append(item)
            m = rx.search(item)
            if m:
                return m
        raise AssertionError(f"no line matching {pattern!r} in {''.join(self.lines)[-3000:]!r}")

    def rest(self, timeout: float = 60.0) -> str:
        """All the output until the process closes its stdout."""
        import queue
        import time

        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return "".join(self.lines)


_READERS: dict[int, LineReader] = {}


def reader(proc: subprocess.Popen[str]) -> LineReader:
    r = _READERS.get(id(proc))
    if r is None or r.proc is not proc:
        r = _READERS[id(proc)] = LineReader(proc)
    return r


def free_port() -> int:
    """A TCP port of 127.0.0.1 free a moment ago (for a host that must listen on a known
    port: one restarted with ``--resume`` listens where it did)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def bot_host_args(
    seed_hex: str, extra: list[str], games: int, grace: float, with_code: bool = False
) -> list[str]:
    """``host`` with an easy bot on 127.0.0.1, a fixed seed, ``h.json``."""
    nocode = [] if with_code else ["--no-code"]
    return [
        "host", "--bind", "127.0.0.1", *nocode, "--seed", seed_hex, "--games", str(games),
        "--bot", "easy", "--bot-seed", "1", "--record", "h.json", "--grace", str(grace), *extra,
    ]  # fmt: skip


def bot_join_args(port: int, extra: list[str], grace: float) -> list[str]:
    """``join`` with an easy bot, ``j.json``."""
    return [
        "join", f"127.0.0.1:{port}", "--bot", "easy", "--bot-seed", "2", "--record", "j.json",
        "--grace", str(grace), *extra,
    ]  # fmt: skip


def wait_listening(proc: subprocess.Popen[str], timeout: float = 20.0) -> tuple[int, list[str]]:
    """Wait for the host's 'listening on HOST:PORT'; return the port and the lines so far."""
    r = reader(proc)
    m = r.wait(r"^listening on .*:(\d+)$", timeout)
    return int(m.group(1)), r.lines


def read_code(proc: subprocess.Popen[str], timeout: float = 10.0) -> str:
    return reader(proc).wait(r"^join code: (\S+)", timeout).group(1)


class RawPeer:
    """A hand-driven joiner over a real socket: a real handshake, then any bytes we like."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ep: Endpoint) -> None:
        self.reader = reader
        self.writer = writer
        self.ep = ep
        self.events: list[Any] = []

    @classmethod
    async def connect(cls, port: int, config: LocalConfig, timeout: float = 10.0) -> RawPeer:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        ep = Endpoint(config)
        ep.initiate()
        peer = cls(reader, writer, ep)
        peer.flush()
        from p2p_spite.core.protocol import Handshaken

        await peer.read_until(lambda evs: any(isinstance(e, Handshaken) for e in evs), timeout)
        return peer

    def flush(self) -> None:
        data = self.ep.data_to_send()
        if data:
            self.writer.write(data)

    async def read_until(self, cond: Any, timeout: float = 10.0) -> list[Any]:
        async def loop() -> None:
            while not cond(self.events):
                if self.events and isinstance(self.events[-1], ProtocolError):
                    raise self.events[-1]
                data = await self.reader.read(65536)
                if not data:
                    raise ConnectionError("closed")
                self.ep.receive_data(data)
                drain(self.ep, self.events)
                self.flush()

        await asyncio.wait_for(loop(), timeout)
        return self.events

    async def send_raw(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_all(self, timeout: float = 5.0) -> bytes:
        """Everything until the other side closes (bounded)."""
        chunks: list[bytes] = []

        async def loop() -> None:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    return
                chunks.append(data)

        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(loop(), timeout)
        return b"".join(chunks)

    def close(self) -> None:
        self.writer.close()


def finish_all(procs: Sequence[subprocess.Popen[str]], timeout: float) -> list[tuple[int, str, str]]:
    """Wait for every process, ``timeout`` s in all: (exit code, stdout, stderr) of each.

    If one hangs, all are killed and the failure shows every process's output:
    a hang between two peers is as often explained by the other side's output."""
    import time

    deadline = time.monotonic() + timeout
    try:
        for p in procs:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        for p in procs:
            if p.poll() is None:
                p.kill()
        report = []
        for p in procs:
            p.wait()
            err = p.stderr.read() if p.stderr is not None else ""
            args = " ".join(str(a) for a in p.args[3:]) if isinstance(p.args, list) else str(p.args)
            report.append(f"--- {args} (exit {p.returncode}):\n{reader(p).rest(1)[-2000:]}{err[-1500:]}")
        raise AssertionError("did not finish:\n" + "\n".join(report)) from None
    out = []
    for p in procs:
        text = reader(p).rest(10)
        out.append((p.returncode, text, p.stderr.read() if p.stderr is not None else ""))
    return out


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str, str]:
    """Wait for ``proc`` (killed, and the test failed, after ``timeout`` s): exit code, stdout, stderr."""
    return finish_all([proc], timeout)[0]


Outcome = tuple[int, str, str]  # a process's exit code, stdout and stderr


def host_and_join(
    host_args: Sequence[str],
    join_args: Sequence[str],
    cwd: Path,
    timeout: float,
    *,
    host_program: Sequence[str] = CLI,
    join_program: Sequence[str] = CLI,
) -> tuple[Outcome, Outcome]:
    """``host HOST_ARGS`` (which must listen on 127.0.0.1, port 0), then ``join
    127.0.0.1:PORT JOIN_ARGS`` to it, both to their end (``timeout`` s in all; either
    program may be a modified peer): the host's outcome, then the joiner's."""
    host = spawn(["host", *host_args], cwd, program=host_program)
    try:
        port, _ = wait_listening(host)
        join = spawn(["join", f"127.0.0.1:{port}", *join_args], cwd, program=join_program)
        h, j = finish_all([host, join], timeout)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    return h, j
