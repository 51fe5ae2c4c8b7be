"""The mailbox client: codes, the sans-I/O core against hostile input, and rendezvous
through the real magic-wormhole mailbox server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from p2p_spite.contracts.news import Rendezvous
from p2p_spite.tunnel.failures import (
    CodeTaken,
    MailboxClosed,
    MailboxRefused,
    MailboxUnreachable,
    NoSuchCode,
    NotACode,
    PeerVanished,
)
from p2p_spite.tunnel.mailbox import (
    APPID,
    MAX_PHASES,
    Ack,
    Allocated,
    Code,
    Mailbox,
    MailboxCore,
    MailboxProtocolError,
    PeerMessage,
    ServerError,
    Welcome,
    host,
    join,
    new_words,
    parse_code,
)
from p2p_spite.tunnel.wordlist import EVEN, ODD
from tests.support.wormhole_servers import (  # noqa: F401
    WormholeServer,
    closed_port,
    mailbox_server,
    own_mailbox_server,
    run,
    running,
)

T = 60.0  # every wait on a server in these tests: long, so a loaded machine passes


# -- codes ----------------------------------------------------------------------------------


def test_the_word_lists_are_pgps() -> None:
    """256 distinct words each, no word in both; bytes 0x00, 0x3B, 0x3C, 0xFF as the PGP
    word list has them (7-crossover-clockwork is 0x3C then 0x3B)."""
    assert len(set(EVEN)) == len(set(ODD)) == 256 and not set(EVEN) & set(ODD)
    assert (EVEN[0x00], ODD[0x00], EVEN[0xFF], ODD[0xFF]) == ("aardvark", "adroitness", "zulu", "yucatan")
    assert (ODD[0x3C], EVEN[0x3B]) == ("crossover", "clockwork")
    assert all(w.isascii() and w.isalpha() and w.islower() for w in EVEN + ODD)


def test_a_code_is_a_number_an_odd_word_and_an_even_word() -> None:
    assert new_words(lambda n: bytes([0x3C, 0x3B])) == ("crossover", "clockwork")
    assert str(Code("7", new_words(lambda n: bytes([0x3C, 0x3B])))) == "7-crossover-clockwork"
    assert parse_code("7-crossover-clockwork") == Code("7", ("crossover", "clockwork"))
    assert parse_code("  07 Crossover-CLOCKWORK\n") == Code("7", ("crossover", "clockwork"))
    for bad in (
        "",
        "7",
        "7-crossover",
        "7-clockwork-crossover",  # the lists swapped
        "7-crossover-clockwork-extra",
        "x-crossover-clockwork",
        "123456789-crossover-clockwork",  # a nameplate too long to be typed
        "7-crossovr-clockwork",
        "-7-crossover-clockwork",
        "7-crossover-clockwork\x1b[2J",
    ):
        with pytest.raises(NotACode) as e:
            parse_code(bad)
        assert e.value.failure.how is Rendezvous.NOT_A_CODE
        assert "\n" not in str(e.value) and "\x1b" not in str(e.value)


# -- the core -------------------------------------------------------------------------------


def core(side: str = "aaaaaaaaaa") -> MailboxCore:
    ids = iter(f"{i:04x}" for i in range(1000))
    return MailboxCore(APPID, side, new_id=lambda: next(ids))


def test_the_commands_byte_for_byte() -> None:
    """docs/protocol.md, "Rendezvous and relay": the JSON each command is."""
    c = core()
    from p2p_spite import __version__

    assert c.bind() == (
        '{"type":"bind","appid":"p2p-spite","side":"aaaaaaaaaa",'
        f'"client_version":["p2p-spite","{__version__}"],"id":"0000"}}'
    )
    assert c.allocate() == '{"type":"allocate","id":"0001"}'
    assert c.claim("7") == '{"type":"claim","nameplate":"7","id":"0002"}'
    assert c.open("mb1") == '{"type":"open","mailbox":"mb1","id":"0003"}'
    assert c.add("pake", b"\x01\xff") == '{"type":"add","phase":"pake","body":"01ff","id":"0004"}'
    assert c.release("7") == '{"type":"release","nameplate":"7","id":"0005"}'
    assert c.close("mb1", "happy") == '{"type":"close","mailbox":"mb1","mood":"happy","id":"0006"}'
    assert c.list_nameplates() == '{"type":"list","id":"0007"}'
    with pytest.raises(ValueError):
        c.add("pake", bytes(16 * 1024 + 1))


def msg(side: str, phase: str, body: str) -> str:
    return json.dumps({"type": "message", "side": side, "phase": phase, "body": body, "id": "0"})


def test_the_core_reads_the_server() -> None:
    c = core()
    assert c.receive('{"type":"welcome","welcome":{"motd":"hi"},"server_tx":1.0}') == Welcome("hi", "", None)
    w = c.receive('{"type":"welcome","welcome":{"permission-required":{"hashcash":{}}}}')
    assert w == Welcome("", "", ("hashcash",))
    assert c.receive('{"type":"ack","id":"0001"}') == Ack("0001")
    assert c.receive(b'{"type":"allocated","nameplate":"12"}') == Allocated("12")
    assert c.receive('{"type":"error","error":"crowded","orig":{"type":"claim"}}') == ServerError(
        "crowded", "claim"
    )
    assert c.receive('{"type":"something-new","x":1}') is None  # ignored, as the protocol asks
    assert c.receive(msg("aaaaaaaaaa", "pake", "00")) is None  # our own echo
    assert c.receive(msg("bbbbbbbbbb", "pake", "0102")) == PeerMessage("pake", b"\x01\x02")
    assert c.receive(msg("bbbbbbbbbb", "pake", "0102")) is None  # the server repeated it


@pytest.mark.parametrize(
    "data",
    [
        "not json",
        "[1, 2]",
        '{"type":"allocated","nameplate":"12; rm -rf"}',
        '{"type":"allocated"}',
        '{"type":"claimed","mailbox":7}',
        '{"type":"welcome","welcome":"hello"}',
        '{"type":"nameplates","nameplates":"all"}',
        '{"type":"pong","pong":"x"}',
        msg("bbbbbbbbbb", "pake", "zz"),  # not hex
        msg("bbbbbbbbbb", "pake", "00" * (16 * 1024 + 1)),  # over the body limit
        msg("bbbbbbbbbb", "p" * 65, "00"),  # a phase name too long
        b"\xff\xfe",
    ],
)
def test_the_core_refuses_a_hostile_server(data: str | bytes) -> None:
    with pytest.raises(MailboxProtocolError):
        core().receive(data)


def test_a_changed_repeat_a_third_side_or_a_flood_is_refused() -> None:
    c = core()
    c.receive(msg("bbbbbbbbbb", "pake", "01"))
    with pytest.raises(MailboxProtocolError):
        c.receive(msg("bbbbbbbbbb", "pake", "02"))  # the same phase, another body
    c = core()
    c.receive(msg("bbbbbbbbbb", "pake", "01"))
    with pytest.raises(MailboxProtocolError):
        c.receive(msg("cccccccccc", "version", "01"))  # somebody else in our mailbox
    c = core()
    for i in range(MAX_PHASES):
        assert c.receive(msg("bbbbbbbbbb", f"phase-{i}", "00")) == PeerMessage(f"phase-{i}", b"\x00")
    with pytest.raises(MailboxProtocolError):
        c.receive(msg("bbbbbbbbbb", "one-too-many", "00"))  # no unbounded inbox


# -- the real mailbox server ----------------------------------------------------------------


async def meet(url: str) -> tuple[Mailbox, Code, Mailbox]:
    """A host's open mailbox, its code, and a joiner's open mailbox on that code."""
    hb, code = await host(url, T)
    return hb, code, await join(url, code, T)


@pytest.mark.slow
def test_two_players_meet_through_the_real_mailbox(mailbox_server: WormholeServer) -> None:  # noqa: F811
    """The host allocates and claims, the joiner claims by the code; each reads the other's
    messages in any order; the nameplate is released once both have heard the other, so
    the code names nobody afterwards; both close."""

    async def main() -> None:
        hb, code = await host(mailbox_server.url, T)
        assert code.nameplate.isdigit() and code.words[0] in ODD and code.words[1] in EVEN
        jb = await join(mailbox_server.url, str(code), T)
        await hb.add("pake", b"host's pake", T)
        await jb.add("pake", b"joiner's pake", T)
        await jb.add("version", b"joiner's version", T)
        await hb.add("version", b"host's version", T)
        assert await jb.get("version", T) == b"host's version"  # out of order: kept
        assert await jb.get("pake", T) == b"host's pake"
        assert await hb.get("pake", T) == b"joiner's pake"
        assert await hb.get("version", T) == b"joiner's version"
        await hb.add("phase-0", b"\x00" * 1000, T)
        assert await jb.get("phase-0", T) == b"\x00" * 1000
        # both heard the other, so both sent their release; a command acknowledged on each
        # connection after it means the server has done it (one connection is in order)
        await hb.add("phase-1", b"", T)
        await jb.add("phase-1", b"", T)
        probe = await Mailbox.connect(mailbox_server.url, T)
        assert code.nameplate not in await probe.list_nameplates(T)
        await probe.close(T)
        with pytest.raises(NoSuchCode):
            await join(mailbox_server.url, str(code), T)
        await hb.close(T)
        await jb.close(T)

    run(main)


@pytest.mark.slow
def test_a_third_player_on_the_code_is_crowded_out(mailbox_server: WormholeServer) -> None:  # noqa: F811
    async def main() -> None:
        hb, code, jb = await meet(mailbox_server.url)
        with pytest.raises(CodeTaken) as e:
            await join(mailbox_server.url, code, T)
        assert e.value.failure.detail == code.nameplate
        assert "already in use by two players" in str(e.value)
        await hb.add("pake", b"still works", T)  # the two are not disturbed
        assert await jb.get("pake", T) == b"still works"
        await hb.close(T)
        await jb.close(T)

    run(main)


@pytest.mark.slow
def test_a_code_that_names_nobody(mailbox_server: WormholeServer, own_mailbox_server: WormholeServer) -> None:  # noqa: F811
    """Refused at once, both when others host (the list lacks it) and on an empty server
    (our own claim is the only one listed); the claim made to find out is released."""

    async def main() -> None:
        hb, code = await host(mailbox_server.url, T)
        unused = str(int(code.nameplate) + 500)
        with pytest.raises(NoSuchCode) as e:
            await join(mailbox_server.url, f"{unused}-crossover-clockwork", T)
        assert "nobody is hosting with the code" in str(e.value)
        await hb.close(T)
        with pytest.raises(NoSuchCode):
            await join(own_mailbox_server.url, "7-crossover-clockwork", T)
        probe = await Mailbox.connect(own_mailbox_server.url, T)
        assert await probe.list_nameplates(T) == ()
        await probe.close(T)

    run(main)


@pytest.mark.slow
def test_the_mailbox_closing_midway(own_mailbox_server: WormholeServer) -> None:  # noqa: F811
    """The server goes away while both wait for the other: each sees MailboxClosed at
    once (not when its long deadline runs out)."""

    async def main() -> None:
        hb, _, jb = await meet(own_mailbox_server.url)
        waits = [asyncio.create_task(mb.get("pake", 600)) for mb in (hb, jb)]
        await asyncio.sleep(0)  # both are reading
        await asyncio.to_thread(own_mailbox_server.kill)
        for w in waits:
            with pytest.raises(MailboxClosed) as e:
                await asyncio.wait_for(w, T)
            assert "closed the connection" in str(e.value)
        for mb in (hb, jb):
            await mb.close(T)  # nothing raised: the work is lost either way

    run(main)


@pytest.mark.slow
def test_the_peer_vanishing_during_the_rendezvous(mailbox_server: WormholeServer) -> None:  # noqa: F811
    """The host leaves after the joiner came: the joiner's wait ends on its deadline."""

    async def main() -> None:
        hb, _, jb = await meet(mailbox_server.url)
        await hb.close(T, mood="lonely")
        with pytest.raises(PeerVanished) as e:
            await jb.get("pake", 1.0)
        assert e.value.failure.seconds == 1.0
        await jb.close(T, mood="lonely")

    run(main)


@pytest.mark.slow
def test_a_server_that_refuses_everyone(tmp_path: Path) -> None:
    """The real server run with --signal-error: its words, in one line."""

    async def main(url: str) -> None:
        with pytest.raises(MailboxRefused) as e:
            await Mailbox.connect(url, T)
        assert "down for maintenance" in str(e.value) and "\n" not in str(e.value)

    with running("mailbox", tmp_path, "--signal-error=down for maintenance") as server:
        run(lambda: main(server.url))


def test_a_mailbox_nobody_runs() -> None:
    port = closed_port()

    async def main() -> None:
        with pytest.raises(MailboxUnreachable) as e:
            await Mailbox.connect(f"ws://127.0.0.1:{port}/v1", T)
        assert f"127.0.0.1:{port}" in str(e.value)
        with pytest.raises(MailboxUnreachable):
            await Mailbox.connect("http://127.0.0.1/v1", T)

    run(main)
