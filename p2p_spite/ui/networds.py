"""What the network and the storage tell the player, in words: the one place the
:mod:`p2p_spite.contracts.news` types (notices, a connection's news, why a match stopped or
a command could not start) become sentences, in the language spoken.

The sibling of :mod:`.words` (which words the game itself).  Every sentence is
one whole message of the catalogs; names are cleaned before they are printed (a
peer chooses its own, escape codes and all).  A refusal's code (the wire's word,
docs/protocol.md) is said in words; the protocol's own description of a fault,
technical and language-neutral, follows it in parentheses when there is one.
No prompt_toolkit, no session: data in, text out.
"""

from __future__ import annotations

from ..contracts import news as n
from ..contracts.errors import SpiteError
from ..contracts.i18n import _, ngettext
from ..contracts.plaintext import clean_name, printable


def _name(peer: str) -> str:
    return clean_name(peer) or _("the other player")


def _detail(text: str) -> str:
    """The protocol's (or the system's) own words, on one line, not too long."""
    return " ".join(printable(text).split())[:300]


def _reason(reason: str) -> str:
    """A goodbye's reason, the peer's own word (``quit``), or that it gave none."""
    return clean_name(reason, 200) or _("no reason given")


def _seconds(s: float) -> str:
    return f"{s:g}"


def _watch_stop(stop: n.WatchStop, peer: str) -> str:
    """Why the host stopped a watch (the code of its goodbye, not UNKNOWN), in the
    language spoken."""
    if stop is n.WatchStop.PEER_LEFT:
        return _("the host stopped the watch: {name} left the match").format(name=_name(peer))
    return {
        n.WatchStop.OVER: _("the host stopped the watch: the match is over"),
        n.WatchStop.NOT_BEGUN: _("the host stopped before the match began"),
        n.WatchStop.HOST_LEFT: _("the host left the match"),
        n.WatchStop.STOPPED: _("the host stopped the watch: the match stopped"),
        n.WatchStop.CONNECTION_LOST: _("the host stopped the watch: the players' connection was lost"),
        n.WatchStop.BROKE_PROTOCOL: _("the host stopped the watch: a player's program broke the protocol"),
        n.WatchStop.REFUSED: _("the host stopped the watch: a player's program was refused"),
        n.WatchStop.DEAL_ABANDONED: _("the host stopped the watch: a player left during the deal"),
        n.WatchStop.STORAGE: _("the host stopped the watch: it cannot write its record"),
    }[stop]


def refusal_words(code: str) -> str:
    """What a refusal's code means, as a clause: ``the join code is wrong``."""
    words = {
        "protocol": _("a message broke the protocol"),
        "frame": _("a message was over the size limit"),
        "decode": _("the bytes were not a p2p-spite message"),
        "flood": _("too many messages, too fast"),
        "malformed": _("a message had a field of the wrong type or range"),
        "not-p2p-spite": _("it is not a p2p-spite program"),
        "version": _("the two programs' versions do not match"),
        "role": _("both sides want the same role"),
        "code-needed": _("a join code is needed"),
        "no-code": _("the host asks for no join code"),
        "bad-code": _("the join code is wrong"),
        "bad-proof": _("the proof of the match is wrong"),
        "no-match": _("there is no such match to go on with"),
        "seat-taken": _("the match already has its two players"),
        "other-match": _("it is another match"),
        "not-agreed": _("it is not the match both agreed to play again"),
        "unexpected": _("a message came at the wrong time"),
        "unknown-type": _("a message of an unknown type"),
        "echo": _("it echoed this side's commitment"),
        "bad-reveal": _("its half of the seed does not match its commitment"),
        "position": _("it claimed actions it did not send"),
        "history": _("the two histories of the match differ"),
        "behind": _("it is too far behind to catch up"),
        "sequence": _("an action out of order"),
        "illegal-move": _("an illegal move"),
        "forged": _("an action for a seat that did not make it"),
        "desync": _("the two sides' games no longer agree"),
        "storage": _("it cannot write its record"),
        "not-private": _("the host offers no private deck"),
        "deck-format": _("a private-deck message is malformed"),
        "deck-order": _("a private-deck message out of order"),
        "bad-share": _("a private-deck share does not verify"),
        "bad-shuffle": _("a shuffle's proof does not verify"),
        "stalled": _("a message it owed did not come in time"),
        "cheat": _("the private deck shows a cheat"),
        "takeback": _("it asked to take back a move that was not its own to take back"),
        "no-watchers": _("the host lets nobody watch"),
        "watchers-full": _("the host has as many watchers as it lets in"),
        "watcher": _("a watcher cannot take part in the match"),
    }
    return words.get(code, _("refused ({code})").format(code=_detail(code)))


