"""The meeting behind a code (tunnel/rendezvous.py) through the real mailbox server, and
the paths after it (tunnel/paths.py) on 127.0.0.1 and through the real relay, with
modified peers that deviate at each step."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import pytest

from p2p_spite.contracts.news import Connected
from p2p_spite.tunnel.channel import SealedChannel, seal_message
from p2p_spite.tunnel.failures import NoPath, PeerBroke, PeerVanished, WrongCode
from p2p_spite.tunnel.hints import DirectHint, Hint, RelayHint, hints_to_json
from p2p_spite.tunnel.mailbox import Code, join
from p2p_spite.tunnel.paths import GO, SealedTransport, TunnelServer, establish, relay_token
from p2p_spite.tunnel.relay import new_side
from p2p_spite.tunnel.rendezvous import Meeting, code_password, host_meeting, join_meeting
from p2p_spite.tunnel.spake2 import Role, Spake2
from tests.support.wormhole_servers import WormholeServer, mailbox_server, relay_server, run  # noqa: F401

T = 60.0  # waits that succeed: long, so a loaded machine passes
HINTS_A: list[Hint] = [DirectHint("127.0.0.1", 40000), RelayHint("127.0.0.1", 4001)]
HINTS_B: list[Hint] = [RelayHint("127.0.0.1", 4002)]


async def _meet(url: str, joiner_code: Code | None = None) -> tuple[Meeting | BaseException, ...]:
    codes: asyncio.Queue[Code] = asyncio.Queue()
    host_task = asyncio.ensure_future(host_meeting(url, HINTS_A, codes.put_nowait, typing_wait=T))
    code = await asyncio.wait_for(codes.get(), T)
    joined = await asyncio.gather(join_meeting(url, joiner_code or code, HINTS_B), return_exceptions=True)
    hosted = await asyncio.gather(host_task, return_exceptions=True)
    return hosted[0], joined[0]


def test_both_sides_agree_a_key_and_read_each_others_hints(mailbox_server: WormholeServer) -> None:  # noqa: F811
    a, b = run(lambda: _meet(mailbox_server.url))
    assert isinstance(a, Meeting) and isinstance(b, Meeting)
    assert a.ke == b.ke and len(a.ke) == 16
    assert (a.role, b.role) == (Role.A, Role.B)
    assert a.relays == (RelayHint("127.0.0.1", 4002),) and a.direct == ()
    assert b.direct == (DirectHint("127.0.0.1", 40000),) and b.relays == (RelayHint("127.0.0.1", 4001),)
    assert relay_token(a.ke) == relay_token(b.ke) and len(relay_token(a.ke)) == 32


def test_a_wrong_code_is_wrong_on_both_sides(mailbox_server: WormholeServer) -> None:  # noqa: F811
    async def main() -> tuple[Meeting | BaseException, ...]:
        codes: asyncio.Queue[Code] = asyncio.Queue()
        task = asyncio.ensure_future(
            host_meeting(mailbox_server.url, HINTS_A, codes.put_nowait, typing_wait=T)
        )
        code = await asyncio.wait_for(codes.get(), T)
        wrong = Code(code.nameplate, (code.words[1], code.words[0]))  # the words swapped
        joined = await asyncio.gather(
            join_meeting(mailbox_server.url, wrong, HINTS_B), return_exceptions=True
        )
        return (await asyncio.gather(task, return_exceptions=True))[0], joined[0]

    a, b = run(main)
    assert isinstance(a, WrongCode) and isinstance(b, WrongCode)


async def _hostile_joiner(url: str, steps: list[tuple[str, bytes]]) -> BaseException | Meeting:
    """A joiner that puts ``steps`` (phase, body) in the mailbox instead of its own; the
    host's outcome."""
    codes: asyncio.Queue[Code] = asyncio.Queue()
    task = asyncio.ensure_future(host_meeting(url, HINTS_A, codes.put_nowait, typing_wait=T))
    code = await asyncio.wait_for(codes.get(), T)
    mb = await join(url, code, T)
    try:
        for phase, body in steps:
            await mb.add(phase, body, T)
        return (await asyncio.gather(task, return_exceptions=True))[0]
    finally:
        mb.abort()


@pytest.mark.parametrize(
    "pake",
    [b"", b"\x04" + bytes(64), b"\x02" + bytes(32), bytes(65)],
    ids=["empty", "not-on-the-curve", "compressed", "identity-like"],
)
def test_a_joiner_whose_key_message_is_no_point_is_refused(
    mailbox_server: WormholeServer,  # noqa: F811
    pake: bytes,
) -> None:
    outcome = run(lambda: _hostile_joiner(mailbox_server.url, [("pake", pake)]))
    assert isinstance(outcome, PeerBroke)


