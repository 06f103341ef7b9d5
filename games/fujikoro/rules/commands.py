"""The command registry: each command type declared once, in :data:`COMMANDS`.

A :class:`CommandSpec` says everything the game does by command type: how it applies (a handler in the
module that owns the rule), how the log says it, whether the player whose turn it is is its default
"player", whether a fight in play blocks it, whether it may come while the game is being set up,
whether it scores VP by itself, how it is prepared before it is logged (defaults, the seed of a roll the
app makes) and whether it is a roll the app made (an undo barrier). Nothing else dispatches on a
command's type. :func:`consequences` says what a command set off beyond itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.engine import Command, CommandError
from companion.events import Kind
from games.fujikoro.rules import coop, countdown, dragons, ending, fights, rolls, scoring, turns
from games.fujikoro.rules.rolls import roll_of
from games.fujikoro.rules.scenarios import monks
from games.fujikoro.rules.state import Describer, Events, Exit, State

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command type: how it applies and is said, and what the session and the checks need to know."""

    apply: Callable[[FujiKoro, State, Command, Events], State]
    describe: Describer
    #: The player whose turn it is is its "player" unless the command names one.
    acts_for_current: bool = False
    #: Refused while a fight is being played through the fight commands (EN p.10-12).
    blocked_in_fight: bool = False
    #: Accepted while the game is still being set up.
    in_setup: bool = False
    #: Gives VP by itself, and its own log line says how many.
    scores: bool = False
    #: Fills in what the log keeps before it is applied: (state, the command as it will be logged, new_seed).
    prepare: Callable[[State, dict[str, Any], Callable[[], int]], None] | None = None
    #: Whether this command is a roll the app made (an undo barrier).
    automated: Callable[[Command], bool] | None = None


def say_vp(game: FujiKoro, state: State, command: Command, who: str) -> str:
    reason = command.get("reason") or command.get("category") or "correction"
    points = command.get("points")
    sign = "+" if isinstance(points, int) and points >= 0 else ""
    return f"{who} {sign}{points} VP ({reason})"


def say_action(game: FujiKoro, state: State, command: Command, who: str) -> str:
    level = command.get("level")
    return f"{who}: {command.get('action')}" + (f" a Level {roman(level)} tile" if isinstance(level, int) else "")


def say_dragon_defeated(game: FujiKoro, state: State, command: Command, who: str) -> str:
    players = command.get("players") or []
    names = " and ".join(str(p) for p in players) if isinstance(players, list) else str(players)
    verb = "defeats" if isinstance(players, list) and len(players) == 1 else "defeat"
    return f"{names} {verb} {command.get('dragon')}"


def say_roll(game: FujiKoro, state: State, command: Command, who: str) -> str:
    purpose = command.get("purpose") or ("The app" if command.get("source", "app") == "app" else "Hand")
    try:
        dice = roll_of(game.pack, command)
    except CommandError:
        return f"{purpose} rolls"
    return f"{purpose} rolls {dice.describe()}"


def say_lava_hit(game: FujiKoro, state: State, command: Command, who: str) -> str:
    outcome = command.get("outcome")
    if outcome == "perished":
        return f"{who} perishes in the lava and comes back in a Temple"
    return f"{who} stood on erupting lava: sandals take {10 if outcome == 'moved_twice' else 5} damage"


def with_reason(text: str) -> Describer:
    return lambda game, state, command, who: text + (f" ({command['reason']})" if command.get("reason") else "")


def roman(level: object) -> str:
    return {1: "I", 2: "II", 3: "III"}.get(level, str(level)) if isinstance(level, int) else str(level)


