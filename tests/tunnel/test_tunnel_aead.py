"""ChaCha20-Poly1305 (p2p_spite/tunnel/aead.py) against RFC 8439's own vectors, a plain
one-block-at-a-time ChaCha20 written from the RFC's pseudocode, and tampering.

The vectors are the RFC's hex dumps, copied out of its text: sections 2.3.2 (block
function), 2.4.2 (encryption), 2.5.2 (Poly1305), 2.6.2 (Poly1305 key generation), 2.8.2
(AEAD) and every vector of Appendix A (A.1 to A.5).
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_spite.contracts.errors import SpiteError
from p2p_spite.tunnel import aead
from p2p_spite.tunnel.aead import (
    ChaCha20Poly1305,
    chacha20_block,
    chacha20_encrypt,
    poly1305_key_gen,
    poly1305_mac,
)
from p2p_spite.tunnel.errors import SealError

h = bytes.fromhex

# -- RFC 8439's vectors (hex as printed; key, nonce, counter, ...) ---------------------------

# The text of RFC 8439 A.2 #2 and A.3 #2, #3 ("Any submission to the IETF ...").
IETF_TEXT = (
    "416e79207375626d697373696f6e20746f20746865204945544620696e74656e6465642062792074686520436f6e7472"
    "696275746f7220666f72207075626c69636174696f6e20617320616c6c206f722070617274206f6620616e2049455446"
    "20496e7465726e65742d4472616674206f722052464320616e6420616e792073746174656d656e74206d616465207769"
    "7468696e2074686520636f6e74657874206f6620616e204945544620616374697669747920697320636f6e7369646572"
    "656420616e20224945544620436f6e747269627574696f6e222e20537563682073746174656d656e747320696e636c75"
    "6465206f72616c2073746174656d656e747320696e20494554462073657373696f6e732c2061732077656c6c20617320"
    "7772697474656e20616e6420656c656374726f6e696320636f6d6d756e69636174696f6e73206d61646520617420616e"
    "792074696d65206f7220706c6163652c207768696368206172652061646472657373656420746f"
)

SECTION_2_3_2 = (
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "000000090000004a00000000",
    1,
    (
        "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2"
        "b5129cd1de164eb9cbd083e8a2503c4e"
    ),
)

SECTION_2_4_2 = (
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "000000000000004a00000000",
    1,
    (
        "4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a20496620492063"
        "6f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
        "637265656e20776f756c642062652069742e"
    ),
    (
        "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b357"
        "1639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
        "5af90bbf74a35be6b40b8eedf2785e42874d"
    ),
)

SECTION_2_5_2 = (
    "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
    "43727970746f6772617068696320466f72756d2052657365617263682047726f7570",
    "a8061dc1305136c6c22b8baf0c0127a9",
)

SECTION_2_6_2 = (
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
    "000000000001020304050607",
    "8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646",
)

SECTION_2_8_2 = (
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
    "070000004041424344454647",
    "50515253c0c1c2c3c4c5c6c7",
    (
        "4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a20496620492063"
        "6f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
        "637265656e20776f756c642062652069742e"
    ),
    (
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
        "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
        "3ff4def08e4b7a9de576d26586cec64b6116"
    ),
    "1ae10b594f09e26a7e902ecbd0600691",
)

APPENDIX_A_5 = (
    "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
    "000000000102030405060708",
    "f33388860000000000004e91",
    (
        "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb24c6cfc18755d43eea09ee94e382d26b0"
        "bdb7b73c321b0100d4f03b7f355894cf332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
        "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4b9166c767b804d46a59b5216cde7a4e9"
        "9040c5a40433225ee282a1b0a06c523eaf4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
        "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a1049e617d91d361094fa68f0ff77987130"
        "305beaba2eda04df997b714d6c6f2c29a6ad5cb4022b02709b"
    ),
    "eead9d67890cbb22392336fea1851f38",
    (
        "496e7465726e65742d4472616674732061726520647261667420646f63756d656e74732076616c696420666f72206120"
        "6d6178696d756d206f6620736978206d6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
        "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d656e747320617420616e792074696d652e"
        "20497420697320696e617070726f70726961746520746f2075736520496e7465726e65742d4472616674732061732072"
        "65666572656e6365206d6174657269616c206f7220746f2063697465207468656d206f74686572207468616e20617320"
        "2fe2809c776f726b20696e2070726f67726573732e2fe2809d"
    ),
)

APPENDIX_A_1 = [
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        0,
        (
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a37"
            "6a43b8f41518a11cc387b669b2ee6586"
        ),
    ),
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        1,
        (
            "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed29b721769ce64e43d57133b074d839d5"
            "31ed1f28510afb45ace10a1f4b794d6f"
        ),
    ),
    (
        "0000000000000000000000000000000000000000000000000000000000000001",
        "000000000000000000000000",
        1,
        (
            "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a8eca00bbb4a73bdad192b5c42f73f2fd"
            "4e273644c8b36125a64addeb006c13a0"
        ),
    ),
    (
        "00ff000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        2,
        (
            "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca13b25aa26cb4a648cb9b9d1be65b2c09"
            "24a66c54d545ec1b7374f4872e99f096"
        ),
    ),
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000002",
        0,
        (
            "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c78a970e0e955c14f3a88e741b97c286f7"
            "5f8fc299e8148362fa198a39531bed6d"
        ),
    ),
]

APPENDIX_A_2 = [
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        0,
        (
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            "00000000000000000000000000000000"
        ),
        (
            "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a37"
            "6a43b8f41518a11cc387b669b2ee6586"
        ),
    ),
    (
        "0000000000000000000000000000000000000000000000000000000000000001",
        "000000000000000000000002",
        1,
        IETF_TEXT,
        (
            "a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec2a97948bd3722915c8f3d337f7d37005"
            "0e9e96d647b7c39f56e031ca5eb6250d4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e527950"
            "42bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85ad00f8449ed8f72d0d662ab052691ca66"
            "424bc86d2df80ea41f43abf937d3259dc4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b"
            "0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6ccc3aaf9f3979c92b3720fc88dc95ed84"
            "a1be059c6499b9fda236e7e818b04b0bc39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f"
            "5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e698ced759c3ff9b6477338f3da4f9cd85"
            "14ea9982ccafb341b2384dd902f3d1ab7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221"
        ),
    ),
    (
        "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
        "000000000000000000000002",
        42,
        (
            "2754776173206272696c6c69672c20616e642074686520736c6974687920746f7665730a446964206779726520616e64"
            "2067696d626c6520696e2074686520776162653a0a416c6c206d696d737920776572652074686520626f726f676f7665"
            "732c0a416e6420746865206d6f6d65207261746873206f757467726162652e"
        ),
        (
            "62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf166d3df2d721caf9b21e5fb14c616871"
            "fd84c54f9d65b283196c7fe4f60553ebf39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f77"
            "04c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1"
        ),
    ),
]

APPENDIX_A_3 = [
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        (
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
            "00000000000000000000000000000000"
        ),
        "00000000000000000000000000000000",
    ),
    (
        "0000000000000000000000000000000036e5f6b5c5e06070f0efca96227a863e",
        IETF_TEXT,
        "36e5f6b5c5e06070f0efca96227a863e",
    ),
    (
        "36e5f6b5c5e06070f0efca96227a863e00000000000000000000000000000000",
        IETF_TEXT,
        "f3477e7cd95417af89a6b8794c310cf0",
    ),
    (
        "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
        (
            "2754776173206272696c6c69672c20616e642074686520736c6974687920746f7665730a446964206779726520616e64"
            "2067696d626c6520696e2074686520776162653a0a416c6c206d696d737920776572652074686520626f726f676f7665"
            "732c0a416e6420746865206d6f6d65207261746873206f757467726162652e"
        ),
        "4541669a7eaaee61e708dc7cbcc5eb62",
    ),
    (
        "0200000000000000000000000000000000000000000000000000000000000000",
        "ffffffffffffffffffffffffffffffff",
        "03000000000000000000000000000000",
    ),
    (
        "02000000000000000000000000000000ffffffffffffffffffffffffffffffff",
        "02000000000000000000000000000000",
        "03000000000000000000000000000000",
    ),
    (
        "0100000000000000000000000000000000000000000000000000000000000000",
        ("fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff11000000000000000000000000000000"),
        "05000000000000000000000000000000",
    ),
    (
        "0100000000000000000000000000000000000000000000000000000000000000",
        ("fffffffffffffffffffffffffffffffffbfefefefefefefefefefefefefefefe01010101010101010101010101010101"),
        "00000000000000000000000000000000",
    ),
    (
        "0200000000000000000000000000000000000000000000000000000000000000",
        "fdffffffffffffffffffffffffffffff",
        "faffffffffffffffffffffffffffffff",
    ),
    (
        "0100000000000000040000000000000000000000000000000000000000000000",
        (
            "e33594d7505e43b900000000000000003394d7505e4379cd010000000000000000000000000000000000000000000000"
            "01000000000000000000000000000000"
        ),
        "14000000000000005500000000000000",
    ),
    (
        "0100000000000000040000000000000000000000000000000000000000000000",
        ("e33594d7505e43b900000000000000003394d7505e4379cd010000000000000000000000000000000000000000000000"),
        "13000000000000000000000000000000",
    ),
]

APPENDIX_A_4 = [
    (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000",
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7",
    ),
    (
        "0000000000000000000000000000000000000000000000000000000000000001",
        "000000000000000000000002",
        "ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739",
    ),
    (
        "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
        "000000000000000000000002",
        "965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae",
    ),
]


# -- a plain ChaCha20 from the RFC's pseudocode (2.1, 2.3.1, 2.4.1) ----------------------------


def _qr(s: list[int], a: int, b: int, c: int, d: int) -> None:
    def rotl(v: int, n: int) -> int:
        return ((v << n) | (v >> (32 - n))) & 0xFFFFFFFF

    s[a] = (s[a] + s[b]) & 0xFFFFFFFF
    s[d] = rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & 0xFFFFFFFF
    s[b] = rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & 0xFFFFFFFF
    s[d] = rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & 0xFFFFFFFF
    s[b] = rotl(s[b] ^ s[c], 7)


def plain_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    sigma = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)
    state = [*sigma, *struct.unpack("<8I", key), counter, *struct.unpack("<3I", nonce)]
    w = list(state)
    for _ in range(10):
        for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)):
            _qr(w, a, b, c, d)
        for a, b, c, d in ((0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            _qr(w, a, b, c, d)
    return struct.pack("<16I", *((x + y) & 0xFFFFFFFF for x, y in zip(w, state, strict=True)))


def plain_encrypt(key: bytes, counter: int, nonce: bytes, data: bytes) -> bytes:
    out = bytearray()
    for j in range(0, len(data), 64):
        stream = plain_block(key, counter + j // 64, nonce)
        out += bytes(x ^ y for x, y in zip(data[j : j + 64], stream, strict=False))
    return bytes(out)


def plain_poly1305(key: bytes, msg: bytes) -> bytes:
    """RFC 8439 2.5.1's pseudocode: one block at a time."""
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    p = (1 << 130) - 5
    acc = 0
    for i in range(0, len(msg), 16):
        acc = (acc + int.from_bytes(msg[i : i + 16] + b"\x01", "little")) * r % p
    return ((acc + s) % (1 << 128)).to_bytes(16, "little")