def _because(code: str, detail: str) -> str:
    """``the join code is wrong``, or ``an illegal move (7h on center 2)``."""
    d = _detail(detail)
    return f"{refusal_words(code)} ({d})" if d else refusal_words(code)


def storage_words(p: n.StorageProblem) -> str:
    """``cannot write the record /x.json: No space left on device``."""
    f = {"path": p.path, "why": _detail(p.why)}
    if p.reading:
        return _("cannot read {path}: {why}").format(**f)
    if p.what is n.Keeping.RECORD:
        return _("cannot write the record {path}: {why}").format(**f)
    if p.what is n.Keeping.JOURNAL:
        return _("cannot write the journal {path}: {why}").format(**f)
    return _("cannot write {path}: {why}").format(**f)


def _drop_kind(kind: n.DropKind, code: str, seconds: float, detail: str = "") -> str:
    """Why a stranger's connection was refused, plainly (``no hello within 3 s``); a
    protocol error keeps its detail (``it claimed actions it did not send (a new match
    starts at action 0, not 3)``): the host learns what the connection tried."""
    if kind is n.DropKind.NO_HELLO and seconds:
        return _("no hello within {seconds} s").format(seconds=_seconds(seconds))
    if kind is n.DropKind.PROTOCOL:
        return _because(code, detail)
    if kind is n.DropKind.SEAT_TAKEN:
        return refusal_words("seat-taken")
    return {
        n.DropKind.REFUSED_MATCH: _("it refused the match"),
        n.DropKind.WRONG_CODE: _("wrong join code"),
        n.DropKind.NO_HELLO: _("no hello in time"),
        n.DropKind.NO_HANDSHAKE: _("no handshake in time"),
        n.DropKind.SAID_GOODBYE: _("it said goodbye during the handshake"),
        n.DropKind.CLOSED: _("it closed during the handshake"),
        n.DropKind.CROWDED_OUT: _("crowded out by newer connections while it had not authenticated"),
        n.DropKind.TURNED_AWAY: _("turned away: every handshake slot holds an authenticated connection"),
        n.DropKind.STOPPED_READING: _("a watcher stopped reading what it was sent"),
        n.DropKind.SILENT: _("a watcher fell silent"),
    }[kind]


def _kind_count(kind: n.DropKind, k: int) -> str:
    """``3 wrong join codes``: a count of drops of one kind, in a summary."""
    match kind:
        case n.DropKind.REFUSED_MATCH:
            text = ngettext("{n} refused the match", "{n} refused the match", k)
        case n.DropKind.WRONG_CODE:
            text = ngettext("{n} wrong join code", "{n} wrong join codes", k)
        case n.DropKind.PROTOCOL:
            text = ngettext("{n} protocol error", "{n} protocol errors", k)
        case n.DropKind.SEAT_TAKEN:
            text = ngettext(
                "{n} for a match that has its two players", "{n} for a match that has its two players", k
            )
        case n.DropKind.NO_HELLO:
            text = ngettext("{n} no hello in time", "{n} no hello in time", k)
        case n.DropKind.NO_HANDSHAKE:
            text = ngettext("{n} no handshake in time", "{n} no handshake in time", k)
        case n.DropKind.SAID_GOODBYE:
            text = ngettext(
                "{n} said goodbye during the handshake", "{n} said goodbye during the handshake", k
            )
        case n.DropKind.CLOSED:
            text = ngettext("{n} closed during the handshake", "{n} closed during the handshake", k)
        case n.DropKind.CROWDED_OUT:
            text = ngettext("{n} crowded out", "{n} crowded out", k)
        case n.DropKind.TURNED_AWAY:
            text = ngettext("{n} turned away", "{n} turned away", k)
        case n.DropKind.STOPPED_READING:
            text = ngettext("{n} watcher stopped reading", "{n} watchers stopped reading", k)
        case n.DropKind.SILENT:
            text = ngettext("{n} watcher fell silent", "{n} watchers fell silent", k)
    return text.format(n=f"{k:,}")


