"""``fujikoro game``: keep a game from the command line (new, do, state, undo, redo, log, export, import).

``game new`` is Fuji Koro's (its players, mode, scenario ...); the other verbs are every game's
(:mod:`ui.cli.keeping`). Every command prints JSON. A command is acknowledged (``{"seq": N, "description":
...}``) only after it is durable in the game's SQLite file. Without ``--db`` a new game goes to the user's
data dir and the other subcommands resume the most recently played Fuji Koro game. A rejected command, or
any command after the game ended, exits with status 2, prints one line and changes nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from ui.cli import CliError
from ui.cli.keeping import add_keeping_verbs, db_arg, print_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "game",
        help="keep a game: new, do, state, undo, redo, log, export, import",
        description="Keep a game of Fuji Koro: every change is a command in the game's durable log.",
    )
    sub = parser.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)

    new = sub.add_parser("new", help="start a new game and print its state and setup checklist")
    db_arg(new, "the new game file (default: a new file in the user data dir)")
    new.add_argument("--players", required=True, help="comma-separated names, in seating order: A,B,C")
    new.add_argument("--mode", choices=("competitive", "coop"), default="competitive")
    new.add_argument("--scenario", type=int, default=0, help="0 = base game, 1-8 = EN Appendix B")
    new.add_argument("--colours", default=None, help="comma-separated player colours, in the same order")
    new.add_argument(
        "--boards", default=None, help="comma-separated boards: symmetric or a character (masako, tomoe, ...)"
    )
    new.add_argument("--adventure-tokens", action="store_true", help="play with the Adventure Tokens")
    new.add_argument("--start-player", default=None, help="who starts (default: the first listed player)")
    new.add_argument(
        "--peaceful", action="store_true", help="the Peaceful Variant: samurai fight only dragons (EN p.12)"
    )
    new.set_defaults(handler=_new)

    add_keeping_verbs(sub, game="fujikoro", title="Fuji Koro", new_hint="fujikoro game new --players A,B",
                      do_example='{"type": "vp", "player": "A", "points": 3, "reason": "scroll"}')


# ------------------------------------------------------------------------------------------------


def _factories() -> dict[str, Any]:
    from store.sessions import factories

    return factories()


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [part.strip() for part in text.split(",")]


def _new(args: argparse.Namespace) -> int:
    from companion.engine import CommandError
    from games.fujikoro.pack import DataPackError, load
    from games.fujikoro.rules import GAME_NAME, RULES_VERSION
    from store.gamelog import Header, StoreError
    from store.games import new_game_path
    from store.overrides import read_overrides
    from store.sessions import new_session

    names = _split(args.players) or []
    colours = _split(args.colours)
    boards = _split(args.boards)
    for label, values in (("colours", colours), ("boards", boards)):
        if values is not None and len(values) != len(names):
            raise CliError(f"give as many {label} as players ({len(names)})")
    players: list[dict[str, Any]] = []
    for i, name in enumerate(names):
        player: dict[str, Any] = {"name": name}
        if colours:
            player["colour"] = colours[i]
        if boards:
            player["board"] = boards[i]
        players.append(player)
    config: dict[str, Any] = {
        "players": players,
        "mode": args.mode,
        "scenario": args.scenario,
        "adventure_tokens": bool(args.adventure_tokens),
        "rules": RULES_VERSION,  # a new game is played by the turn the rulebook describes; old files keep theirs
    }
    if args.peaceful:
        config["peaceful"] = True
    if args.start_player:
        config["start_player"] = args.start_player
    try:
        pack = load(read_overrides(GAME_NAME))
    except DataPackError as error:
        raise CliError(str(error)) from None
    header = Header(GAME_NAME, pack.version, config, {"pack": pack.raw})
    path = args.db or new_game_path()
    try:
        file, session = new_session(path, header, _factories())
    except (CommandError, StoreError) as error:
        raise CliError(str(error)) from None
    with file:
        state = session.state_json()
        print_json({"db": str(path), **state})
    return 0