def test_the_plain_quarter_round_is_the_rfcs() -> None:
    """RFC 8439 2.1.1: the reference below is right before it judges anything."""
    s = [0x11111111, 0x01020304, 0x9B8D6F43, 0x01234567]
    _qr(s, 0, 1, 2, 3)
    assert s == [0xEA2A92F4, 0xCB1CF8CE, 0x4581472E, 0x5881C4BB]


# -- the RFC's vectors -------------------------------------------------------------------------


def test_block_function_2_3_2() -> None:
    key, nonce, counter, block = SECTION_2_3_2
    assert chacha20_block(h(key), counter, h(nonce)) == h(block)
    assert plain_block(h(key), counter, h(nonce)) == h(block)


def test_encryption_2_4_2() -> None:
    key, nonce, counter, pt, ct = SECTION_2_4_2
    assert h(pt).startswith(b"Ladies and Gentlemen of the class of '99")
    assert chacha20_encrypt(h(key), counter, h(nonce), h(pt)) == h(ct)
    assert chacha20_encrypt(h(key), counter, h(nonce), h(ct)) == h(pt)


def test_poly1305_2_5_2() -> None:
    key, msg, tag = SECTION_2_5_2
    assert h(msg) == b"Cryptographic Forum Research Group"
    assert poly1305_mac(h(key), h(msg)) == h(tag)
    assert plain_poly1305(h(key), h(msg)) == h(tag)


