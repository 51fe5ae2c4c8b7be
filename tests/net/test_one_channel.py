"""One secure channel for every connection (issue 45): no way to a host's ``hello`` but
through the code's opening when the host has a code.

The game handshake checks no join code any more (its old challenge-response is gone):
on the LAN a connection to a host with a code reaches ``hello`` only through the
opening (SPAKE2 on the code, net/opening.py), over the internet only through the
meeting's channel (tunnel/), and ``--no-code`` is the documented plain TCP.  Here, a
stranger tries each way in at a real host over TCP (127.0.0.1): in clear as a joiner,
as a watcher, with the old ``auth`` of the code, and inside the right channel with a
hello that asks for a code; a wrong code at a joiner, a watcher, a resumed LAN host
and a resumed internet host is refused with its line; and an internet match resumed
from records whose join keys differ plays on (the record's old code is not needed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.core.keys import derive_code_key
from p2p_spite.core.wire import encode
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.gate import CodeRefused
from p2p_spite.net.opening import MAGIC
from p2p_spite.net.session import NetSession
from p2p_spite.net.watch import watch_match
from p2p_spite.tunnel.errors import ChannelError
from p2p_spite.tunnel.paths import GO, TunnelServer, open_channel
from p2p_spite.tunnel.spake2 import Role
from tests.e2e.test_internet_play import (
    CODE_LINE,
    HOST_NAME,
    MATCH_TIME,
    WRONG_CODE_LINE,
    _host,
    _join,
    _replay_ok,
    _servers,
    wrong_code,
)
from tests.support.lanopen import guess
from tests.support.net import finish_all, messages, read_code, reader, spawn, wait_listening
from tests.support.wormhole_servers import WormholeServer, mailbox_server, relay_server  # noqa: F401

CODE = "K7QP-3MXD"
LIMIT = 60.0
WRONG_LAN = "p2p-spite: the host refused: the join code is wrong"


def _hello(code: bool) -> dict[str, Any]:
    return {"t": "hello", "proto": 2, "app": "p2p-spite", "role": "join", "name": "Eve",
            "nonce": bytes(16), "code": code, "match": None, "deal": False}  # fmt: skip


def _watch(code: bool) -> dict[str, Any]:
    return {"t": "watch", "proto": 2, "app": "p2p-spite", "nonce": bytes(16), "code": code, "again": True}


async def _in_clear(port: int, data: bytes) -> list[dict[str, Any]]:
    """What the host says in clear to ``data`` before it closes (bounded)."""
    r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
    w.write(data)
    try:
        said = await asyncio.wait_for(r.read(), LIMIT)
    finally:
        w.close()
    assert MAGIC not in said, said  # (not even the host's element of the opening)
    return messages(said)


def test_no_stranger_reaches_hello_at_a_host_with_a_code(tmp_path: Path) -> None:
    """Every way in at a LAN host with a code: in clear it hears one ``code-needed`` and
    never the host's hello (as a joiner, as a watcher, or proving the code the old way,
    ``hello{code: true}`` then ``auth``); through the opening with the right code, a hello
    that asks for a code is refused ``no-code`` (nothing inside checks one); a wrong code
    is refused with its line, to a joiner and to a watcher.  Then the joiner plays."""

    async def main() -> None:
        warnings: list[object] = []
        port_f: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        settings = HostSettings(
            bind="127.0.0.1", port=0, name="Ann", code=CODE, record_path=tmp_path / "h.json"
        )
        task = asyncio.create_task(
            host_session(
                settings, on_listening=lambda _h, p: port_f.set_result(p), on_warning=warnings.append
            )
        )
        port = await asyncio.wait_for(port_f, LIMIT)
        old_auth = {"t": "auth", "mac": bytes(32)}
        for data in (
            encode(_hello(False)),
            encode(_hello(True)) + encode(old_auth),
            encode(_watch(False)),
            encode(_watch(True)) + encode(old_auth),
        ):
            said = await _in_clear(port, data)
            assert [(m["t"], m.get("code")) for m in said] == [("refuse", "code-needed")], said
        # the right code, then a hello that would prove it again inside: refused at once
        g = await guess(port, CODE)
        assert await g.answer() is None  # (the channel is open)
        g.send(_hello(True))
        got = await g.frames(2)
        assert [m["t"] for m in got] == ["hello", "refuse"] and got[0]["code"] is False, got
        assert got[1]["code"] == "no-code", got
        g.close()
        # a wrong code: the joiner's and the watcher's one line
        for dial in (
            join_session(
                JoinSettings(
                    host="127.0.0.1", port=port, name="Eve", code="WRNG-CODE", record_path=tmp_path / "e.json"
                )
            ),
            watch_match(host="127.0.0.1", port=port, code="WRNG-CODE"),
        ):
            with pytest.raises(CodeRefused) as e:
                await asyncio.wait_for(dial, LIMIT)
            assert e.value.wrong and f"p2p-spite: {e.value}".startswith(WRONG_LAN), str(e.value)
        assert not task.done() and warnings  # the host told of them, and kept waiting
        joiner = await asyncio.wait_for(
            join_session(JoinSettings(host="127.0.0.1", port=port, name="Bob", code=CODE,
                                      record_path=tmp_path / "j.json")), LIMIT)  # fmt: skip
        host: NetSession = await asyncio.wait_for(task, LIMIT)
        assert host.peer_name == "Bob" and joiner.peer_name == "Ann"
        for s in (joiner, host):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    asyncio.run(asyncio.wait_for(main(), 6 * LIMIT))


def test_the_internet_hosts_door_hands_only_its_keys_channel_to_the_game(tmp_path: Path) -> None:
    """The internet host's direct listener (tunnel/paths.py): a stranger that speaks the
    game protocol in clear, and one that opens a channel under another key, are closed
    without a protocol ever made for them (no ``hello`` is sent or read); a peer with the
    key that says ``go`` gets one."""

    async def main() -> None:
        ke = bytes(range(32))
        made: list[asyncio.Protocol] = []
        sock = socket.create_server(("127.0.0.1", 0))
        port = sock.getsockname()[1]

        def factory() -> asyncio.Protocol:
            made.append(asyncio.Protocol())
            return made[-1]

        server = await TunnelServer(ke, None, sock, open_timeout=LIMIT).serve(factory)
        try:
            r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
            w.write(encode(_hello(False)))
            said = await asyncio.wait_for(r.read(), LIMIT)
            w.close()
            assert b"hello" not in said and b"p2p-spite" not in said, said
            r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
            with pytest.raises((ChannelError, ConnectionError)):
                await open_channel(r, w, bytes(32), Role.B, LIMIT)
            w.close()
            assert made == []
            r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), LIMIT)
            ch, _got = await open_channel(r, w, ke, Role.B, LIMIT)
            ch.send(GO)
            w.write(ch.data_to_send())
            first = await asyncio.wait_for(server.first, LIMIT)
            assert first.direct and len(made) == 1
            w.close()
        finally:
            server.close()

    asyncio.run(asyncio.wait_for(main(), 4 * LIMIT))


def _stop_in_game_2(procs: list[subprocess.Popen[str]], watch: subprocess.Popen[str]) -> None:
    reader(watch).wait(r"^game 2 started", MATCH_TIME)
    for p in procs:
        p.send_signal(signal.SIGTERM)
    outs = finish_all(procs, 120)
    assert [rc for rc, _o, _e in outs] == [143] * len(procs), outs


@pytest.mark.slow
def test_a_lan_match_resumed_opens_with_the_records_code_and_refuses_a_wrong_one(tmp_path: Path) -> None:
    """``host --resume`` and ``join --resume`` with no code typed: the record's join key is
    the opening's password; a joiner that gives a wrong code is refused with its line."""
    host = spawn(["host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--games", "3",
                  "--record", "h.json"], tmp_path)  # fmt: skip
    port = wait_listening(host)[0]
    code = read_code(host)
    join = spawn(
        ["join", f"127.0.0.1:{port}", "--code", code, "--bot", "easy", "--record", "j.json"], tmp_path
    )
    _stop_in_game_2([host, join], join)
    key = derive_code_key(code).hex()
    for name in ("h.json", "j.json"):
        assert json.loads((tmp_path / name).read_text())["join_key"] == key
    host2 = spawn(["host", "--port", str(port), "--bind", "127.0.0.1", "--bot", "easy", "--resume", "h.json"],
                  tmp_path)  # fmt: skip
    wait_listening(host2)
    wrong = spawn(["join", f"127.0.0.1:{port}", "--code", "WRNG-CODE", "--bot", "easy", "--resume", "j.json"],
                  tmp_path)  # fmt: skip
    ((wrc, wout, werr),) = finish_all([wrong], 120)
    assert wrc == 1 and werr.startswith(WRONG_LAN) and werr.count("\n") == 1, wout + werr
    join2 = spawn(["join", f"127.0.0.1:{port}", "--bot", "easy", "--resume", "j.json"], tmp_path)
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host2, join2], MATCH_TIME)
    assert (hrc, jrc) == (0, 0), hout + herr + jout + jerr
    assert "back in " in jout
    assert (tmp_path / "h.json").read_bytes() == (tmp_path / "j.json").read_bytes()
    _replay_ok(tmp_path, tmp_path / "h.json")