COMMANDS: dict[str, CommandSpec] = {
    "start": CommandSpec(turns.start, lambda g, s, c, who: "Start the game", in_setup=True),
    "vp": CommandSpec(scoring.vp, say_vp, acts_for_current=True, scores=True),
    "action": CommandSpec(turns.action, say_action, acts_for_current=True),
    "explore": CommandSpec(turns.explore, lambda g, s, c, who:
                           f"{who}: explore a Level {roman(c.get('level'))} tile", acts_for_current=True, scores=True),
    "scroll": CommandSpec(scoring.scroll, lambda g, s, c, who:
                          f"{who} gathers a Sacred Scroll (+{g.pack.scoring['scroll']} VP)", acts_for_current=True,
                          scores=True),
    "gear_card_vp": CommandSpec(scoring.gear_card_vp, lambda g, s, c, who:
                                f"{who} uses the weapon card bonus (+{g.pack.scoring.get('weapon_card_vp', 1)} VP)",
                                acts_for_current=True, scores=True),
    "end_turn": CommandSpec(turns.end_turn, lambda g, s, c, who:
                            f"End {s.players[s.current].name}'s turn (round {s.round})", blocked_in_fight=True),
    "dragon_revealed": CommandSpec(dragons.dragon_revealed, lambda g, s, c, who:
                                   f"Dragon {c.get('dragon')} revealed"),
    "dragon_defeated": CommandSpec(dragons.record_dragon_defeated, say_dragon_defeated, blocked_in_fight=True),
    "dragon_health": CommandSpec(dragons.dragon_health, lambda g, s, c, who:
                                 f"{c.get('dragon')} health {c.get('health', 'full')}", blocked_in_fight=True),
    "roll": CommandSpec(rolls.record_roll, say_roll, prepare=rolls.prepare_roll, automated=rolls.is_app_roll),
    "escape": CommandSpec(turns.escape, lambda g, s, c, who:
                          f"{who} escapes by {'the central Rope' if c.get('via') == Exit.ROPE else 'the Secret Exit'}",
                          acts_for_current=True, blocked_in_fight=True),
    "shogun_bonus": CommandSpec(scoring.shogun_bonus, lambda g, s, c, who:
                                f"{who} claims the Shogun bonus for {c.get('track')}", acts_for_current=True),
    "magical_gear": CommandSpec(turns.magical_gear, lambda g, s, c, who:
                                f"{who} {'completes' if c.get('completed', True) else 'loses'} magical {c.get('gear')}",
                                acts_for_current=True),
    "life_lost": CommandSpec(coop.life_lost, lambda g, s, c, who:
                             with_reason(f"{who} loses a Life")(g, s, c, who), acts_for_current=True),
    "status_tokens": CommandSpec(turns.status_tokens, lambda g, s, c, who:
                                 f"{who} status tokens {int(c.get('delta', 0)):+d}", acts_for_current=True),
    "monk_defeat": CommandSpec(scoring.monk_defeat, lambda g, s, c, who:
                               f"A Monk defeats {who} ({monks().monk_defeat_vp(g.pack)} VP)",
                               acts_for_current=True),
    "hostile_defeated": CommandSpec(fights.hostile_defeated, lambda g, s, c, who: "A hostile Samurai is defeated"),
    "tamed": CommandSpec(dragons.tamed, lambda g, s, c, who: "The Legendary Dragon is tamed on the Central Tile"),
    "end_game": CommandSpec(ending.end_game, with_reason("End the game"), blocked_in_fight=True),
    "lava_hit": CommandSpec(countdown.lava_hit, say_lava_hit),
    "fight_start": CommandSpec(fights.fight_start, fights.say_fight_start, blocked_in_fight=True),
    "samurai_fight_start": CommandSpec(fights.samurai_fight_start, fights.say_samurai_fight_start,
                                       blocked_in_fight=True),
    "fight_roll": CommandSpec(fights.fight_roll, fights.say_fight_roll, prepare=rolls.prepare_fight_roll,
                              automated=rolls.is_app_fight_roll),
    "fight_helmet": CommandSpec(fights.fight_helmet, fights.say_fight_helmet),
    "fight_retreat": CommandSpec(fights.fight_retreat, fights.say_fight_retreat),
    "fight_surrender": CommandSpec(fights.fight_surrender, fights.say_fight_surrender),
    "fight_steal": CommandSpec(fights.fight_steal, fights.say_fight_steal),
    "fight_cancel": CommandSpec(fights.fight_cancel, fights.say_fight_cancel),
}


def consequences(events: tuple[tuple[str, Mapping[str, Any]], ...], *, own_vp: bool = False) -> list[str]:
    """What a command set off beyond itself, as the table would say it (EN p.13-15): undo takes it back too."""
    out: list[str] = []
    for kind, payload in events:
        if kind == Kind.VP_CHANGED and not own_vp:
            points = int(payload.get("points", 0))
            out.append(f"{payload.get('player')} {points:+d} VP")
            continue
        if kind == "fight_ended":
            out += [f"{name} is knocked out" for name in payload.get("knocked_out") or []]
        if kind == Kind.FINAL_CHAPTER:
            out.append("the Lava Phase begins" if payload.get("phase") == "lava" else "the final chapter begins")
        elif kind == Kind.COUNTDOWN_ADVANCED:
            out.append(f"the Countdown Token moves to space {payload.get('position')}")
            lava = payload.get("lava") or []
            if lava:
                out.append(f"lava erupts on {', '.join(str(n) for n in lava)}")
        elif kind == Kind.ROPE_APPEARED:
            out.append("the Rope appears")
        elif kind == "lava_phase_ended":
            out.append("the Lava Phase ends")
        elif kind == "dragon_defeated":
            out.append(f"{payload.get('dragon')} is defeated")
        elif kind == "life_lost":
            out.append(f"{payload.get('player')} loses a Life")
        elif kind == "fight_ended" and payload.get("turn_over"):
            out.append("the fight ends the turn")
        elif kind == Kind.GAME_ENDED:
            out.append("the game ends with the final scoring")
    return out
