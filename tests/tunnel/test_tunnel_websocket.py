"""The WebSocket client (RFC 6455): the RFC's own examples, a hostile server, the real one."""

from __future__ import annotations

import asyncio
import json
import ssl
import struct
from pathlib import Path

import pytest

from p2p_spite.tunnel.websocket import (
    CLOSE_BAD_DATA,
    CLOSE_PROTOCOL,
    CLOSE_TOO_BIG,
    OP_BINARY,
    OP_CLOSE,
    OP_CONTINUATION,
    OP_TEXT,
    BinaryMessage,
    Closed,
    Pong,
    TextMessage,
    WebSocketClosed,
    WebSocketCore,
    WebSocketProtocolError,
    WebSocketTimeout,
    WebSocketUnreachable,
    accept_key,
    apply_mask,
    connect,
    encode_frame,
    parse_url,
)
from tests.support.wormhole_servers import (  # noqa: F401
    WormholeServer,
    closed_port,
    mailbox_server,
    make_certificate,
    run,
    running,
)

RFC_KEY = b"the sample nonce"  # RFC 6455, 1.3 and 4.2.2: base64 "dGhlIHNhbXBsZSBub25jZQ=="
RFC_MASK = bytes([0x37, 0xFA, 0x21, 0x3D])  # RFC 6455, 5.7


def server_reply(key: str, extra: str = "") -> bytes:
    return (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept_key(key)}\r\n{extra}\r\n"
    ).encode()


def opened(max_message: int = 1 << 20) -> WebSocketCore:
    """A core past its handshake, with the RFC's mask on every frame it sends."""
    core = WebSocketCore("example.com", "/chat", new_key=lambda: RFC_KEY, new_mask=lambda: RFC_MASK)
    core.data_to_send()
    core.receive_data(server_reply("dGhlIHNhbXBsZSBub25jZQ=="))
    assert core.is_open
    return core


def events(core: WebSocketCore) -> list[object]:
    out: list[object] = []
    while (e := core.next_event()) is not None:
        out.append(e)
    return out


# -- the RFC's examples ---------------------------------------------------------------------


def test_the_handshake_is_the_rfcs() -> None:
    """RFC 6455, 1.3 and 4.2.2: the sample key and its accept value; the request's lines."""
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    core = WebSocketCore("server.example.com", "/chat", new_key=lambda: RFC_KEY)
    request = core.data_to_send().decode()
    assert request.startswith("GET /chat HTTP/1.1\r\nHost: server.example.com\r\n")
    for line in ("Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13"):
        assert f"\r\n{line}\r\n" in request
    assert "\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" in request
    assert request.endswith("\r\n\r\n")
    assert not core.is_open


