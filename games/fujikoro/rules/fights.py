"""Fights played through the session (EN pp.10-12, coop p.15): the game's side of :mod:`games.fujikoro.combat`.

Owns the fight commands, which drive :mod:`~games.fujikoro.combat` step by step and carry each step into
the game (health on the track, teeth, Lives, knocked-out samurai, the end of the turn, the defeat's
rewards through :mod:`~games.fujikoro.rules.dragons`): dragon fights (and scenario 4's Monks), samurai
combat (and scenario 7's hostile Samurai), rolls, helmet removals, retreat, surrender, the winner's
steal, abandoning a fight; and the log line of each (``say_*``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.engine import Command, CommandError
from companion.events import Kind
from companion.text import say
from games.fujikoro.combat import (
    DRAGON,
    Combatant,
    CombatError,
    DragonStats,
    Fight,
    combatant_from_json,
    dragon_roll,
    retreat,
    start_dragon_fight,
    start_samurai_fight,
    surrender,
)
from games.fujikoro.combat import Outcome as FightOutcome
from games.fujikoro.combat import Status as FighterStatus
from games.fujikoro.pack import DataPack
from games.fujikoro.rules.checks import (
    check_can_fight,
    check_may_act,
    fight_move,
    player_index,
    require_scenario,
)
from games.fujikoro.rules.coop import life_lost
from games.fujikoro.rules.dragons import dragon_defeated, reward_fighters
from games.fujikoro.rules.rolls import (
    cube_counts,
    describe_fight_roll,
    fight_roll_spec,
    helmet_choices,
    parse_cells,
    play_fight_roll,
    typed_dragon,
)
from games.fujikoro.rules.scenarios import monks, scenario_of
from games.fujikoro.rules.scoring import add_vp, monk_defeat
from games.fujikoro.rules.setup import scores_vp
from games.fujikoro.rules.state import (
    Category,
    Combat,
    Describer,
    DragonStatus,
    Events,
    Mode,
    Phase,
    State,
    evolve,
    set_player,
)

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro

# Commands (each a JSON object; "player" names are the game's players):
#   fight_start          {"dragon": "green_1" | {"health", "initiative", "dice", ...}, "samurai": [{"player",
#                         "gear": <gear-inspect input>, "heroic_monk", "monk_from", "blueprints"}, ...],
#                         "dragon_attacks": false, "first_action": true, "damage_tokens": 0}
#   samurai_fight_start  {"attacker": {"player", "gear", ...}, "defender": {...}, "first_action"}
#   fight_roll           whoever acts next: {"dice": [[kind, face], ...]} (hand; per weapon a list of such
#                         lists, or "weapons": [{"hand", "dice", "breaks"}]), or no dice = the app rolls with
#                         the "seed" recorded in the command (an undo barrier). For the dragon, "removals":
#                         {player: [[row, col], ...]} and "magic": [player, ...] choose helmet removals.
#   fight_helmet         {"player", "cells": [[row, col], ...], "magic": bool}: a player's own removal, right
#                         after the dragon's roll (the roll is re-applied with it)
#   fight_retreat / fight_surrender {"player"}; fight_steal {"item": blueprint|monk|scroll|resource};
#   fight_cancel {"reason"}: drop the fight without a result.


STEAL_ITEMS = ("blueprint", "monk", "scroll", "resource")


def active_combat(state: State) -> Combat:
    """The fight being played, or a refusal naming how to start one."""
    combat = state.combat
    if combat is None or not combat.is_active:
        raise CommandError('no fight is being played; start one with {"type": "fight_start", ...}')
    return combat


def fight_mode(state: State) -> Mode:
    """The fight engine's mode for this game's mode."""
    return Mode(state.setup.mode.value)


def fighter_entry(game: FujiKoro, state: State, item: Any, what: str) -> tuple[int, Combatant]:
    """A player in a fight as the command gives them: their gear on their own board (EN p.8-9)."""
    if not isinstance(item, dict):
        raise CommandError(f"{what} is an object such as {{\"player\": \"A\", \"gear\": {{...}}}}, got {item!r}")
    index = player_index(state, item)
    player = state.players[index]
    if player.escaped is not None:
        raise CommandError(f"{player.name} has escaped the volcano and fights no more (EN p.13)")
    data = {**item, "name": player.name}
    gear = item.get("gear")
    if isinstance(gear, dict):
        board = str(gear.get("board") or player.board).lower()
        if board != player.board:
            raise CommandError(
                f"{player.name} plays the {player.board} board, but the gear is on the {board} board"
            )
        data["gear"] = {**gear, "board": board}
    try:
        return index, combatant_from_json(data, game.pack)
    except CombatError as error:
        raise CommandError(str(error)) from None


def dragon_stats(game: FujiKoro, state: State, raw: Any) -> tuple[DragonStats, str | None]:
    """The opponent of a dragon fight: a figure on the board, scenario 4's Monk, or stats typed in."""
    mode = fight_mode(state)
    if raw == "monk":
        return monk_stats(game, state), None
    if isinstance(raw, str):
        figure = game.pack.dragons.get(raw)
        if figure is None:
            raise CommandError(f"unknown dragon figure {raw!r}; figures: {', '.join(sorted(game.pack.dragons))}")
        if state.dragon(raw) is DragonStatus.DEFEATED:
            raise CommandError(f"dragon {raw} was already defeated and removed from the game (EN p.11)")
        stats = DragonStats.from_figure(
            figure, game.pack, mode=mode, players=len(state.players), scenario=state.setup.scenario
        )
        return stats, raw
    if isinstance(raw, dict):
        return typed_dragon(raw, mode), None
    raise CommandError(
        'the dragon is a figure id such as "green_1" or typed stats {"health", "initiative", "dice"}'
    )


