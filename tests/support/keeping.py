"""An action applied to a GameCore and kept by a RecordKeeper through the seat machine's
effects (``SeatMachine.settle``, carried out as NetSession does), without a peer: for
tests of the files on disk."""

from __future__ import annotations

from p2p_spite.contracts.session import Event
from p2p_spite.core.effects import Effect, MakeDurable, Show, WriteEntry
from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.protocol import ActionReceived
from p2p_spite.storage.keeper import RecordKeeper


def kept(keeper: RecordKeeper, effects: list[Effect]) -> list[Event]:
    """Carry out ``effects`` with ``keeper`` (each action and the record's checkpoints
    written; nobody told); the events shown."""
    evs: list[Event] = []
    for fx in effects:
        if isinstance(fx, WriteEntry):
            keeper.append(fx.n, fx.action, fx.tag)
        elif isinstance(fx, MakeDurable):
            keeper.game_over(fx.match)
        elif isinstance(fx, Show):
            evs.append(fx.event)
    return evs


def apply_kept(core: GameCore, keeper: RecordKeeper, action: Action, tag: bytes | None = None) -> list[Event]:
    """Apply ``action`` (``tag``: the peer's, when the seat on turn is the peer's), write
    it down, then show it; a game's end is the record's checkpoint, before the next deal."""
    ours = core.match.game.turn == core.seat
    done = core.commit(action, tag=tag)
    machine = SeatMachine(core)
    received = None if ours else ActionReceived(core.position - 1, done, tag)
    evs = kept(keeper, machine.settle(done, None, received))
    return evs + kept(keeper, machine.deal())