def test_the_rfcs_frames_are_read() -> None:
    """RFC 6455, 5.7: unmasked "Hello", fragmented "Hel"+"lo", a ping, 256 and 65536 bytes."""
    core = opened()
    core.receive_data(bytes([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]))
    core.receive_data(bytes([0x01, 0x03, 0x48, 0x65, 0x6C]))
    assert events(core) == [TextMessage("Hello")]  # the fragment waits for its end
    core.receive_data(bytes([0x80, 0x02, 0x6C, 0x6F]))
    assert events(core) == [TextMessage("Hello")]
    core.receive_data(bytes([0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]))
    # the answer: the RFC's masked pong of "Hello", with the RFC's mask
    assert core.data_to_send() == bytes([0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    big = bytes(range(256))
    core.receive_data(bytes([0x82, 0x7E, 0x01, 0x00]) + big)
    huge = bytes(65536)
    frame = bytes([0x82, 0x7F]) + struct.pack("!Q", 65536) + huge
    for i in range(0, len(frame), 1000):  # in pieces, as TCP may give it
        core.receive_data(frame[i : i + 1000])
    assert events(core) == [BinaryMessage(big), BinaryMessage(huge)]


def test_the_rfcs_frames_are_written() -> None:
    """RFC 6455, 5.7: the masked "Hello"; the 7-, 16- and 64-bit lengths."""
    core = opened()
    core.send_text("Hello")
    assert core.data_to_send() == bytes([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    assert encode_frame(OP_TEXT, b"Hello", None) == bytes([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    assert encode_frame(OP_TEXT, b"Hel", None, fin=False) == bytes([0x01, 0x03, 0x48, 0x65, 0x6C])
    assert encode_frame(OP_CONTINUATION, b"lo", None) == bytes([0x80, 0x02, 0x6C, 0x6F])
    assert encode_frame(OP_BINARY, bytes(256), None)[:4] == bytes([0x82, 0x7E, 0x01, 0x00])
    assert encode_frame(OP_BINARY, bytes(65536), None)[:10] == bytes([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    assert apply_mask(apply_mask(b"any bytes at all", RFC_MASK), RFC_MASK) == b"any bytes at all"


def test_a_message_goes_out_in_fragments() -> None:
    core = opened()
    core.send_binary(b"abcdefg", fragment=3)
    out = core.data_to_send()
    m = RFC_MASK
    assert out == (
        encode_frame(OP_BINARY, b"abc", m, fin=False)
        + encode_frame(OP_CONTINUATION, b"def", m, fin=False)
        + encode_frame(OP_CONTINUATION, b"g", m)
    )


def test_the_closing_handshake_both_ways() -> None:
    core = opened()
    core.close(1000, "bye")
    assert core.data_to_send() == encode_frame(OP_CLOSE, struct.pack("!H", 1000) + b"bye", RFC_MASK)
    assert not core.is_open and not core.is_closed
    core.receive_data(encode_frame(OP_TEXT, b"late", None))  # dropped after our close
    core.receive_data(encode_frame(OP_CLOSE, struct.pack("!H", 1000), None))
    assert core.is_closed
    assert events(core) == [Closed(1000, "")]
    with pytest.raises(WebSocketClosed):
        core.send_text("too late")

    other = opened()  # the server closes first: we echo its code
    other.receive_data(encode_frame(OP_CLOSE, struct.pack("!H", 1001) + b"going away", None))
    assert other.data_to_send() == encode_frame(OP_CLOSE, struct.pack("!H", 1001), RFC_MASK)
    assert events(other) == [Closed(1001, "going away")] and other.is_closed


def test_the_end_of_tcp_without_a_close_frame_is_an_error() -> None:
    core = opened()
    with pytest.raises(WebSocketClosed):
        core.receive_data(b"")
    assert core.is_closed


# -- a hostile server -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (bytes([0x81, 0x85]) + RFC_MASK + apply_mask(b"Hello", RFC_MASK), CLOSE_PROTOCOL),  # masked
        (bytes([0xC1, 0x01, 0x41]), CLOSE_PROTOCOL),  # RSV1 with no extension
        (bytes([0x83, 0x00]), CLOSE_PROTOCOL),  # reserved opcode 3
        (bytes([0x0B, 0x00]), CLOSE_PROTOCOL),  # reserved control opcode, not final
        (bytes([0x09, 0x00]), CLOSE_PROTOCOL),  # a fragmented ping
        (bytes([0x89, 0x7E, 0x00, 0x7E]) + bytes(126), CLOSE_PROTOCOL),  # a ping of 126 bytes
        (bytes([0x80, 0x01, 0x41]), CLOSE_PROTOCOL),  # a continuation with nothing under way
        (bytes([0x01, 0x01, 0x41, 0x81, 0x01, 0x42]), CLOSE_PROTOCOL),  # a new text mid-message
        (bytes([0x81, 0x02, 0xC3, 0x28]), CLOSE_BAD_DATA),  # not UTF-8
        (bytes([0x88, 0x01, 0x03]), CLOSE_PROTOCOL),  # a close of one byte
        (bytes([0x88, 0x02, 0x03, 0xED]), CLOSE_PROTOCOL),  # close status 1005, never sent
        (bytes([0x88, 0x04, 0x03, 0xE8, 0xC3, 0x28]), CLOSE_BAD_DATA),  # a reason not UTF-8
        (bytes([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1]), CLOSE_PROTOCOL),  # a 64-bit length's top bit
    ],
)
def test_a_frame_a_server_must_not_send(frame: bytes, code: int) -> None:
    core = opened()
    with pytest.raises(WebSocketProtocolError) as e:
        core.receive_data(frame)
    assert e.value.close_code == code
    assert core.data_to_send() == encode_frame(OP_CLOSE, struct.pack("!H", code), RFC_MASK)
    assert core.is_closed
    core.receive_data(encode_frame(OP_TEXT, b"more", None))  # nothing more is taken
    assert events(core) == []


def test_the_size_limit_refuses_before_buffering() -> None:
    """A header announcing too much is refused at once, before its payload arrives; so is a
    message that grows past the limit in fragments."""
    core = opened(max_message=1 << 20)
    core.max_message = 1000
    with pytest.raises(WebSocketProtocolError) as e:
        core.receive_data(bytes([0x82, 0x7F]) + struct.pack("!Q", 1 << 40))
    assert e.value.close_code == CLOSE_TOO_BIG
    core = opened()
    core.max_message = 1000
    core.receive_data(encode_frame(OP_BINARY, bytes(600), None, fin=False))
    with pytest.raises(WebSocketProtocolError) as e:
        core.receive_data(bytes([0x00, 0x7E, 0x01, 0xF4]))  # 500 more: 1100 in all
    assert e.value.close_code == CLOSE_TOO_BIG


@pytest.mark.parametrize(
    "reply",
    [
        b"HTTP/1.1 200 OK\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n\r\n",
        b"HTTP/1.1 101 X\r\n" + b"X-Long: " + b"a" * 20000,
    ],
)
def test_a_bad_handshake_is_refused(reply: bytes) -> None:
    core = WebSocketCore("example.com", new_key=lambda: RFC_KEY)
    with pytest.raises(WebSocketProtocolError):
        core.receive_data(reply)
    assert not core.is_open


def test_an_extension_not_offered_is_refused() -> None:
    core = WebSocketCore("example.com", new_key=lambda: RFC_KEY)
    with pytest.raises(WebSocketProtocolError):
        core.receive_data(server_reply("dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Extensions: x\r\n"))


def test_frames_right_behind_the_handshake_are_kept() -> None:
    core = WebSocketCore("example.com", new_key=lambda: RFC_KEY)
    core.receive_data(server_reply("dGhlIHNhbXBsZSBub25jZQ==") + encode_frame(OP_TEXT, b"hi", None))
    assert events(core) == [TextMessage("hi")]


def test_urls() -> None:
    u = parse_url("wss://relay.example:4443/v1?x=1")
    assert (u.secure, u.host, u.port, u.resource, u.host_header) == (
        True,
        "relay.example",
        4443,
        "/v1?x=1",
        "relay.example:4443",
    )
    u = parse_url("ws://[::1]/")
    assert (u.port, u.host_header, u.where) == (80, "[::1]", "[::1]:80")
    for bad in ("http://x/", "ws://", "ws://x:99999/", "wss://x/#f"):
        with pytest.raises(ValueError):
            parse_url(bad)


# -- over TCP: a hostile server on 127.0.0.1, then the real mailbox server -------------------


def test_a_silent_server_meets_the_deadline() -> None:
    """A server that accepts and says nothing: the handshake's wait ends on its deadline."""

    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            with pytest.raises(WebSocketTimeout):
                await connect(f"ws://127.0.0.1:{port}/", timeout=0.5)

    run(main)


def test_nobody_listening_is_unreachable() -> None:
    async def main() -> None:
        with pytest.raises(WebSocketUnreachable):
            await connect(f"ws://127.0.0.1:{closed_port()}/", timeout=30)

    run(main)


@pytest.mark.slow
def test_the_real_server_talks_to_us(mailbox_server: WormholeServer) -> None:  # noqa: F811
    """The mailbox server (autobahn) sends its welcome in a text frame (server-protocol.md
    says binary; both are taken), answers a ping with a pong and a JSON ping with a JSON
    pong, and closes cleanly."""

    async def main() -> None:
        ws = await connect(mailbox_server.url, timeout=30)
        welcome = await ws.recv(30)
        assert isinstance(welcome, TextMessage)
        assert json.loads(welcome.text)["type"] == "welcome"
        await ws.ping(b"are you there", 30)
        assert await ws.recv(30) == Pong(b"are you there")
        await ws.send_text(json.dumps({"type": "ping", "ping": 7, "id": "00"}), 30)
        got = [await ws.recv(30), await ws.recv(30)]
        assert all(isinstance(m, TextMessage) for m in got)
        assert {json.loads(m.text)["type"] for m in got if isinstance(m, TextMessage)} == {"ack", "pong"}
        await ws.close(30)
        assert ws.core.is_closed

    run(main)


@pytest.mark.slow
def test_wss_checks_the_certificate(tmp_path: Path) -> None:
    """The real mailbox server over TLS: refused with the default context (nobody vouches
    for its certificate), welcomed with a context that trusts it."""
    cert, key = make_certificate(tmp_path)

    async def main(url: str) -> None:
        with pytest.raises(WebSocketUnreachable) as e:
            await connect(url, timeout=30)
        assert "certificate verify failed" in str(e.value).lower(), str(e.value)
        ws = await connect(url, timeout=30, tls=ssl.create_default_context(cafile=str(cert)))
        welcome = await ws.recv(30)
        assert isinstance(welcome, TextMessage) and json.loads(welcome.text)["type"] == "welcome"
        await ws.close(30)

    with running("mailbox", tmp_path, tls=(cert, key)) as server:
        assert server.url.startswith("wss://127.0.0.1:")
        run(lambda: main(server.url))