def monk_stats(game: FujiKoro, state: State) -> DragonStats:
    """EN Appendix B scenario 4: a Monk fights with infinite Initiative, 4 Health and 4 wooden dice."""
    require_scenario(game, state, 4, "Fighting a Monk")
    return monks().monk_stats(game.pack)


def fight_start(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A dragon fight (EN p.10-11): the attacker with a Move, joiners in turn order; coop and scenario 2:
    a dragon attacks at the start of a round (EN p.15)."""
    raw = command.get("samurai")
    if not isinstance(raw, list) or not raw:
        raise CommandError('a fight needs "samurai": the attacker and anyone who joins, as a list')
    entries = [fighter_entry(game, state, item, "each samurai") for item in raw]
    indices = [i for i, _ in entries]
    if len(set(indices)) != len(indices):
        raise CommandError("each player is listed once in a combat")
    mode = fight_mode(state)
    scenario = scenario_of(state.setup)
    dragon_attacks = bool(command.get("dragon_attacks", False))
    monk = command.get("dragon") == "monk"
    if monk:
        monk_stats(game, state)  # scenario 4 only
        if len(indices) > 1:
            raise CommandError("a Monk Combat can't be joined by other Samurai (EN Appendix B scenario 4)")
        if any(isinstance(item, dict) and item.get("heroic_monk") not in (None, "none") for item in raw):
            raise CommandError("a Heroic Monk distracts a Dragon (EN p.10), not another Monk")
    if dragon_attacks and mode is Mode.COMPETITIVE and not scenario.dragons_move(game.pack) and not monk:
        raise CommandError(
            "dragons move onto samurai only in the cooperative mode and when dragons are on the move (scenario 2)"
        )
    n = len(state.players)
    strict = state.setup.rules >= 2
    first_action = command.get("first_action")
    if strict:
        if not dragon_attacks and state.current in indices:
            check_may_act(state, state.current, "starting a fight")
        for i in indices:
            check_can_fight(state, i, "be attacked" if dragon_attacks else "join a fight")
        if dragon_attacks:
            if state.actions or state.current != state.setup.start:
                raise CommandError(
                    "dragons move onto samurai at the start of a round, before the start player's actions "
                    "(EN p.15, Appendix B scenario 2)"
                )
            attacker = command.get("dragon")
            if mode is Mode.COOP and isinstance(attacker, str) and attacker != "monk":
                status = state.dragon(attacker)
                if status in (DragonStatus.SLEEPING, DragonStatus.AWAKE):
                    raise CommandError(
                        f"{attacker} still has its Status Token ({status.value}): only a dragon without one "
                        "moves at the start of a round (EN p.15)"
                    )
        else:
            if state.current not in indices:
                raise CommandError(
                    f"the attacker is the player whose turn it is ({state.players[state.current].name}); "
                    "the others join the fight"
                )
            state, first_action = fight_move(game, state, command)
    if dragon_attacks:
        # The samurai on the tile defend; ties between them go by turn order from the active player.
        start = state.current
    else:
        start = state.current
        if start not in indices:
            raise CommandError(
                f"the attacker is the player whose turn it is ({state.players[start].name}); "
                "the others join the fight"
            )
    # Joiners are asked in turn order from the attacker's left (EN p.10): that is the fight's order.
    entries.sort(key=lambda e: (e[0] - start) % n)
    stats, dragon_id = dragon_stats(game, state, command.get("dragon"))
    placed = dict(state.dragon_tokens).get(dragon_id, 0) if dragon_id and strict else 0
    tokens = command.get("damage_tokens", placed)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise CommandError(f"damage_tokens is a whole number of at least 0, got {tokens!r}")
    if tokens < placed:
        raise CommandError(
            f"{dragon_id} carries {placed} permanent Damage Tokens, and they stay when it heals (EN p.11)"
        )
    if strict and dragon_id and tokens != placed:
        state = evolve(state, dragon_tokens=tuple(sorted({**dict(state.dragon_tokens), dragon_id: tokens}.items())))
    if first_action is None:
        first_action = not dragon_attacks and len(state.actions) <= 1
    try:
        fight = start_dragon_fight(
            stats,
            [c for _, c in entries],
            game.pack,
            mode=mode,
            dragon_attacks=dragon_attacks,
            damage_tokens=tokens,
            first_action=bool(first_action),
            joining_allowed=scenario.joining_allowed(game.pack),
        )
    except CombatError as error:
        raise CommandError(
            str(error) + (" (EN Appendix B scenario 1)" if "scenario" in str(error) else "")
        ) from None
    if not strict:
        fight = evolve(fight, least_loss=False)  # rules 1 chose broken cubes one at a time
    combat = Combat(
        fight, dragon_id=dragon_id, max_health=stats.health, dragon_attacks=dragon_attacks, monk=monk
    )
    label = dragon_id or stats.name
    events.append(
        (
            "fight_started",
            {"dragon": label, "order": list(fight.order), "samurai": [f.name for f in fight.fighters]},
        )
    )
    events.append((Kind.DRAGON_HEALTH, {"dragon": label, "health": fight.health, "max": stats.health}))
    return evolve(state, combat=combat, fight=(dragon_id, fight.health) if dragon_id else state.fight)


def samurai_fight_start(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A samurai attacks another (or scenario 7's hostile Samurai) with a Move (EN p.12)."""
    raw_defender = command.get("defender")
    hostile = raw_defender.get("hostile") if isinstance(raw_defender, dict) else None
    if state.setup.mode is Mode.COOP and hostile is None:
        raise CommandError("samurai do not fight each other in the cooperative mode (EN p.14)")
    a_index, attacker = fighter_entry(game, state, command.get("attacker"), "the attacker")
    if hostile is not None and isinstance(raw_defender, dict):
        state, defender = hostile_samurai(game, state, raw_defender)
        d_index = -1
    else:
        d_index, defender = fighter_entry(game, state, raw_defender, "the defender")
    if a_index == d_index:
        raise CommandError("a samurai cannot fight themselves")
    if a_index != state.current:
        raise CommandError(
            f"the attacker is the player whose turn it is ({state.players[state.current].name}) (EN p.12)"
        )
    first_action = command.get("first_action")
    if state.setup.peaceful:
        raise CommandError("in the Peaceful Variant samurai fight only dragons, never each other (EN p.12)")
    if state.setup.rules >= 2:
        if d_index >= 0:
            check_can_fight(state, d_index, "be attacked")
        state, first_action = fight_move(game, state, command)
    if first_action is None:
        first_action = len(state.actions) <= 1
    try:
        fight = start_samurai_fight(attacker, defender, game.pack, first_action=bool(first_action))
    except CombatError as error:
        raise CommandError(str(error)) from None
    if state.setup.rules < 2:
        fight = evolve(fight, least_loss=False)  # rules 1 chose broken cubes one at a time
    events.append(("fight_started", {"dragon": None, "order": list(fight.order),
                                     "samurai": [f.name for f in fight.fighters]}))
    return evolve(state, combat=Combat(fight, hostile=int(hostile) if hostile is not None else None))


def hostile_samurai(game: FujiKoro, state: State, raw: Mapping[str, Any]) -> tuple[State, Combatant]:
    """EN Appendix B scenario 7: a hostile Samurai guards each Temple; damage dealt to it is not repaired."""
    require_scenario(game, state, 7, "A hostile Samurai")
    number = raw.get("hostile")
    if number not in (1, 2, 3):
        raise CommandError(f"the hostile Samurai are numbered 1 to 3, one per Temple (EN Appendix B scenario 7), "
                           f"not {number!r}")
    if number in state.hostiles_out:
        raise CommandError(
            f"hostile Samurai {number} is defeated and removed from the game (EN Appendix B scenario 7)"
        )
    kept = dict(state.hostiles).get(number)
    gear = raw.get("gear")
    if kept is not None and gear is not None and gear != kept:
        raise CommandError(
            f"hostile Samurai {number} keeps the damage of earlier fights, which is not repaired "
            "(EN Appendix B scenario 7); leave out its gear"
        )
    if kept is None and not isinstance(gear, dict):
        raise CommandError(
            f"hostile Samurai {number} needs its gear for the first fight (EN Appendix B scenario 7)"
        )
    data = {**raw, "name": f"Hostile Samurai {number}", "gear": kept if kept is not None else gear}
    data.pop("hostile", None)
    try:
        return state, combatant_from_json(data, game.pack)
    except CombatError as error:
        raise CommandError(str(error)) from None


def fight_roll(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """Whoever acts next rolls: typed dice or the app's seeded roll; the dragon's roll hits helmets (EN p.10-11)."""
    combat = active_combat(state)
    fight = combat.fight
    spec = fight_roll_spec(fight, command, game.pack)
    removals, magic = helmet_choices(command)
    if (removals or magic) and spec.who != DRAGON:
        raise CommandError("helmet removals are chosen when the dragon rolls")
    hit = {f.name for f in fight.fighters if f.is_in}
    for name in [*removals, *magic]:
        if name not in hit:
            raise CommandError(f"{name} is not in the fight, so the dragon's roll does not hit their helmet")
    new = play_fight_roll(fight, spec, game.pack, removals=removals, use_magic=magic)
    final_blow = combat.final_blow
    if new.outcome is FightOutcome.DRAGON_DEFEATED and fight.outcome is None:
        final_blow = spec.who.removeprefix("monk:")
    choices = tuple((name, tuple(cells), name in magic) for name, cells in removals.items())
    updated = evolve(
        combat,
        fight=new,
        before_dragon=fight if spec.who == DRAGON else None,
        dragon_dice=spec.rolls[0][1] if spec.who == DRAGON else None,
        helmet_choices=choices if spec.who == DRAGON else (),
        final_blow=final_blow,
    )
    events.append(("fight_rolled", spec.to_json()))
    return after_fight_change(game, state, combat, updated, events)


def fight_helmet(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A player chooses their own helmet removal right after the dragon's roll (EN p.11)."""
    combat = active_combat(state)
    if combat.before_dragon is None or combat.dragon_dice is None:
        raise CommandError("a helmet removal is chosen right after the dragon's roll, before anyone else rolls")
    name = state.players[player_index(state, command)].name
    before = combat.before_dragon
    if not any(f.name == name and f.is_in for f in before.fighters):
        raise CommandError(f"{name} was not hit by the dragon's roll")
    cells = parse_cells(command.get("cells"), "cells")
    magic = bool(command.get("magic", False))
    choices = tuple(c for c in combat.helmet_choices if c[0] != name) + ((name, cells, magic),)
    try:
        new = dragon_roll(
            before,
            combat.dragon_dice,
            game.pack,
            removals={n: c for n, c, _ in choices},
            use_magic=[n for n, _, m in choices if m],
        )
    except CombatError as error:
        raise CommandError(str(error)) from None
    events.append(("fight_helmet", {"player": name, "cells": [list(c) for c in cells], "magic": magic}))
    return after_fight_change(game, state, combat, evolve(combat, fight=new, helmet_choices=choices), events)


def fight_retreat(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A samurai whose own roll just broke their last usable weapon leaves the fight (EN p.11)."""
    return _leave_fight(game, state, command, events, retreat, "fight_retreat", "EN p.11")


def fight_surrender(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A samurai whose own roll just broke their last usable weapon gives up the samurai combat (EN p.12)."""
    return _leave_fight(game, state, command, events, surrender, "fight_surrender", "EN p.12")


def _leave_fight(
    game: FujiKoro,
    state: State,
    command: Command,
    events: Events,
    leave: Callable[[Fight, str, DataPack], Fight],
    kind: str,
    page: str,
) -> State:
    combat = active_combat(state)
    name = state.players[player_index(state, command)].name
    try:
        new = leave(combat.fight, name, game.pack)
    except CombatError as error:
        raise CommandError(str(error) + f" ({page})") from None
    events.append((kind, {"player": name}))
    return after_fight_change(game, state, combat, evolve(combat, fight=new, before_dragon=None), events)


def fight_steal(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The winner of a samurai combat steals one item from the loser's backpack (EN p.12)."""
    combat = state.combat
    if combat is None or combat.fight.dragon is not None or combat.fight.winner is None or combat.cancelled:
        raise CommandError("only the winner of a samurai combat steals an item (EN p.12)")
    if combat.stolen is not None:
        raise CommandError(f"{combat.fight.winner} already stole {combat.stolen}: one item per combat (EN p.12)")
    item = command.get("item")
    if item not in STEAL_ITEMS:
        raise CommandError(f"the winner steals one {', '.join(STEAL_ITEMS)} from the backpack, not {item!r}")
    winner = combat.fight.winner
    loser = next(f.name for f in combat.fight.fighters if f.name != winner)
    state = evolve(state, combat=evolve(combat, stolen=str(item)))
    events.append(("fight_steal", {"winner": winner, "loser": loser, "item": item}))
    if item == "scroll" and scores_vp(state.setup):
        # Stealing a scroll scores as gathering one; the victim keeps their VP (EN p.12).
        index = player_index(state, {"player": winner})
        state = add_vp(game, state, index, game.pack.scoring["scroll"], Category.SCROLLS, events,
                             reason="stolen scroll")
    return state


def fight_cancel(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """The fight is dropped without a result; the dragon's health goes back to full."""
    combat = active_combat(state)
    label = combat.label
    if combat.fight.dragon is not None:
        events.append((Kind.DRAGON_HEALTH, {"dragon": label, "health": combat.max_health,
                                            "max": combat.max_health}))
    events.append(("fight_ended", {"dragon": label, "outcome": "cancelled", "reason": command.get("reason")}))
    return evolve(state, combat=evolve(combat, cancelled=True, before_dragon=None),
                 fight=None if combat.dragon_id else state.fight)


def after_fight_change(game: FujiKoro, state: State, old_combat: Combat, combat: Combat, events: Events) -> State:
    """Carry a fight step into the game: health events, teeth, lives, and the end of the fight."""
    old, new = old_combat.fight, combat.fight
    coop = new.mode is Mode.COOP
    defeated_now = new.outcome is FightOutcome.DRAGON_DEFEATED and old.outcome is None
    if new.dragon is not None and new.health != old.health and new.health > 0:
        events.append((Kind.DRAGON_HEALTH, {"dragon": combat.label, "health": new.health,
                                            "max": combat.max_health}))
        state = scenario_of(state.setup).on_dragon_health(game.pack, state, combat, new.health, events)
    players = list(state.players)
    if not coop:
        for before, after in zip(old.fighters, new.fighters, strict=True):
            # Teeth broken off the dragon during the fight; the defeat's own tooth comes with its VP below.
            delta = after.teeth - before.teeth - (1 if defeated_now and after.is_in else 0)
            if delta:
                i = player_index(state, {"player": after.name})
                players[i] = evolve(players[i], teeth=players[i].teeth + delta)
    pool = new.teeth_pool - old.teeth_pool - (new.dragon.coop_teeth if defeated_now and new.dragon else 0)
    health_track = state.fight
    if combat.dragon_id is not None and not new.is_over:
        health_track = (combat.dragon_id, new.health)
    state = evolve(state, players=tuple(players), group_teeth=state.group_teeth + pool, combat=combat,
                  fight=health_track)
    if state.setup.rules >= 2:
        for before, after in zip(old.fighters, new.fighters, strict=True):
            if before.is_in and after.status is FighterStatus.KNOCKED_OUT:
                state = knocked_out(state, combat, after.name)
    if coop and new.dragon is not None:
        for before, after in zip(old.fighters, new.fighters, strict=True):
            if before.is_in and after.status is FighterStatus.KNOCKED_OUT:
                # Coop: being knocked out by a dragon costs a Life (EN p.15), at once.
                state = life_lost(
                    game, state, {"player": after.name, "reason": f"knocked out by {combat.label}"}, events
                )
                if state.phase is Phase.ENDED:
                    return state
    if new.is_over and not old.is_over:
        state = fight_ended(game, state, combat, events)
    return state


def knocked_out(state: State, combat: Combat, name: str) -> State:
    """A knocked-out samurai lies unconscious until the start of their next turn (EN p.11, p.12)."""
    if all(p.name != name for p in state.players):
        return state  # a hostile Samurai (scenario 7) is no player
    if combat.dragon_attacks and name == state.players[state.current].name:
        return state  # the round's dragon attack came before this player's actions: they resurrect and play
    i = player_index(state, {"player": name})
    return evolve(state, players=set_player(state.players, i, evolve(state.players[i], unconscious=True)))


def after_fight_turn(state: State, combat: Combat) -> State:
    """Whether the fight ended the active player's turn (EN p.11, p.12; a dragon's attack, EN p.15: no)."""
    fight = combat.fight
    if combat.dragon_attacks or combat.cancelled:
        return state
    attacker = fight.fighters[0]
    if fight.attacker_may_continue():
        return state
    if attacker.status is FighterStatus.KNOCKED_OUT:
        reason = f"{attacker.name} was knocked out in their own turn, which ends it (EN p.11, p.12)"
    elif attacker.status is FighterStatus.SURRENDERED:
        reason = f"{attacker.name} surrendered the fight they started, which ends their turn (EN p.11, p.12)"
    else:
        reason = f"{attacker.name}'s fight was not their first action, which ends their turn (EN p.11)"
    return evolve(state, turn_over=reason)


def fight_ended(game: FujiKoro, state: State, combat: Combat, events: Events) -> State:
    """A fight is over (EN p.11-12): the turn, scenario 7's hostile Samurai, the defeat's rewards or the
    dragon healing."""
    fight = combat.fight
    label = combat.label
    payload: dict[str, Any] = {
        "dragon": label if fight.dragon is not None else None,
        "outcome": fight.outcome.value if fight.outcome else None,
        "standing": [f.name for f in fight.fighters if f.is_in],
        "knocked_out": [f.name for f in fight.fighters if f.status is FighterStatus.KNOCKED_OUT],
        "retreated": [f.name for f in fight.fighters if f.status is FighterStatus.RETREATED],
        "attacker_may_continue": fight.attacker_may_continue(),
    }
    if state.setup.rules >= 2:
        state = after_fight_turn(state, combat)
        payload["turn_over"] = state.turn_over
    if fight.dragon is None and combat.hostile is not None:
        number = combat.hostile
        hostile_gear = fight.fighters[1].gear.to_json()
        state = evolve(state, hostiles=tuple(sorted({**dict(state.hostiles), number: hostile_gear}.items())))
        if fight.winner != fight.fighters[1].name:
            state = evolve(state, hostiles_out=(*state.hostiles_out, number))
            state = hostile_defeated(game, state, {}, events)
    if fight.dragon is None:
        loser = next(f.name for f in fight.fighters if f.name != fight.winner)
        payload.update(
            winner=fight.winner,
            loser=loser,
            steal=list(STEAL_ITEMS),
            loser_turn_ends=loser == state.players[state.current].name,
        )
        events.append(("fight_ended", payload))
        return state
    dragon = fight.dragon
    if combat.monk:
        return monk_fight_ended(game, state, combat, payload, events)
    if fight.outcome is FightOutcome.DRAGON_DEFEATED:
        names = payload["standing"]
        payload["final_blow"] = combat.final_blow
        if combat.dragon_id is not None:
            command = {"dragon": combat.dragon_id, "players": names, "final_blow": combat.final_blow}
            state = dragon_defeated(game, state, command, events)
        else:
            # Typed stats: the same rewards, without a figure to remove or keep as a trophy.
            events.append((Kind.DRAGON_HEALTH, {"dragon": label, "health": 0, "max": combat.max_health}))
            if state.setup.mode is Mode.COOP:
                state = evolve(state, group_teeth=state.group_teeth + dragon.coop_teeth)
            indices = [player_index(state, {"player": name}) for name in names]
            state = reward_fighters(game, state, indices, dragon.vp, events)
    else:
        # Every samurai is out: the dragon heals fully; permanent damage tokens stay (EN p.11).
        events.append(
            (Kind.DRAGON_HEALTH, {"dragon": label, "health": combat.max_health, "max": combat.max_health})
        )
        state = evolve(state, fight=None if combat.dragon_id else state.fight)
    events.append(("fight_ended", payload))
    return state


def monk_fight_ended(game: FujiKoro, state: State, combat: Combat, payload: dict[str, Any], events: Events) -> State:
    """EN Appendix B scenario 4: a conquered Monk joins the player's board; a Monk's win costs 5 VP."""
    fight = combat.fight
    if fight.outcome is FightOutcome.DRAGON_DEFEATED:
        events.append(("monk_conquered", {"players": payload["standing"],
                                          "rule": "the Monk goes on the Player Board (EN Appendix B scenario 4)"}))
    else:
        events.append((Kind.DRAGON_HEALTH, {"dragon": "Monk", "health": combat.max_health,
                                            "max": combat.max_health}))
        for name in payload["knocked_out"]:
            state = monk_defeat(game, state, {"player": name}, events)
    events.append(("fight_ended", payload))
    return state


def hostile_defeated(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """EN Appendix B scenario 7: one more of the 3 hostile Samurai is defeated."""
    require_scenario(game, state, 7, "Defeating a hostile samurai")
    if state.hostile_defeated >= 3:
        raise CommandError("all 3 hostile samurai are already defeated")
    events.append(("hostile_defeated", {"count": state.hostile_defeated + 1}))
    return evolve(state, hostile_defeated=state.hostile_defeated + 1)


def fight_line(line_of: Callable[[FujiKoro, State, Command], str | None]) -> Describer:
    """A fight command's log line; one that cannot be said now (no fight, a bad command) is its type."""

    def describe(game: FujiKoro, state: State, command: Command, who: str) -> str:
        try:
            line = line_of(game, state, command)
        except (CommandError, CombatError, KeyError):
            line = None
        return line if line is not None else str(command.get("type")).replace("_", " ").capitalize()

    return describe


@fight_line
def say_fight_start(game: FujiKoro, state: State, command: Command) -> str | None:
    raw = command.get("samurai")
    seats = {p.name: i for i, p in enumerate(state.players)}
    names = [str(s.get("player")) for s in raw if isinstance(s, dict)] if isinstance(raw, list) else []
    # The attacker (whose turn it is) first, then the joiners from their left, as in the fight.
    names.sort(key=lambda n: (seats.get(n, 0) - state.current) % len(state.players))
    stats, dragon_id = dragon_stats(game, state, command.get("dragon"))
    who = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]
    key = "{names} defends against {dragon} (health {health})" if command.get("dragon_attacks") \
        else "{names} fights {dragon} (health {health})"
    if len(names) > 1:
        key = "{names} defend against {dragon} (health {health})" if command.get("dragon_attacks") \
            else "{names} fight {dragon} (health {health})"
    return say(key, names=who, dragon=dragon_id or stats.name, health=stats.health)


@fight_line
def say_samurai_fight_start(game: FujiKoro, state: State, command: Command) -> str | None:
    a, d = command.get("attacker"), command.get("defender")
    a_name = a.get("player") if isinstance(a, dict) else a
    d_name = d.get("player") if isinstance(d, dict) else d
    if d_name is None and isinstance(d, dict) and "hostile" in d:
        d_name = f"hostile Samurai {d['hostile']}"
    return say("{attacker} attacks {defender} (samurai combat)", attacker=str(a_name), defender=str(d_name))


@fight_line
def say_fight_roll(game: FujiKoro, state: State, command: Command) -> str | None:
    combat = state.combat
    if combat is None:
        return None
    return describe_fight_roll(combat.fight, fight_roll_spec(combat.fight, command, game.pack))


@fight_line
def say_fight_helmet(game: FujiKoro, state: State, command: Command) -> str | None:
    combat = state.combat
    if combat is None or combat.before_dragon is None:
        return None
    name = str(command.get("player"))
    helmet = combat.before_dragon.fighter(name).gear.cubes("helmet")
    cells = parse_cells(command.get("cells"), "cells")
    return say("{name} chooses the helmet removal: {removal}", name=name,
               removal=cube_counts(helmet, cells, bool(command.get("magic"))))


@fight_line
def say_fight_retreat(game: FujiKoro, state: State, command: Command) -> str | None:
    return say("{name} retreats from the fight", name=str(command.get("player")))


@fight_line
def say_fight_surrender(game: FujiKoro, state: State, command: Command) -> str | None:
    return say("{name} surrenders", name=str(command.get("player")))


@fight_line
def say_fight_steal(game: FujiKoro, state: State, command: Command) -> str | None:
    combat = state.combat
    if combat is None:
        return None
    winner = combat.fight.winner
    loser = next((f.name for f in combat.fight.fighters if f.name != winner), "?")
    return say("{winner} steals a {item} from {name}", winner=str(winner), item=str(command.get("item")), name=loser)


@fight_line
def say_fight_cancel(game: FujiKoro, state: State, command: Command) -> str | None:
    if command.get("reason"):
        return say("Abandon the fight ({reason})", reason=str(command["reason"]))
    return say("Abandon the fight")
