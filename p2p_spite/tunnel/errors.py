"""The errors of the sealed channel and its key exchange, under the project's root.

:class:`TunnelError` is a :class:`~p2p_spite.contracts.errors.SpiteError`.  The messages are
technical and in English: the code that wires the tunnel into a command words them
for the player (a wrong code, a peer that sent garbage) before they reach one.

* :class:`SealError`: sealed bytes that do not open (a wrong key, a changed byte).
* :class:`PakeError`: the key exchange failed; :class:`PeerElementError` the peer's
  message is not a valid group element (refused on arrival), :class:`ConfirmationError`
  the confirmations disagree: the two sides typed different codes.
* :class:`ChannelError`: the channel's bytes are wrong; :class:`FrameError` a frame that
  is malformed, too large, cut short, forged, replayed or out of order,
  :class:`HandshakeError` the peer's opening or hello is wrong (another key, a wrong path).
"""

from __future__ import annotations

from ..contracts.errors import SpiteError


class TunnelError(SpiteError):
    """Root of the tunnel's errors."""


class SealError(TunnelError):
    """Sealed bytes that do not open under this key (RFC 8439 tag mismatch)."""


class PakeError(TunnelError):
    """The SPAKE2 exchange failed (or was driven out of order)."""


class PeerElementError(PakeError):
    """The peer's SPAKE2 message is not a valid element: refused before any use."""


class ConfirmationError(PakeError):
    """The peer's key confirmation does not match: the codes differ (or a forgery)."""


class ChannelError(TunnelError):
    """The sealed channel refuses the peer's bytes; the connection is unusable after it.
    ``delivered``: the messages that opened, in the same bytes, before the fault."""

    delivered: tuple[bytes, ...] = ()


class FrameError(ChannelError):
    """A frame that is malformed, over the limit, cut short, or does not open in order."""


class HandshakeError(ChannelError):
    """The peer's opening or sealed hello is wrong: another key, another role, a wrong path."""
