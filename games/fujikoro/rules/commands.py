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
from companion.text import say
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
    return say("{name} {points} VP ({reason})", name=who, points=f"{sign}{points}", reason=str(reason))


def say_action(game: FujiKoro, state: State, command: Command, who: str) -> str:
    level = command.get("level")
    if isinstance(level, int):
        if command.get("action") == "explore":
            return say_explore(who, level)
        return say("{name}: {action} a Level {level} tile", name=who, action=str(command.get("action")),
                   level=roman(level))
    return say("{name}: {action}", name=who, action=str(command.get("action")))


def say_explore(who: str, level: object) -> str:
    return say("{name}: explore a Level {level} tile", name=who, level=roman(level))


def say_dragon_defeated(game: FujiKoro, state: State, command: Command, who: str) -> str:
    players = command.get("players") or []
    names = " and ".join(str(p) for p in players) if isinstance(players, list) else str(players)
    if isinstance(players, list) and len(players) == 1:
        return say("{names} defeats {dragon}", names=names, dragon=str(command.get("dragon")))
    return say("{names} defeat {dragon}", names=names, dragon=str(command.get("dragon")))


def say_roll(game: FujiKoro, state: State, command: Command, who: str) -> str:
    purpose = command.get("purpose") or ("The app" if command.get("source", "app") == "app" else "Hand")
    try:
        dice = roll_of(game.pack, command)
    except CommandError:
        return say("{name} rolls", name=str(purpose))
    return say("{name} rolls {dice}", name=str(purpose), dice=dice.describe())


def say_lava_hit(game: FujiKoro, state: State, command: Command, who: str) -> str:
    outcome = command.get("outcome")
    if outcome == "perished":
        return say("{name} perishes in the lava and comes back in a Temple", name=who)
    return say("{name} stood on erupting lava: sandals take {n} damage", name=who,
               n=10 if outcome == "moved_twice" else 5)


def with_reason(key: str) -> Describer:
    """A line that names the command's reason when it has one: ``key`` with ``{name}`` for the player."""
    def describe(game: FujiKoro, state: State, command: Command, who: str) -> str:
        if command.get("reason"):
            return say(key + " ({reason})", name=who, reason=str(command["reason"]))
        return say(key, name=who)

    return describe


def roman(level: object) -> str:
    return {1: "I", 2: "II", 3: "III"}.get(level, str(level)) if isinstance(level, int) else str(level)


COMMANDS: dict[str, CommandSpec] = {
    "start": CommandSpec(turns.start, lambda g, s, c, who: say("Start the game"), in_setup=True),
    "vp": CommandSpec(scoring.vp, say_vp, acts_for_current=True, scores=True),
    "action": CommandSpec(turns.action, say_action, acts_for_current=True),
    "explore": CommandSpec(turns.explore, lambda g, s, c, who: say_explore(who, c.get("level")),
                           acts_for_current=True, scores=True),
    "scroll": CommandSpec(scoring.scroll, lambda g, s, c, who:
                          say("{name} gathers a Sacred Scroll (+{vp} VP)", name=who, vp=g.pack.scoring["scroll"]),
                          acts_for_current=True, scores=True),
    "gear_card_vp": CommandSpec(scoring.gear_card_vp, lambda g, s, c, who:
                                say("{name} uses the weapon card bonus (+{vp} VP)", name=who,
                                    vp=g.pack.scoring.get("weapon_card_vp", 1)),
                                acts_for_current=True, scores=True),
    "end_turn": CommandSpec(turns.end_turn, lambda g, s, c, who:
                            say("End {name}'s turn (round {round})", name=s.players[s.current].name, round=s.round),
                            blocked_in_fight=True),
    "dragon_revealed": CommandSpec(dragons.dragon_revealed, lambda g, s, c, who:
                                   say("Dragon {dragon} revealed", dragon=str(c.get("dragon")))),
    "dragon_defeated": CommandSpec(dragons.record_dragon_defeated, say_dragon_defeated, blocked_in_fight=True),
    "dragon_health": CommandSpec(dragons.dragon_health, lambda g, s, c, who:
                                 f"{c.get('dragon')} health {c.get('health', 'full')}", blocked_in_fight=True),
    "roll": CommandSpec(rolls.record_roll, say_roll, prepare=rolls.prepare_roll, automated=rolls.is_app_roll),
    "escape": CommandSpec(turns.escape, lambda g, s, c, who:
                          say("{name} escapes by the central Rope" if c.get("via") == Exit.ROPE
                              else "{name} escapes by the Secret Exit", name=who),
                          acts_for_current=True, blocked_in_fight=True),
    "shogun_bonus": CommandSpec(scoring.shogun_bonus, lambda g, s, c, who:
                                say("{name} claims the Shogun bonus for {track}", name=who, track=str(c.get("track"))),
                                acts_for_current=True),
    "magical_gear": CommandSpec(turns.magical_gear, lambda g, s, c, who:
                                say("{name} completes magical {gear}" if c.get("completed", True)
                                    else "{name} loses magical {gear}", name=who, gear=str(c.get("gear"))),
                                acts_for_current=True),
    "life_lost": CommandSpec(coop.life_lost, with_reason("{name} loses a Life"), acts_for_current=True),
    "status_tokens": CommandSpec(turns.status_tokens, lambda g, s, c, who:
                                 say("{name} status tokens {delta}", name=who, delta=f"{int(c.get('delta', 0)):+d}"),
                                 acts_for_current=True),
    "monk_defeat": CommandSpec(scoring.monk_defeat, lambda g, s, c, who:
                               say("A Monk defeats {name} ({vp} VP)", name=who, vp=monks().monk_defeat_vp(g.pack)),
                               acts_for_current=True),
    "hostile_defeated": CommandSpec(fights.hostile_defeated, lambda g, s, c, who:
                                    say("A hostile Samurai is defeated")),
    "tamed": CommandSpec(dragons.tamed, lambda g, s, c, who: say("The Legendary Dragon is tamed on the Central Tile")),
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
            out.append(say("{name} {points} VP", name=str(payload.get("player")), points=f"{points:+d}"))
            continue
        if kind == "fight_ended":
            out += [say("{name} is knocked out", name=str(name)) for name in payload.get("knocked_out") or []]
        if kind == Kind.FINAL_CHAPTER:
            out.append(say("the Lava Phase begins" if payload.get("phase") == "lava" else "the final chapter begins"))
        elif kind == Kind.COUNTDOWN_ADVANCED:
            out.append(say("the Countdown Token moves to space {n}", n=payload.get("position")))
            lava = payload.get("lava") or []
            if lava:
                out.append(say("lava erupts on {lava}", lava=", ".join(str(n) for n in lava)))
        elif kind == Kind.ROPE_APPEARED:
            out.append(say("the Rope appears"))
        elif kind == "lava_phase_ended":
            out.append(say("the Lava Phase ends"))
        elif kind == "dragon_defeated":
            out.append(say("{dragon} is defeated", dragon=str(payload.get("dragon"))))
        elif kind == "life_lost":
            out.append(say("{name} loses a Life", name=str(payload.get("player"))))
        elif kind == "fight_ended" and payload.get("turn_over"):
            out.append(say("the fight ends the turn"))
        elif kind == Kind.GAME_ENDED:
            out.append(say("the game ends with the final scoring"))
    return out


def joined(lines: list[str]) -> str:
    """Lines said one after another ("a; b; c"), as one message."""
    if len(lines) == 1:
        return lines[0]
    return say("{first}; {rest}", first=lines[0], rest=joined(lines[1:]))