def test_poly1305_key_generation_2_6_2() -> None:
    key, nonce, otk = SECTION_2_6_2
    assert poly1305_key_gen(h(key), h(nonce)) == h(otk)


def test_aead_2_8_2() -> None:
    key, nonce, aad, pt, ct, tag = SECTION_2_8_2
    box = ChaCha20Poly1305(h(key))
    assert box.seal(h(nonce), h(pt), h(aad)) == h(ct) + h(tag)
    assert box.open(h(nonce), h(ct) + h(tag), h(aad)) == h(pt)


@pytest.mark.parametrize("vector", APPENDIX_A_1, ids=lambda v: f"counter {v[2]}")
def test_block_function_a_1(vector: tuple[str, str, int, str]) -> None:
    key, nonce, counter, block = vector
    assert chacha20_block(h(key), counter, h(nonce)) == h(block)


@pytest.mark.parametrize("vector", APPENDIX_A_2, ids=("1", "2", "3"))
def test_encryption_a_2(vector: tuple[str, str, int, str, str]) -> None:
    key, nonce, counter, pt, ct = vector
    assert chacha20_encrypt(h(key), counter, h(nonce), h(pt)) == h(ct)


@pytest.mark.parametrize("vector", APPENDIX_A_3, ids=[str(i) for i in range(1, 12)])
def test_poly1305_a_3(vector: tuple[str, str, str]) -> None:
    key, msg, tag = vector
    assert poly1305_mac(h(key), h(msg)) == h(tag)


