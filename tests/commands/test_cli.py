"""Argument parsing that is ours, not argparse's."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p_spite.commands.cli import parse_address
from p2p_spite.contracts.errors import UserError


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
    from p2p_spite.commands.cli import build_parser

    args = build_parser().parse_args([*command, "--seed", "AB" * 31 + "Cd"])
    assert args.seed == bytes.fromhex("ab" * 31 + "cd")


def test_watch_and_the_hosts_watchers_option_parse() -> None:
    from p2p_spite.commands.cli import build_parser

    p = build_parser()
    args = p.parse_args(["watch", "127.0.0.1:4747", "--code", "K7QP-3MXD"])
    assert (args.address, args.code, args.bot, args.resume) == ("127.0.0.1:4747", "K7QP-3MXD", None, None)
    assert p.parse_args(["host"]).watchers is None  # (the command's default: 4 on the LAN, 0 --internet)
    assert p.parse_args(["host", "--watchers", "0"]).watchers == 0
    for bad in ("33", "-1", "x"):
        with pytest.raises(SystemExit):
            p.parse_args(["host", "--watchers", bad])


@pytest.mark.parametrize(
    "env,expected",
    [
        ({}, "Player"),  # a bare environment: not "Root" from the password file
        ({"USER": "root"}, "Player"),
        ({"LOGNAME": "root", "USER": "ann"}, "Player"),  # (LOGNAME is read first, as getpass does)
        ({"USER": "ann"}, "Ann"),
        ({"LOGNAME": "bob", "USER": "ann"}, "Bob"),
    ],
)
def test_plays_default_name_is_the_login_or_player(
    env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p_spite.commands.lan import default_name

    for var in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert default_name() == expected


def test_an_unknown_language_is_said_once_then_english(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from p2p_spite.commands.cli import main
    from p2p_spite.contracts import i18n

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    try:
        assert main(["--lang", "de", "history"]) == 0
        out, err = capsys.readouterr()
        assert err.count("there is no 'de' here: English is spoken (languages: en (English),") == 1, err
        assert i18n.language() == "en" and out
        assert main(["--lang", "pl", "history"]) == 0
        assert "there is no" not in capsys.readouterr().err
    finally:
        i18n.setup("en")


def test_a_garbage_seed_file_is_named_in_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2p_spite.commands.cli import main

    bad = tmp_path / "garbage.txt"
    bad.write_text("garbage\n")
    for command in (["play"], ["host", "--no-announce"]):
        assert main([*command, "--seed-file", str(bad)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"p2p-spite: {bad}: not a valid record: ") and "Traceback" not in err, err
