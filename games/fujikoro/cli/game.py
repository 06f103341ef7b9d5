"""``fujikoro game``: keep a game from the command line (new, do, state, undo, redo, log, export, import).

Every command prints JSON. A command is acknowledged (``{"seq": N, "description": ...}``) only after
it is durable in the game's SQLite file. Without ``--db`` a new game goes to the user's data dir and
the other subcommands resume the most recently played game. A rejected command, or any command after
the game ended, exits with status 2, prints one line and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ui.cli import CliError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "game",
        help="keep a game: new, do, state, undo, redo, log, export, import",
        description="Keep a game of Fuji Koro: every change is a command in the game's durable log.",
    )
    sub = parser.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)

    def db_arg(p: argparse.ArgumentParser, help_text: str = "the game file (default: the last game played)") -> None:
        p.add_argument("--db", type=Path, default=None, metavar="PATH", help=help_text)

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

    do = sub.add_parser("do", help="apply one command, given as JSON")
    db_arg(do)
    do.add_argument("command", help='for example \'{"type": "vp", "player": "A", "points": 3, "reason": "scroll"}\'')
    do.set_defaults(handler=_do)

    state = sub.add_parser("state", help="print the state as JSON")
    db_arg(state)
    state.set_defaults(handler=_state)

    undo = sub.add_parser("undo", help="undo the last command")
    db_arg(undo)
    undo.add_argument("--force", action="store_true", help="also undo a dice roll the app made")
    undo.set_defaults(handler=_undo)

    redo = sub.add_parser("redo", help="redo the last undone command")
    db_arg(redo)
    redo.set_defaults(handler=_redo)

    log = sub.add_parser("log", help="print the log (commands, undos, redos) as JSON")
    db_arg(log)
    log.set_defaults(handler=_log)

    export = sub.add_parser("export", help="export the game: jsonl (whole log), bgstats (link), csv (scores)")
    db_arg(export)
    export.add_argument("--format", choices=("jsonl", "bgstats", "csv"), default="jsonl")
    export.add_argument("--out", type=Path, default=None, help="write to this file instead of stdout")
    export.set_defaults(handler=_export)

    imp = sub.add_parser("import", help="import a JSON-lines export into a new game file")
    imp.add_argument("file", type=Path, help="the .jsonl export")
    db_arg(imp, "the new game file (default: a new file in the user data dir)")
    imp.set_defaults(handler=_import)

    games = sub.add_parser("list", help="list the saved games, most recent first")
    games.set_defaults(handler=_list)


# ------------------------------------------------------------------------------------------------


def _factories() -> dict[str, Any]:
    from store.sessions import factories

    return factories()


def _print(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _resolve(db: Path | None) -> Path:
    from store.games import last_game

    if db is not None:
        return db
    last = last_game()
    if last is None:
        raise CliError("there is no saved game yet; start one with `fujikoro game new --players A,B`")
    return last


def _open(db: Path | None) -> tuple[Any, Any]:
    from companion.engine import ReplayError
    from store.gamelog import StoreError
    from store.sessions import open_session

    try:
        return open_session(_resolve(db), _factories())
    except (StoreError, ReplayError) as error:
        raise CliError(str(error)) from None


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
        _print({"db": str(path), **state})
    return 0


def _do(args: argparse.Namespace) -> int:
    from companion.engine import CommandError, parse_command
    from store.gamelog import StoreError

    try:
        command = parse_command(args.command)
    except CommandError as error:
        raise CliError(str(error)) from None
    file, session = _open(args.db)
    with file:
        try:
            applied = session.do(command)
        except (CommandError, StoreError) as error:
            raise CliError(str(error)) from None
        _print({"seq": applied.record.seq, "description": applied.record.description})
    return 0


def _state(args: argparse.Namespace) -> int:
    file, session = _open(args.db)
    with file:
        _print({"db": str(file.path), **session.state_json()})
    return 0


def _undo(args: argparse.Namespace) -> int:
    from companion.engine import CommandError
    from store.gamelog import StoreError

    file, session = _open(args.db)
    with file:
        try:
            applied = session.undo(force=args.force)
        except (CommandError, StoreError) as error:
            raise CliError(str(error)) from None
        _print({"seq": applied.record.seq, "description": applied.record.description})
    return 0


def _redo(args: argparse.Namespace) -> int:
    from companion.engine import CommandError
    from store.gamelog import StoreError

    file, session = _open(args.db)
    with file:
        try:
            applied = session.redo()
        except (CommandError, StoreError) as error:
            raise CliError(str(error)) from None
        _print({"seq": applied.record.seq, "description": applied.record.description})
    return 0


def _log(args: argparse.Namespace) -> int:
    file, _session = _open(args.db)
    with file:
        _print([{**s.record.to_json(), "at": s.at} for s in file.stamped()])
    return 0


def _export(args: argparse.Namespace) -> int:
    from store.export import bgstats_link, bgstats_play, result_csv

    file, session = _open(args.db)
    with file:
        if args.format == "jsonl":
            text = "\n".join(file.export_lines()) + "\n"
        else:
            result = session.game.result(session.state)
            if result is None:
                raise CliError("only a finished game can be exported for BG Stats or as a score sheet")
            if args.format == "csv":
                text = result_csv(result)
            else:
                stamped = file.stamped()
                started = file.header.created_at
                finished = stamped[-1].at if stamped else started
                play = bgstats_play(result, started=started, finished=finished, play_id=file.path.stem)
                text = json.dumps({"link": bgstats_link(play), "play": play}, ensure_ascii=False) + "\n"
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
        _print({"written": str(args.out)})
    else:
        sys.stdout.write(text)
    return 0


def _import(args: argparse.Namespace) -> int:
    from companion.engine import ReplayError
    from store.gamelog import StoreError, parse_lines
    from store.games import new_game_path
    from store.sessions import import_session

    try:
        lines = args.file.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise CliError(f"cannot read {args.file}: {error.strerror}") from None
    path = args.db or new_game_path()
    try:
        header, stamped = parse_lines(lines)
        file, session = import_session(path, header, stamped, _factories())
    except (StoreError, ReplayError) as error:
        raise CliError(str(error)) from None
    with file:
        _print({"db": str(path), "records": file.last_seq, "phase": session.state_json().get("phase")})
    return 0


def _list(args: argparse.Namespace) -> int:
    from store.games import list_games

    _print([str(p) for p in list_games()])
    return 0
