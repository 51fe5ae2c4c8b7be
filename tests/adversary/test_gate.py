"""The door (issue 9, items 3 and 4; issue 12, item 3): strangers cannot crowd out the
player, a hostile hello or setup cannot crash or fool the honest side, and a resumed
match keeps its names and says who chose its seed.  Hostile peers speak raw frames
(``p2p_spite.core.wire``) to real ``p2p-spite host`` / ``join`` processes."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.contracts.news import ConnectionDropped, DropKind
from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import PROTOCOL_VERSION, Endpoint, LocalConfig
from p2p_spite.core.wire import FrameDecoder, ProtocolError, Refusal, RemoteProtocolError, encode
from p2p_spite.net import HostSettings, gate, host_session
from p2p_spite.net.gate import (
    AUTHENTICATED,
    CONNECTED,
    GREETED,
    Door,
    StrangerLog,
    address_key,
    shown_address,
)
from p2p_spite.ui.networds import news_words
from tests.adversary.siege import siege
from tests.support.lanopen import guess
from tests.support.net import finish, finish_all, free_port, pair, read_code, reader, spawn, wait_listening

TIMEOUT = 60.0
CHURN = 1200  # connections the attacker makes at most; it stops once the joiner is in
ADDR = "127.0.0.1"


def _hello(role: str = JOIN, **over: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "t": "hello",
        "proto": PROTOCOL_VERSION,
        "app": "p2p-spite",
        "role": role,
        "name": "mallory",
        "nonce": os.urandom(16),
        "code": False,
        "match": None,
    }
    msg.update(over)
    return msg


def _nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


def _messages(
    sock: socket.socket, until: Callable[[list[dict[str, Any]]], bool], timeout: float = 10
) -> list[Any]:
    """Frames from ``sock`` until ``until(messages)`` or the peer closes (bounded)."""
    sock.settimeout(timeout)
    dec = FrameDecoder()
    got: list[dict[str, Any]] = []
    while not until(got):
        try:
            data = sock.recv(65536)
        except (TimeoutError, ConnectionError):
            break
        if not data:
            break
        dec.feed(data)
        while (m := dec.next_message()) is not None:
            got.append(m)
    return got


def _refusal(msgs: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((m for m in msgs if m["t"] == "refuse"), None)


def _deep_hello(role: str, depth: int) -> bytes:
    """A hello frame whose proto is [[[...1...]]] ``depth`` deep (msgpack alone allows 1024)."""
    body = encode(_hello(role, proto=0))[4:]
    inner = body.replace(b"\xa5proto\x00", b"\xa5proto" + b"\x91" * depth + b"\x01")
    assert len(inner) == len(body) + depth
    return len(inner).to_bytes(4, "big") + inner


def _quiet(*outputs: str) -> None:
    for text in outputs:
        assert "Traceback" not in text and "RecursionError" not in text, text


# -- the crowd at the door: real processes ------------------------------------------------------


@pytest.mark.parametrize("sources", [1, pytest.param(8, marks=pytest.mark.slow)])
def test_a_crowd_from_another_address_cannot_keep_the_joiner_out(tmp_path: Path, sources: int) -> None:
    """50 idle sockets and a churn of connections from 127.0.0.2 (idle ones, and ones
    that send a valid hello and stop at the join code); the joiner from 127.0.0.1 starts
    once 400 are made, while the churn goes on (scripts/gate_siege runs thousands).
    ``sources`` 8: the crowd comes from 127.0.0.2-9, enough to fill the whole door."""
    fig = siege(tmp_path, connections=CHURN, before=400, rate=0, sources=sources)
    (hrc, hout, herr), (jrc, jout, jerr) = fig.host, fig.join
    assert hrc == 0 and jrc == 0, (herr, jerr)
    _quiet(hout, herr, jout, jerr)
    assert fig.attack["made"] >= 450, fig.attack  # 50 idle + at least 400 churned before the joiner
    # in while the churn went on: the attack's own pace is the clock, not the machine's speed
    assert fig.attack["made"] < CHURN, fig
    assert 1 <= len(fig.warnings) <= 4, fig.warnings
    assert any("more connections" in w and "from 127.0.0." in w for w in fig.warnings), fig.warnings
    assert "127.0.0.1" not in "".join(fig.warnings)  # the joiner's own connection was never dropped
    assert "Bob joined" in hout and "final scores: Ann" in hout
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


@pytest.mark.slow
def test_a_returning_joiner_gets_back_in_under_the_same_attack(tmp_path: Path) -> None:
    fig = siege(tmp_path, connections=CHURN, before=400, rate=0, resume=True)
    (hrc, hout, herr), (jrc, jout, jerr) = fig.host, fig.join
    assert hrc == 0 and jrc == 0, (herr, jerr)
    _quiet(hout, herr, jout, jerr)
    assert fig.attack["made"] < CHURN, fig  # back in while the churn went on
    assert 1 <= len(fig.warnings) <= 4, fig.warnings
    assert any("more connections" in w and "127.0.0.2" in w for w in fig.warnings), fig.warnings
    assert "Bob is back" in hout, hout  # the returning joiner keeps its name (it gave none)
    assert "(now calling itself" not in hout
    assert "seed drawn by both" in jout, jout  # the record says so: not "chosen by the host"
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()


@pytest.mark.slow
def test_a_silent_connection_is_dropped_after_the_first_hello_deadline(tmp_path: Path) -> None:
    async def main() -> None:
        warnings: list[str] = []
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(
            host_session(
                HostSettings(bind=ADDR, port=0, record_path=tmp_path / "h.json"),
                on_listening=lambda _h, p: ready.set_result(p),
                on_warning=lambda news: warnings.append(news_words(news)),
            )
        )
        port = await ready
        loop = asyncio.get_running_loop()
        r, w = await asyncio.open_connection(ADDR, port)
        t0 = loop.time()
        while await asyncio.wait_for(r.read(4096), 10):  # the host's hello, then EOF
            pass
        waited = loop.time() - t0
        assert 2.5 < waited < 6.0, waited  # 3 s, not the whole handshake's 15 s
        w.close()
        assert warnings == [f"refused a connection from {ADDR} (no hello within 3 s)"]
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), 20))


# -- the door's rules, without sockets -----------------------------------------------------------


def test_the_door_keeps_each_address_to_its_share_and_drops_the_oldest_unauthenticated() -> None:
    stage: dict[str, int] = {}
    door: Door[str] = Door(stage.__getitem__, most=5, most_per_address=2)

    def knock(name: str, where: str, at: int = CONNECTED) -> tuple[bool, str | None]:
        stage[name] = at
        return door.admit(name, where)

    assert knock("a1", "A") == (True, None)
    assert knock("a2", "A", GREETED) == (True, None)
    assert knock("a3", "A") == (True, "a1")  # A's share is 2: its oldest makes room
    stage["a2"] = AUTHENTICATED
    assert knock("a4", "A") == (True, "a3")  # the authenticated one stays
    stage["a4"] = AUTHENTICATED
    assert knock("a5", "A") == (False, None)  # A's share holds two authenticated: turned away
    assert knock("b1", "B") == (True, None)
    assert knock("c1", "C", GREETED) == (True, None)
    assert knock("d1", "D") == (True, None)  # 5 in all now: a2 a4 b1 c1 d1
    assert knock("e1", "E") == (True, "b1")  # full: the oldest unauthenticated, whatever its address
    door.leave("c1")
    assert knock("e2", "E") == (True, None)
    assert len(door) == 5


def test_a_full_door_makes_room_at_the_most_crowded_address() -> None:
    """A crowd from a few addresses churning through a full door must not evict a lone
    joiner's connection just because it is the oldest."""
    door: Door[str] = Door(lambda _c: CONNECTED, most=5, most_per_address=3)
    for conn, where in (("joiner", "J"), ("x1", "X"), ("x2", "X"), ("y1", "Y"), ("y2", "Y")):
        assert door.admit(conn, where) == (True, None)
    assert door.admit("z1", "Z") == (True, "x1")  # X and Y hold the most: the oldest of theirs
    assert door.admit("z2", "Z") == (True, "y1")
    assert door.admit("w1", "W") == (True, "z1")  # Z holds two now
    assert door.admit("v1", "V") == (True, "joiner")  # one each: only now is the oldest of all dropped


