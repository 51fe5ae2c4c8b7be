"""SPAKE2 on P-256 (p2p_spite/tunnel/spake2.py) against RFC 9382, and a peer that deviates.

The vectors are RFC 9382 Appendix B's, all four (the identities A and B given or empty),
every value of each: w, x, pA, y, pB, K, TT, Hash(TT), Ke, Ka, KcA, KcB and both
confirmations (the RFC runs them with no AAD).  M and N are regenerated from the RFC's
seeds with its own procedure (section 6).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from p2p_spite.contracts.errors import SpiteError
from p2p_spite.fairdeck import group
from p2p_spite.tunnel import spake2
from p2p_spite.tunnel.errors import ConfirmationError, PakeError, PeerElementError
from p2p_spite.tunnel.spake2 import M, N, Role, Spake2, password_scalar

h = bytes.fromhex

VECTORS = [
    {
        "A": "server",
        "B": "client",
        "w": "2ee57912099d31560b3a44b1184b9b4866e904c49d12ac5042c97dca461b1a5f",
        "x": "43dd0fd7215bdcb482879fca3220c6a968e66d70b1356cac18bb26c84a78d729",
        "pA": (
            "04a56fa807caaa53a4d28dbb9853b9815c61a411118a6fe516a8798434751470f9010153ac33d0d5f2047ffdb1a3e42c"
            "9b4e6be662766e1eeb4116988ede5f912c"
        ),
        "y": "dcb60106f276b02606d8ef0a328c02e4b629f84f89786af5befb0bc75b6e66be",
        "pB": (
            "0406557e482bd03097ad0cbaa5df82115460d951e3451962f1eaf4367a420676d09857ccbc522686c83d1852abfa8ed6"
            "e4a1155cf8f1543ceca528afb591a1e0b7"
        ),
        "K": (
            "0412af7e89717850671913e6b469ace67bd90a4df8ce45c2af19010175e37eed69f75897996d539356e2fa6a406d5285"
            "01f907e04d97515fbe83db277b715d3325"
        ),
        "TT": (
            "06000000000000007365727665720600000000000000636c69656e74410000000000000004a56fa807caaa53a4d28dbb"
            "9853b9815c61a411118a6fe516a8798434751470f9010153ac33d0d5f2047ffdb1a3e42c9b4e6be662766e1eeb411698"
            "8ede5f912c41000000000000000406557e482bd03097ad0cbaa5df82115460d951e3451962f1eaf4367a420676d09857"
            "ccbc522686c83d1852abfa8ed6e4a1155cf8f1543ceca528afb591a1e0b741000000000000000412af7e897178506719"
            "13e6b469ace67bd90a4df8ce45c2af19010175e37eed69f75897996d539356e2fa6a406d528501f907e04d97515fbe83"
            "db277b715d332520000000000000002ee57912099d31560b3a44b1184b9b4866e904c49d12ac5042c97dca461b1a5f"
        ),
        "Hash(TT)": "0e0672dc86f8e45565d338b0540abe6915bdf72e2b35b5c9e5663168e960a91b",
        "Ke": "0e0672dc86f8e45565d338b0540abe69",
        "Ka": "15bdf72e2b35b5c9e5663168e960a91b",
        "KcA": "00c12546835755c86d8c0db7851ae86f",
        "KcB": "a9fa3406c3b781b93d804485430ca27a",
        "A conf": "58ad4aa88e0b60d5061eb6b5dd93e80d9c4f00d127c65b3b35b1b5281fee38f0",
        "B conf": "d3e2e547f1ae04f2dbdbf0fc4b79f8ecff2dff314b5d32fe9fcef2fb26dc459b",
    },
    {
        "A": "",
        "B": "client",
        "w": "0548d8729f730589e579b0475a582c1608138ddf7054b73b5381c7e883e2efae",
        "x": "403abbe3b1b4b9ba17e3032849759d723939a27a27b9d921c500edde18ed654b",
        "pA": (
            "04a897b769e681c62ac1c2357319a3d363f610839c4477720d24cbe32f5fd85f44fb92ba966578c1b712be6962498834"
            "078262caa5b441ecfa9d4a9485720e918a"
        ),
        "y": "903023b6598908936ea7c929bd761af6039577a9c3f9581064187c3049d87065",
        "pB": (
            "04e0f816fd1c35e22065d5556215c097e799390d16661c386e0ecc84593974a61b881a8c82327687d0501862970c6456"
            "5560cb5671f696048050ca66ca5f8cc7fc"
        ),
        "K": (
            "048f83ec9f6e4f87cc6f9dc740bdc2769725f923364f01c84148c049a39a735ebda82eac03e00112fd6a5710682767cf"
            "f5361f7e819e53d8d3c3a2922e0d837aa6"
        ),
        "TT": (
            "00000000000000000600000000000000636c69656e74410000000000000004a897b769e681c62ac1c2357319a3d363f6"
            "10839c4477720d24cbe32f5fd85f44fb92ba966578c1b712be6962498834078262caa5b441ecfa9d4a9485720e918a41"
            "0000000000000004e0f816fd1c35e22065d5556215c097e799390d16661c386e0ecc84593974a61b881a8c82327687d0"
            "501862970c64565560cb5671f696048050ca66ca5f8cc7fc4100000000000000048f83ec9f6e4f87cc6f9dc740bdc276"
            "9725f923364f01c84148c049a39a735ebda82eac03e00112fd6a5710682767cff5361f7e819e53d8d3c3a2922e0d837a"
            "a620000000000000000548d8729f730589e579b0475a582c1608138ddf7054b73b5381c7e883e2efae"
        ),
        "Hash(TT)": "642f05c473c2cd79909f9a841e2f30a70bf89b18180af97353ba198789c2b963",
        "Ke": "642f05c473c2cd79909f9a841e2f30a7",
        "Ka": "0bf89b18180af97353ba198789c2b963",
        "KcA": "c6be376fc7cd1301fd0a13adf3e7bffd",
        "KcB": "b7243f4ae60440a49b3f8cab3c1fba07",
        "A conf": "47d29e6666af1b7dd450d571233085d7a9866e4d49d2645e2df975489521232b",
        "B conf": "3313c5cefc361d27fb16847a91c2a73b766ffa90a4839122a9b70a2f6bd1d6df",
    },
    {
        "A": "server",
        "B": "",
        "w": "626e0cdc7b14c9db3e52a0b1b3a768c98e37852d5db30febe0497b14eae8c254",
        "x": "07adb3db6bc623d3399726bfdbfd3d15a58ea776ab8a308b00392621291f9633",
        "pA": (
            "04f88fb71c99bfffaea370966b7eb99cd4be0ff1a7d335caac4211c4afd855e2e15a873b298503ad8ba1d9cbb9a392d2"
            "ba309b48bfd7879aefd0f2cea6009763b0"
        ),
        "y": "b6a4fc8dbb629d4ba51d6f91ed1532cf87adec98f25dd153a75accafafedec16",
        "pB": (
            "040c269d6be017dccb15182ac6bfcd9e2a14de019dd587eaf4bdfd353f031101e7cca177f8eb362a6e83e7d5e729c073"
            "2e1b528879c086f39ba0f31a9661bd34db"
        ),
        "K": (
            "0445ee233b8ecb51ebd6e7da3f307e88a1616bae2166121221fdc0dadb986afaf3ec8a988dc9c626fa3b99f58a7ca7c9"
            "b844bb3e8dd9554aafc5b53813504c1cbe"
        ),
        "TT": (
            "06000000000000007365727665720000000000000000410000000000000004f88fb71c99bfffaea370966b7eb99cd4be"
            "0ff1a7d335caac4211c4afd855e2e15a873b298503ad8ba1d9cbb9a392d2ba309b48bfd7879aefd0f2cea6009763b041"
            "00000000000000040c269d6be017dccb15182ac6bfcd9e2a14de019dd587eaf4bdfd353f031101e7cca177f8eb362a6e"
            "83e7d5e729c0732e1b528879c086f39ba0f31a9661bd34db41000000000000000445ee233b8ecb51ebd6e7da3f307e88"
            "a1616bae2166121221fdc0dadb986afaf3ec8a988dc9c626fa3b99f58a7ca7c9b844bb3e8dd9554aafc5b53813504c1c"
            "be2000000000000000626e0cdc7b14c9db3e52a0b1b3a768c98e37852d5db30febe0497b14eae8c254"
        ),
        "Hash(TT)": "005184ff460da2ce59062c87733c299c3521297d736598fc0a1127600efa1afb",
        "Ke": "005184ff460da2ce59062c87733c299c",
        "Ka": "3521297d736598fc0a1127600efa1afb",
        "KcA": "f3da53604f0aeecea5a33be7bddf6edf",
        "KcB": "9e3f86848736f159bd92b6e107ec6799",
        "A conf": "bc9f9bbe99f26d0b2260e6456e05a86196a3307ec6663a18bf6ac825736533b2",
        "B conf": "c2370e1bf813b086dff0d834e74425a06e6390f48f5411900276dcccc5a297ec",
    },
    {
        "A": "",
        "B": "",
        "w": "7bf46c454b4c1b25799527d896508afd5fc62ef4ec59db1efb49113063d70cca",
        "x": "8cef65df64bb2d0f83540c53632de911b5b24b3eab6cc74a97609fd659e95473",
        "pA": (
            "04a65b367a3f613cf9f0654b1b28a1e3a8a40387956c8ba6063e8658563890f46ca1ef6a676598889fc28de2950ab812"
            "0b79a5ef1ea4c9f44bc98f585634b46d66"
        ),
        "y": "d7a66f64074a84652d8d623a92e20c9675c61cb5b4f6a0063e4648a2fdc02d53",
        "pB": (
            "04589f13218822710d98d8b2123a079041052d9941b9cf88c6617ddb2fcc0494662eea8ba6b64692dc318250030c6af0"
            "45cb738bc81ba35b043c3dcb46adf6f58d"
        ),
        "K": (
            "041a3c03d51b452537ca2a1fea6110353c6d5ed483c4f0f86f4492ca3f378d40a994b4477f93c64d928edbbcd3e85a7c"
            "709b7ea73ee97986ce3d1438e135543772"
        ),
        "TT": (
            "00000000000000000000000000000000410000000000000004a65b367a3f613cf9f0654b1b28a1e3a8a40387956c8ba6"
            "063e8658563890f46ca1ef6a676598889fc28de2950ab8120b79a5ef1ea4c9f44bc98f585634b46d6641000000000000"
            "0004589f13218822710d98d8b2123a079041052d9941b9cf88c6617ddb2fcc0494662eea8ba6b64692dc318250030c6a"
            "f045cb738bc81ba35b043c3dcb46adf6f58d4100000000000000041a3c03d51b452537ca2a1fea6110353c6d5ed483c4"
            "f0f86f4492ca3f378d40a994b4477f93c64d928edbbcd3e85a7c709b7ea73ee97986ce3d1438e1355437722000000000"
            "0000007bf46c454b4c1b25799527d896508afd5fc62ef4ec59db1efb49113063d70cca"
        ),
        "Hash(TT)": "fc6374762ba5cf11f4b2caa08b2cd1b9907ae0e26e8d6234318d91583cd74c86",
        "Ke": "fc6374762ba5cf11f4b2caa08b2cd1b9",
        "Ka": "907ae0e26e8d6234318d91583cd74c86",
        "KcA": "5dbd2f477166b7fb6d61febbd77a5563",
        "KcB": "7689b4654407a5faeffdc8f18359d8a3",
        "A conf": "dfb4db8d48ae5a675963ea5e6c19d98d4ea028d8e898dad96ea19a80ade95dca",
        "B conf": "d0f0609d1613138d354f7e95f19fb556bf52d751947241e8c7118df5ef0ae175",
    },
]

# password_scalar(b"7-crossover-clockwork", b"app"), as docs/protocol.md prints it.
W_VECTOR = "75968f3d5ac13c15910b08474f3ac37f61afecf27b8a03bec33f4875853c7c56"


def _pair(v: dict[str, str]) -> tuple[Spake2, Spake2]:
    w, x, y = (int(v[k], 16) for k in ("w", "x", "y"))
    ids = {"id_a": v["A"].encode(), "id_b": v["B"].encode(), "aad": b""}
    return Spake2(Role.A, w, x=x, **ids), Spake2(Role.B, w, x=y, **ids)


@pytest.mark.parametrize("v", VECTORS, ids=lambda v: f"A={v['A']!r},B={v['B']!r}")
def test_rfc9382_appendix_b(v: dict[str, str]) -> None:
    a, b = _pair(v)
    assert a.message == h(v["pA"])
    assert b.message == h(v["pB"])
    w, x = int(v["w"], 16), int(v["x"], 16)
    k = group.mul(x, group.sub(group.decode_uncompressed(h(v["pB"])), group.mul(w, N)))
    assert group.encode_uncompressed(k) == h(v["K"])
    ca, cb = a.receive(b.message), b.receive(a.message)
    for side in (a, b):
        keys = side.keys
        assert keys.tt == h(v["TT"])
        assert hashlib.sha256(keys.tt).digest() == h(v["Hash(TT)"])
        assert (keys.ke, keys.ka) == (h(v["Ke"]), h(v["Ka"]))
        assert (keys.kca, keys.kcb) == (h(v["KcA"]), h(v["KcB"]))
    assert ca == h(v["A conf"])
    assert cb == h(v["B conf"])
    assert a.confirm(cb) == b.confirm(ca) == h(v["Ke"])


def _generate_point(seed: bytes) -> bytes:
    """RFC 9382 section 6's procedure: hash blocks SHA256^i(seed), i = 1, 2, ..., 33 bytes
    from block i on, first byte made 0x02 | its low bit; the first that is a point."""

    def iterated(n: int) -> bytes:
        d = seed
        for _ in range(n):
            d = hashlib.sha256(d).digest()
        return d

    for i in range(1, 1000):
        s = (iterated(i) + iterated(i + 1))[:33]
        s = bytes(((s[0] & 1) | 2,)) + s[1:]
        try:
            group.decode(s)
        except group.GroupError:
            continue
        return s
    raise AssertionError("no point")


def test_m_and_n_are_the_rfcs_and_come_from_its_seeds() -> None:
    assert _generate_point(b"1.2.840.10045.3.1.7 point generation seed (M)") == spake2.M_COMPRESSED
    assert _generate_point(b"1.2.840.10045.3.1.7 point generation seed (N)") == spake2.N_COMPRESSED
    assert group.encode(M) == spake2.M_COMPRESSED and group.encode(N) == spake2.N_COMPRESSED
    assert group.on_curve(M) and group.on_curve(N) and M != N


# -- the password ------------------------------------------------------------------------------


def test_password_scalar_is_scrypt_reduced_mod_the_order() -> None:
    w = password_scalar(b"7-crossover-clockwork", b"app")
    raw = hashlib.scrypt(
        b"7-crossover-clockwork", salt=b"p2p-spite SPAKE2 w v1|app", n=2**14, r=8, p=1, dklen=40
    )
    assert w == int.from_bytes(raw, "big") % group.N
    assert w == int(W_VECTOR, 16)  # docs/protocol.md prints it
    assert password_scalar(b"7-crossover-clockwork", b"app") == w
    assert password_scalar(b"7-crossover-clockwork", b"other") != w
    assert password_scalar(b"7-crossover-clockworks", b"app") != w


# -- honest runs and a peer that deviates at every step ------------------------------------------


W = password_scalar(b"7-crossover-clockwork")
W_OTHER = password_scalar(b"7-crossover-clockworm")


def _run(a: Spake2, b: Spake2) -> tuple[bytes, bytes]:
    ca, cb = a.receive(b.message), b.receive(a.message)
    return a.confirm(cb), b.confirm(ca)


def _both_refuse(a: Spake2, b: Spake2) -> None:
    """Run the exchange; each side's confirmation check fails."""
    ca, cb = a.receive(b.message), b.receive(a.message)
    with pytest.raises(ConfirmationError):
        a.confirm(cb)
    with pytest.raises(ConfirmationError):
        b.confirm(ca)


