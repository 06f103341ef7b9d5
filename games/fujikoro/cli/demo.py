"""``fujikoro demo``: the rules core at work on a scripted evening, headless.

Walks through a 3-player game kept by the session (VP, the final chapter, the countdown and its
lava eruptions on the emulated table LEDs), the gear check, and the rulebook's dragon fight with its
exact odds before and after every roll. Everything shown is computed, nothing is canned.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ui.cli import CliError


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser("demo", help="a scripted walk through the rules core (no screen needed)")
    demo.add_argument("--no-table", action="store_true", help="do not start the emulated table LEDs")
    demo.add_argument("--seed", type=int, default=2019, help="seed for the app's dice (default 2019)")
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    out = sys.stdout
    from games.fujikoro.cli.data import current_pack

    pack = current_pack()
    table = None if args.no_table else _start_table(out)
    try:
        _header(out, "1. The game-data pack")
        _data_pack(out, pack)
        _header(out, "2. A 3-player game: VP until the final chapter, then the countdown")
        _game(out, pack, table)
        _header(out, "3. Gear: the rulebook's weapons and helmets")
        _gear(out, pack)
        _header(out, "4. Combat example 2: Takeko and Mitsuhide against the green dragon")
        _fight(out, pack, args.seed)
    finally:
        if table is not None:
            table.close()
    out.write("\nThat is the rules core. `fujikoro` starts the tablet app; `fujikoro --help` lists the rest.\n")
    return 0


def _header(out: TextIO, text: str) -> None:
    out.write(f"\n== {text}\n")


def _start_table(out: TextIO) -> Any:
    try:
        from firmware_bridge.table import start_emulated_table
        from games.fujikoro.pack import default_pack
        from games.fujikoro.table import led_script

        pack = default_pack()
        table = start_emulated_table(script=led_script(pack), dice=pack.dice)
    except Exception as error:  # the demo goes on without lights, and says why
        out.write(f"(table LEDs not shown: the emulated table did not start: {error})\n")
        return None
    out.write("Table: the emulator runs the real firmware on a pseudo-terminal; its LEDs are shown below.\n")
    return table


def _data_pack(out: TextIO, pack: Any) -> None:
    from games.fujikoro.pack import iter_leaves

    leaves = list(iter_leaves(pack.raw))
    counts: dict[str, int] = {}
    for _, leaf in leaves:
        key = "yours" if leaf.get("user") else leaf["status"]
        counts[key] = counts.get(key, 0) + 1
    out.write(f"Data pack {pack.version}: {len(leaves)} values - "
              + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + ".\n")
    green = pack.dragons["green_1"]
    out.write(f"The green dragon of the rulebook: health {green.health}, initiative {green.initiative}, "
              f"{pack.colours['green'].vp} VP (confirmed). Assumed values are yours to correct:\n"
              "  fujikoro data show --assumed ; fujikoro data set dragons.green_2.health 11\n")


def _game(out: TextIO, pack: Any, table: Any) -> None:
    from companion.engine import Session
    from companion.events import Kind
    from games.fujikoro.rules import FujiKoro

    config = {"players": [{"name": "Aiko", "colour": "red"}, {"name": "Botan", "colour": "blue"},
                          {"name": "Chiyo", "colour": "green"}]}
    session = Session(FujiKoro(pack), config, new_seed=lambda: 7)

    def do(command: dict[str, Any], quiet: bool = False) -> None:
        applied = session.do(command)
        if not quiet:
            out.write(f"  {applied.record.description}\n")
        for event in applied.events:
            if table is not None:
                table.handle_event(event, wait=1.0)
            if event.kind == Kind.FINAL_CHAPTER:
                out.write(f"  >> The final chapter begins: {event.payload.get('player')} reached the threshold.\n")
            elif event.kind == Kind.COUNTDOWN_ADVANCED:
                payload = event.payload
                lava = payload.get("lava") or []
                what = f"lava erupts on spaces numbered {', '.join(map(str, lava))}" if lava else payload.get("event")
                out.write(f"  >> Countdown space {payload.get('position')}: {what}\n")
                if lava and table is not None:
                    out.write(_indent(table.picture_text(colour=False)))
            elif event.kind == Kind.GAME_ENDED:
                ranking = event.payload.get("ranking", [])
                out.write("  >> The game ends. Ranking: " + _ranking(ranking) + "\n")

    # Rounds of play with VP from the rulebook's categories, until Chiyo reaches 30.
    script = [("Aiko", 3, "scroll"), ("Botan", 2, "explore_level_3"), ("Chiyo", 7, "dragons")] * 4
    for name, points, reason in script:
        do({"type": "vp", "player": name, "points": points, "reason": reason}, quiet=True)
        do({"type": "end_turn"}, quiet=True)
    state = session.state_json()
    out.write(f"  After 4 rounds: {state['scores']}\n")
    do({"type": "vp", "player": "Aiko", "points": 3, "reason": "scroll"})
    do({"type": "end_turn"})
    do({"type": "vp", "player": "Botan", "points": 1, "reason": "explore_level_2"})
    do({"type": "end_turn"})
    do({"type": "vp", "player": "Chiyo", "points": 3, "reason": "scroll"})
    guard = 0
    while not session.is_over and guard < 40:
        do({"type": "end_turn"}, quiet=True)
        guard += 1
    if session.undo_description():
        out.write(f"  Undo is always one tap away: \"Undo: {session.undo_description()}\"\n")


def _ranking(ranking: Any) -> str:
    parts = []
    for i, entry in enumerate(ranking, 1):
        if isinstance(entry, dict):
            parts.append(f"{i}. {entry.get('name', entry.get('player'))} {entry.get('vp', entry.get('score', ''))}")
        else:
            parts.append(f"{i}. {entry}")
    return "; ".join(parts)


def _indent(text: str) -> str:
    return "".join(f"     {line}\n" for line in text.rstrip("\n").splitlines())


def _gear(out: TextIO, pack: Any) -> None:
    from games.fujikoro.gear import gear_from_json, inspect

    examples = [
        ("A helmet of 2 metal and 4 wood (EN p.7)", {"helmet": ["MWW.", "WMW."]}),
        ("Two-handed, 12 cubes, 3 wood (EN p.7)", {"monks": ["weapon"], "weapon_left": ["WMMMM", "W...M", "W...."],
                                                    "weapon_right": ["MMM", "M..", "..."]}),
        ("9 cubes in the left grid (EN p.7)", {"monks": ["weapon"], "weapon_left": ["WWMMM", "M...M", "MM..."]}),
    ]
    for title, data in examples:
        report = inspect(gear_from_json(data, pack), pack)
        hands = {"two": "two-handed", "left": "one-handed (left grid)", "right": "one-handed (right grid)"}
        weapons = ", ".join(f"{hands.get(w.hand, w.hand)} {w.cubes} cubes, length {w.length}"
                            + ("" if w.usable else " (unusable)") for w in report.weapons.weapons) or "no weapon"
        verdict = "legal" if report.legal else "illegal: " + "; ".join(report.problems)
        out.write(f"  {title}: helmet strength {report.helmet_strength}; {weapons}; "
                  f"initiative {report.initiative}; {verdict}\n")


def _fight(out: TextIO, pack: Any, seed: int) -> None:
    from games.fujikoro.combat import DRAGON, Combatant, DragonStats, Mode, roll_for_turn, start_dragon_fight
    from games.fujikoro.gear import gear_from_json
    from games.fujikoro.odds import exact_odds

    takeko = Combatant("Takeko", gear_from_json(
        {"board": "takeko", "helmet": ["MMMM"], "weapon_left": ["WWWMM"], "weapon_right": ["MMM"]}, pack))
    mitsuhide = Combatant("Mitsuhide", gear_from_json(
        {"board": "mitsuhide", "monks": ["weapon", "action"], "helmet": ["MMW", "MW.", "W.."], "magic": ["helmet"],
         "weapon_left": ["WWWMM"], "weapon_right": ["TMM"]}, pack),
        heroic_monk="wood", monk_from="action", blueprints={"helmet": ("MW", "W.")})
    dragon = DragonStats.from_figure(pack.dragons["green_1"], pack, mode=Mode.COMPETITIVE, players=3)
    fight = start_dragon_fight(dragon, [takeko, mitsuhide], pack)
    out.write(f"  {fight.log[0]}\n")
    odds = exact_odds(fight, pack)
    out.write(f"  Odds before the fight: dragon defeated {odds.p_dragon_defeated:.1%}; knocked out "
              + ", ".join(f"{k} {v:.1%}" for k, v in odds.p_knocked_out.items()) + "\n")
    step = 0
    shown = len(fight.log)
    while not fight.is_over and step < 60:
        who = fight.whose_turn()
        fight = roll_for_turn(fight, pack, seed=seed * 100 + step)
        step += 1
        for line in fight.log[shown:]:
            out.write(f"  {line}\n")
        shown = len(fight.log)
        if not fight.is_over:
            odds = exact_odds(fight, pack)
            roller = "the app, for the dragon" if who == DRAGON else "the app"
            out.write(f"    (rolled by {roller}; now: dragon defeated {odds.p_dragon_defeated:.1%})\n")
    for f in fight.fighters:
        out.write(f"  {f.name}: {f.status.value}, {f.vp} VP, {f.teeth} dragon teeth\n")
    if not fight.is_over:
        raise CliError("the demo fight did not end")
