"""``fujikoro combat``: a fight at the table without the tablet, as questions and answers in a terminal.

It asks for the dragon (a figure from the data pack or typed stats), the samurai with their gear
(gear-inspect rows or a JSON file) and heroic monks, shows the initiative order and the exact odds
before the fight and after every roll, rolls for the dragon (seeded; the seed is shown), takes each
samurai's physical dice in a few keystrokes (Enter lets the app roll) and offers the helmet removals.
Bad input is asked again with one sentence; end of input or Ctrl-C stops cleanly.

With ``--db PATH`` the fight is recorded into that game through the session's fight commands (the
samurai are the game's players); without it nothing is stored. :func:`walkthrough` takes the input and
output streams, so tests drive it with a script.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from ui.cli import CliError

T = TypeVar("T")

GEAR_HELP = (
    "rows like: board=takeko helmet=MMMM weapon_left=WWWMM weapon_right=MMM magic=helmet monks=weapon,action "
    "blueprint_helmet=MW,W.  (grid rows separated by commas), or a JSON file"
)
KIND_LETTERS = {"w": "wood", "m": "metal", "t": "tooth", "x": "magic"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "combat",
        help="play a fight in the terminal: the app rolls for the dragon and shows the odds",
        description=(__doc__ or "").split("\n\n", 1)[1].split("\n\n", 1)[0],
    )
    parser.add_argument("--setup", type=Path, default=None, metavar="FILE",
                        help="skip the questions: the fight as a `fujikoro odds` request (JSON)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the app's rolls (default: random)")
    parser.add_argument("--db", type=Path, default=None, metavar="PATH",
                        help="record the fight into this game (its players are the samurai)")
    parser.add_argument("--dragon-dice", choices=("app", "hand"), default="app",
                        help="who rolls for the dragon: the app (default) or physical dice typed in")
    parser.set_defaults(handler=run_combat)


def run_combat(args: argparse.Namespace) -> int:
    from games.fujikoro.cli.data import current_pack

    setup = None
    if args.setup is not None:
        from ui.cli import read_json_input

        setup = read_json_input(str(args.setup))
    session_file = None
    if args.db is not None:
        session_file = open_game(args.db)
        pack = session_file[1].game.pack
    else:
        pack = current_pack()
    try:
        return walkthrough(sys.stdin, sys.stdout, pack=pack, seed=args.seed, setup=setup, session=session_file,
                           hand_dragon=args.dragon_dice == "hand")
    finally:
        if session_file is not None:
            session_file[0].close()


def open_game(db: Path) -> tuple[Any, Any]:
    """The game file and its replayed session; a file that does not open is one line, exit 2."""
    from companion.engine import ReplayError
    from store.gamelog import StoreError
    from store.sessions import factories, open_session

    if not db.exists():
        raise CliError(f"there is no game file {db}; start one with `fujikoro game new --db {db} --players A,B`")
    try:
        return open_session(db, factories())
    except (StoreError, ReplayError) as error:
        raise CliError(str(error)) from None


# ------------------------------------------------------------------------------------------------
# Input and output


class Console:
    """Questions on one stream, answers from another; an answer read from a script is echoed."""

    def __init__(self, inp: IO[str], out: IO[str]) -> None:
        self.inp = inp
        self.out = out
        self.echo = not _isatty(inp)

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.write(prompt + " ")
        self.out.flush()
        line = self.inp.readline()
        if not line:
            raise EOFError
        if self.echo:
            self.out.write(line if line.endswith("\n") else line + "\n")
        return line.strip()

    def ask_parsed(self, prompt: str, parse: Callable[[str], T]) -> T:
        while True:
            answer = self.ask(prompt)
            try:
                return parse(answer)
            except ValueError as error:  # every input error of the rules subclasses ValueError
                self.say(f"  {_sentence(str(error))} Please try again.")

    def yes(self, prompt: str, default: bool = False) -> bool:
        def parse(text: str) -> bool:
            if not text:
                return default
            if text.lower() in ("y", "yes"):
                return True
            if text.lower() in ("n", "no"):
                return False
            raise ValueError("answer y or n")

        return self.ask_parsed(f"{prompt} [{'Y/n' if default else 'y/N'}]", parse)


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


# ------------------------------------------------------------------------------------------------
# Parsing answers


def parse_gear_answer(text: str, default_board: str) -> dict[str, Any]:
    """A samurai's gear: ``key=value`` rows, or the path of a JSON file (gear, or a samurai with gear)."""
    if not text:
        raise ValueError(f"describe the gear: {GEAR_HELP}")
    path = Path(text)
    if "=" not in text and (text.endswith(".json") or path.is_file()):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise ValueError(f"cannot read {text}: {error.strerror or error}") from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(f"{text} is not a JSON file") from None
        if not isinstance(data, dict):
            raise ValueError(f"{text} holds no JSON object")
        return data if isinstance(data.get("gear"), dict) else {"gear": data}
    gear: dict[str, Any] = {"board": default_board}
    blueprints: dict[str, list[str]] = {}
    for part in text.split():
        key, sep, value = part.partition("=")
        if not sep or not value:
            raise ValueError(f"{part!r} is not key=value; {GEAR_HELP}")
        key = key.lower()
        if key == "board":
            gear["board"] = value.lower()
        elif key in ("helmet", "sandals", "weapon_left", "weapon_right"):
            gear[key] = value.upper().split(",")
        elif key in ("magic", "monks"):
            gear[key] = [v for v in value.lower().split(",") if v]
        elif key.startswith("blueprint_") and key[10:] in ("helmet", "weapon", "sandals"):
            blueprints[key[10:]] = value.upper().split(",")
        else:
            raise ValueError(f"unknown key {key!r}; {GEAR_HELP}")
    return {"gear": gear, "blueprints": blueprints}