def test_an_honest_exchange_agrees_on_a_fresh_key() -> None:
    ka, kb = _run(Spake2(Role.A, W), Spake2(Role.B, W))
    assert ka == kb and len(ka) == spake2.KEY_BYTES
    ka2, _ = _run(Spake2(Role.A, W), Spake2(Role.B, W))
    assert ka2 != ka  # fresh x and y each time


def test_a_wrong_code_fails_confirmation_on_both_sides() -> None:
    _both_refuse(Spake2(Role.A, W), Spake2(Role.B, W_OTHER))
    assert isinstance(ConfirmationError("x"), SpiteError)


def test_no_second_guess_after_a_failed_confirmation() -> None:
    a, b = Spake2(Role.A, W), Spake2(Role.B, W_OTHER)
    a.receive(b.message)
    with pytest.raises(ConfirmationError):
        a.confirm(b"\x00" * 32)
    right = Spake2(Role.B, W)
    with pytest.raises(PakeError):
        a.confirm(right.receive(a.message))
    with pytest.raises(PakeError):
        a.keys  # noqa: B018  (the keys are gone)


def _off_curve(msg: bytes) -> bytes:
    return msg[:-1] + bytes((msg[-1] ^ 1,))


def _non_canonical() -> bytes:
    """A point on the curve with its x written as x + p (still below 2**256)."""
    x = 0
    while True:
        rhs = (x**3 - 3 * x + group.B) % group.P
        y = pow(rhs, (group.P + 1) // 4, group.P)
        if y * y % group.P == rhs:
            return b"\x04" + (x + group.P).to_bytes(32, "big") + y.to_bytes(32, "big")
        x += 1


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(lambda m: _off_curve(m), id="off-curve"),
        pytest.param(lambda m: b"\x00", id="identity-sec1"),
        pytest.param(lambda m: bytes(65), id="zeros"),
        pytest.param(lambda m: b"\x04" + bytes(64), id="x0-y0"),
        pytest.param(lambda m: group.encode(group.decode_uncompressed(m)), id="compressed"),
        pytest.param(lambda m: m[:-1], id="short"),
        pytest.param(lambda m: m + b"\x00", id="long"),
        pytest.param(lambda m: b"\x05" + m[1:], id="bad-prefix"),
        pytest.param(lambda m: _non_canonical(), id="x-plus-p"),
        pytest.param(lambda m: b"", id="empty"),
    ],
)
def test_an_invalid_element_is_refused_on_arrival(bad: Callable[[bytes], bytes]) -> None:
    for role in Role:
        peer = Spake2(Role.B if role is Role.A else Role.A, W)
        me = Spake2(role, W)
        with pytest.raises(PeerElementError):
            me.receive(bad(peer.message))
        with pytest.raises(PakeError):  # and the exchange is over
            me.receive(peer.message)


