"""The cooperative mode (EN p.14-15): objectives, Lives and the dragons' Status Tokens.

Owns the objectives as a checklist (EN p.14; a scenario may add to them or replace them, EN Appendix B),
the win the moment they are all achieved (:func:`check_coop_win`), a lost Life and the loss at the
second (``life_lost``), and the Status Tokens flipped at each new round (sleeping, awake, moving). The
coop set-up (round track start, tile decks) is in :mod:`~games.fujikoro.rules.setup`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.engine import Command
from games.fujikoro.rules.checks import player_index, require_coop
from games.fujikoro.rules.scenarios import Objective, scenario_of
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import GEAR, DragonStatus, Events, Exit, Mode, State, evolve, set_player

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


def objectives(game: FujiKoro, state: State) -> list[Objective]:
    """The cooperative goals as a checklist (EN p.14, Appendix B scenarios 5-8)."""
    if state.setup.mode is not Mode.COOP:
        return []
    scenario = scenario_of(state.setup)
    own = scenario.objectives(game.pack, state)
    if own is not None:
        return own
    players = state.players
    legendary = [d for d, s in state.dragons if game.pack.dragons[d].is_legendary]
    defeated = all(state.dragon(d) is DragonStatus.DEFEATED for d in legendary)
    items: list[Objective] = [("Defeat the Legendary Dragon", defeated)]
    items += scenario.extra_objectives(state)
    out_ = [p.name for p in players if p.escaped is not Exit.SECRET_EXIT]
    items.append(
        (
            "Every player escapes through the Secret Exit" + (f" (not yet: {', '.join(out_)})" if out_ else ""),
            not out_,
        )
    )
    no_gear = [p.name for p in players if not p.magical]
    items.append(
        (
            "Every player has a completed Magical Gear item"
            + (f" (not yet: {', '.join(no_gear)})" if no_gear else ""),
            not no_gear,
        )
    )
    together = set().union(*(p.magical for p in players))
    lacking = [g for g in GEAR if g not in together]
    items.append(
        (
            "Together: a Magical Helmet, Weapon and Sandals"
            + (f" (missing: {', '.join(lacking)})" if lacking else ""),
            not lacking,
        )
    )
    return items


def check_coop_win(game: FujiKoro, state: State, events: Events) -> State:
    """EN p.14: with every objective achieved (and nobody out of Lives) the table wins at once."""
    if scores_vp(state.setup):
        return state
    goals = objectives(game, state)
    if goals and all(done for _, done in goals) and all(p.lives > 0 for p in state.players):
        return game.finish(state, events, "all objectives achieved: everyone wins", won=True)
    return state


def life_lost(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A player loses a Life (coop, EN p.15); the second one loses the game for everyone."""
    index = player_index(state, command)
    require_coop(state, "Lives")
    p = state.players[index]
    lives = p.lives - 1
    state = evolve(state, players=set_player(state.players, index, evolve(p, lives=lives)))
    events.append(("life_lost", {"player": p.name, "lives": lives, "reason": command.get("reason")}))
    if lives <= 0:
        return game.finish(state, events, f"{p.name} lost a second Life, so everyone loses (EN p.15)", won=False)
    return state


def flip_status_tokens(state: State, events: Events) -> State:
    """EN p.15: at a new round each sleeping dragon wakes and each awake one loses its token and moves."""
    flipped = []
    for dragon, status in state.dragons:
        if status is DragonStatus.AWAKE:
            status = DragonStatus.MOVING
        elif status is DragonStatus.SLEEPING:
            status = DragonStatus.AWAKE
        flipped.append((dragon, status))
    state = evolve(state, dragons=tuple(flipped))
    moving = [d for d, s in state.dragons if s is DragonStatus.MOVING]
    if moving:
        events.append(
            (
                "dragons_move",
                {
                    "dragons": moving,
                    "round": state.round,
                    "rule": "each moves 1 tile toward the nearest visible samurai",
                },
            )
        )
    return state
