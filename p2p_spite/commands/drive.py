"""What the network commands share (``host``, ``join`` and ``play`` on the LAN, and their
internet forms in :mod:`.internet`): the lines printed for the person, a bot level checked,
and a network session driven to its end by a bot or a person, with its last lines and
exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..bots import LEVELS
from ..contracts.errors import EXIT_ERROR, EXIT_LOST, EXIT_PEER_LEFT, UserError
from ..contracts.hangups import when_hung_up
from ..contracts.i18n import _, ngettext
from ..contracts.news import News
from ..contracts.plaintext import shown_path
from ..contracts.session import (
    ChatReceived,
    ConnectionChanged,
    EndCause,
    Ending,
    Event,
    GameEnded,
    GameStarted,
    LinkState,
    MatchEnded,
    Notice,
    Takebacks,
)
from ..net import Matches, NetSession, SeedOrigin

if TYPE_CHECKING:
    from ..net.watch import WatchClient


def say(text: str) -> None:
    """A line for the person at the terminal (broken between words there, as a terminal
    would cut it mid-word; whole when read by a program)."""
    if sys.stdout.isatty():
        from ..ui.text import wrapped

        text = wrapped(text)
    print(text, flush=True)


def warn(news: News) -> None:
    """What the host tells before the match begins (a stranger's connection dropped...)."""
    from ..ui.networds import news_words

    print("p2p-spite: " + _("warning: {news}").format(news=news_words(news)), file=sys.stderr, flush=True)


def check_bot(level: str | None) -> None:
    if level is None:
        return
    if level not in LEVELS:
        raise UserError(
            _("unknown bot level {level} (choose from {levels})").format(
                level=repr(level), levels=", ".join(LEVELS)
            ),
            exit_code=2,
        )


def _progress(matches: Matches, several: bool = False) -> Callable[[Event], None]:
    """What a headless side prints of its events (``several``: it may play more than
    one match, each told when it starts and ends)."""
    from ..ui.networds import news_words
    from ..ui.words import Voice, connection_words, game_result

    names = matches.names

    def show(ev: Event) -> None:
        if isinstance(ev, GameStarted):
            if several and ev.game == 1 and len(matches.played) > 1:
                text = _("match {n} started; {seed}")
                say(text.format(n=len(matches.played), seed=_seed_words(matches.current)))
            say(_("game {game} started").format(game=ev.game))
        elif isinstance(ev, MatchEnded) and several:
            n, (a, b) = len(matches.played), ev.scores
            text = _("match {n} over: {name0} {a}, {name1} {b}; record: {path}")
            say(text.format(n=n, name0=names[0], a=a, name1=names[1], b=b, path=ev.record_path or "-"))
        elif isinstance(ev, GameEnded):
            result = game_result(ev.result, Voice(names))
            text = _("game {game}: {result}; scores {a}-{b}")
            say(text.format(game=ev.game, result=result, a=ev.scores[0], b=ev.scores[1]))
        elif isinstance(ev, ChatReceived):
            say(f"<{names[ev.seat]}> {ev.text}")
        elif isinstance(ev, Notice):
            print(f"p2p-spite: {news_words(ev.news)}", file=sys.stderr, flush=True)
        elif isinstance(ev, ConnectionChanged) and ev.state in (LinkState.RECONNECTING, LinkState.CONNECTED):
            say(news_words(ev.news) if ev.news is not None else connection_words(ev.state))

    return show


def _seed_words(session: NetSession) -> str:
    """How the match's seed was agreed, as its handshake (or its record) says."""
    if session.seed_by is SeedOrigin.HOST:
        return _("the host chose the seed: {seed}").format(seed=session.seed.hex())
    if session.seed_by is SeedOrigin.BOTH:
        return _("seed drawn by both: {seed}").format(seed=session.seed.hex())
    return _("seed {seed}").format(seed=session.seed.hex())  # (a record from before its origin was kept)


def failure_exit(ending: Ending | None) -> tuple[int, str | None]:
    """The exit code of a session that failed, and the news to print (None: an error line)."""
    from ..ui.words import peer_left

    left = peer_left(ending)
    if left is not None:
        return EXIT_PEER_LEFT, left
    if ending is not None and ending.cause is EndCause.CONNECTION_LOST:
        return EXIT_LOST, None
    return EXIT_ERROR, None


# How this side takes a match up again: the command line before `` --resume RECORD``
Resumer = Callable[[], str]


def final(matches: Matches, code: int, told: bool = False, resumer: Resumer | None = None) -> int:
    """The last lines (scores, winner, record) and the exit code; ``told``: the line
    prompt already said why the match stopped.  Matches played before the last one on
    the connection are listed first, one line each.  A match stopped by a lost
    connection ends with the exact command that takes it up again (``resumer``)."""
    for i, earlier in enumerate(matches.played[:-1]):
        sc, nm = earlier.match.scores, earlier.names
        say(f"match {i + 1}: {nm[0]} {sc[0]}, {nm[1]} {sc[1]}; record: {earlier.record_path or '-'}")
    session = matches.current
    m = session.match
    names = session.names
    refused = session.again.refused
    if refused is not None:  # the next match was refused before a card was dealt
        from ..ui.networds import news_words

        print(f"p2p-spite: {news_words(refused)}", file=sys.stderr, flush=True)
        code = EXIT_ERROR
    if session.failure is not None:
        code, news = failure_exit(session.ending)
        if news is None and not told:
            from ..ui.networds import news_words

            print(f"p2p-spite: {news_words(session.failure)}", file=sys.stderr, flush=True)
        elif news is not None and not told:
            say(news)
    text = _("final scores: {a} {x}, {b} {y}")
    say(text.format(a=names[0], x=m.scores[0], b=names[1], y=m.scores[1]))
    if m.winner is not None:
        say(_("match won by {name} (seat {seat})").format(name=names[m.winner], seat=m.winner))
    if session.record_dropped:
        say(_("no move was played: no record kept"))
    elif session.record_path:
        say(_("record: {path}").format(path=session.record_path))
        lost = session.ending is not None and session.ending.cause is EndCause.CONNECTION_LOST
        if lost and resumer is not None and session.failure is not None:
            command = f"{resumer()} --resume {shown_path(session.record_path)}"
            say(_("to go on with this match: {command}").format(command=command))
    return code


async def drive(
    session: NetSession,
    bot: str | None,
    bot_seed: int | None = None,
    notes: tuple[str, ...] = (),
    takebacks: str | None = None,
    matches: int = 1,
    resumer: Resumer | None = None,
    route: str = "",
) -> int:
    """Play ``session`` (and the matches after it on its connection: a bot plays
    ``matches`` in a row, a person is asked at each end; ``route``: how the connection
    goes, for the toolbar)."""
    if takebacks is not None:  # (asked, a person answers; a computer allows: bots.driver)
        session.takeback.takebacks = Takebacks(takebacks)
    played = Matches(session)
    with when_hung_up(played.hang_up):  # (a closed terminal: a lost connection, not a goodbye)
        return await _play(played, bot, bot_seed, notes, matches, resumer, route)


async def _play(
    played: Matches,
    bot: str | None,
    bot_seed: int | None,
    notes: tuple[str, ...],
    matches: int,
    resumer: Resumer | None,
    route: str,
) -> int:
    from ..bots.driver import run_bot

    if bot is not None:
        progress = _progress(played, several=matches > 1)
        code = await run_bot(played, bot, seed=bot_seed, on_event=progress, matches=matches)
        while (
            ev := played.current.event_nowait()
        ) is not None:  # what the close told (a secret that never came)
            progress(ev)
    else:
        from ..ui.play import drive_human, fullscreen_ok  # full screen, or the line prompt

        code = await drive_human(played, notes=notes, route=route)  # closes the session however it ends
        return final(played, code, told=not fullscreen_ok(), resumer=resumer)
    return final(played, code, resumer=resumer)


def joined_note(session: NetSession, resumed: bool) -> str:
    """The joiner's line once the match is agreed: whose, where in it, the seed."""
    who = session.peer_name
    seed = _seed_words(session)
    if resumed:
        game, ply = session.core.game_at(session.resumed_at)  # (as the host says it)
        text = ngettext(
            "back in {name}'s match: game {game} goes on, {n} move in; {seed}",
            "back in {name}'s match: game {game} goes on, {n} moves in; {seed}",
            ply,
        )
        note = text.format(name=who, game=game, n=ply, seed=seed)
    else:
        note = _("joined {name}'s match; {seed}").format(name=who, seed=seed)
    if session.private:
        note += _("; private deck: no one sees a hidden card")
    return note


async def show_watch(client: WatchClient, line: str, full: bool | None = None) -> int:
    """A watched match shown: full screen on a terminal (``full``, None: asked), else
    ``line`` then one line per event."""
    from ..ui.play import fullscreen_ok
    from ..ui.watch import WatchScreen, print_watch

    if full is None:
        full = fullscreen_ok()
    if full:
        return await WatchScreen(client).run()
    say(line)
    return await print_watch(client)