def test_the_element_that_makes_k_the_identity_is_refused() -> None:
    """pB = w*N gives K = x*(pB - w*N) = identity (a peer that knows w sends it)."""
    a = Spake2(Role.A, W)
    with pytest.raises(PeerElementError, match="identity"):
        a.receive(group.encode_uncompressed(group.mul(W, N)))
    b = Spake2(Role.B, W)
    with pytest.raises(PeerElementError, match="identity"):
        b.receive(group.encode_uncompressed(group.mul(W, M)))


def test_a_reflected_message_is_refused() -> None:
    a = Spake2(Role.A, W)
    with pytest.raises(PeerElementError, match="reflected"):
        a.receive(a.message)


def test_a_replayed_message_is_refused() -> None:
    a, b = Spake2(Role.A, W), Spake2(Role.B, W)
    a.receive(b.message)
    with pytest.raises(PakeError):
        a.receive(b.message)  # the same message again
    with pytest.raises(PakeError):
        a.confirm(b.receive(a.message))  # the exchange is over


def test_messages_of_an_earlier_exchange_do_not_confirm() -> None:
    """An attacker replays A's message and confirmation of an earlier run with the same code
    to a new B: B's confirmation check fails (the attacker knows neither x nor y)."""
    old_a, old_b = Spake2(Role.A, W), Spake2(Role.B, W)
    old_ca = old_a.receive(old_b.message)
    old_a.confirm(old_b.receive(old_a.message))
    new_b = Spake2(Role.B, W)
    new_b.receive(old_a.message)
    with pytest.raises(ConfirmationError):
        new_b.confirm(old_ca)