def _dropped(peer: str, kind: DropKind) -> ConnectionDropped:
    return ConnectionDropped(peer, kind)


def test_a_crowd_from_countless_addresses_is_counted_in_bounded_memory() -> None:
    now = [0.0]
    log = StrangerLog(lambda: now[0])
    for i in range(5000):
        log.drop(f"2001:db8:{i:x}::/64", DropKind.NO_HELLO, _dropped("first", DropKind.NO_HELLO))
    assert len(log._addresses) == gate.MAX_ADDRESSES_TOLD
    now[0] = 10
    summary = log.summary()
    text = news_words(summary) if summary is not None else None
    assert text is not None and text.startswith("refused 4,999 more connections in 10 s (1 from "), text
    assert text.endswith("and 4,996 from more than 997 more): 4,999 no hello in time"), text


def test_addresses_are_counted_by_machine() -> None:
    assert address_key(("127.0.0.2", 5000)) == "127.0.0.2"
    assert address_key(("::ffff:127.0.0.2", 5000, 0, 0)) == "127.0.0.2"  # dual stack
    assert address_key(("2001:db8:1:2::7", 1, 0, 0)) == address_key(("2001:db8:1:2:ffff::9", 2, 0, 0))
    assert address_key(("2001:db8:1:3::7", 1, 0, 0)) != address_key(("2001:db8:1:2::7", 1, 0, 0))
    assert address_key(("::1", 1, 0, 0)) == "::1"
    assert address_key(("fe80::1%eth0", 1, 0, 2)) == "fe80::1"  # the LAN's machines share fe80::/64
    assert address_key(("fe80::2", 1, 0, 2)) == "fe80::2"


