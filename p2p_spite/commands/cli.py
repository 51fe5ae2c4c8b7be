"""The ``p2p-spite`` command: parses arguments and wires the parts together."""

from __future__ import annotations

import argparse
import contextlib
import io
import ipaddress
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..bots import DEFAULT_LEVEL, LEVELS, STRONGEST, make_bot
from ..bots.review import REVIEW
from ..bots.selfplay import play_match
from ..contracts import i18n
from ..contracts.errors import SpiteError, StorageError, UserError, set_wording
from ..contracts.i18n import _, ngettext
from ..contracts.news import BadRecord
from ..contracts.plaintext import clean_name, shown_path
from ..contracts.session import Takebacks
from ..engine import DEFAULT_TARGET, Match, new_seed, parse_seed
from ..net import DEFAULT_PORT, DEFAULT_WATCHERS, MAX_GAMES, MAX_TARGET, MAX_WATCHERS
from ..net.discovery import DEFAULT_DISCOVERY_PORT, PORT_ENV
from ..storage import record
from ..storage.journal import journal_path
from ..storage.resume import replay_with_journal, unchecked_private
from ..ui.lessons import lessons
from .history import (
    describe,
    latest,
    latest_unfinished_play,
    records_dir,
    scan,
    stats,
    stats_lines,
    totals,
)
from .runner import EXIT_HANGUP

MAX_MATCHES = 1000  # --matches: matches in a row on one connection
SELFPLAY_GAMES = 100  # selfplay's game cap without --games: random bots nearly always draw
_LATEST = Path("\0latest")  # ``play --resume`` with no record: the latest unfinished one


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a whole number: {text}").format(text=repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1, not {value}").format(value=value))
    return value


def _at_most(most: int) -> Any:
    """A positive whole number up to ``most`` (the peer refuses a match beyond the protocol's limits)."""

    def check(text: str) -> int:
        value = _positive_int(text)
        if value > most:
            raise argparse.ArgumentTypeError(_("at most {most}, not {value}").format(most=most, value=value))
        return value

    return check


def _seed_arg(text: str) -> bytes:
    try:
        return parse_seed(text.strip().lower())  # (upper case is fine on the command line)
    except ValueError:
        raise argparse.ArgumentTypeError(_("the seed must be 64 hex digits")) from None


