"""An action applied to a GameCore and kept by a RecordKeeper through the core's own
steps (``GameCore.settle``, as NetSession takes them), without a peer: for tests of the
files on disk."""

from __future__ import annotations

from p2p_spite.core.game import Action, GameCore, NoShell
from p2p_spite.engine import Match
from p2p_spite.session import Event
from p2p_spite.storage.keeper import RecordKeeper


class KeptShell(NoShell):
    """Writes each action and the record's checkpoints with ``keeper``; tells nobody."""

    def __init__(self, keeper: RecordKeeper) -> None:
        self.keeper = keeper

    def write(self, n: int, action: Action, tag: bytes | None) -> bool:
        self.keeper.append(n, action, tag)
        return True

    def checkpoint(self, match: Match) -> bool:
        self.keeper.game_over(match)
        return True


def apply_kept(core: GameCore, keeper: RecordKeeper, action: Action, tag: bytes | None = None) -> list[Event]:
    """Apply ``action`` (``tag``: the peer's, when the seat on turn is the peer's), write
    it down, then show it; a game's end is the record's checkpoint, before the next deal."""
    ours = core.match.game.turn == core.seat
    done = core.commit(action, tag=tag)
    evs = core.settle(done, KeptShell(keeper), received=not ours, tag=None if ours else tag)
    assert evs is not None
    return evs
