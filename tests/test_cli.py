"""Argument parsing that is ours, not argparse's."""

from __future__ import annotations

import pytest

from p2p_spite.cli import parse_address
from p2p_spite.errors import UserError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.168.1.20", ("192.168.1.20", 4747)),
        ("localhost:5000", ("localhost", 5000)),
        ("[::1]:99", ("::1", 99)),
        ("[fe80::1]", ("fe80::1", 4747)),
        ("::1", ("::1", 4747)),
    ],
)
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no host given"),
        ("[::1", "missing ']'"),
        ("127.0.0.1:5:5", "use HOST, HOST:PORT or [IPv6]:PORT"),
        ("http://127.0.0.1:80", "use HOST, HOST:PORT or [IPv6]:PORT"),
        ("a b", "use HOST, HOST:PORT or [IPv6]:PORT"),
        ("host:99999", "bad port '99999'"),
        ("host:0", "bad port '0'"),
        ("host:x", "bad port 'x'"),
    ],
)
def test_bad_addresses_say_what_to_write(text: str, message: str) -> None:
    with pytest.raises(UserError) as e:
        parse_address(text)
    assert message in str(e.value)
    assert e.value.exit_code == 2


@pytest.mark.parametrize("command", [["play"], ["host"], ["selfplay", "--record", "x.json"]])
def test_a_seed_in_upper_case_hex_is_the_same_seed(command: list[str]) -> None:
    from p2p_spite.cli import build_parser

    args = build_parser().parse_args([*command, "--seed", "AB" * 31 + "Cd"])
    assert args.seed == bytes.fromhex("ab" * 31 + "cd")


def test_watch_and_the_hosts_watchers_option_parse() -> None:
    from p2p_spite.cli import build_parser

    p = build_parser()
    args = p.parse_args(["watch", "127.0.0.1:4747", "--code", "K7QP-3MXD"])
    assert (args.address, args.code, args.bot, args.resume) == ("127.0.0.1:4747", "K7QP-3MXD", None, None)
    assert p.parse_args(["host"]).watchers == 4
    assert p.parse_args(["host", "--watchers", "0"]).watchers == 0
    for bad in ("33", "-1", "x"):
        with pytest.raises(SystemExit):
            p.parse_args(["host", "--watchers", bad])
