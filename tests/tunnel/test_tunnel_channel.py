"""The sealed channel (p2p_spite/tunnel/channel.py): its bytes as docs/protocol.md pins them,
the handshake, and a peer that deviates at every step: another key, another role, a
reflection, changed, replayed, reordered, dropped and cut frames, sizes out of bounds,
records out of place, the bytes of an earlier connection.  And the sealed mailbox messages.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.contracts.errors import SpiteError
from p2p_spite.tunnel.aead import ChaCha20Poly1305
from p2p_spite.tunnel.channel import (
    HELLO_BODY,
    MAX_MESSAGE,
    MAX_SEALED,
    MIN_SEALED,
    OPENING_BYTES,
    Record,
    SealedChannel,
    direction_keys,
    frame_nonce,
    open_message,
    seal_message,
)
from p2p_spite.tunnel.errors import ChannelError, FrameError, HandshakeError, SealError
from p2p_spite.tunnel.spake2 import Role, password_scalar

h = bytes.fromhex
KE = h("0e0672dc86f8e45565d338b0540abe69")  # RFC 9382's first vector's Ke
NONCE_A = bytes(range(16))
NONCE_B = bytes(range(16, 32))

# The vectors docs/protocol.md prints ("The sealed channel": Ke above, these nonces).
VECTORS = {
    "opening A": "5032505345414c3141000102030405060708090a0b0c0d0e0f",
    "opening B": "5032505345414c3142101112131415161718191a1b1c1d1e1f",
    "key A->B": "ebd4ea39ffd81b6da6790db783acd0d079795a8c712392bcbd1ccefcc06e8710",
    "key B->A": "2b1f30ecf6cfd4dbff2fabe4b86d9944efc3e0982309d0b744987af1088129d3",
    "hello A": "00000025f6df9a69a292ca114b75f7d311ecb8211b0ebcb8c922eba3c875cdfc8166bc12b9e98fb8ec",
    "hello B": "0000002584885b0303b65d8c0f561b09d8e06d6705bfaa929b305fb3c475f5d1a5c5abdc89f88341e9",
    "data A 1": "0000001d202a4aed2c43642888a2edf50015d4ae7f3bf891b64e03b7bc2d444c42",
    "close A 2": "0000001127aa89bd2caacf87d6d32eef6688589c4a",
    "mailbox A|hints": "0000000000000000000000003ea7923aee8daa41a55700be83d50b0c3815ef51162b12b7abce02d0d0",
}


def _hkdf_by_hand(ikm: bytes, salt: bytes, info: bytes) -> bytes:
    """RFC 5869 with one block of output, written out: PRK = HMAC(salt, IKM); T(1)."""
    prk = hmac.digest(salt or bytes(32), ikm, hashlib.sha256)
    return hmac.digest(prk, info + b"\x01", hashlib.sha256)


def _frame(key: bytes, counter: int, record: int, body: bytes) -> bytes:
    header = (1 + len(body) + 16).to_bytes(4, "big")
    return header + ChaCha20Poly1305(key).seal(
        bytes(4) + counter.to_bytes(8, "big"), bytes((record,)) + body, header
    )


def test_the_bytes_are_the_documents() -> None:
    """Recomputed from the recipe (HKDF written out here, RFC 8439's AEAD) and compared
    with the pinned hex, which is docs/protocol.md's."""
    key_ab = _hkdf_by_hand(KE, NONCE_A + NONCE_B, b"p2p-spite v1|channel|A->B")
    key_ba = _hkdf_by_hand(KE, NONCE_A + NONCE_B, b"p2p-spite v1|channel|B->A")
    assert (key_ab.hex(), key_ba.hex()) == (VECTORS["key A->B"], VECTORS["key B->A"])
    assert direction_keys(KE, NONCE_A, NONCE_B) == (key_ab, key_ba)
    assert h(VECTORS["opening A"]) == b"P2PSEAL1A" + NONCE_A
    assert h(VECTORS["opening B"]) == b"P2PSEAL1B" + NONCE_B
    assert _frame(key_ab, 0, 1, b"p2p-spite channel v1") == h(VECTORS["hello A"])
    assert _frame(key_ba, 0, 1, b"p2p-spite channel v1") == h(VECTORS["hello B"])
    assert _frame(key_ab, 1, 2, b"hello, world") == h(VECTORS["data A 1"])
    assert _frame(key_ab, 2, 3, b"") == h(VECTORS["close A 2"])
    mailbox_key = _hkdf_by_hand(KE, b"", b"p2p-spite v1|mailbox|A|hints")
    sealed = bytes(12) + ChaCha20Poly1305(mailbox_key).seal(bytes(12), b'{"hints": []}', b"A|hints")
    assert sealed == h(VECTORS["mailbox A|hints"])

    a = SealedChannel(KE, Role.A, nonce=NONCE_A)
    b = SealedChannel(KE, Role.B, nonce=NONCE_B)
    assert a.data_to_send() == h(VECTORS["opening A"])
    assert b.data_to_send() == h(VECTORS["opening B"])
    assert b.receive_data(h(VECTORS["opening A"])) == []
    assert a.receive_data(h(VECTORS["opening B"])) == []
    assert a.data_to_send() == h(VECTORS["hello A"])
    assert b.data_to_send() == h(VECTORS["hello B"])
    a.receive_data(h(VECTORS["hello B"]))
    b.receive_data(h(VECTORS["hello A"]))
    a.send(b"hello, world")
    assert a.data_to_send() == h(VECTORS["data A 1"])
    a.close()
    assert a.data_to_send() == h(VECTORS["close A 2"])
    assert b.receive_data(h(VECTORS["data A 1"]) + h(VECTORS["close A 2"])) == [b"hello, world"]
    assert b.peer_closed and b.receive_eof()
    assert seal_message(KE, b"A|hints", b'{"hints": []}', nonce=bytes(12)) == h(VECTORS["mailbox A|hints"])
    assert frame_nonce(5) == bytes(11) + b"\x05"


def _document_values() -> dict[str, str]:
    """``name = hex`` lines of docs/protocol.md's section "The sealed channel"."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("\n## The sealed channel", 1)[1].split("\n## ", 1)[0]
    block = section.split("### Test vectors", 1)[1]
    return dict(re.findall(r"^(\S[^=\n]*?)\s+=\s+([0-9a-f]+)$", block, re.M))


def test_the_document_prints_these_vectors() -> None:
    printed = _document_values()
    assert printed.pop("Ke") == KE.hex()
    assert int(printed.pop("w"), 16) == password_scalar(b"7-crossover-clockwork", b"app")
    assert printed == VECTORS


# -- honest runs ---------------------------------------------------------------------------------


def _pair(ke_a: bytes = KE, ke_b: bytes = KE) -> tuple[SealedChannel, SealedChannel]:
    return SealedChannel(ke_a, Role.A), SealedChannel(ke_b, Role.B)


def _handshake(a: SealedChannel, b: SealedChannel) -> None:
    b.receive_data(a.data_to_send())
    a.receive_data(b.data_to_send())
    assert b.receive_data(a.data_to_send()) == []
    assert a.receive_data(b.data_to_send()) == []
    assert a.established and b.established


def test_messages_flow_both_ways_in_order_and_close_cleanly() -> None:
    a, b = _pair()
    _handshake(a, b)
    for i in range(5):
        a.send(b"move %d" % i)
        b.send(b"ack %d" % i)
    assert b.receive_data(a.data_to_send()) == [b"move %d" % i for i in range(5)]
    assert a.receive_data(b.data_to_send()) == [b"ack %d" % i for i in range(5)]
    a.send(b"")
    assert b.receive_data(a.data_to_send()) == [b""]
    a.close()
    b.close()
    assert b.receive_data(a.data_to_send()) == [] and b.peer_closed
    assert a.receive_data(b.data_to_send()) == []
    assert a.receive_eof() and b.receive_eof()
    with pytest.raises(ChannelError):
        a.send(b"after close")


def test_a_stream_that_stops_between_frames_is_not_a_clean_end() -> None:
    a, b = _pair()
    _handshake(a, b)
    a.send(b"x")
    assert b.receive_data(a.data_to_send()) == [b"x"]
    assert b.receive_eof() is False


@settings(max_examples=40, deadline=None)
@given(
    messages=st.lists(st.binary(max_size=300), max_size=8),
    cuts=st.lists(st.integers(0, 4000), max_size=12),
)
def test_any_chunking_gives_the_same_messages(messages: list[bytes], cuts: list[int]) -> None:
    a, b = SealedChannel(KE, Role.A), SealedChannel(KE, Role.B, nonce=NONCE_B)
    stream = bytearray(a.data_to_send())
    b.receive_data(bytes(stream))
    a.receive_data(b.data_to_send())
    for m in messages:
        a.send(m)
    stream += a.data_to_send()  # a's hello, then the messages
    again = SealedChannel(KE, Role.B, nonce=NONCE_B)  # b once more, fed in pieces
    bounds = sorted({0, len(stream), *(c % (len(stream) + 1) for c in cuts)})
    got: list[bytes] = []
    for lo, hi in itertools.pairwise(bounds):
        got += again.receive_data(bytes(stream[lo:hi]))
    assert got == messages
    assert again.established
    assert again.receive_eof() is False


def test_nothing_is_sent_before_the_peers_hello() -> None:
    a, b = _pair()
    with pytest.raises(ChannelError):
        a.send(b"too early")
    b.receive_data(a.data_to_send())
    with pytest.raises(ChannelError):
        b.send(b"still too early")  # b sent its hello, but has not had a's
    with pytest.raises(ChannelError):
        b.close()


def test_each_connection_has_fresh_keys() -> None:
    a1, b1 = _pair()
    _handshake(a1, b1)
    a2, b2 = _pair()
    _handshake(a2, b2)
    a1.send(b"same")
    a2.send(b"same")
    assert a1.data_to_send() != a2.data_to_send()


# -- a peer with another key, role or path ------------------------------------------------------


def test_another_key_fails_the_hello_on_both_sides() -> None:
    a, b = _pair(KE, bytes(16))
    opening_a, opening_b = a.data_to_send(), b.data_to_send()
    b.receive_data(opening_a)
    a.receive_data(opening_b)
    with pytest.raises(HandshakeError, match="another key"):
        b.receive_data(a.data_to_send())
    with pytest.raises(HandshakeError, match="another key"):
        a.receive_data(b.data_to_send())
    with pytest.raises(ChannelError):  # and the channel is over
        a.receive_data(b"")


def test_both_sides_in_the_same_role_are_refused_at_the_opening() -> None:
    a1, a2 = SealedChannel(KE, Role.A), SealedChannel(KE, Role.A)
    with pytest.raises(HandshakeError, match="both sides"):
        a1.receive_data(a2.data_to_send())


def test_a_reflected_opening_is_refused() -> None:
    a = SealedChannel(KE, Role.A)
    opening = a.data_to_send()
    with pytest.raises(HandshakeError):
        a.receive_data(opening)  # same role: refused
    b = SealedChannel(KE, Role.B, nonce=NONCE_B)
    mirrored = b"P2PSEAL1A" + NONCE_B  # our own nonce under the other role
    with pytest.raises(HandshakeError, match="reflected"):
        b.receive_data(mirrored)


def test_a_stranger_is_refused_at_its_first_wrong_byte() -> None:
    b = SealedChannel(KE, Role.B)
    with pytest.raises(HandshakeError, match="does not speak"):
        b.receive_data(b"GET / HTTP/1.1\r\n")
    b = SealedChannel(KE, Role.B)
    with pytest.raises(HandshakeError, match="does not speak"):
        b.receive_data(b"P2Px")
    b = SealedChannel(KE, Role.B)
    with pytest.raises(HandshakeError, match="no role"):
        b.receive_data(b"P2PSEAL1C" + NONCE_A)


def test_the_bytes_of_an_earlier_connection_do_not_open_in_a_new_one() -> None:
    """A recorded connection replayed to a new one under the same key: refused at the hello."""
    a, old_b = _pair()
    recorded = bytearray(a.data_to_send())
    old_b.receive_data(bytes(recorded))
    a.receive_data(old_b.data_to_send())
    recorded += a.data_to_send()
    assert a.established
    a.send(b"a move")
    recorded += a.data_to_send()
    new_b = SealedChannel(KE, Role.B)
    with pytest.raises(HandshakeError, match="another key"):
        new_b.receive_data(bytes(recorded))


# -- a peer that holds the key and deviates -------------------------------------------------------


class Forger:
    """A's side written by hand: frames of any type, body and counter under A's key."""

    def __init__(self, b: SealedChannel) -> None:
        opening = b"P2PSEAL1A" + NONCE_A
        b.receive_data(opening)
        self.b_opening = b.data_to_send()  # b's opening then its hello
        nonce_b = self.b_opening[9:25]
        self.key, self.back = direction_keys(KE, NONCE_A, nonce_b)

    def frame(self, counter: int, record: int, body: bytes) -> bytes:
        return _frame(self.key, counter, record, body)


def _established_b() -> tuple[SealedChannel, Forger]:
    b = SealedChannel(KE, Role.B)
    f = Forger(b)
    b.receive_data(f.frame(0, Record.HELLO, HELLO_BODY))
    assert b.established
    return b, f


@pytest.mark.parametrize(
    ("counter", "record", "body", "match"),
    [
        (0, Record.DATA, b"no hello", "not the hello"),
        (0, Record.HELLO, b"p2p-spite channel v2", "not the hello"),
        (0, Record.CLOSE, b"", "not the hello"),
        (1, Record.HELLO, HELLO_BODY, "another key"),  # the right hello at the wrong counter
    ],
)
def test_a_wrong_first_frame_is_refused(counter: int, record: int, body: bytes, match: str) -> None:
    b = SealedChannel(KE, Role.B)
    f = Forger(b)
    with pytest.raises(HandshakeError, match=match):
        b.receive_data(f.frame(counter, record, body))
    assert not b.established


@pytest.mark.parametrize(
    ("record", "body"),
    [(Record.HELLO, HELLO_BODY), (0, b"x"), (4, b"x"), (255, b""), (Record.CLOSE, b"with a body")],
    ids=("second-hello", "type-0", "type-4", "type-255", "close-with-body"),
)
def test_a_record_out_of_place_is_refused(record: int, body: bytes) -> None:
    b, f = _established_b()
    with pytest.raises(FrameError, match="record of type"):
        b.receive_data(f.frame(1, record, body))
    with pytest.raises(ChannelError):
        b.receive_data(f.frame(1, Record.DATA, b"then a good one"))


def test_replayed_reordered_and_dropped_frames_are_refused() -> None:
    frames = {}
    for case in ("replay", "reorder", "drop"):
        b, f = _established_b()
        one, two, three = (f.frame(i, Record.DATA, b"m%d" % i) for i in (1, 2, 3))
        frames[case] = (b, one, two, three)
    b, one, two, _ = frames["replay"]
    assert b.receive_data(one) == [b"m1"]
    with pytest.raises(FrameError, match="does not open"):
        b.receive_data(one)
    b, one, two, _ = frames["reorder"]
    with pytest.raises(FrameError, match="does not open"):
        b.receive_data(two + one)
    b, one, _, three = frames["drop"]
    assert b.receive_data(one) == [b"m1"]
    with pytest.raises(FrameError, match="does not open"):
        b.receive_data(three)


def test_the_messages_before_a_bad_frame_are_delivered_with_the_error() -> None:
    b, f = _established_b()
    good = f.frame(1, Record.DATA, b"m1") + f.frame(2, Record.DATA, b"m2")
    with pytest.raises(FrameError) as caught:
        b.receive_data(good + f.frame(2, Record.DATA, b"m2 again"))
    assert caught.value.delivered == (b"m1", b"m2")
    with pytest.raises(ChannelError) as after:
        b.receive_data(f.frame(3, Record.DATA, b"m3"))
    assert after.value.delivered == ()


def test_our_own_frames_reflected_do_not_open() -> None:
    a, b = _pair()
    _handshake(a, b)
    a.send(b"mine")
    with pytest.raises(FrameError):
        a.receive_data(a.data_to_send())


def test_every_bit_flip_of_a_frame_is_refused() -> None:
    """A flip in the sealed part fails the tag; in the length, the frame is out of
    bounds, does not open, or never completes (refused at the end of the stream)."""
    b0, f = _established_b()
    frame = f.frame(1, Record.DATA, b"play 7 to centre 2")
    for i in range(len(frame) * 8):
        b = SealedChannel(KE, Role.B)
        forger = Forger(b)
        b.receive_data(forger.frame(0, Record.HELLO, HELLO_BODY))
        good = forger.frame(1, Record.DATA, b"play 7 to centre 2")
        bad = bytearray(good)
        bad[i // 8] ^= 1 << (i % 8)
        with pytest.raises(FrameError):
            b.receive_data(bytes(bad))
            b.receive_eof()
    assert b0.receive_data(frame) == [b"play 7 to centre 2"]


def test_a_frame_cut_short_is_refused_at_the_end_of_the_stream() -> None:
    b, f = _established_b()
    frame = f.frame(1, Record.DATA, b"a move")
    for n in (1, 3, 4, 10, len(frame) - 1):
        b, f = _established_b()
        assert b.receive_data(f.frame(1, Record.DATA, b"a move")[:n]) == []
        with pytest.raises(FrameError, match="inside a frame"):
            b.receive_eof()
    b = SealedChannel(KE, Role.B)
    b.receive_data(b"P2PSEAL1A")
    with pytest.raises(FrameError):
        b.receive_eof()


def test_anything_after_the_close_is_refused() -> None:
    b, f = _established_b()
    b.receive_data(f.frame(1, Record.CLOSE, b""))
    with pytest.raises(FrameError, match="after the peer's close"):
        b.receive_data(f.frame(2, Record.DATA, b"late"))


# -- sizes ---------------------------------------------------------------------------------------


def test_the_largest_message_passes_and_one_byte_more_is_refused() -> None:
    a, b = _pair()
    _handshake(a, b)
    big = bytes(range(256)) * (MAX_MESSAGE // 256)
    a.send(big)
    assert b.receive_data(a.data_to_send()) == [big]
    with pytest.raises(ValueError):
        a.send(big + b"x")


@pytest.mark.parametrize("n", [0, 1, MIN_SEALED - 1, MAX_SEALED + 1, 2**32 - 1])
def test_a_length_out_of_bounds_is_refused_before_its_body(n: int) -> None:
    b, _ = _established_b()
    with pytest.raises(FrameError, match="bounds"):
        b.receive_data(n.to_bytes(4, "big"))


def test_the_opening_is_its_size() -> None:
    assert len(SealedChannel(KE, Role.A).data_to_send()) == OPENING_BYTES == 25


# -- the mailbox's sealed messages --------------------------------------------------------------


def test_a_mailbox_message_opens_only_with_its_key_and_purpose() -> None:
    sealed = seal_message(KE, b"A|hints", b"tcp:203.0.113.5:41000")
    assert open_message(KE, b"A|hints", sealed) == b"tcp:203.0.113.5:41000"
    assert seal_message(KE, b"A|hints", b"same") != seal_message(KE, b"A|hints", b"same")  # fresh nonce
    with pytest.raises(SealError):
        open_message(KE, b"B|hints", sealed)  # reflected to its sender, read as the peer's
    with pytest.raises(SealError):
        open_message(bytes(16), b"A|hints", sealed)
    for i in range(0, len(sealed) * 8, 3):
        bad = bytearray(sealed)
        bad[i // 8] ^= 1 << (i % 8)
        with pytest.raises(SealError):
            open_message(KE, b"A|hints", bytes(bad))
    for n in range(28):
        with pytest.raises(SealError):
            open_message(KE, b"A|hints", sealed[:n])
    assert isinstance(SealError("x"), SpiteError)