def _position_arg(text: str) -> tuple[int, int]:
    """``GAME:MOVE``: a game counted from 1 and the moves made in it (0: its deal)."""
    game, sep, move = text.strip().partition(":")
    if sep and game.isdigit() and move.isdigit():
        return int(game), int(move)
    raise argparse.ArgumentTypeError(_("a position is GAME:MOVE, e.g. 2:31"))


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``[V6]``, ``[V6]:PORT`` or a bare IPv6 literal."""
    t = text.strip()
    if not t:
        raise UserError(_("no host given"), exit_code=2)
    if t.startswith("["):
        end = t.find("]")
        if end < 0:
            raise UserError(_("bad address {text}: missing ']'").format(text=repr(text)), exit_code=2)
        host, rest = t[1:end], t[end + 1 :]
        if rest and not rest.startswith(":"):
            raise UserError(_("bad address {text}").format(text=repr(text)), exit_code=2)
        port_text = rest[1:] if rest else ""
    elif t.count(":") == 1:
        host, port_text = t.split(":")
    elif ":" in t:
        host, port_text = t, ""  # only a bare IPv6 literal has more than one ':'
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise UserError(_bad_address(text), exit_code=2) from None
    else:
        host, port_text = t, ""  # a name or an IPv4 address
    if not host or any(c in host for c in "/@ ") or not host.isprintable():
        raise UserError(_bad_address(text), exit_code=2)
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UserError(_("bad port {port} (1..65535)").format(port=repr(port_text)), exit_code=2)
    return host, int(port_text)


def _bad_address(text: str) -> str:
    return _("bad address {text}: use HOST, HOST:PORT or [IPv6]:PORT").format(text=repr(text))


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(_("a port is 0..65535, not {text}").format(text=repr(text)))
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number of seconds: {text}").format(text=repr(text))
        ) from None
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(_("must be 0..86400 seconds, not {text}").format(text=repr(text)))
    return value


def _target_help() -> str:
    return _("points that win the match (default {n})").format(n=DEFAULT_TARGET)


def build_parser() -> argparse.ArgumentParser:
    """The parser, its help in the language spoken (built after :func:`i18n.setup`)."""
    levels = ", ".join(LEVELS)
    parser = i18n.ArgumentParser(
        prog="p2p-spite",
        description="Spite & Malice for two, peer to peer in the terminal.",
        epilog=_("languages (--lang CODE, before or after the command):") + f"\n  {i18n.languages_line()}",
        formatter_class=i18n.RawDescriptionHelpFormatter,  # (the version's and epilog's lines as written)
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"p2p-spite {__version__}\n" + _("languages: {list}").format(list=i18n.languages_line()),
    )
    parser.add_argument(
        "--lang",
        metavar="CODE",
        help="the language (default: the environment's, else English)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    # in the order a newcomer meets them: play, a match on the LAN, then the records
    p = sub.add_parser(
        "play",
        help="play against the computer on this machine",
        description="Play a match against the computer.  The computer joins over loopback "
        "as a real peer; you are seat 0.",
    )
    p.add_argument(
        "--bot",
        metavar="LEVEL",
        help=_("computer level (default {level}; {levels})").format(level=DEFAULT_LEVEL, levels=levels),
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--seed", metavar="HEX", type=_seed_arg, help="play this deal (64 hex digits; default: a fresh one)"
    )
    g.add_argument(
        "--seed-file", type=Path, help="play the deal of this record or bare seed file (and its target)"
    )
    g.add_argument(
        "--resume",
        type=Path,
        nargs="?",
        const=_LATEST,
        metavar="RECORD",
        help="go on with an unfinished match against the computer (default: the latest one; "
        "its level unless --bot says another)",
    )
    p.add_argument("--name", help="your name (default: your login name)")
    p.add_argument("--target", type=_positive_int, help=_target_help())
    p.add_argument("--record", type=Path, help="where to write the record (default: the data directory)")
    p.add_argument(
        "--private",
        action="store_true",
        help="a private deck: the computer, a program of its own, shuffles and deals it with yours "
        "under encryption, so that it provably sees none of your hidden cards (docs/fairness.md)",
    )
    p.set_defaults(run=_run_play)

    p = sub.add_parser(
        "learn",
        help="a short playable tutorial: seven lessons on prepared positions",
        description="Learn the game on the real board: each lesson sets up a position, says its "
        "goal and waits for your moves.  It ends by offering a first game against the computer.",
    )
    p.add_argument(
        "--lesson", metavar="N", type=_at_most(len(lessons())), default=1, help="start at lesson N"
    )
    p.add_argument("--name", help="your name (default: your login name)")
    p.set_defaults(run=_run_learn)

    _add_lan_commands(sub, levels)

    p = sub.add_parser(
        "history",
        help="list the matches saved in the records folder",
        description="The matches saved in the default records folder, newest first: date, the two "
        "names, result and score (yours first), games won-lost; unfinished network matches say how "
        "to resume them; totals at the end.",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="per opponent instead: matches and games won and lost, points for and against, the "
        "longest winning streak in games, the average margin of the decided matches; the computer "
        "by level",
    )
    p.set_defaults(run=_run_history)

    p = sub.add_parser(
        "replay",
        help="replay a match record (--check: verify it)",
        description="Replay a match record deterministically from its seed.",
    )
    p.add_argument(
        "file", type=Path, nargs="?", help="the record (JSON) to replay (default: the latest one saved)"
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="verify every move and result; print one summary line (exit 0) or the first error (exit 1)",
    )
    p.add_argument(
        "--from",
        dest="start",
        metavar="GAME:MOVE",
        type=_position_arg,
        help=_(
            "play from here: go on from game GAME after MOVE moves, against the computer (nothing recorded)"
        ),
    )
    p.add_argument(
        "--bot",
        metavar="LEVEL",
        help=_("with --from: the computer's level (default {level}; {levels})").format(
            level=STRONGEST, levels=levels
        ),
    )
    p.add_argument(
        "--seat",
        type=int,
        choices=(0, 1),
        help=_("with --from: your seat (default: the one with your name, else 0)"),
    )
    p.set_defaults(run=_run_replay)

    p = sub.add_parser(
        "review",
        help="judge each turn of a record from the player's own view (docs/review.md)",
        description="For each turn of one player, compare the turn as played with the strongest "
        "level's from what that player saw at its start, by their win chances in sampled deals "
        "consistent with that view only; mark inaccuracies, mistakes and blunders (lichess's "
        "thresholds) and sum each game and the match up.",
    )
    p.add_argument("file", type=Path, nargs="?", help="the record (default: the latest one saved)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, choices=(0, 1), help="the player's seat: 0 (the host) or 1")
    who.add_argument("--name", help="the player's name in the record")
    p.add_argument("--json", action="store_true", help="one JSON object: the turns and summaries")
    p.add_argument(
        "--seconds",
        type=_seconds,
        default=REVIEW.deadline,
        metavar="S",
        help=_("the deadline per turn in seconds (default {n})").format(n=REVIEW.deadline),
    )
    p.set_defaults(run=_run_review)

    p = sub.add_parser(
        "selfplay",
        help="computer against computer, written as a record",
        description="Play computer against computer in one process and write the record.",
    )
    p.add_argument("--seed", type=_seed_arg, help="match seed, 64 hex digits (default: a fresh one, printed)")
    p.add_argument("--record", type=Path, required=True, help="where to write the record")
    p.add_argument(
        "--games",
        type=_positive_int,
        help=_("stop after this many games (default: at most {n})").format(n=SELFPLAY_GAMES),
    )
    p.add_argument("--target", type=_positive_int, default=DEFAULT_TARGET, help=_target_help())
    p.add_argument(
        "--bots",
        default="easy,easy",
        help=_("two levels, seat 0 first, e.g. random,easy (levels: {levels})").format(levels=levels),
    )
    p.set_defaults(run=_run_selfplay)
    return parser


def _add_peer_options(p: argparse.ArgumentParser, levels: str) -> None:
    """The options ``host`` and ``join`` share."""
    p.add_argument("--record", type=Path, help="where to write the record (default: the data directory)")
    p.add_argument(
        "--bot",
        metavar="LEVEL",
        help=_("let a computer play this side, headless ({levels})").format(levels=levels),
    )
    p.add_argument(
        "--resume", type=Path, metavar="RECORD", help="continue the unfinished match of this record"
    )
    p.add_argument("--bot-seed", type=int, help="seed of the --bot's own choices (for reproducible tests)")
    p.add_argument(
        "--takebacks",
        choices=[t.value for t in Takebacks],
        help="how this side answers the other's undo: ask (default), always or never; "
        "a --bot allows unless told never",
    )
    p.add_argument(
        "--matches",
        type=_at_most(MAX_MATCHES),
        default=1,
        metavar="N",
        help="with --bot: play N matches in a row on one connection (default 1; a person is asked)",
    )
    p.add_argument(
        "--heartbeat",
        type=_seconds,
        default=2.0,
        help="seconds between heartbeats; a peer silent for 5 of them is taken as gone (default 2)",
    )


def _add_lan_commands(sub: Any, levels: str) -> None:
    """``host`` and ``join``."""
    h = sub.add_parser(
        "host",
        help="host a match on the network and wait for a peer",
        description=_(
            "Listen for a peer and play a match with it.  "
            "Prints 'listening on HOST:PORT' once ready (default port {port})."
        ).format(port=DEFAULT_PORT),
    )
    h.add_argument("--bind", default="", help="address to listen on (default: all interfaces)")
    h.add_argument(
        "--no-announce",
        action="store_true",
        help="do not announce this host on the local network (join then needs its address)",
    )
    _discovery_option(h)
    h.add_argument(
        "--port",
        type=_port,
        default=None,
        help=_("port (default {port}, or with --resume the match's own; 0: any free)").format(
            port=DEFAULT_PORT
        ),
    )
    h.add_argument("--name", default="host", help="your name, shown to the peer")
    g = h.add_mutually_exclusive_group()
    g.add_argument("--seed", type=_seed_arg, help="play this deal (64 hex digits; the joiner is shown it)")
    g.add_argument("--seed-file", type=Path, help="take the seed (and target) from a record or seed file")
    h.add_argument("--target", type=_at_most(MAX_TARGET), help=_target_help())
    h.add_argument("--games", type=_at_most(MAX_GAMES), help="stop after this many games")
    h.add_argument("--code", help="the join code to require (default: a fresh one, printed)")
    h.add_argument("--no-code", action="store_true", help="do not require a join code (trusted networks)")
    h.add_argument(
        "--private",
        action="store_true",
        help="a private deck: shuffled and dealt by both players under encryption, so that no one "
        "(not even a modified program) sees a hidden card (docs/fairness.md)",
    )
    h.add_argument(
        "--grace", type=_seconds, default=60.0, help="seconds to wait for a lost peer (default 60)"
    )
    h.add_argument(
        "--watchers",
        type=_watchers,
        default=None,
        metavar="N",
        help=_(
            "how many may watch the match at once (default {default}; 0: nobody; at most {most}); "
            "on the LAN they give the join code too; with --internet (default 0) each types a code "
            "the host prints"
        ).format(default=DEFAULT_WATCHERS, most=MAX_WATCHERS),
    )
    _add_peer_options(h, levels)
    h.add_argument(
        "--internet",
        action="store_true",
        help="play a friend anywhere: print a code for them to type (through a mailbox server and a relay)",
    )
    _internet_options(h)

    j = sub.add_parser(
        "join",
        help="join a match hosted on the network",
        description="Connect to a host and play the match it offers.",
    )
    address_help = _(
        "the host (IPv6 as [::1]:PORT; default port {port}), or the code a host on the "
        "internet printed; none: look for hosts announced on the local network"
    ).format(port=DEFAULT_PORT)
    j.add_argument("address", nargs="?", metavar="HOST[:PORT]|CODE", help=address_help)
    _wait_option(j)
    _discovery_option(j)
    j.add_argument("--name", default="joiner", help="your name, shown to the peer")
    j.add_argument("--code", help="the join code the host printed")
    j.add_argument("--no-code", action="store_true", help="the host requires no code")
    j.add_argument(
        "--private",
        action="store_true",
        help="only a private-deck match: refuse a host that does not offer one",
    )
    j.add_argument("--grace", type=_seconds, default=60.0, help="seconds to keep reconnecting (default 60)")
    _add_peer_options(j, levels)
    _internet_options(j)
    h.set_defaults(run=_run_host)
    j.set_defaults(run=_run_join)

    w = sub.add_parser(
        "hosts",
        help="list the hosts announced on the local network",
        description="Listen for hosts announcing themselves on the local network and list them: "
        "NAME  ADDRESS:PORT  code needed|no code, then 'private deck' for a host that offers one and "
        "'playing' for one whose match is under way (to watch).  "
        "Exit 1 when none was heard.",
    )
    _wait_option(w)
    _discovery_option(w)
    w.set_defaults(run=_run_hosts)

    v = sub.add_parser(
        "watch",
        help="watch a match hosted on the network",
        description="Watch a match as it is played, without playing: the table as both players "
        "see it (never a hand, the stock or the seed).  Full screen on a terminal, else one line "
        "per event; exit 0 at the match's end.",
    )
    v.add_argument(
        "address",
        nargs="?",
        metavar="HOST[:PORT]|CODE",
        help=address_help,
    )
    _wait_option(v)
    _discovery_option(v)
    v.add_argument("--code", help="the join code the host printed (a host that has one asks watchers too)")
    v.add_argument("--no-code", action="store_true", help="the host requires no code")
    _internet_options(v)
    v.set_defaults(run=_run_watch, bot=None, resume=None, private=False)


def _internet_options(p: argparse.ArgumentParser) -> None:
    """The servers of internet play (``host --internet``, ``join CODE``)."""
    p.add_argument(
        "--mailbox",
        metavar="URL",
        help="the mailbox server, ws:// or wss:// (default: $P2P_SPITE_MAILBOX, else magic-wormhole's)",
    )
    p.add_argument(
        "--relay",
        metavar="HOST:PORT",
        help="the transit relay (default: $P2P_SPITE_RELAY, else magic-wormhole's)",
    )
    p.add_argument("--relay-only", action="store_true", help="internet play through the relay only")


def _watchers(text: str) -> int:
    if not text.isdigit() or int(text) > MAX_WATCHERS:
        raise argparse.ArgumentTypeError(
            _("watchers are 0 to {most}, not {text}").format(most=MAX_WATCHERS, text=repr(text))
        )
    return int(text)


def _wait_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--wait", type=_seconds, default=3.0, metavar="SECONDS",
        help="how long to listen for hosts (default 3; hosts announce every second)",
    )  # fmt: skip


def _discovery_option(p: argparse.ArgumentParser) -> None:
    text = _("UDP port of the announcements (default {port}, or ${env})")
    p.add_argument(
        "--discovery-port",
        type=_udp_port,
        metavar="PORT",
        help=text.format(port=DEFAULT_DISCOVERY_PORT, env=PORT_ENV),
    )


def _udp_port(text: str) -> int:
    value = _port(text)
    if value == 0:
        raise argparse.ArgumentTypeError(_("the discovery port cannot be 0"))
    return value


def _run_hosts(args: argparse.Namespace) -> int:

    from .lan import run_hosts  # (the asyncio shell only for the commands that talk)

    return run_hosts(args.wait, args.discovery_port)


def _run_play(args: argparse.Namespace) -> int:

    if args.resume is not None:
        return _resume_play(args)
    if args.private and (args.seed is not None or args.seed_file is not None):
        option = "--seed" if args.seed is not None else "--seed-file"
        raise UserError(
            _("{option} does not go with --private: a private deck is not dealt from a seed").format(
                option=option
            ),
            exit_code=2,
        )
    _take_seed_file(args)
    _check_record_path(args.record)
    target = args.target or DEFAULT_TARGET
    from .lan import run_play

    return run_play(args.bot, args.seed, args.name, target, args.record, private=args.private)


def _run_learn(args: argparse.Namespace) -> int:
    from ..ui.learn import run_learn
    from .lan import default_name, run_play

    name = args.name or default_name()
    if not run_learn(name, args.lesson - 1):
        return 0
    return run_play("easy", None, name, DEFAULT_TARGET, None)


def _resume_play(args: argparse.Namespace) -> int:
    """``play --resume [RECORD]``: the match of that record (default: the latest unfinished
    match against the computer), its names, target and deck as they were."""
    from ..storage.resume import load_saved
    from .lan import run_play

    for option, given in (("--target", args.target), ("--name", args.name), ("--private", args.private)):
        if given:
            text = _("{option} does not go with --resume: the match goes on as it began")
            raise UserError(text.format(option=option), exit_code=2)
    path = args.resume
    if path == _LATEST:
        e = latest_unfinished_play()
        if e is None:
            text = _("no unfinished match against the computer in {folder}: give a record")
            raise UserError(text.format(folder=shown_path(records_dir())), exit_code=2)
        path = e.path
    _check_record_path(args.record)
    saved = load_saved(path)
    if saved.private:
        text = _(
            "{path}: a private-deck match against the computer cannot be resumed: the computer's "
            "keys to its deck left with its program"
        )
        raise UserError(text.format(path=shown_path(path)))
    return run_play(args.bot, None, None, saved.target, args.record, resume=saved)


def _check_record_path(path: Path | None) -> None:
    """A record path that cannot be written is an error now, not after the match."""
    if path is None:
        return

    try:
        record.check_writable(path)
    except OSError as e:
        raise UserError(_cannot_write(path, e)) from None


def _cannot_write(path: Path, e: OSError) -> str:
    return _("cannot write the record {path}: {why}").format(path=shown_path(path), why=e.strerror or e)


def _take_seed_file(args: argparse.Namespace) -> None:
    """``--seed-file``: the seed of a record or bare seed file, and its target
    unless ``--target`` was given."""
    if args.seed_file is not None:
        try:
            rec = record.load(args.seed_file)
        except record.RecordError as e:
            if not isinstance(e.news, BadRecord):
                raise  # (it cannot be read: the file is named already)
            path = shown_path(args.seed_file)
            raise UserError(_("{path}: {why}").format(path=path, why=e), e.exit_code) from None
        args.seed = rec.seed
        if args.target is None:
            args.target = rec.target


def _run_history(args: argparse.Namespace) -> int:

    entries, bad = scan()
    if not entries and not bad:
        print(_("no records in {folder} yet").format(folder=shown_path(records_dir())))
        return 0
    if args.stats:
        for line in stats_lines(stats(entries)):
            print(line)
    else:
        for e in entries:
            print(describe(e))
    print(totals(entries))
    if bad:
        text = ngettext(
            "({n} file in {folder} could not be read)", "({n} files in {folder} could not be read)", len(bad)
        )
        print(text.format(n=len(bad), folder=shown_path(records_dir())))
    return 0


def _latest_record(ask: bool) -> Path | None:
    """``replay`` with no file: the newest record saved, offered first on a terminal."""

    e = latest()
    if e is None:
        raise UserError(
            _("no record to replay in {folder}: give a file").format(folder=shown_path(records_dir())),
            exit_code=2,
        )
    print(_("the latest record: {path}").format(path=shown_path(e.path)))
    print(f"  {describe(e)}")
    if ask and sys.stdin.isatty() and sys.stdout.isatty():
        try:
            answer = input(_("replay it? [Y/n] ")).strip()
        except EOFError:
            return None
        from ..ui.commands import is_yes

        if answer and not is_yes(answer):
            return None
    return e.path


def _run_replay(args: argparse.Namespace) -> int:

    if args.file is None:
        args.file = _latest_record(ask=not args.check)
        if args.file is None:
            return 0

    if args.start is None and (args.bot is not None or args.seat is not None):
        raise UserError(_("--bot and --seat go with --from GAME:MOVE"), exit_code=2)
    if args.check and args.start is not None:
        raise UserError(_("--check and --from do not go together"), exit_code=2)
    if not args.check:
        from ..ui.replay import Replay, run_viewer
        from ..ui.whatif import WhatIf, plan_whatif
        from .lan import default_name

        me = default_name()

        def what_if(r: Replay) -> WhatIf:
            game, move = args.start
            try:
                return plan_whatif(r.match, r.names, game, move, args.bot or STRONGEST, args.seat, me)
            except ValueError as e:
                raise UserError(str(e), exit_code=2) from None

        return run_viewer(args.file, me=me, what_if=what_if if args.start is not None else None)
    rec = record.load(args.file)
    try:
        match = record.verify(rec, in_play=True, keep_all=False)
    except record.RecordError as e:  # worded as the game screen names stacks and cards
        from ..ui.replay import check_failure

        raise UserError(check_failure(rec, e)) from None
    journaled = replay_with_journal(args.file, rec, match)
    moves = match.total_moves
    games = match.game_number if journaled else len(rec.games)  # (a bare seed file: 0 games)
    why = record.unchecked_reason(rec.games[-1]) if rec.private and rec.games else None
    if why is not None:
        games -= 1  # the games checked: not the last, whose deck the record cannot give
    line = ngettext("ok: {n} game", "ok: {n} games", games).format(n=games)
    line += ngettext(", {n} move", ", {n} moves", moves).format(n=moves)
    line += _(", scores {a}-{b}").format(a=match.scores[0], b=match.scores[1])
    if match.over:
        winner = match.winner
        assert winner is not None
        # a record's names may hold escape codes
        name = clean_name(match.players[winner]) or _("seat {n}").format(n=winner)
        line += _(", match won by {name} (seat {seat})").format(name=name, seat=winner)
    if journaled:
        text = ngettext(
            " ({n} of the actions from {journal}: the match was interrupted"
            " and its record not yet rewritten)",
            " ({n} of the actions from {journal}: the match was interrupted"
            " and its record not yet rewritten)",
            journaled,
        )
        line += text.format(n=journaled, journal=shown_path(journal_path(args.file).name))
    n = unchecked_private(args.file, rec)
    if why is not None:
        line += _("; game {game} cannot be checked: {why}").format(game=len(rec.games), why=why)
        claimed = record.unchecked_result(rec.games[-1], len(rec.games))
        if claimed is not None and rec.scores is not None:
            from ..ui.words import Voice, game_result

            n0, n1 = (clean_name(p) or _("seat {n}").format(n=i) for i, p in enumerate(match.players))
            text = _(
                "; the record gives its result, which cannot be checked: {result} (scores {a}-{b} with it)"
            )
            line += text.format(
                result=game_result(claimed, Voice((n0, n1))), a=rec.scores[0], b=rec.scores[1]
            )
    elif n:
        text = ngettext(
            "; game {game} was stopped before its private deck was revealed: its {n} move cannot be"
            " checked yet (--resume finishes it)",
            "; game {game} was stopped before its private deck was revealed: its {n} moves cannot be"
            " checked yet (--resume finishes it)",
            n,
        )
        line += text.format(game=len(rec.games), n=n)
    print(line)
    return 0


def _run_review(args: argparse.Namespace) -> int:

    import dataclasses
    import json
    import shutil

    from ..bots.turns import as_json, run_review, seat_named, turns_of
    from ..ui.review import print_review, progress_bar
    from .history import seat_of

    if args.file is None:
        e = latest()
        if e is None:
            text = _("no record to review in {folder}: give a file")
            raise UserError(text.format(folder=shown_path(records_dir())), exit_code=2)
        args.file = e.path
    rec = record.load(args.file)
    if args.name is not None:
        seat = seat_named(rec, args.name)
        if seat is None:
            names = ", ".join(clean_name(n) for n in rec.players)
            text = _("no player {name} in {path} (its players: {names})")
            raise UserError(text.format(name=args.name, path=shown_path(args.file), names=names), exit_code=2)
    elif args.seat is not None:
        seat = args.seat
    else:
        seat = seat_of(args.file) or 0
    try:
        turns = turns_of(rec, seat)
    except record.RecordError as e:
        from ..ui.replay import check_failure

        raise UserError(check_failure(rec, e)) from None
    config = dataclasses.replace(REVIEW, deadline=args.seconds)
    bar = progress_bar(sys.stderr) if sys.stderr.isatty() else None
    judged = run_review(turns, config, bar)
    if args.json:
        print(json.dumps(as_json(judged, seat, args.file), ensure_ascii=False, indent=1))
        return 0
    name = clean_name(rec.players[seat]) or _("seat {n}").format(n=seat)
    head = _("Review of {name} (seat {seat}) in {path}: each turn against the strongest level's").format(
        name=name, seat=seat, path=shown_path(args.file)
    )
    other = clean_name(rec.players[1 - seat]) or _("seat {n}").format(n=1 - seat)
    width = shutil.get_terminal_size().columns - 1 if sys.stdout.isatty() else None
    print_review(judged, head, sys.stdout, other, width)
    return 0


def _run_selfplay(args: argparse.Namespace) -> int:

    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != 2:
        raise UserError(_("--bots takes two levels, e.g. random,easy"), exit_code=2)
    try:
        bots = [make_bot(n, seed) for seed, n in enumerate(names)]
    except ValueError as e:
        raise UserError(str(e), exit_code=2) from None
    _check_record_path(args.record)
    seed = args.seed
    if seed is None:
        seed = new_seed()
        print(_("seed {seed}").format(seed=seed.hex()))
    players = [f"{n} bot" for n in names]
    if players[0] == players[1]:  # two "easy bot"s: told apart, in the record too
        players = [f"{p} {seat + 1}" for seat, p in enumerate(players)]
    match = Match(seed, args.target, players=(players[0], players[1]))
    cap = args.games or SELFPLAY_GAMES
    progress = sys.stderr.isatty()

    def show(m: Match) -> None:
        line = _("game {game}: scores {a}-{b}").format(game=m.game_number, a=m.scores[0], b=m.scores[1])
        print("\r" + line, end="", file=sys.stderr, flush=True)

    try:
        play_match(match, bots, max_games=cap, on_game_over=show if progress else None)
    finally:  # Ctrl-C too: the games played so far are a valid record
        if progress:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
        try:
            path = record.save(match, args.record)
        except OSError as e:
            raise StorageError(_cannot_write(args.record, e)) from None
    if args.games is None and not match.over:
        text = _(
            "stopped after {n} games, the default cap, with nobody at {target} "
            "(a drawn game scores nothing): --games N plays more"
        )
        print(text.format(n=cap, target=args.target))
    games = ngettext("{n} game", "{n} games", match.game_number).format(n=match.game_number)
    moves = ngettext("{n} move", "{n} moves", match.total_moves).format(n=match.total_moves)
    text = _("{games}, {moves}, scores {a}-{b}; record written to {path}")
    print(text.format(games=games, moves=moves, a=match.scores[0], b=match.scores[1], path=path))
    return 0


def _run_host(args: argparse.Namespace) -> int:

    _take_seed_file(args)
    _check_record_path(args.record)
    if args.watchers is None:  # (over the internet, watchers are asked for: each needs a code)
        args.watchers = 0 if args.internet else DEFAULT_WATCHERS
    if args.internet:
        from .internet import run_internet_host

        return run_internet_host(args)
    from .lan import run_host

    return run_host(args)


def _run_join(args: argparse.Namespace) -> int:
    _check_record_path(args.record)
    return _to_host(args, watch=False)


def _run_watch(args: argparse.Namespace) -> int:
    if args.code and args.no_code:
        raise UserError(_("--code and --no-code do not go together"), exit_code=2)
    return _to_host(args, watch=True)


def _to_host(args: argparse.Namespace, *, watch: bool) -> int:
    """``join`` or ``watch`` (``watch``): an internet code meets its host through the
    mailbox (internet.py); an address, or none (the hosts heard on the LAN), goes to lan.py."""
    from . import internet, lan

    code = internet.is_code(args.address)
    if code is not None:
        return (internet.run_internet_watch if watch else internet.run_internet_join)(args, code)
    host, port = lan.choose_host(args) if args.address is None else parse_address(args.address)
    return (lan.run_watch if watch else lan.run_join)(args, host, port)


def _flush_per_line() -> None:
    """Off a terminal (a pipe, ``| tee``, a test reading us), Python buffers stdout
    in blocks: a person or program waiting for the next line would wait for a
    whole block.  Line buffering makes every line (the line prompt's, a headless
    bot's progress) go out as it is printed.  stderr is line-buffered already."""
    out = sys.stdout
    try:
        if not out.isatty() and isinstance(out, io.TextIOWrapper):
            out.reconfigure(line_buffering=True)
    except (AttributeError, ValueError, OSError):
        pass  # a replaced or closed stdout: leave it as it is


def _say_last(line: str, *, gone: bool = False) -> None:
    """The last line on stderr.  ``gone``: the terminal closed; whatever cannot be written
    any more (this line, stdout's buffer at exit) goes nowhere, rather than a traceback
    and Python's exit code 120."""
    try:
        print(line, file=sys.stderr, flush=True)
        if gone:
            sys.stdout.flush()
    except OSError:
        gone = True
    if gone:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                os.dup2(devnull, fd)


def main(argv: Sequence[str] | None = None) -> int:
    _flush_per_line()
    lang, rest = i18n.take_option(sys.argv[1:] if argv is None else argv)
    i18n.setup(i18n.choose(lang))
    if lang is not None and i18n.known(lang) is None:  # (said once, then English)
        text = _("there is no {lang} here: English is spoken (languages: {list})")
        print("p2p-spite: " + text.format(lang=repr(lang), list=i18n.languages_line()), file=sys.stderr)
    from ..ui.networds import news_words

    set_wording(news_words)  # an error's news, in the language chosen
    parser = build_parser()
    args = parser.parse_args(rest)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 2
    try:
        result: int = run(args)
        return result
    except SpiteError as e:  # anything else is a bug, and shows as one
        _say_last(f"p2p-spite: {e}", gone=e.exit_code == EXIT_HANGUP)
        return e.exit_code
    except KeyboardInterrupt:
        _say_last("p2p-spite: " + _("interrupted"))
        return 130
    except BrokenPipeError:
        # The reader went away (``p2p-spite replay FILE | head``): stop quietly,
        # and keep Python from complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