def _summary(s: n.DropsSummary) -> str:
    """``refused 12 more connections from 127.0.0.1 in 5 s: 12 wrong join codes``."""
    why = ", ".join(_kind_count(kind, k) for kind, k in s.kinds)
    if len(s.top) == 1 and not s.others and not s.at_least:
        text = ngettext(
            "refused {n} more connection from {address} in {seconds} s: {why}",
            "refused {n} more connections from {address} in {seconds} s: {why}",
            s.n,
        )
        return text.format(n=f"{s.n:,}", address=s.top[0][0], seconds=f"{s.seconds:.0f}", why=why)
    where = ", ".join(_("{n} from {address}").format(n=f"{k:,}", address=a) for a, k in s.top)
    if s.others or s.at_least:
        if s.at_least:
            more = ngettext("{n} from more than {k} more", "{n} from more than {k} more", s.others)
        else:
            more = ngettext("{n} from {k} more", "{n} from {k} more", s.others)
        where = _("{list} and {more}").format(
            list=where, more=more.format(n=f"{s.rest:,}", k=f"{s.others:,}")
        )
    text = ngettext(
        "refused {n} more connection in {seconds} s ({where}): {why}",
        "refused {n} more connections in {seconds} s ({where}): {why}",
        s.n,
    )
    return text.format(n=f"{s.n:,}", seconds=f"{s.seconds:.0f}", where=where, why=why)


def _stalled(s: n.Stalled) -> str:
    f = {"name": _name(s.peer), "seconds": _seconds(s.seconds)}
    if s.owed is n.Owed.DECK:
        return _(
            "stopped the match: {name} stopped sending the private deck's messages "
            "({seconds} s without one it owed)"
        ).format(**f)
    if s.owed is n.Owed.UNDO_ACK:
        return _(
            "stopped the match: {name} did not acknowledge the move taken back within {seconds} s"
        ).format(**f)
    return _("stopped the match: {name} claimed actions it did not send within {seconds} s").format(**f)


def _then(t: n.HostRefused | n.HostStopped | n.RefusedHost | n.HandshakeFailed | None) -> str:
    match t:
        case n.HostRefused(code, detail):
            return _("it refused: {why}").format(why=_because(code, detail))
        case n.HostStopped(_where, reason):
            return _("it said goodbye during the handshake: {why}").format(why=_reason(reason))
        case n.RefusedHost(_where, code, detail):
            return _("then broke the protocol: {why}").format(why=_because(code, detail))
        case n.HandshakeFailed(timeout=True, seconds=seconds):
            return _("it did not finish the handshake within {seconds} s").format(seconds=_seconds(seconds))
    return ""