def parse_faces(text: str, kinds: list[str]) -> list[list[Any]]:
    """``1 1 0 0b 2`` in the order of the dice listed, or with letters: ``m2 w0b t3 x4``."""
    items = text.replace(",", " ").split()
    if len(items) > len(kinds):
        raise ValueError(f"that is {len(items)} dice, but only {len(kinds)} are rolled here")
    out: list[list[Any]] = []
    for i, item in enumerate(items):
        kind = kinds[i]
        if item[0].lower() in KIND_LETTERS:
            kind, item = KIND_LETTERS[item[0].lower()], item[1:]
        face = item.lower()
        if not (face.isdigit() or (face.endswith("b") and face[:-1].isdigit())):
            raise ValueError(f"{item!r} is not a face: type hits such as 2, or 0b for 0 hits with the broken icon")
        out.append([kind, int(face) if face.isdigit() else face])
    return out


def _pct(p: float) -> str:
    return f"{100 * p:.1f}%"


# ------------------------------------------------------------------------------------------------
# Drivers: the same fight commands against a bare fight, or through a game's session


class LocalDriver:
    """A fight kept in memory: the fight commands applied straight to :mod:`games.fujikoro.combat`."""

    def __init__(self, fight: Any, pack: Any) -> None:
        self.fight = fight
        self.pack = pack

    def roll(self, command: Mapping[str, Any]) -> str:
        from games.fujikoro.rules import describe_fight_roll, fight_roll_spec, play_fight_roll

        spec = fight_roll_spec(self.fight, command, self.pack)
        removals = {k: tuple((c[0], c[1]) for c in v) for k, v in (command.get("removals") or {}).items()}
        self.fight = play_fight_roll(self.fight, spec, self.pack, removals=removals,
                                     use_magic=list(command.get("magic") or []))
        return describe_fight_roll(self.fight, spec)

    def retreat(self, name: str) -> str:
        from games.fujikoro.combat import retreat

        self.fight = retreat(self.fight, name, self.pack)
        return f"{name} retreats from the fight"

    def surrender(self, name: str) -> str:
        from games.fujikoro.combat import surrender

        self.fight = surrender(self.fight, name, self.pack)
        return f"{name} surrenders"

    def steal(self, item: str) -> str:
        loser = next(f.name for f in self.fight.fighters if f.name != self.fight.winner)
        return f"{self.fight.winner} steals a {item} from {loser}"

    def summary(self) -> list[str]:
        return []

    @property
    def active(self) -> bool:
        return not self.fight.is_over