def test_a_stranger_is_shown_by_its_address_alone() -> None:
    assert shown_address(("::ffff:127.0.0.1", 36668, 0, 0)) == "127.0.0.1"  # dual stack
    assert shown_address(("127.0.0.2", 5000)) == "127.0.0.2"
    assert shown_address(("2001:db8:1:2::7", 1, 0, 0)) == "2001:db8:1:2::7"  # (its /64 in the counts)
    assert shown_address(("fe80::1%eth0", 1, 0, 2)) == "fe80::1"


def test_the_warnings_about_strangers_come_in_a_few_merged_lines() -> None:
    now = [0.0]
    log = StrangerLog(lambda: now[0], first=5.0, most=60.0)
    lines: list[str] = []
    for i in range(12_000):  # 100 drops a second for two minutes
        now[0] = i / 100
        told = log.drop("127.0.0.2", DropKind.CROWDED_OUT, _dropped("127.0.0.2", DropKind.CROWDED_OUT))
        if told is not None:
            lines.append(news_words(told))
        due = log.due
        if due is not None and now[0] >= due:
            summary = log.summary()
            lines.append(news_words(summary) if summary is not None else "")
    assert lines[0].startswith("refused a connection from 127.0.0.2 (crowded out")
    assert len(lines) <= 6, lines  # windows of 5, 10, 20, 40, 60 s
    assert "refused 500 more connections from 127.0.0.2 in 5 s: 500 crowded out" in lines[1]
    now[0] += 100
    assert log.summary() is not None  # the last window's count
    assert log.drop("10.0.0.9", DropKind.NO_HELLO, _dropped("10.0.0.9", DropKind.NO_HELLO)) is None  # (open)
    now[0] += 100
    summary = log.summary()
    assert summary is not None
    assert news_words(summary) == "refused 1 more connection from 10.0.0.9 in 100 s: 1 no hello in time"
    now[0] += 200  # a quiet window (nothing in it), then a single stranger: told at once again
    one_more = _dropped("10.0.0.9:2", DropKind.NO_HELLO)
    assert log.drop("10.0.0.9", DropKind.NO_HELLO, one_more) is one_more


# -- hostile hellos and setups (item 4) -------------------------------------------------------------


@pytest.mark.parametrize(
    "proto,what",
    [(True, "True"), (1.0, "1.0"), (_nested(3), "a list"), ("1", "'1'")],
)
def test_proto_must_be_a_real_integer(proto: Any, what: str) -> None:
    ep = Endpoint(LocalConfig(HOST, "Ann"))
    ep.initiate()
    ep.receive_data(encode(_hello(proto=proto)))
    with pytest.raises(RemoteProtocolError) as info:
        ep.next_event()
    assert info.value.code is Refusal.MALFORMED
    assert str(info.value) == f"hello: proto must be an integer, not {what}"


def test_frames_nest_at_most_four_deep() -> None:
    from p2p_spite.core.wire import MAX_DEPTH, FrameDecoder

    dec = FrameDecoder()
    dec.feed(encode({"t": "x", "v": _nested(MAX_DEPTH - 1)}))  # the map, then 3 lists: 4 deep
    assert dec.next_message() == {"t": "x", "v": _nested(MAX_DEPTH - 1)}
    dec.feed(encode({"t": "x", "v": _nested(MAX_DEPTH)}))
    with pytest.raises(RemoteProtocolError, match="nested more than 4 deep") as info:
        dec.next_message()
    assert info.value.code is Refusal.DECODE


def test_a_role_nested_deep_is_named_not_printed() -> None:
    ep = Endpoint(LocalConfig(HOST, "Ann"))
    ep.initiate()
    ep.receive_data(encode(_hello(role=_nested(3))))
    with pytest.raises(RemoteProtocolError, match="the peer says it is a list, expected 'join'"):
        ep.next_event()