def news_words(item: n.News | n.Repeated) -> str:
    """One line for the player."""
    match item:
        case n.Repeated(inner, more):
            text = ngettext("{news} (and {n} more like it)", "{news} (and {n} more like it)", more)
            return text.format(news=news_words(inner), n=more)
        case n.ConnectionDropped(peer, kind, code, seconds, detail):
            return _("refused a connection from {address} ({why})").format(
                address=peer, why=_drop_kind(kind, code, seconds, detail)
            )
        case n.DropsSummary():
            return _summary(item)
        case n.ChatFlood(peer):
            return _("{name}'s chat comes faster than it is read: dropping some").format(name=_name(peer))
        case n.SecretNotRevealed(peer, game):
            return _(
                "{name} did not reveal its secret of game {game}: its deck order is not in the record "
                "(every card shown was proven when it was shown)"
            ).format(name=_name(peer), game=game)
        case n.RecordNotAmended(problem):
            return storage_words(problem)
        case n.Redialing(peer, seconds, redial):
            f = {"name": _name(peer), "seconds": _seconds(seconds)}
            if redial:
                return _("the connection to {name} was lost; redialing for up to {seconds} s").format(**f)
            return _("the connection to {name} was lost; keeping the seat open for up to {seconds} s").format(
                **f
            )
        case n.PeerBack(peer, game, moves, now_called):
            back: dict[str, object] = {"name": _name(peer), "new": _name(now_called), "game": game}
            back["n"] = moves
            if now_called:
                return ngettext(
                    "{name} (now calling itself {new}) is back: game {game} goes on, {n} move in",
                    "{name} (now calling itself {new}) is back: game {game} goes on, {n} moves in",
                    moves,
                ).format(**back)
            return ngettext(
                "{name} is back: game {game} goes on, {n} move in",
                "{name} is back: game {game} goes on, {n} moves in",
                moves,
            ).format(**back)
        case n.PeerLeft(peer, reason):
            who, why = clean_name(peer) or _("The other player"), clean_name(reason, 200)
            if why in ("", "quit"):
                return _("{who} left the match.").format(who=who)
            return _("{who} left the match ({why}).").format(who=who, why=why)
        case n.PeerStopped(peer, code, detail, resuming):
            f = {"name": _name(peer), "why": _because(code, detail)}
            if resuming:
                return _("{name} refused to go on: {why}").format(**f)
            return _("{name} stopped the match: {why}").format(**f)
        case n.WeStopped(peer, code, detail, resuming):
            f = {"name": _name(peer), "why": _because(code, detail)}
            if resuming:
                return _("cannot go on with {name}: {why}").format(**f)
            return _("stopped the match with {name}: {why}").format(**f)
        case n.AgainRefused(peer, code, detail, ours):
            f = {"name": _name(peer), "why": _because(code, detail)}
            if ours:
                return _("refused the next match with {name} before any card was dealt: {why}").format(**f)
            return _("{name} refused the next match before any card was dealt: {why}").format(**f)
        case n.Stalled():
            return _stalled(item)
        case n.ConnectionLost(peer, seconds):
            if seconds:
                return _("the connection to {name} was lost and did not come back within {seconds} s").format(
                    name=_name(peer), seconds=_seconds(seconds)
                )
            return _("the connection to {name} was lost").format(name=_name(peer))
        case n.CannotKeepRecord(problem, over):
            if over:
                return _("the match is over but its record could not be written: {why}").format(
                    why=storage_words(problem)
                )
            return _("stopped the match: {why}").format(why=storage_words(problem))
        case n.StorageProblem():
            return storage_words(item)
        case n.CannotDial(where, how, seconds, detail):
            if how is n.Dial.NO_ANSWER:
                return _(
                    "cannot reach {address}: no answer in {seconds} s (is the address right? a firewall?)"
                ).format(address=where, seconds=_seconds(seconds))
            if how is n.Dial.NOBODY:
                return _("nobody is hosting at {address} (is the host running? is the port right?)").format(
                    address=where
                )
            return _("cannot connect to {address}: {why}").format(address=where, why=_detail(detail))
        case n.HostRefused(code, detail):
            return _("the host refused: {why}").format(why=_because(code, detail))
        case n.HostStopped(where, reason):
            text = _("the host at {address} said goodbye during the handshake: {why}")
            return text.format(address=where, why=_reason(reason))
        case n.RefusedHost(where, code, detail, foreign):
            if foreign and detail:
                text = _("that is not a p2p-spite host: {address} speaks another protocol ({why})")
                return text.format(address=where, why=_detail(detail))
            if foreign:
                return _("that is not a p2p-spite host: {address} speaks another protocol").format(
                    address=where
                )
            return _("refused the host at {address}: {why}").format(address=where, why=_because(code, detail))
        case n.WatchCut(where=where, kind=n.WatchEnd.HOST_SILENT, seconds=seconds):
            return _("the host at {address} went silent for {seconds} s").format(
                address=where, seconds=_seconds(seconds)
            )
        case n.WatchCut(kind=n.WatchEnd.HOST_STOPPED, stop=n.WatchStop.UNKNOWN, reason=reason):
            return _("the host stopped the watch ({why})").format(why=_reason(reason))
        case n.WatchCut(kind=n.WatchEnd.HOST_STOPPED, stop=stop, peer=peer):
            return _watch_stop(stop, peer)
        case n.WatchCut(where=where, kind=n.WatchEnd.LOST):
            return _("the connection to {address} was lost").format(address=where)
        case n.HandshakeFailed(where, detail, timeout):
            if timeout:
                return _("the host at {address} did not answer the handshake").format(address=where)
            return _("the handshake with {address} failed: {why}").format(address=where, why=_detail(detail))
        case n.DealSeen(host, peer, seconds, then):
            if host:
                done = _then(then)
                if done:
                    return _(
                        "the host left after it had your half of the seed ({how}), so it may have seen the "
                        "deal: the match is stopped (nothing was played; start a new one if you wish)"
                    ).format(how=done)
                return _(
                    "the host left after it had your half of the seed, so it may have seen the deal: "
                    "the match is stopped (nothing was played; start a new one if you wish)"
                )
            return _(
                "{name} left during the seed exchange, after the deal was fixed (it may have seen it), "
                "and did not come back within {seconds} s: the match is stopped (nothing was played)"
            ).format(name=clean_name(peer) or _("the joiner"), seconds=_seconds(seconds))
        case n.CannotListen(where, port, taken, not_here, detail):
            if taken:
                return _("port {port} is taken: use --port N or --port 0").format(port=port)
            if not_here:
                return _("cannot listen on {address}: {bind} is not an address of this machine").format(
                    address=where, bind=not_here
                )
            return _("cannot listen on {address}: {why}").format(address=where, why=_detail(detail))
        case n.SavedMatchUnusable(path, over, scores, detail, private):
            path = path or _("that record")
            if over:
                return _("{path}: the match is already over ({a}-{b})").format(
                    path=path, a=scores[0], b=scores[1]
                )
            if private:
                return _("{path}: the saved match's private deck does not replay: {why}").format(
                    path=path, why=_detail(detail)
                )
            return _("{path}: the saved match does not replay: {why}").format(path=path, why=_detail(detail))
        case n.NotResumable(path, game):
            if game:
                return _(
                    "{path}: a player left this private match in the middle of game {game} and both "
                    "secrets were revealed, so it cannot be resumed (start a new match)"
                ).format(path=path, game=game)
            return _("{path} is not the record of a network match (no match_id)").format(path=path)
        case n.BadRecord(reason, game, move):
            why = _detail(reason)
            if game is not None and move is not None:
                return _("game {game}, move {move}: {why}").format(game=game, move=move, why=why)
            if game is not None:
                return _("game {game}: {why}").format(game=game, why=why)
            return _("not a valid record: {why}").format(why=why)
        case n.RendezvousFailed():
            return _rendezvous(item)
        case n.Connected():
            if item.direct:
                return _("connected directly to {address}").format(address=item.where)
            return _("connected through the relay {address}").format(address=item.where)
        case n.WatcherCode():
            command = f"p2p-spite watch {item.code}"
            if item.again:
                return _("the next watcher types: {command}").format(command=command)
            return _("a watcher types: {command}").format(command=command)
        case n.WatcherNotIn():
            why = _rendezvous(item.failure)
            if item.last:
                return _("a watcher did not get in ({why}); no more watcher codes").format(why=why)
            return _("a watcher did not get in ({why})").format(why=why)
    raise AssertionError(f"no words for {item!r}")  # (mypy checks the match is complete)