class SessionDriver:
    """A fight recorded in a game: every step is a durable session command."""

    def __init__(self, session: Any) -> None:
        self.session = session

    @property
    def fight(self) -> Any:
        return self.session.state.combat.fight

    @property
    def pack(self) -> Any:
        return self.session.game.pack

    @property
    def active(self) -> bool:
        return bool(self.session.state.combat.is_active) and not self.session.is_over

    def do(self, command: Mapping[str, Any]) -> str:
        description: str = self.session.do(command).record.description
        return description

    def roll(self, command: Mapping[str, Any]) -> str:
        return self.do({"type": "fight_roll", **command})

    def retreat(self, name: str) -> str:
        return self.do({"type": "fight_retreat", "player": name})

    def surrender(self, name: str) -> str:
        return self.do({"type": "fight_surrender", "player": name})

    def steal(self, item: str) -> str:
        return self.do({"type": "fight_steal", "item": item})

    def summary(self) -> list[str]:
        state = self.session.state_json()
        lines = ["Recorded in the game. Scores: " + ", ".join(f"{k} {v}" for k, v in state["scores"].items())]
        if state.get("group_teeth") is not None:
            lines.append(f"The group's dragon teeth: {state['group_teeth']}.")
        if state.get("phase") == "ended":
            lines.append(f"The game has ended: {state['ending']['reason']}.")
        return lines


# ------------------------------------------------------------------------------------------------
# The walkthrough


def walkthrough(
    inp: IO[str],
    out: IO[str],
    *,
    pack: Any,
    seed: int | None = None,
    setup: Any = None,
    session: tuple[Any, Any] | None = None,
    hand_dragon: bool = False,
) -> int:
    """Run one fight from the questions to the result; returns the exit code."""
    console = Console(inp, out)
    seeds = random.Random(seed) if seed is not None else random.SystemRandom()
    try:
        walk = Walk(console, pack, seeds, session[1] if session else None, hand_dragon)
        walk.run(setup)
    except EOFError:
        console.say("")
        console.say("Input ended before the fight was over; " + (
            "the fight stays open in the game (run this again with --db to go on)." if session else
            "nothing was stored."))
        return 1
    except KeyboardInterrupt:
        console.say("")
        console.say("Stopped." + (" The fight stays open in the game." if session else ""))
        return 130
    return 0