def test_a_joiner_that_reflects_the_hosts_key_message_is_refused(mailbox_server: WormholeServer) -> None:  # noqa: F811
    async def main() -> BaseException | Meeting:
        codes: asyncio.Queue[Code] = asyncio.Queue()
        task = asyncio.ensure_future(
            host_meeting(mailbox_server.url, HINTS_A, codes.put_nowait, typing_wait=T)
        )
        code = await asyncio.wait_for(codes.get(), T)
        mb = await join(mailbox_server.url, code, T)
        try:
            theirs = await mb.get("pake", T)
            await mb.add("pake", theirs, T)  # the host's own message, back
            return (await asyncio.gather(task, return_exceptions=True))[0]
        finally:
            mb.abort()

    assert isinstance(run(main), PeerBroke)


async def _honest_until_hints(url: str, sealed: bytes | None, purpose: bytes) -> BaseException | Meeting:
    """A joiner honest up to the hints, which it seals under ``purpose`` (or sends
    ``sealed`` as they are)."""
    codes: asyncio.Queue[Code] = asyncio.Queue()
    task = asyncio.ensure_future(host_meeting(url, HINTS_A, codes.put_nowait, typing_wait=T))
    code = await asyncio.wait_for(codes.get(), T)
    mb = await join(url, code, T)
    try:
        pake = Spake2(Role.B, code_password(code))
        await mb.add("pake", pake.message, T)
        mac = pake.receive(await mb.get("pake", T))
        await mb.add("confirm", mac, T)
        ke = pake.confirm(await mb.get("confirm", T))
        body = sealed if sealed is not None else seal_message(ke, purpose, hints_to_json(HINTS_B))
        await mb.add("hints", body, T)
        return (await asyncio.gather(task, return_exceptions=True))[0]
    finally:
        mb.abort()


@pytest.mark.parametrize(
    ("sealed", "purpose"),
    [(None, b"A|hints"), (bytes(40), b"B|hints"), (None, b"B|other")],
    ids=["sealed-as-the-hosts", "not-sealed", "another-purpose"],
)
def test_hints_that_do_not_open_as_the_joiners_are_refused(
    mailbox_server: WormholeServer,  # noqa: F811
    sealed: bytes | None,
    purpose: bytes,
) -> None:
    outcome = run(lambda: _honest_until_hints(mailbox_server.url, sealed, purpose))
    assert isinstance(outcome, PeerBroke)


def test_honest_hints_open(mailbox_server: WormholeServer) -> None:  # noqa: F811
    """(The modified joiner above, honest: the host meets it.)"""
    outcome = run(lambda: _honest_until_hints(mailbox_server.url, None, b"B|hints"))
    assert isinstance(outcome, Meeting) and outcome.relays == (RelayHint("127.0.0.1", 4002),)


def test_a_joiner_that_never_confirms_is_waited_for_with_a_deadline(mailbox_server: WormholeServer) -> None:  # noqa: F811
    """(Each step's deadline: 5 s here, for the test.)"""

    async def main() -> BaseException | Meeting:
        codes: asyncio.Queue[Code] = asyncio.Queue()
        task = asyncio.ensure_future(host_meeting(mailbox_server.url, HINTS_A, codes.put_nowait, step=5.0))
        code = await asyncio.wait_for(codes.get(), T)
        mb = await join(mailbox_server.url, code, T)
        try:
            pake = Spake2(Role.B, code_password(code))
            await mb.add("pake", pake.message, T)
            return (await asyncio.gather(task, return_exceptions=True))[0]
        finally:
            mb.abort()

    assert isinstance(run(main), PeerVanished)


# -- the paths ------------------------------------------------------------------------------


class Echo(asyncio.Protocol):
    """A protocol that collects what it is given (and can be written through)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.got = bytearray()
        self.more = asyncio.Event()
        self.lost: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.got += data
        self.more.set()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)

    async def until(self, n: int) -> bytes:
        while len(self.got) < n:
            self.more.clear()
            await asyncio.wait_for(self.more.wait(), T)
        return bytes(self.got)


class Made(list[Echo]):
    """A protocol factory that keeps what it made."""

    def __call__(self) -> Echo:
        self.append(Echo())
        return self[-1]


def _listener() -> socket.socket:
    return socket.create_server(("127.0.0.1", 0))


KE = bytes(range(16))


def test_a_direct_path_carries_bytes_both_ways_sealed() -> None:
    async def main() -> None:
        sock = _listener()
        port = sock.getsockname()[1]
        protocols = Made()
        server = await TunnelServer(KE, None, sock).serve(protocols)
        try:
            opened = await establish(KE, [DirectHint("127.0.0.1", port)], None, side=new_side(), timeout=T)
            assert opened.connected == Connected(direct=True, where=f"127.0.0.1:{port}")
            assert (await asyncio.wait_for(server.first, T)).direct
            ours = Echo()
            t = SealedTransport(opened)
            t.attach(ours)
            assert t.get_extra_info("peername") == ("127.0.0.1", port)
            big = bytes(range(256)) * 1000  # over one record: split and joined again
            t.write(b"hello " + big)
            theirs = protocols[0]
            assert await theirs.until(6 + len(big)) == b"hello " + big
            assert theirs.transport is not None
            theirs.transport.write(b"back")
            assert await ours.until(4) == b"back"
            t.close()
            assert await asyncio.wait_for(theirs.lost, T) is None  # a clean end: the CLOSE
        finally:
            server.close()
            await server.wait_closed()

    run(main)


async def _raw_to(
    port: int, ke: bytes, first: bytes | None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection that opens a channel under ``ke`` and sends ``first`` (if any)."""
    r, w = await asyncio.open_connection("127.0.0.1", port)
    ch = SealedChannel(ke, Role.B)
    w.write(ch.data_to_send())
    with contextlib.suppress(Exception):
        while not ch.established:
            data = await asyncio.wait_for(r.read(4096), T)
            if not data:
                break
            ch.receive_data(data)
            w.write(ch.data_to_send())
    if first is not None and ch.established:
        ch.send(first)
        w.write(ch.data_to_send())
    return r, w