def _host_proc(tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], int]:
    host = spawn(["host", "--bind", ADDR, "--port", "0", "--name", "Ann", "--record", "h.json", *extra], tmp)
    port, _ = wait_listening(host)
    return host, port


def _stranger(port: int, hello: dict[str, Any] | bytes) -> list[dict[str, Any]]:
    with socket.create_connection((ADDR, port), timeout=10) as s:
        s.sendall(hello if isinstance(hello, bytes) else encode(hello))
        return _messages(s, lambda ms: _refusal(ms) is not None)


@pytest.mark.parametrize("proto", ["deep", True, 1.0])
def test_a_hostile_hello_is_refused_by_a_real_host_in_one_line(tmp_path: Path, proto: Any) -> None:
    """A proto nested 1000 deep made repr() raise RecursionError (a traceback); true and
    1.0 were taken for version 1.  The host refuses, says one line, and keeps waiting."""
    host, port = _host_proc(tmp_path, "--no-code", "--bot", "easy", "--games", "1")
    try:
        if proto == "deep":
            got = _stranger(port, _deep_hello(JOIN, 1000))
        else:
            got = _stranger(port, _hello(proto=proto))
        refusal = _refusal(got)
        assert refusal is not None and refusal["code"] in (Refusal.DECODE, Refusal.MALFORMED), got
        join = spawn(["join", f"{ADDR}:{port}", "--bot", "easy", "--record", "j.json"], tmp_path)
        (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host, join], TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert hrc == 0 and jrc == 0, (herr, jerr)
    _quiet(hout, herr, jout, jerr)
    lines = herr.splitlines()
    assert len(lines) == 1 and "refused a connection" in lines[0], herr


class _FakeHost(threading.Thread):
    """A hostile host on 127.0.0.1: answers one joiner with ``script(socket, its hello)``."""

    def __init__(self, script: Callable[[socket.socket, dict[str, Any]], None]) -> None:
        super().__init__(daemon=True)
        self.script = script
        self.server = socket.create_server((ADDR, 0))
        self.server.settimeout(30)
        self.port = self.server.getsockname()[1]

    def run(self) -> None:
        with self.server, self.server.accept()[0] as conn:
            got = _messages(conn, lambda ms: any(m["t"] == "hello" for m in ms))
            self.script(conn, next(m for m in got if m["t"] == "hello"))
            _messages(conn, lambda _ms: False, timeout=10)  # until the joiner leaves


def _join_a_fake_host(tmp: Path, script: Callable[[socket.socket, dict[str, Any]], None]) -> str:
    """A real joiner against a hostile host: it must stop with one line (returned)."""
    fake = _FakeHost(script)
    fake.start()
    join = spawn(["join", f"{ADDR}:{fake.port}", "--name", "Bob", "--bot", "easy", "--record", "j.json"], tmp)
    rc, out, err = finish(join, TIMEOUT)
    fake.join(20)
    assert rc != 0
    _quiet(out, err)
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "proto,says",
    [
        (3, "proto must be an integer, not a list"),  # [[[1]]]
        (1000, "nested more than"),  # [[[...1...]]]
        (True, "proto must be an integer, not True"),
        (1.0, "proto must be an integer, not 1.0"),
    ],
)
def test_a_hostile_hosts_hello_is_refused_by_a_real_joiner_in_one_line(
    tmp_path: Path, proto: Any, says: str
) -> None:
    def script(conn: socket.socket, _hello_: dict[str, Any]) -> None:
        if type(proto) is int:
            conn.sendall(_deep_hello(HOST, proto))
        else:
            conn.sendall(encode(_hello(HOST, proto=proto)))

    assert says in _join_a_fake_host(tmp_path, script)


def test_a_host_cannot_rename_the_joiner_in_its_own_record(tmp_path: Path) -> None:
    def script(conn: socket.socket, hello: dict[str, Any]) -> None:
        assert hello["name"] == "Bob"
        conn.sendall(encode(_hello(HOST, name="Eve")))
        setup = {"t": "setup", "match": os.urandom(16), "seed": bytes(32), "target": 50, "games": None,
                 "players": ["Eve", "Mallory"], "resume": False}  # fmt: skip
        conn.sendall(encode(setup))

    assert "not the two names the hellos gave" in _join_a_fake_host(tmp_path, script)
    assert not (tmp_path / "j.json").exists()  # no record naming the joiner Mallory