@pytest.mark.parametrize("vector", APPENDIX_A_4, ids=("1", "2", "3"))
def test_poly1305_key_generation_a_4(vector: tuple[str, str, str]) -> None:
    key, nonce, otk = vector
    assert poly1305_key_gen(h(key), h(nonce)) == h(otk)


def test_aead_decryption_a_5() -> None:
    key, nonce, aad, ct, tag, pt = APPENDIX_A_5
    assert h(pt).startswith(b"Internet-Drafts are draft documents")
    box = ChaCha20Poly1305(h(key))
    assert box.open(h(nonce), h(ct) + h(tag), h(aad)) == h(pt)
    assert box.seal(h(nonce), h(pt), h(aad)) == h(ct) + h(tag)


# -- the lanes agree with the plain cipher everywhere ------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    key=st.binary(min_size=32, max_size=32),
    nonce=st.binary(min_size=12, max_size=12),
    counter=st.integers(0, 2**32 - 20),
    data=st.binary(max_size=700),
)
def test_lanes_agree_with_the_plain_cipher(key: bytes, nonce: bytes, counter: int, data: bytes) -> None:
    assert chacha20_encrypt(key, counter, nonce, data) == plain_encrypt(key, counter, nonce, data)


@settings(max_examples=80, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), msg=st.binary(max_size=400))
def test_poly1305_four_blocks_at_a_time_agrees_with_the_plain_one(key: bytes, msg: bytes) -> None:
    assert poly1305_mac(key, msg) == plain_poly1305(key, msg)


def test_poly1305_agrees_with_the_plain_one_at_every_length_to_130() -> None:
    key = bytes(range(7, 39))
    msg = bytes((i * 37) & 0xFF for i in range(130))
    for n in range(131):
        assert poly1305_mac(key, msg[:n]) == plain_poly1305(key, msg[:n])