@pytest.mark.parametrize(
    ("ke", "first"),
    [(bytes(16), GO), (KE, b"gone"), (KE, None)],
    ids=["another-key", "not-go", "nothing"],
)
def test_the_host_takes_no_connection_but_a_go_under_its_key(ke: bytes, first: bytes | None) -> None:
    async def main() -> None:
        sock = _listener()
        port = sock.getsockname()[1]
        made = Made()
        server = await TunnelServer(KE, None, sock, open_timeout=1.0).serve(made)  # (the silent one's)
        try:
            r, w = await _raw_to(port, ke, first)
            await asyncio.wait_for(_closed(r), T)  # the host closes it
            assert made == [] and not server.first.done()
            w.close()
        finally:
            server.close()
            await server.wait_closed()

    run(main)


async def _closed(r: asyncio.StreamReader) -> None:
    while await r.read(4096):
        pass


def test_no_path_when_nothing_answers() -> None:
    async def main() -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with pytest.raises(NoPath):
            await establish(KE, [DirectHint("127.0.0.1", port)], None, side=new_side(), timeout=T)

    run(main)


def test_a_path_through_the_real_relay_and_a_second_one_under_the_same_key(
    relay_server: WormholeServer,  # noqa: F811
) -> None:
    async def main() -> None:
        relay = ("127.0.0.1", relay_server.port)
        made = Made()
        later: list[object] = []
        server = await TunnelServer(KE, relay, None, later.append).serve(made)
        side = new_side()
        try:
            for n in (1, 2):  # the first connection, then a reconnection
                opened = await establish(KE, [], relay, side=side, timeout=T)
                assert opened.connected == Connected(direct=False, where=f"127.0.0.1:{relay_server.port}")
                t = SealedTransport(opened)
                ours = Echo()
                t.attach(ours)
                t.write(b"move %d" % n)
                while len(made) < n:
                    await asyncio.sleep(0.01)
                assert await made[-1].until(6) == b"move %d" % n
                t.abort()
                await asyncio.wait_for(made[-1].lost, T)  # the relay dropped the host's side too
            assert later == [Connected(direct=False, where=f"127.0.0.1:{relay_server.port}")]
        finally:
            server.close()
            await server.wait_closed()

    run(main)


def test_strangers_holding_the_direct_door_are_bounded() -> None:
    """MAX_OPENING silent connections each get the host's opening and wait; one more is
    closed at once, with nothing sent; when one of the silent ones leaves, a new one is
    let in again."""

    async def main() -> None:
        from p2p_spite.tunnel.channel import OPENING_BYTES
        from p2p_spite.tunnel.paths import MAX_OPENING

        sock = _listener()
        port = sock.getsockname()[1]
        server = await TunnelServer(KE, None, sock, open_timeout=T).serve(Made())
        held: list[asyncio.StreamWriter] = []
        try:
            for _ in range(MAX_OPENING):
                r, w = await asyncio.open_connection("127.0.0.1", port)
                held.append(w)
                assert len(await asyncio.wait_for(r.readexactly(OPENING_BYTES), T)) == OPENING_BYTES
            r, w = await asyncio.open_connection("127.0.0.1", port)
            with contextlib.suppress(ConnectionError):
                assert await asyncio.wait_for(r.read(), T) == b""
            w.close()
            held.pop().close()
            while True:  # (the host sees the one that left; then there is room again)
                r, w = await asyncio.open_connection("127.0.0.1", port)
                got = await asyncio.wait_for(r.read(OPENING_BYTES), T)
                held.append(w)
                if got:
                    break
                await asyncio.sleep(0.05)
        finally:
            for w in held:
                w.close()
            server.close()
            await server.wait_closed()

    run(main)
