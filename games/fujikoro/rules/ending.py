"""How a game ends (EN p.13, p.15): the final scoring's moment, who won, the ranking, the early end.

Owns :func:`finish` (every way a game ends goes through it, as ``FujiKoro.finish``: the countdown's end,
the coop win or loss, a scenario's end, the table's ``end_game``), which runs the final scoring, asks the
scenario or the coop objectives whether the table won, and records the :class:`Ending` with its ranking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine import Command, CommandError
from companion.events import Kind
from games.fujikoro.rules.coop import objectives
from games.fujikoro.rules.scenarios import scenario_of
from games.fujikoro.rules.scoring import final_scoring, ranking
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import Ending, Events, Mode, Phase, State, evolve

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


def finish(game: FujiKoro, state: State, events: Events, reason: str, won: bool | None = None) -> State:
    """The game ends (EN p.13, p.15): the final scoring when VP count, whether the table won (coop and
    Ronin), the ranking; ``won`` is given when the way it ended decides it."""
    if scores_vp(state.setup):
        state = final_scoring(game, state, events)
    if won is None:
        verdict = scenario_of(state.setup).verdict(game.pack, state, reason)
        if verdict is not None:
            reason, won = verdict
        elif state.setup.mode is Mode.COOP:
            won = False
            missing = [text for text, done in objectives(game, state) if not done]
            reason += "; the objectives were not achieved: " + "; ".join(missing) if missing else ""
    order = ranking(state)
    state = evolve(state, phase=Phase.ENDED, ending=Ending(reason, won, order))
    payload: dict[str, Any] = {
        "ranking": [{"player": n, "vp": vp, "rank": r} for n, vp, r in order],
        "reason": reason,
    }
    if won is not None:
        payload["won"] = won
    events.append((Kind.GAME_ENDED, payload))
    return state


def end_game(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The table ends the game early, with a reason (a coop table then loses)."""
    reason = str(command.get("reason") or "").strip()
    if not reason:
        raise CommandError('ending the game early needs a reason, such as "we ran out of time"')
    return finish(game, state, events, f"ended by the table: {reason}", won=None if scores_vp(state.setup) else False)
