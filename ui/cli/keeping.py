"""Keeping any game from the command line: the verbs after a game's own ``game new`` - ``do``, ``state``,
``undo``, ``redo``, ``log``, ``export``, ``import``, ``list`` - on its durable game file.

Every verb prints JSON; a command is acknowledged only after it is durable in the game's SQLite file. Without
``--db`` the verbs use the last game of this game played (the newest file in the data folder). A rejected
command exits 2 with one line and changes nothing. A game adds them with :func:`add_keeping_verbs`, and
may add to what ``do`` acknowledges and what ``state`` shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ui.cli import CliError

#: (session, applied) -> the JSON a ``do``/``undo``/``redo`` prints (besides seq and description).
Acknowledge = Callable[[Any, Any], dict[str, Any]]
#: session -> the JSON ``state`` prints.
StateJson = Callable[[Any], dict[str, Any]]


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    sys.stdout.flush()


def db_arg(parser: argparse.ArgumentParser, help_text: str = "the game file (default: the last game played)") -> None:
    parser.add_argument("--db", type=Path, default=None, metavar="PATH", help=help_text)


def add_keeping_verbs(sub: Any, *, game: str, title: str, new_hint: str, do_example: str,
                      acknowledge: Acknowledge | None = None, state_json: StateJson | None = None,
                      export_default: str = "jsonl") -> None:
    """Add the keeping verbs for ``game`` (its registry name) to a ``game`` sub-parser's subcommands."""
    keeper = _Keeper(game, title, new_hint, acknowledge, state_json)

    do = sub.add_parser("do", help="apply one command, given as JSON (- reads it from standard input)")
    db_arg(do)
    do.add_argument("command", help=f"for example '{do_example}'")
    do.set_defaults(handler=keeper.do)
    state = sub.add_parser("state", help="print the state as JSON")
    db_arg(state)
    state.set_defaults(handler=keeper.state)
    undo = sub.add_parser("undo", help="undo the last command (it says what it undoes)")
    db_arg(undo)
    undo.add_argument("--force", action="store_true",
                      help="also undo a barrier: a roll or draw the app made, or a throw the players entered "
                           "(the refusal says which)")
    undo.set_defaults(handler=keeper.undo)
    redo = sub.add_parser("redo", help="redo the last undone command")
    db_arg(redo)
    redo.set_defaults(handler=keeper.redo)
    log = sub.add_parser("log", help="print the log (commands, undos, redos) as JSON")
    db_arg(log)
    log.set_defaults(handler=keeper.log)
    export = sub.add_parser("export", help="export the game: jsonl (whole log), bgstats (link), csv (scores)")
    db_arg(export)
    export.add_argument("--format", choices=("jsonl", "bgstats", "csv"), default=export_default)
    export.add_argument("--out", type=Path, default=None, help="write to this file instead of stdout")
    export.set_defaults(handler=keeper.export)
    imp = sub.add_parser("import", help="import a JSON-lines export into a new game file")
    imp.add_argument("file", type=Path, help="the .jsonl export")
    db_arg(imp, "the new game file (default: a new file in the user data dir)")
    imp.set_defaults(handler=keeper.import_)
    games = sub.add_parser("list", help="list the saved games, most recent first")
    games.set_defaults(handler=keeper.list)


class _Keeper:
    def __init__(self, game: str, title: str, new_hint: str, acknowledge: Acknowledge | None,
                 state_json: StateJson | None) -> None:
        self.game, self.title, self.new_hint = game, title, new_hint
        self.acknowledge = acknowledge
        self.state_json = state_json or (lambda session: session.state_json())

    # ---- finding the game --------------------------------------------------------------------------
    def _last(self) -> Path:
        from store.games import list_games
        from ui.session import game_of

        for path in list_games():
            if game_of(str(path)) == self.game:
                return path
        raise CliError(f"there is no saved game yet ({self.title}); start one with `{self.new_hint}`")

    def _open(self, db: Path | None) -> tuple[Any, Any]:
        from companion.engine import ReplayError
        from store.gamelog import StoreError
        from store.sessions import factories, open_session
        from ui.session import game_of

        path = db if db is not None else self._last()
        kind = game_of(str(path))
        if kind is not None and kind != self.game:
            raise CliError(f"{path} is a game of {kind}, not of {self.title}")
        try:
            return open_session(path, factories())
        except (StoreError, ReplayError) as error:
            raise CliError(str(error)) from None

    def _said(self, session: Any, applied: Any) -> dict[str, Any]:
        out = {"seq": applied.record.seq, "description": applied.record.description}
        if self.acknowledge is not None:
            out.update(self.acknowledge(session, applied))
        return out

    # ---- the verbs ---------------------------------------------------------------------------------
    def do(self, args: argparse.Namespace) -> int:
        from companion.engine import CommandError, parse_command

        text = sys.stdin.read() if args.command == "-" else args.command
        try:
            command = parse_command(text)
        except CommandError as error:
            raise CliError(str(error)) from None
        return self._walk(args, lambda session: session.do(command))

    def state(self, args: argparse.Namespace) -> int:
        file, session = self._open(args.db)
        with file:
            print_json({"db": str(file.path), **self.state_json(session)})
        return 0

    def undo(self, args: argparse.Namespace) -> int:
        return self._walk(args, lambda session: session.undo(force=args.force))

    def redo(self, args: argparse.Namespace) -> int:
        return self._walk(args, lambda session: session.redo())

    def _walk(self, args: argparse.Namespace, step: Callable[[Any], Any]) -> int:
        """Open the game, take one step (a command, an undo, a redo), print what it did."""
        from companion.engine import CommandError
        from store.gamelog import StoreError

        file, session = self._open(args.db)
        with file:
            try:
                applied = step(session)
            except (CommandError, StoreError) as error:
                raise CliError(str(error)) from None
            print_json(self._said(session, applied))
        return 0

    def log(self, args: argparse.Namespace) -> int:
        file, _session = self._open(args.db)
        with file:
            print_json([{**s.record.to_json(), "at": s.at} for s in file.stamped()])
        return 0

    def export(self, args: argparse.Namespace) -> int:
        from store.export import bgstats_link, bgstats_play, result_csv

        file, session = self._open(args.db)
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
            print_json({"written": str(args.out)})
        else:
            sys.stdout.write(text)
        return 0

    def import_(self, args: argparse.Namespace) -> int:
        from companion.engine import ReplayError
        from store.gamelog import StoreError, parse_lines
        from store.games import new_game_path
        from store.sessions import factories, import_session

        try:
            lines = args.file.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise CliError(f"cannot read {args.file}: {error.strerror}") from None
        path = args.db or new_game_path()
        try:
            header, stamped = parse_lines(lines)
            if header.game != self.game:
                raise CliError(f"{args.file} is a game of {header.game}, not of {self.title}")
            file, session = import_session(path, header, stamped, factories())
        except (StoreError, ReplayError) as error:
            raise CliError(str(error)) from None
        with file:
            print_json({"db": str(path), "records": file.last_seq, "phase": session.state_json().get("phase")})
        return 0

    def list(self, args: argparse.Namespace) -> int:
        from store.games import list_games
        from ui.session import game_of

        print_json([str(p) for p in list_games() if game_of(str(p)) == self.game])
        return 0