@pytest.mark.slow
def test_an_internet_resume_needs_only_the_fresh_code(
    tmp_path: Path,
    mailbox_server: WormholeServer,  # noqa: F811
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    """An internet match stopped in game 2, its two records then given different join keys
    (as if each side's record had another LAN code): the handshake no longer checks the
    record's code, so a resume with the fresh code plays on, each record keeping its own
    key.  A resume with a wrong fresh code is refused with its line on both sides."""
    servers = _servers(mailbox_server, relay_server.port)
    host, code = _host(tmp_path, [*servers, "--games", "3"])
    join = _join(tmp_path, servers, code)
    _stop_in_game_2([host, join], join)
    keys = {"host.json": derive_code_key("AAAA-AAAA").hex(), "join.json": derive_code_key("BBBB-BBBB").hex()}
    for name, key in keys.items():
        path = tmp_path / name
        rec = json.loads(path.read_text())
        assert rec["join_key"] is None  # (an internet match has none of its own)
        path.write_text(json.dumps({**rec, "join_key": key}))

    def resumed_host() -> tuple[subprocess.Popen[str], str]:
        h = spawn(["host", "--internet", "--bot", "easy", "--resume", str(tmp_path / "host.json"), *servers],
                  tmp_path)  # fmt: skip
        return h, reader(h).wait(CODE_LINE, 60).group(1)

    def resumed_join(c: str) -> subprocess.Popen[str]:
        return spawn(
            ["join", c, "--bot", "easy", "--resume", str(tmp_path / "join.json"), *servers], tmp_path
        )

    host2, code2 = resumed_host()
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host2, resumed_join(wrong_code(code2))], 120)
    assert (hrc, herr) == (1, WRONG_CODE_LINE), hout + herr
    assert (jrc, jerr) == (1, WRONG_CODE_LINE), jout + jerr
    host3, code3 = resumed_host()
    (hrc, hout, herr), (jrc, jout, jerr) = finish_all([host3, resumed_join(code3)], MATCH_TIME)
    assert (hrc, jrc) == (0, 0), hout + herr + jout + jerr
    assert f"back in {HOST_NAME}'s match: game " in jout
    recs = {name: json.loads((tmp_path / name).read_text()) for name in keys}
    for name, key in keys.items():
        assert recs[name]["join_key"] == key  # kept, never checked
    assert {**recs["host.json"], "join_key": None} == {**recs["join.json"], "join_key": None}
    _replay_ok(tmp_path, tmp_path / "host.json")
