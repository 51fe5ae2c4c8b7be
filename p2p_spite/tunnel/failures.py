"""What can go wrong on the way to the other player over the internet, as typed errors.

Each is a :class:`~p2p_spite.contracts.errors.UserError` (one line, exit code 1) that carries a
:class:`~p2p_spite.contracts.news.RendezvousFailed`: :mod:`p2p_spite.ui.networds` words it in the
language spoken.  The WebSocket layer's own errors (:mod:`.websocket`) are technical; the
mailbox client turns them into these.
"""

from __future__ import annotations

from ..contracts.errors import UserError
from ..contracts.news import Rendezvous, RendezvousFailed


class RendezvousError(UserError):
    """The way to the other player failed: ``news`` says how."""

    how: Rendezvous

    def __init__(self, where: str = "", seconds: float = 0.0, detail: str = "") -> None:
        super().__init__(RendezvousFailed(self.how, where, seconds, detail))

    @property
    def failure(self) -> RendezvousFailed:
        assert isinstance(self.news, RendezvousFailed)
        return self.news


class MailboxUnreachable(RendezvousError):
    """No connection to the mailbox server at ``where`` (``detail``: the system's words)."""

    how = Rendezvous.MAILBOX_UNREACHABLE


class MailboxClosed(RendezvousError):
    """The mailbox server closed the connection before the rendezvous was over."""

    how = Rendezvous.MAILBOX_CLOSED


class MailboxSilent(RendezvousError):
    """The mailbox server did not answer within ``seconds``."""

    how = Rendezvous.MAILBOX_SILENT


class MailboxRefused(RendezvousError):
    """The mailbox server refused us or broke its protocol (``detail``: its words)."""

    how = Rendezvous.MAILBOX_REFUSED


class NotACode(RendezvousError):
    """What was typed (``detail``) is not a code: a number and two words."""

    how = Rendezvous.NOT_A_CODE


class NoSuchCode(RendezvousError):
    """Nobody hosts under the code ``detail``."""

    how = Rendezvous.NO_SUCH_CODE


class CodeTaken(RendezvousError):
    """Two players use the code ``detail`` already (the server said "crowded")."""

    how = Rendezvous.CODE_TAKEN


class PeerVanished(RendezvousError):
    """Nothing came from the other player within ``seconds`` (or it left the mailbox)."""

    how = Rendezvous.PEER_VANISHED


class RelayUnreachable(RendezvousError):
    """No connection to the transit relay at ``where`` (``detail``: the system's words)."""

    how = Rendezvous.RELAY_UNREACHABLE


class RelayRefused(RendezvousError):
    """The transit relay at ``where`` refused the handshake or closed (``detail``)."""

    how = Rendezvous.RELAY_REFUSED


class RelayLonely(RendezvousError):
    """The other player did not reach the relay at ``where`` within ``seconds``."""

    how = Rendezvous.RELAY_LONELY


class NoPath(RendezvousError):
    """No connection to the other player, direct or relayed, within ``seconds``
    (``detail``: why the last try failed)."""

    how = Rendezvous.NO_PATH


class WrongCode(RendezvousError):
    """The key confirmation failed: the code is wrong or the other side typed another."""

    how = Rendezvous.WRONG_CODE


class PeerBroke(RendezvousError):
    """The other side's sealed mailbox message does not open, or says nonsense (``detail``)."""

    how = Rendezvous.PEER_BROKE
