"""HKDF-SHA256 (p2p_spite/tunnel/hkdf.py) against RFC 5869 Appendix A, test cases 1 to 3
(the SHA-256 ones), PRK and OKM each."""

from __future__ import annotations

import pytest

from p2p_spite.tunnel.hkdf import MAX_LENGTH, expand, extract, hkdf

h = bytes.fromhex

# (IKM, salt, info, L, PRK, OKM) as RFC 5869 A.1, A.2 and A.3 print them.
CASES = [
    (
        "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
        "000102030405060708090a0b0c",
        "f0f1f2f3f4f5f6f7f8f9",
        42,
        "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
    ),
    (
        bytes(range(0x00, 0x50)).hex(),
        bytes(range(0x60, 0xB0)).hex(),
        bytes(range(0xB0, 0x100)).hex(),
        82,
        "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
        "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
        "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
        "cc30c58179ec3e87c14c01d5c1f3434f1d87",
    ),
    (
        "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
        "",
        "",
        42,
        "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=("A.1", "A.2", "A.3"))
def test_rfc5869_sha256_cases(case: tuple[str, str, str, int, str, str]) -> None:
    ikm, salt, info, length, prk, okm = case
    assert extract(h(salt), h(ikm)) == h(prk)
    assert expand(h(prk), h(info), length) == h(okm)
    assert hkdf(h(ikm), h(salt), h(info), length) == h(okm)


def test_the_output_is_a_prefix_of_a_longer_one() -> None:
    prk = extract(b"salt", b"ikm")
    assert expand(prk, b"info", 100)[:33] == expand(prk, b"info", 33)
    assert len(expand(prk, b"", MAX_LENGTH)) == MAX_LENGTH


def test_limits() -> None:
    with pytest.raises(ValueError):
        expand(bytes(32), b"", MAX_LENGTH + 1)
    with pytest.raises(ValueError):
        expand(bytes(31), b"", 16)