class Walk:
    def __init__(self, console: Console, pack: Any, seeds: random.Random, session: Any, hand_dragon: bool) -> None:
        self.c = console
        self.pack = pack
        self.seeds = seeds
        self.session = session
        self.hand_dragon = hand_dragon
        self.driver: LocalDriver | SessionDriver

    # ---- setting up ------------------------------------------------------------------------
    def run(self, setup: Any) -> None:
        from companion.engine import CommandError

        if self.session is not None:
            combat = self.session.state.combat
            self.driver = SessionDriver(self.session)
            if combat is not None and combat.is_active:
                self.c.say("A fight is being played in this game: going on with it.")
            else:
                while True:
                    command = self.ask_session_fight()
                    try:
                        self.c.say(self.driver.do(command))
                        break
                    except CommandError as error:
                        self.c.say(f"  {_sentence(str(error))} Let's set the fight up again.")
        elif setup is not None:
            from games.fujikoro.cli.odds import fight_from_request

            fight, _dice = fight_from_request(setup, self.pack)
            self.driver = LocalDriver(fight, self.pack)
        else:
            self.driver = LocalDriver(self.ask_local_fight(), self.pack)
        self.fight_loop()

    def ask_mode(self, allowed: tuple[str, ...]) -> str:
        def parse(text: str) -> str:
            value = (text or allowed[0]).lower()
            if value not in allowed:
                raise ValueError(f"the mode is {' or '.join(allowed)}")
            return value

        return self.c.ask_parsed(f"Mode: {', '.join(allowed)}? [{allowed[0]}]", parse)

    def ask_dragon(self) -> Any:
        """A figure id or typed stats as the fight_start command takes them."""
        figures = ", ".join(sorted(self.pack.dragons))

        def parse(text: str) -> Any:
            value = text.lower()
            if value in ("typed", "t"):
                return "typed"
            if value not in self.pack.dragons:
                raise ValueError(f"{text!r} is not a figure; type one of {figures}, or typed")
            return value

        choice = self.c.ask_parsed(f"Dragon: a figure ({figures}) or typed?", parse)
        if choice != "typed":
            return choice

        def number(prompt: str, low: int, default: int | None = None) -> int:
            def parse_int(text: str) -> int:
                if not text and default is not None:
                    return default
                if not text.isdigit() or int(text) < low:
                    raise ValueError(f"type a whole number of at least {low}")
                return int(text)

            return self.c.ask_parsed(prompt + (f" [{default}]" if default is not None else ""), parse_int)

        return {
            "name": "dragon",
            "health": number("  Health?", 1),
            "initiative": number("  Initiative?", 0),
            "dice": number("  White dice?", 1),
            "legendary": self.c.yes("  The Legendary Dragon?"),
            "vp": number("  VP for defeating it?", 0, 0),
        }

    def ask_samurai(self, index: int, legendary: bool, boards: Mapping[str, str] | None, default_name: str | None,
                    monks: bool = True, role: str | None = None) -> dict[str, Any]:
        """Name, gear and heroic monk of one samurai; ``boards``: the game's players and their boards."""
        role = role or ("the attacker" if index == 0 else "joins")
        names = list(boards) if boards is not None else None

        def parse_name(text: str) -> str:
            name = text or default_name or ""
            if not name:
                raise ValueError("every samurai needs a name")
            if names is not None and name not in names:
                raise ValueError(f"{name!r} is not a player of this game ({', '.join(names)})")
            return name

        hint = f" [{default_name}]" if default_name else ""
        name = self.c.ask_parsed(f"Samurai {index + 1} ({role}): name?{hint}", parse_name)
        default_board = boards[name] if boards is not None else "symmetric"

        def parse_gear(text: str) -> dict[str, Any]:
            from games.fujikoro.gear import gear_from_json, inspect

            entry = parse_gear_answer(text, default_board)
            report = inspect(gear_from_json(entry["gear"], self.pack), self.pack)
            if not report.legal:
                raise ValueError(f"that gear is not legal: {report.problems[0]}")
            self.c.say(f"  {name}: helmet strength {report.helmet_strength}, initiative {report.initiative}, "
                       f"{sum(1 for w in report.weapons.weapons if w.usable)} usable weapon(s).")
            return entry

        entry = self.c.ask_parsed(f"  Gear of {name} ({GEAR_HELP}):", parse_gear)
        entry = {**entry, "name": name, "player": name}
        if monks and not legendary and "heroic_monk" not in entry:

            def parse_monk(text: str) -> str | None:
                value = text.lower()
                if value in ("", "no", "n"):
                    return None
                if value == "shout":
                    return "none"
                if value not in ("wood", "metal", "tooth"):
                    raise ValueError("the heroic monk throws wood, metal or tooth, shouts (empty backpack), or none")
                return value

            monk = self.c.ask_parsed(f"  Does {name} send a heroic monk? wood, metal, tooth, shout, or Enter for no:",
                                     parse_monk)
            entry["heroic_monk"] = monk
            if monk is not None:
                def parse_spot(text: str) -> str:
                    value = (text or "backpack").lower()
                    if value not in ("backpack", "action", "weapon", "scroll"):
                        raise ValueError("the monk leaves the backpack, action, weapon or scroll spot")
                    return value

                entry["monk_from"] = self.c.ask_parsed("  Which spot does the monk leave: backpack, action, weapon, "
                                                       "scroll? [backpack]", parse_spot)
        return entry

    def ask_count(self, prompt: str, low: int, high: int, default: int) -> int:
        def parse(text: str) -> int:
            if not text:
                return default
            if not text.isdigit() or not low <= int(text) <= high:
                raise ValueError(f"type a number from {low} to {high}")
            return int(text)

        return self.c.ask_parsed(f"{prompt} [{default}]", parse)

    def ask_local_fight(self) -> Any:
        from games.fujikoro.combat import (
            CombatError,
            DragonStats,
            Mode,
            combatant_from_json,
            start_dragon_fight,
            start_samurai_fight,
        )
        from games.fujikoro.rules import typed_dragon

        mode = self.ask_mode(("competitive", "coop", "samurai"))
        while True:
            try:
                if mode == "samurai":
                    a = self.ask_samurai(0, False, None, None, monks=False)
                    d = self.ask_samurai(1, False, None, None, monks=False, role="the defender")
                    return start_samurai_fight(combatant_from_json(a, self.pack), combatant_from_json(d, self.pack),
                                               self.pack)
                fight_mode = Mode(mode)
                raw = self.ask_dragon()
                count = self.ask_count("How many samurai fight (the attacker, then joiners in turn order)?", 1, 6, 1)
                if isinstance(raw, str):
                    players = self.ask_count("How many players at the table (2-player and solo health)?", 1, 6,
                                             max(count, 2 if mode == "competitive" else 1))
                    stats = DragonStats.from_figure(self.pack.dragons[raw], self.pack, mode=fight_mode, players=players)
                else:
                    stats = typed_dragon(raw, fight_mode)
                samurai = [self.ask_samurai(i, stats.legendary, None, None) for i in range(count)]
                attacks = mode == "coop" and self.c.yes("Did the dragon move onto the samurai?")
                return start_dragon_fight(stats, [combatant_from_json(s, self.pack) for s in samurai], self.pack,
                                          mode=fight_mode, dragon_attacks=attacks)
            except CombatError as error:
                self.c.say(f"  {_sentence(str(error))} Let's set the fight up again.")

    def ask_session_fight(self) -> dict[str, Any]:
        state = self.session.state
        players = [p.name for p in state.players]
        boards = {p.name: p.board for p in state.players}
        current = players[state.current]
        coop = state.setup.mode.value == "coop"
        self.c.say(f"Game: {', '.join(players)} ({state.setup.mode.value}); it is {current}'s turn.")
        mode = "dragon" if coop else self.ask_mode(("dragon", "samurai"))
        if mode == "samurai":
            a = self.ask_samurai(0, False, boards, current, monks=False)
            d = self.ask_samurai(1, False, boards, None, monks=False, role="the defender")
            return {"type": "samurai_fight_start", "attacker": _player_entry(a, boards),
                    "defender": _player_entry(d, boards)}
        dragon = self.ask_dragon()
        legendary = dragon.get("legendary", False) if isinstance(dragon, dict) else (
            self.pack.dragons[dragon].is_legendary)
        count = self.ask_count("How many samurai fight (the attacker, then joiners)?", 1, len(players), 1)
        samurai = []
        for i in range(count):
            entry = self.ask_samurai(i, legendary, boards, current if i == 0 else None)
            samurai.append(_player_entry(entry, boards))
        attacks = coop and self.c.yes("Did the dragon move onto the samurai?")
        return {"type": "fight_start", "dragon": dragon, "samurai": samurai, "dragon_attacks": attacks}

    # ---- fighting --------------------------------------------------------------------------
    def fight_loop(self) -> None:
        self.show_order()
        self.show_odds()
        while self.driver.active:
            fight = self.driver.fight
            who = fight.whose_turn()
            seen = len(fight.log)
            if who == "dragon":
                line = self.dragon_turn()
            elif who.startswith("monk:"):
                line = self.monk_turn(who.removeprefix("monk:"))
            else:
                line = self.samurai_turn(who)
            self.c.say(f"> {line}")
            seen = self.show_log(seen)
            if self.driver.active and who != "dragon" and not who.startswith("monk:"):
                after = self.after_own_roll(who)
                if after:
                    self.c.say(f"> {after}")
                    self.show_log(seen)
            self.show_status()
            if self.driver.active:
                self.show_odds()
        self.finish()

    def show_log(self, seen: int) -> int:
        """The fight log's new lines, without the roll lines the command's description already gave."""
        log = self.driver.fight.log
        for entry in log[seen:]:
            if " rolls " not in entry:
                self.c.say(f"  {entry}")
        return len(log)

    def show_order(self) -> None:
        fight = self.driver.fight
        parts = []
        for who in fight.order:
            if who == "dragon":
                parts.append(f"the dragon ({fight.dragon.initiative})")
            else:
                f = fight.fighter(who)
                from games.fujikoro.gear import inspect

                sent = " (heroic monk)" if f.heroic_monk is not None else ""
                parts.append(f"{who} ({inspect(f.gear, self.pack).initiative}){sent}")
        self.c.say("Initiative order: " + ", ".join(parts) + ".")
        if fight.dragon is not None:
            self.c.say(f"The {fight.dragon.name} has {fight.health} health and rolls {fight.dragon.dice} white dice.")

    def show_odds(self) -> None:
        from games.fujikoro.odds import OddsError, exact_odds

        fight = self.driver.fight
        if fight.dragon is None:
            return
        try:
            odds = exact_odds(fight, self.pack)
        except OddsError as error:
            self.c.say(f"Odds: not available ({error}).")
            return
        ko = ", ".join(f"{k} {_pct(v)}" for k, v in odds.p_knocked_out.items())
        text = f"Odds: the dragon is defeated {_pct(odds.p_dragon_defeated)}; knocked out: {ko}"
        if any(odds.expected_vp.values()):
            text += "; expected VP: " + ", ".join(f"{k} {v:.1f}" for k, v in odds.expected_vp.items())
        if odds.p_no_end:
            text += f"; the fight never ends (nobody left can hit) {_pct(odds.p_no_end)}"
        self.c.say(text + ".")

    def show_status(self) -> None:
        fight = self.driver.fight
        parts = []
        for f in fight.fighters:
            status = {"in": "helmet " + str(fight.helmet_strength(f.name, self.pack)), "knocked_out": "knocked out",
                      "retreated": "retreated", "surrendered": "surrendered"}[f.status.value]
            parts.append(f"{f.name}: {status}")
        prefix = f"Health {max(fight.health, 0)}. " if fight.dragon is not None else ""
        self.c.say(prefix + "; ".join(parts) + ".")

    def new_seed(self) -> int:
        return self.seeds.getrandbits(32)

    def monk_turn(self, name: str) -> str:
        fight = self.driver.fight
        kind = str(fight.fighter(name).heroic_monk)
        faces = " ".join(str(f) for f in self.pack.dice[kind].faces)
        return self.typed_or_app(
            f"{name}'s heroic monk throws {kind}: type the {kind} die's face ({faces}), Enter = the app rolls:",
            [kind], lambda dice: {"dice": dice}, allow_empty=False)

    def typed_or_app(self, prompt: str, kinds: list[str], command: Callable[[list[list[Any]]], dict[str, Any]],
                     *, allow_empty: bool) -> str:
        from companion.engine import CommandError

        while True:
            answer = self.c.ask(prompt)
            try:
                if not answer:
                    seed = self.new_seed()
                    line = self.driver.roll({"seed": seed})
                    return f"{line} (the app rolled, seed {seed})"
                return self.driver.roll(command(parse_faces(answer, kinds)))
            except (CommandError, ValueError) as error:
                self.c.say(f"  {_sentence(str(error))} Please try again.")

    def dragon_turn(self) -> str:
        from games.fujikoro.rules import fight_roll_spec

        fight = self.driver.fight
        n = fight.dragon.dice
        if self.hand_dragon:
            faces = " ".join(str(f) for f in self.pack.dice["tooth"].faces)

            def parse(text: str) -> list[list[Any]]:
                dice = parse_faces(text, ["tooth"] * n)
                if len(dice) != n:
                    raise ValueError(f"the dragon rolls exactly {n} white dice")
                fight_roll_spec(fight, {"dice": dice}, self.pack)  # checks each face exists
                return dice

            dice = self.c.ask_parsed(f"The dragon's {n} white dice ({faces}):", parse)
            command: dict[str, Any] = {"dice": dice}
            roll = fight_roll_spec(fight, command, self.pack).rolls[0][1]
            suffix = ""
        else:
            seed = self.new_seed()
            command = {"seed": seed}
            roll = fight_roll_spec(fight, command, self.pack).rolls[0][1]
            self.c.say(f"The app rolls for the dragon (seed {seed}): {roll.describe()}.")
            suffix = f" (the app rolled, seed {seed})"
        removals, magic = self.ask_removals(roll.hits)
        command.update(removals=removals, magic=magic)
        return self.driver.roll(command) + suffix

    def ask_removals(self, hits: int) -> tuple[dict[str, list[list[int]]], list[str]]:
        from games.fujikoro.gear import absorb_options

        fight = self.driver.fight
        removals: dict[str, list[list[int]]] = {}
        magic: list[str] = []
        if hits <= 0:
            return removals, magic
        for f in fight.fighters:
            if not f.is_in:
                continue
            helmet = f.gear.cubes("helmet")
            options = absorb_options(helmet, hits, self.pack, magic="helmet" in f.gear.magic,
                                     blueprint=f.blueprints.get("helmet"))
            if options[0].absorbed < hits:
                self.c.say(f"{f.name} takes {hits} damage with {options[0].absorbed} helmet left: knocked out.")
                continue
            if len(options) == 1:
                self.c.say(f"{f.name} takes {hits} damage: {options[0].describe(helmet)}.")
                continue
            shown = options[:6]
            self.c.say(f"{f.name} takes {hits} damage. Helmet removals:")
            for i, option in enumerate(shown, 1):
                cells = " ".join(f"{r},{c}" for r, c in sorted(option.cells))
                self.c.say(f"  {i}) {option.describe(helmet)}" + (" (suggested)" if i == 1 else "")
                           + (f"  [cells {cells}]" if cells else ""))

            def parse(text: str, count: int = len(shown)) -> int:
                if not text:
                    return 1
                if not text.isdigit() or not 1 <= int(text) <= count:
                    raise ValueError(f"type a number from 1 to {count}, or Enter for the suggestion")
                return int(text)

            pick = shown[self.c.ask_parsed(f"  Which removal for {f.name}? [1]", parse) - 1]
            removals[f.name] = [list(c) for c in sorted(pick.cells)]
            if pick.magic_used:
                magic.append(f.name)
        return removals, magic

    def samurai_turn(self, name: str) -> str:
        fight = self.driver.fight
        groups = fight.dice_to_roll(name, self.pack)
        if not groups:
            self.c.say(f"{name} has no usable weapon and rolls nothing.")
            return self.driver.roll({"dice": []})
        names = {"left": "left weapon", "right": "right weapon", "two": "two-handed weapon", "sandals": "sandals"}
        first = True
        weapons: list[dict[str, Any]] = []
        while True:
            weapons = []
            app = False
            for hand, kinds in groups:
                label = names.get(hand, hand)
                dice = " ".join(kinds)
                if first:
                    prompt = (f"{name}, {label}: roll {dice}. Type the faces in that order (e.g. 1 0 0b 2), "
                              f"Enter = the app rolls for {name}:")
                else:
                    prompt = f"{name}, {label}: roll {dice}. Type the faces, or Enter to leave this weapon unrolled:"
                faces = self.c.ask_parsed(prompt, _faces_or_nothing(kinds))
                if first and not faces:
                    app = True
                    break
                first = False
                if faces:
                    weapons.append({"hand": hand, "dice": faces})
            from companion.engine import CommandError

            try:
                if app:
                    seed = self.new_seed()
                    return self.driver.roll({"seed": seed}) + f" (the app rolled, seed {seed})"
                return self.driver.roll({"weapons": weapons})
            except CommandError as error:
                self.c.say(f"  {_sentence(str(error))} Please type {name}'s dice again.")
                first = True

    def after_own_roll(self, name: str) -> str | None:
        fight = self.driver.fight
        fighter = fight.fighter(name)
        if not (fighter.is_in and fighter.broke_this_turn):
            return None
        if fight.dragon is None:
            if self.c.yes(f"{name} has no usable weapon left. Surrender?"):
                return self.driver.surrender(name)
        elif self.c.yes(f"{name} has no usable weapon left. Retreat?"):
            return self.driver.retreat(name)
        return None

    def finish(self) -> None:
        fight = self.driver.fight
        if not fight.is_over:
            self.c.say("The game ended during the fight.")
            for line in self.driver.summary():
                self.c.say(line)
            return
        self.c.say("")
        self.c.say("The fight is over.")
        if fight.dragon is None:
            def parse(text: str) -> str:
                value = text.lower()
                if value not in ("blueprint", "monk", "scroll", "resource"):
                    raise ValueError("the winner steals a blueprint, monk, scroll or resource")
                return value

            item = self.c.ask_parsed(f"What does {fight.winner} steal: blueprint, monk, scroll or resource?", parse)
            self.c.say(f"> {self.driver.steal(item)}")
        for f in fight.fighters:
            self.c.say(f"{f.name}: {f.status.value.replace('_', ' ')}, {f.vp} VP, {f.teeth} dragon teeth.")
        if fight.teeth_pool:
            self.c.say(f"The group shares {fight.teeth_pool} dragon teeth.")
        if fight.attacker_may_continue():
            self.c.say(f"{fight.fighters[0].name} attacked as their first action and stands: they go on with the turn.")
        for line in self.driver.summary():
            self.c.say(line)


def _faces_or_nothing(kinds: list[str]) -> Callable[[str], list[list[Any]]]:
    def parse(text: str) -> list[list[Any]]:
        return parse_faces(text, kinds) if text else []

    return parse


def _player_entry(entry: Mapping[str, Any], boards: Mapping[str, str]) -> dict[str, Any]:
    gear = dict(entry["gear"])
    if not gear.get("board"):
        gear["board"] = boards[entry["player"]]
    out = {k: v for k, v in entry.items() if k not in ("name", "gear")}
    out["gear"] = gear
    return out