def test_out_of_order_calls_are_refused() -> None:
    a = Spake2(Role.A, W)
    with pytest.raises(PakeError):
        a.confirm(bytes(32))
    a = Spake2(Role.A, W)
    with pytest.raises(PakeError):
        a.keys  # noqa: B018
    b = Spake2(Role.B, W)
    a.receive(b.message)
    a.confirm(b.receive(a.message))
    with pytest.raises(PakeError):
        a.confirm(bytes(32))  # twice


def test_every_bit_flip_of_a_confirmation_is_refused() -> None:
    a0, b0 = Spake2(Role.A, W), Spake2(Role.B, W)
    b0.receive(a0.message)
    ca = a0.receive(b0.message)
    for i in range(0, len(ca) * 8, 5):  # a sample of the 256 flips, each on a fresh exchange
        a, b = Spake2(Role.A, W), Spake2(Role.B, W)
        b.receive(a.message)
        mac = bytearray(a.receive(b.message))
        mac[i // 8] ^= 1 << (i % 8)
        with pytest.raises(ConfirmationError):
            b.confirm(bytes(mac))
    with pytest.raises(ConfirmationError):
        b0.confirm(ca[:-1])


def test_a_flipped_message_is_refused_at_once_or_fails_confirmation() -> None:
    """Bits of A's message flipped on the way: B refuses it on arrival (not a point) or
    the confirmations disagree on both sides; never a shared key."""
    refused = 0
    for i in range(0, 65 * 8, 9):
        a, b = Spake2(Role.A, W), Spake2(Role.B, W)
        msg = bytearray(a.message)
        msg[i // 8] ^= 1 << (i % 8)
        try:
            cb = b.receive(bytes(msg))
        except PeerElementError:
            refused += 1
            continue
        ca = a.receive(b.message)
        with pytest.raises(ConfirmationError):
            b.confirm(ca)
        with pytest.raises(ConfirmationError):
            a.confirm(cb)
    assert refused > 0


def test_a_man_in_the_middle_with_a_guess_fails_on_both_sides() -> None:
    """An attacker runs SPAKE2 with each side under a guessed code: both confirmations
    fail, and the one guess is spent (each side's exchange is over)."""
    a, b = Spake2(Role.A, W), Spake2(Role.B, W)
    eve_b, eve_a = Spake2(Role.B, W_OTHER), Spake2(Role.A, W_OTHER)
    a.receive(eve_b.message)
    b.receive(eve_a.message)
    with pytest.raises(ConfirmationError):
        a.confirm(eve_b.receive(a.message))
    with pytest.raises(ConfirmationError):
        b.confirm(eve_a.receive(b.message))
    with pytest.raises(PakeError):
        a.confirm(Spake2(Role.B, W).receive(a.message))


def test_both_sides_in_the_same_role_never_agree() -> None:
    _both_refuse(Spake2(Role.A, W), Spake2(Role.A, W))


def test_other_identities_or_aad_never_agree() -> None:
    for kwargs in ({"id_a": b"someone else"}, {"aad": b"p2p-spite tunnel v2"}):
        _both_refuse(Spake2(Role.A, W), Spake2(Role.B, W, **kwargs))  # type: ignore[arg-type]


def test_bad_scalars_are_refused() -> None:
    with pytest.raises(ValueError):
        Spake2(Role.A, 0)
    with pytest.raises(ValueError):
        Spake2(Role.A, W, x=group.N)