def test_the_setup_names_are_the_hellos_names() -> None:
    """An honest host's setup passes the joiner's check, control characters and all."""
    _h, _j, eh, ej = pair(
        LocalConfig(HOST, "Ann\x1b[2J", seed=bytes(32)), LocalConfig(JOIN, "B\tob" + "x" * 60)
    )
    assert not any(isinstance(e, ProtocolError) for e in eh + ej), (eh, ej)
    assert _j.core is not None and _h.core is not None
    assert _j.core.match.players == _h.core.match.players == ("Ann [2J", "B ob" + "x" * 36)


def test_a_wrong_code_stranger_does_not_learn_that_a_match_is_in_progress(tmp_path: Path) -> None:
    """The host checked hello.match (seat-taken) before the join code: now only after
    (the opening, net/opening.py, comes before any message of the game protocol)."""
    host, port = _host_proc(tmp_path, "--bot", "easy")
    code = read_code(host)
    # the real joiner, a person who takes their time (its stdin a pipe nobody types into)
    first = spawn(["join", f"{ADDR}:{port}", "--code", code, "--name", "Bob", "--record", "j.json"], tmp_path,
                  stdin=True)  # fmt: skip
    try:
        reader(first).wait(r"^joined ", 30)
        # a stranger that says in clear it has the code: the host wants the opening first
        with socket.create_connection((ADDR, port), timeout=10) as s:
            s.sendall(encode(_hello(code=True)))
            got = _messages(s, lambda ms: _refusal(ms) is not None)
        refusal = _refusal(got)
        assert refusal is not None and refusal["code"] == Refusal.CODE_NEEDED, got
        assert [m["t"] for m in got] == ["refuse"] and "match" not in refusal["msg"], got

        async def wrong() -> tuple[str | None, bytes]:  # a stranger with a wrong code: one byte, no more
            g = await guess(port, "WRONG-CODE")
            said = await g.answer()
            rest = await asyncio.wait_for(g.r.read(), TIMEOUT)
            g.close()
            return said, rest

        assert asyncio.run(wrong()) == ("bad-code", b"")
        assert host.poll() is None
    finally:
        for p in (first, host):
            p.kill()
            p.communicate(timeout=TIMEOUT)


def test_the_right_code_still_hears_seat_taken() -> None:
    """Past the opening (the right code), the handshake inside still says seat-taken."""
    from tests.support.net import pump

    h, _j, _eh, _ej = pair(LocalConfig(HOST, "Ann", seed=bytes(32)), LocalConfig(JOIN, "Bob"))
    assert h.core is not None
    h2 = Endpoint(LocalConfig(HOST, "Ann"), h.core)  # a second connection to the same host
    j2 = Endpoint(LocalConfig(JOIN, "Eve"))
    h2.initiate()
    j2.initiate()
    eh, _ej = pump(h2, j2)
    assert isinstance(eh[-1], RemoteProtocolError) and eh[-1].code is Refusal.SEAT_TAKEN, eh


# -- a resumed match keeps its names and the seed's origin (issue 12, item 3) ---------------------------


@pytest.mark.parametrize("seeded", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_after_both_crash_the_resumed_match_keeps_names_and_seed_origin(tmp_path: Path, seeded: bool) -> None:
    port = free_port()
    seed = ["--seed", "ab" * 32] if seeded else []
    host = spawn(["host", "--bind", ADDR, "--port", str(port), "--no-code", "--name", "Ann", "--bot", "easy",
                  "--games", "1", "--record", "h.json", *seed], tmp_path)  # fmt: skip
    procs = [host]
    try:
        wait_listening(host)
        first = spawn(["join", f"{ADDR}:{port}", "--name", "Bob", "--record", "j.json"], tmp_path, stdin=True)
        procs.append(first)
        origin = "the host chose the seed" if seeded else "seed drawn by both"
        reader(first).wait(rf"^joined Ann's match; {origin}", 30)
        reader(host).wait(r"^game 1 started", 30)
        for p in (first, host):
            os.kill(p.pid, signal.SIGKILL)
            p.wait(10)
        # neither gives a name: the records' names hold
        host = spawn(["host", "--bind", ADDR, "--port", str(port), "--resume", "h.json", "--bot", "easy"],
                     tmp_path)  # fmt: skip
        procs.append(host)
        wait_listening(host)
        join = spawn(["join", f"{ADDR}:{port}", "--resume", "j.json", "--bot", "easy"], tmp_path)
        procs.append(join)
        (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host, join], TIMEOUT)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert hrc == 0 and jrc == 0, (herr, jerr)
    _quiet(hout, herr, jout, jerr)
    assert "Bob joined" in hout, hout
    assert re.search(rf"^back in Ann's match: game \d+ goes on, \d+ moves? in; {origin}", jout, re.M), jout
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()
