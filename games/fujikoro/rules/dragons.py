"""Dragons on the board (EN p.5, p.10-11, p.15): revealed, on the health track, defeated, tamed.

Owns the commands the table taps for dragons without the fight screen (``dragon_revealed``,
``dragon_defeated`` told by its result, ``dragon_health``, scenario 6's ``tamed``) and the rewards of a
defeat (:func:`reward_fighters`), which the fights played in the app use too
(:mod:`~games.fujikoro.rules.fights`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.engine import Command, CommandError
from companion.events import Kind
from games.fujikoro.rules.checks import check_can_fight, fight_move, player_index, require_scenario
from games.fujikoro.rules.scenarios import scenario_of
from games.fujikoro.rules.scoring import add_vp
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import Category, DragonStatus, Events, Mode, State, evolve, set_dragon, set_player

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


def dragon_revealed(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """An Explore turned up a dragon (EN p.5); coop: its Status Token, sleeping side up (EN p.15)."""
    dragon = str(command.get("dragon"))
    if state.dragon(dragon) is not DragonStatus.HIDDEN:
        raise CommandError(f"dragon {dragon} is already on the board")
    status = DragonStatus.SLEEPING if state.setup.mode is Mode.COOP else DragonStatus.REVEALED
    state = evolve(state, dragons=set_dragon(state.dragons, dragon, status))
    events.append(("dragon_revealed", {"dragon": dragon, "status": status.value}))
    return scenario_of(state.setup).on_dragon_revealed(state, events)


def dragon_defeated(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A dragon is defeated (EN p.11): it leaves the game; VP and a tooth for each samurai still in the
    fight (coop: teeth for the group, EN p.15)."""
    dragon_id = str(command.get("dragon"))
    status = state.dragon(dragon_id)
    if status is DragonStatus.DEFEATED:
        raise CommandError(f"dragon {dragon_id} was already defeated and removed from the game (EN p.11)")
    names = command.get("players")
    if not isinstance(names, list) or not names:
        raise CommandError("a defeated dragon needs the list of players still in the combat")
    indices = [player_index(state, {"player": n}) for n in names]
    if len(set(indices)) != len(indices):
        raise CommandError("each player is listed once in a combat")
    scenario = scenario_of(state.setup)
    scenario.check_dragon_fighters(len(indices))
    dragon = game.pack.dragons[dragon_id]
    colour = game.pack.colours[dragon.colour]
    trophies = scenario.keeps_trophies(game.pack)
    final_blow = command.get("final_blow")
    if trophies:
        if final_blow is None and len(indices) == 1:
            final_blow = names[0]
        if final_blow not in names:
            raise CommandError(
                "in scenario 2 the player who dealt the final blow keeps the dragon, so name them "
                "in final_blow (one of the players in the combat)"
            )
    state = evolve(state, dragons=set_dragon(state.dragons, dragon_id, DragonStatus.DEFEATED), fight=None)
    health = game.pack.dragon_health(
        dragon, mode=state.setup.mode.value, players=len(state.players), scenario=state.setup.scenario
    )
    events.append((Kind.DRAGON_HEALTH, {"dragon": dragon_id, "health": 0, "max": health}))
    events.append(("dragon_defeated", {"dragon": dragon_id, "colour": dragon.colour, "players": list(names)}))
    if state.setup.mode is Mode.COOP:
        state = evolve(state, group_teeth=state.group_teeth + colour.coop_teeth)
        loses = scenario.defeat_loses(dragon)
        if loses is not None:
            return game.finish(state, events, loses, won=False)
    state = reward_fighters(game, state, indices, colour.vp, events)
    if trophies and final_blow is not None:
        i = names.index(final_blow)
        p = state.players[indices[i]]
        player = evolve(p, trophies=(*p.trophies, dragon_id))
        state = evolve(state, players=set_player(state.players, indices[i], player))
    return state


def record_dragon_defeated(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A dragon fight played at the table without the fight screen, told by its result: the same turn
    rules as a fight the app runs (rules version 2). The player whose turn it is started it with a Move
    (EN p.10) and the others joined; nobody unconscious (EN p.11, p.12); a dragon on the board (EN p.5);
    a fight that was not the first action ends the turn (EN p.11)."""
    if state.setup.rules < 2:
        return dragon_defeated(game, state, command, events)
    dragon_id = str(command.get("dragon"))
    if state.dragon(dragon_id) is DragonStatus.HIDDEN:
        raise CommandError(f"{dragon_id} has not been revealed: a dragon is fought once an Explore turned it up "
                           "(EN p.5)")
    names = command.get("players")
    if isinstance(names, list):
        for name in names:
            check_can_fight(state, player_index(state, {"player": name}), "join a fight")
        active = state.players[state.current].name
        if active not in names:
            raise CommandError(f"a dragon fight is started by the player whose turn it is ({active}) with a Move, "
                               "and the others join it (EN p.10)")
    state, first = fight_move(game, state, command)
    state = dragon_defeated(game, state, command, events)
    if not first:
        active = state.players[state.current].name
        state = evolve(state, turn_over=f"{active}'s fight was not their first action, which ends their turn "
                                       "(EN p.11)")
    return state


def dragon_health(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The dragon health track during a fight (EN p.11): set it, and the table display follows."""
    dragon_id = str(command.get("dragon"))
    if state.dragon(dragon_id) is DragonStatus.DEFEATED:
        raise CommandError(f"dragon {dragon_id} was already defeated and removed from the game (EN p.11)")
    dragon = game.pack.dragons[dragon_id]
    full = game.pack.dragon_health(
        dragon, mode=state.setup.mode.value, players=len(state.players), scenario=state.setup.scenario
    )
    health = command.get("health", full)
    if isinstance(health, bool) or not isinstance(health, int) or not 1 <= health <= full:
        raise CommandError(
            f"{dragon_id}'s health is 1 to {full} on the track (a defeat is dragon_defeated), got {health!r}"
        )
    events.append((Kind.DRAGON_HEALTH, {"dragon": dragon_id, "health": health, "max": full}))
    return evolve(state, fight=(dragon_id, health))


def tamed(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A taming the table played without the fight screen (the fight screen notices it by itself)."""
    require_scenario(game, state, 6, "Taming the Legendary Dragon")
    if state.setup.rules >= 2:
        legendary = [d for d, _s in state.dragons if game.pack.dragons[d].is_legendary]
        if not any(state.dragon(d) not in (DragonStatus.HIDDEN, DragonStatus.DEFEATED) for d in legendary):
            raise CommandError("the Legendary Dragon is tamed in a fight on the Central Tile, so it must be on "
                               "the board first (EN Appendix B scenario 6)")
    return evolve(state, tamed=True)


def reward_fighters(game: FujiKoro, state: State, indices: list[int], vp: int, events: Events) -> State:
    """EN p.11: each samurai still in the fight scores the dragon's VP and breaks off a tooth (competitive)."""
    teeth = state.setup.mode is Mode.COMPETITIVE and scenario_of(state.setup).dragon_teeth
    for i in indices:
        if scores_vp(state.setup):
            state = add_vp(game, state, i, vp, Category.DRAGONS, events)
        if teeth:
            p = state.players[i]
            state = evolve(state, players=set_player(state.players, i, evolve(p, teeth=p.teeth + 1)))
    return state
