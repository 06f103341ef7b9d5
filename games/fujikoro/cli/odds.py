"""``fujikoro odds [FILE|-]``: the exact odds of a dragon fight, one JSON object in and out.

Policy (the same for the exact chain and the Monte-Carlo check, and reported as "policy"): every
samurai rolls every die they may, helmets take the suggested removal, the broken icons of a roll take
the cubes that lose the fewest in all (least loss, the default of a fight too), nobody retreats.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ui.cli import CliError

#: What ``fujikoro odds --help`` shows after its options: the input, by example.
INPUT_HELP = """input: one JSON object, e.g.
  {"dragon": "green_1", "mode": "competitive",
   "samurai": [{"name": "Ann", "gear": {"helmet": ["MMT"], "weapon_left": ["WWM"]}}]}
fields: dragon (a figure id such as green_1, or {"health", "initiative", "dice", "vp"?, "legendary"?,
"coop_teeth"?}); samurai (a list, the attacker first: name, gear as `fujikoro gear inspect` reads it, and
heroic_monk (wood | metal | tooth | none), monk_from, blueprints); mode (competitive | coop); players (for a
figure's Health); dragon_attacks (true: the dragon started the fight); damage_tokens; dice (a die kind ->
its six faces, to try other dice). Other fields are refused.
"""

#: The request's own fields (another is refused, not ignored; a samurai's: combat.SAMURAI_FIELDS).
REQUEST_FIELDS = frozenset({"dragon", "samurai", "mode", "players", "dragon_attacks", "damage_tokens", "dice"})


def register(subparsers: Any) -> None:
    odds = subparsers.add_parser(
        "odds",
        help="exact odds of a dragon fight (JSON in, JSON out)",
        description=(__doc__ or "").split("\n\n", 1)[1],
        epilog=INPUT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    odds.add_argument("file", nargs="?", default="-", help="a JSON file, or - for standard input (default)")
    odds.add_argument("--monte-carlo", type=int, metavar="N", default=0,
                      help="also simulate N fights with the full rules and report both")
    odds.add_argument("--seed", type=int, default=0, help="seed for --monte-carlo")
    odds.set_defaults(handler=run_odds)


def fight_from_request(data: Any, pack: Any) -> tuple[Any, Any]:
    """The fight described by an odds request, and the dice faces to use."""
    from companion.fields import unknown_field
    from games.fujikoro.combat import (
        SAMURAI_FIELDS,
        CombatError,
        DragonStats,
        Mode,
        combatant_from_json,
        start_dragon_fight,
    )
    from games.fujikoro.pack import DataPackError, parse_faces
    from games.fujikoro.pack import Die as DieSpec

    if not isinstance(data, dict):
        raise CliError("expected a JSON object with mode, dragon and samurai")
    unknown = unknown_field(data, REQUEST_FIELDS, note="see fujikoro odds --help")
    if unknown:
        raise CliError(unknown)
    try:
        mode = Mode(data.get("mode", "competitive"))
    except ValueError:
        raise CliError(f"mode must be competitive or coop, not {data.get('mode')!r}") from None
    dragon = data.get("dragon")
    if isinstance(dragon, str):
        if dragon not in pack.dragons:
            raise CliError(f"unknown dragon figure {dragon!r}; known: {', '.join(pack.dragons)}")
        players = data.get("players", len(data.get("samurai", [])) or 1)
        stats = DragonStats.from_figure(pack.dragons[dragon], pack, mode=mode, players=int(players))
    elif isinstance(dragon, dict):
        def number(key: str, default: int | None = None) -> int:
            value = dragon.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise CliError(f"dragon.{key} must be a whole number of at least 0, got {value!r}")
            return value

        stats = DragonStats(
            name=str(dragon.get("name", "dragon")), colour=dragon.get("colour"),
            initiative=number("initiative"), health=number("health"), dice=number("dice"),
            legendary=bool(dragon.get("legendary", False)), vp=number("vp", 0 if mode is Mode.COOP else 7),
            coop_teeth=number("coop_teeth", 0),
        )
        if stats.health < 1:
            raise CliError("dragon.health must be at least 1")
    else:
        raise CliError("dragon must be a figure id such as \"green_1\" or an object with health, initiative, dice")
    samurai = data.get("samurai")
    if not isinstance(samurai, list) or not samurai:
        raise CliError("samurai must be a non-empty list; the first one is the attacker")
    dice = dict(pack.dice)
    overrides = data.get("dice", {})
    if not isinstance(overrides, dict):
        raise CliError("dice must map a die kind to its six faces")
    for kind, faces in overrides.items():
        if kind not in dice:
            raise CliError(f"unknown die {kind!r}; known dice: {', '.join(dice)}")
        try:
            dice[kind] = DieSpec(kind, dice[kind].colour, dice[kind].in_box, parse_faces(f"dice.{kind}", faces))
        except DataPackError as error:
            raise CliError(str(error)) from None
    for entry in samurai:
        extra = unknown_field(entry, SAMURAI_FIELDS, what=f"samurai {entry.get('name', '?')}", has="a samurai has",
                              note="helmet, weapons and sandals go under gear") if isinstance(entry, dict) else None
        if extra:
            raise CliError(extra)
    try:
        fighters = [combatant_from_json(s if isinstance(s, dict) else {}, pack) for s in samurai]
        fight = start_dragon_fight(stats, fighters, pack, mode=mode,
                                   dragon_attacks=bool(data.get("dragon_attacks", False)),
                                   damage_tokens=int(data.get("damage_tokens", 0)))
    except CombatError as error:
        raise CliError(str(error)) from None
    return fight, dice


def run_odds(args: argparse.Namespace) -> int:
    from games.fujikoro.cli.data import current_pack
    from games.fujikoro.odds import OddsError, exact_odds, monte_carlo
    from ui.cli import read_json_input

    pack = current_pack()
    fight, dice = fight_from_request(read_json_input(args.file), pack)
    try:
        result = exact_odds(fight, pack, dice=dice)
        out: dict[str, Any] = {"order": list(fight.order), **result.to_json()}
        if args.monte_carlo > 0:
            out["monte_carlo"] = monte_carlo(fight, pack, fights=args.monte_carlo, seed=args.seed, dice=dice).to_json()
    except OddsError as error:
        raise CliError(str(error)) from None
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0