def test_many_passes_agree_with_the_plain_cipher(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message longer than one pass of lanes: the passes join at the right counters."""
    monkeypatch.setattr(aead, "_BATCH", 3)
    key, nonce = bytes(range(32)), bytes(range(12))
    data = bytes(range(256)) * 3 + b"tail"
    assert chacha20_encrypt(key, 7, nonce, data) == plain_encrypt(key, 7, nonce, data)
    monkeypatch.undo()
    assert chacha20_encrypt(key, 7, nonce, data) == plain_encrypt(key, 7, nonce, data)


def test_the_counter_does_not_wrap() -> None:
    key, nonce = bytes(32), bytes(12)
    assert len(chacha20_encrypt(key, 2**32 - 1, nonce, bytes(64))) == 64
    with pytest.raises(ValueError, match="wrap"):
        chacha20_encrypt(key, 2**32 - 1, nonce, bytes(65))
    with pytest.raises(ValueError, match="wrap"):
        chacha20_block(key, 2**32, nonce)
    with pytest.raises(ValueError, match="wrap"):
        chacha20_block(key, -1, nonce)


@settings(max_examples=60, deadline=None)
@given(pt=st.binary(max_size=300), aad=st.binary(max_size=40), nonce=st.binary(min_size=12, max_size=12))
def test_round_trip(pt: bytes, aad: bytes, nonce: bytes) -> None:
    box = ChaCha20Poly1305(bytes(range(32)))
    sealed = box.seal(nonce, pt, aad)
    assert len(sealed) == len(pt) + aead.TAG_BYTES
    assert box.open(nonce, sealed, aad) == pt


# -- tampering: every change is refused ---------------------------------------------------------


def _flips(data: bytes) -> list[bytes]:
    """``data`` with one bit flipped, for every bit."""
    return [
        data[:i] + bytes((data[i] ^ (1 << b),)) + data[i + 1 :] for i in range(len(data)) for b in range(8)
    ]


def test_every_bit_flip_of_the_sealed_bytes_is_refused() -> None:
    box = ChaCha20Poly1305(bytes(range(32)))
    nonce, aad = bytes(range(12)), b"header"
    sealed = box.seal(nonce, b"play 7 from hand to centre 2", aad)
    for forged in _flips(sealed):
        with pytest.raises(SealError):
            box.open(nonce, forged, aad)


def test_every_bit_flip_of_the_aad_nonce_or_key_is_refused() -> None:
    key, nonce, aad = bytes(range(32)), bytes(range(12)), b"header"
    sealed = ChaCha20Poly1305(key).seal(nonce, b"a move", aad)
    for other in _flips(aad):
        with pytest.raises(SealError):
            ChaCha20Poly1305(key).open(nonce, sealed, other)
    for other in _flips(nonce):
        with pytest.raises(SealError):
            ChaCha20Poly1305(key).open(other, sealed, aad)
    for other in _flips(key)[::7]:  # a sample of the 256 keys one bit away
        with pytest.raises(SealError):
            ChaCha20Poly1305(other).open(nonce, sealed, aad)


def test_cut_or_lengthened_bytes_are_refused() -> None:
    box = ChaCha20Poly1305(bytes(32))
    nonce = bytes(12)
    sealed = box.seal(nonce, b"sixteen byte msg" * 3)
    for n in range(len(sealed)):
        with pytest.raises(SealError):
            box.open(nonce, sealed[:n])
    for extra in (b"\x00", b"\x00" * 16, sealed[-16:]):
        with pytest.raises(SealError):
            box.open(nonce, sealed + extra)


def test_the_error_is_under_the_projects_root() -> None:
    with pytest.raises(SpiteError):
        ChaCha20Poly1305(bytes(32)).open(bytes(12), bytes(16))


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        ChaCha20Poly1305(bytes(31))
    with pytest.raises(ValueError):
        ChaCha20Poly1305(bytes(32)).seal(bytes(8), b"x")
    with pytest.raises(ValueError):
        poly1305_mac(bytes(16), b"x")