def _rendezvous(r: n.RendezvousFailed) -> str:
    """The line for a way to the other player that failed (the mailbox, the code, the relay)."""
    where, code, why, seconds = r.where, r.detail, _detail(r.detail), _seconds(r.seconds)
    match r.how:
        case n.Rendezvous.MAILBOX_UNREACHABLE:
            return _("cannot reach the mailbox server {address}: {why}").format(address=where, why=why)
        case n.Rendezvous.MAILBOX_CLOSED:
            return _("the mailbox server {address} closed the connection").format(address=where)
        case n.Rendezvous.MAILBOX_SILENT:
            return _("the mailbox server {address} did not answer in {seconds} s").format(
                address=where, seconds=seconds
            )
        case n.Rendezvous.MAILBOX_REFUSED:
            return _("the mailbox server {address} refused: {why}").format(address=where, why=why)
        case n.Rendezvous.NOT_A_CODE:
            return _('"{code}" is not a code: a number and two words, like 7-crossover-clockwork').format(
                code=clean_name(code, 60)
            )
        case n.Rendezvous.NO_SUCH_CODE:
            return _(
                "nobody is hosting with the code {code} (is it typed right? is the host still waiting?)"
            ).format(code=code)
        case n.Rendezvous.CODE_TAKEN:
            return _("the code {code} is already in use by two players: ask the host for a new one").format(
                code=code
            )
        case n.Rendezvous.PEER_VANISHED:
            return _("the other player did not answer in {seconds} s and the meeting was called off").format(
                seconds=seconds
            )
        case n.Rendezvous.RELAY_UNREACHABLE:
            return _("cannot reach the relay {address}: {why}").format(address=where, why=why)
        case n.Rendezvous.RELAY_REFUSED:
            return _("the relay {address} refused the connection: {why}").format(address=where, why=why)
        case n.Rendezvous.RELAY_LONELY:
            return _("the other player did not reach the relay {address} in {seconds} s").format(
                address=where, seconds=seconds
            )
        case n.Rendezvous.NO_PATH:
            if r.detail:
                return _("no connection to the other player in {seconds} s: {why}").format(
                    seconds=seconds, why=why
                )
            return _("no connection to the other player in {seconds} s").format(seconds=seconds)
        case n.Rendezvous.WRONG_CODE:
            return _("the code is wrong, or the other player typed another one: ask the host for a new code")
        case n.Rendezvous.PEER_BROKE:
            return _("the other player sent a message that does not open: {why}").format(why=why)


def route_words(c: n.Connected) -> str:
    """The toolbar's short word for how the connection goes."""
    if c.direct:
        return _("direct to {address}").format(address=c.where)
    return _("via the relay {address}").format(address=c.where)


def error_words(e: SpiteError) -> str:
    """The one line an error ends a command with (without the ``p2p-spite:`` before it)."""
    return news_words(e.news) if e.news is not None else str(e)


__all__ = ["error_words", "news_words", "refusal_words", "route_words", "storage_words"]
