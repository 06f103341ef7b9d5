"""``table-companion shogun battle|score|winter|bids|odds|pack``: the rules calculator (issue 17, item 6),
``table-companion shogun game new|do|state|undo|log|export``: a whole game kept from the command line, and
``table-companion shogun data show|set|reset|validate``: the data pack, corrected by the group.

Each calculator verb reads one JSON object (a file, or ``-``/nothing for standard input) and prints one JSON
object; extra keys in the input are ignored; bad input exits with status 2 and one line on standard error.
The calculators, ``read-tray`` and a new game use the shipped pack with the group's corrections (``data set``,
the same verbs as ``fujikoro data``: :mod:`ui.cli.packdata`); the supply table's rows the rulebook gives stay
locked (``pack.load``).

``game`` keeps a durable game file in the store (as ``fujikoro game`` does): ``new`` takes the setup as JSON
(``{"players": [{"name", "colour"}], "side", "map", "start"}``, see ``rules.ShogunRules.setup``), ``do`` one
command as JSON (``rules.COMMANDS``); a command is acknowledged only once it is in the file. Without
``--db`` the other subcommands use the most recently played Shogun game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.datapack import DataPackError, status_counts
from games.shogun import bids as bidding
from games.shogun import winter as winters
from games.shogun.battle import BattleError, BattleSetup, resolve
from games.shogun.odds import TowerModel, exact_odds, fit, track_record
from games.shogun.pack import GREEN, Pack, what_to_check_first
from games.shogun.rules import GAME_NAME, setup_from_json
from games.shogun.scoring import RegionCount, holdings_from_provinces, score
from games.shogun.tower import Throw, Tower, TowerError, clean
from ui.cli import CliError, read_json_input
from ui.cli.keeping import add_keeping_verbs, print_json
from ui.cli.packdata import add_data_verbs
from ui.cli.packdata import current_pack as group_pack

VERBS: dict[str, str] = {
    "battle": "settle a battle or revolt from the tray counts (what goes back, what stays, the province after)",
    "odds": "a battle's odds before the throw, from the tower model (fitted from recorded throws if given)",
    "score": "a winter's scoring from provinces (or per-region counts) with the majorities",
    "winter": "rice loss, unsupplied provinces and revolts per player from the supply table",
    "bids": "bids paid to the bank and the choosing order",
    "pack": "the data pack's statuses and what a group should check first",
}
#: how a user types the data verbs, for the hints in their messages
DATA_COMMAND = "table-companion shogun data"


def register(subparsers: Any) -> None:
    for verb, text in VERBS.items():
        parser = subparsers.add_parser(verb, help=text, description=text + ". One JSON object in, one out.")
        parser.add_argument("file", nargs="?", default="-", help="a JSON file, or - for standard input (default)")
        parser.set_defaults(handler=_handler(HANDLERS[verb]))
    _register_game(subparsers)
    add_data_verbs(subparsers, game=GAME_NAME, command=DATA_COMMAND, example_key="supply_table.u4.revolts",
                   what="supply table, events, map, rule options ...")
    tray = subparsers.add_parser(
        "read-tray", help="count the cubes by colour in a photo of the tower's tray",
        description="Counts the cubes in a photo of the tray (with the tray sticker) per colour; a colour the "
                    "reader is not sure of is \"?\" with the reason. Prints one JSON object.")
    tray.add_argument("photo", help="the photo (JPEG or PNG)")
    tray.set_defaults(handler=_read_tray)


def _read_tray(args: argparse.Namespace) -> int:
    from games.shogun.photo import TrayPhotoError, read_tray
    from vision.reader import PhotoError, load_photo

    try:
        reading = read_tray(load_photo(args.photo), current_pack())
    except (PhotoError, TrayPhotoError, DataPackError) as error:
        raise CliError(str(error)) from None
    print(json.dumps(reading.to_json(), ensure_ascii=False))
    return 0


def _handler(run: Callable[[Any, Pack], dict[str, Any]]) -> Callable[[argparse.Namespace], int]:
    def handle(args: argparse.Namespace) -> int:
        data = {} if run is run_pack else read_json_input(args.file)
        if run is not run_pack and not isinstance(data, dict):
            raise CliError("expected one JSON object")
        pack = current_pack()
        try:
            report = run(data, pack)
        except (BattleError, TowerError, bidding.BidError, DataPackError) as error:
            raise CliError(str(error)) from None
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
        return 0

    return handle


def current_pack() -> Pack:
    """The shipped pack with the group's corrections (``data set``); a broken corrections file is one sentence."""
    pack: Pack = group_pack(GAME_NAME, DATA_COMMAND)
    return pack


def _counts(data: Mapping[str, Any], key: str) -> dict[str, int]:
    value = data.get(key, {})
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CliError(f"{key}: expected {{colour: number of cubes}}, got {value!r}")
    return clean(value, key)


def _colours(data: Mapping[str, Any]) -> None:
    for key in ("attacker", "defender"):
        value = data.get(key)
        if value is not None and (not isinstance(value, str) or value == GREEN):
            raise CliError(f"{key}: expected a player colour (not green), got {value!r}")


def _setup(data: Mapping[str, Any], pack: Pack) -> BattleSetup:
    _colours(data)
    return setup_from_json(data, _counts(data, "tray_before"), options=pack.options)


def run_battle(data: Any, pack: Pack) -> dict[str, Any]:
    setup = _setup(data, pack)
    if "tower_out" not in data:
        raise CliError("tower_out: enter what came out of the tower per colour (the tray's counts)")
    tower = Tower(_counts(data, "tower_inside_before"), _counts(data, "tray_before"))
    token = bool(data.get("tax_or_rice")) or (data.get("kind") == "revolt" and bool(data.get("winter")) and
                                              pack.options.a12_winter_token)
    result = resolve(setup, tower, _counts(data, "tower_out"), add_token_if_held=token)
    report = result.to_json()
    report["goes_in"] = setup.what_goes_in(tower.tray)
    return report


def _model(data: Mapping[str, Any], pack: Pack) -> tuple[TowerModel, list[Throw]]:
    """The model: given as {"p", "q"}, or fitted from "throws" ([{thrown, inside_before, out}]), else the pack's."""
    throws: list[Throw] = []
    for i, item in enumerate(data.get("throws", []) or []):
        if not isinstance(item, Mapping):
            raise CliError(f"throws[{i}]: expected {{thrown, inside_before, out}}")
        throws.append(Throw("battle", str(item.get("label", i + 1)), _counts(item, "thrown"), {},
                            _counts(item, "inside_before"), _counts(item, "out")))
    given = data.get("model")
    if isinstance(given, Mapping):
        p, q = given.get("p"), given.get("q")
        for name, value in (("model.p", p), ("model.q", q)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise CliError(f"{name}: expected a probability between 0 and 1, got {value!r}")
        assert isinstance(p, int | float) and isinstance(q, int | float)
        return TowerModel(float(p), float(q), "given"), throws
    return fit(throws, pack.tower_prior), throws


def run_odds(data: Any, pack: Pack) -> dict[str, Any]:
    setup = _setup(data, pack)
    model, throws = _model(data, pack)
    odds = exact_odds(setup, _counts(data, "tray_before"), _counts(data, "tower_inside_before"), model)
    report = odds.to_json()
    report["goes_in"] = setup.what_goes_in(_counts(data, "tray_before"))
    if throws:
        report["track_record"] = track_record(throws, model).to_json()
    return report


def _players(data: Mapping[str, Any]) -> list[str]:
    players = data.get("players")
    if isinstance(players, Mapping):
        players = list(players)
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise CliError("players: expected a list of player ids")
    return list(players)


def run_score(data: Any, pack: Pack) -> dict[str, Any]:
    players = _players(data)
    if "holdings" in data:
        holdings = _holdings(data["holdings"], players)
    else:
        rows = []
        provinces = data.get("provinces")
        if not isinstance(provinces, list):
            raise CliError("provinces: expected a list of {id, region, controller, buildings}")
        for i, item in enumerate(provinces):
            if not isinstance(item, Mapping) or not isinstance(item.get("region"), str):
                raise CliError(f"provinces[{i}]: expected {{id, region, controller, buildings}} with a region")
            controller = item.get("controller")
            if controller is not None and controller not in players:
                raise CliError(f"provinces[{i}].controller: {controller!r} is not one of the players")
            from games.shogun.battle import buildings_list

            rows.append((item["region"], controller, buildings_list(item.get("buildings"),
                                                                    f"provinces[{i}].buildings")))
        holdings = holdings_from_provinces(rows)
    scores = score(players, holdings, pack.scoring, needs_building=pack.options.a9_majority_needs_building)
    return {p: s.to_json() for p, s in scores.items()}


def _holdings(value: Any, players: list[str]) -> dict[str, dict[str, RegionCount]]:
    if not isinstance(value, Mapping):
        raise CliError("holdings: expected {player: {region: {provinces, castle, temple, theatre}}}")
    out: dict[str, dict[str, RegionCount]] = {}
    for player, regions in value.items():
        if player not in players or not isinstance(regions, Mapping):
            raise CliError(f"holdings.{player}: not a player, or not {{region: counts}}")
        out[player] = {}
        for region, counts in regions.items():
            if not isinstance(counts, Mapping):
                raise CliError(f"holdings.{player}.{region}: expected {{provinces, castle, temple, theatre}}")
            clean_counts = clean({k: counts.get(k, 0) for k in ("provinces", "castle", "temple", "theatre")},
                                 f"holdings.{player}.{region}")
            counts = RegionCount(**clean_counts)
            problem = counts.problem(f"holdings.{player}.{region}")
            if problem:
                raise CliError(problem)
            out[player][region] = counts
    return out


def run_winter(data: Any, pack: Pack) -> dict[str, Any]:
    loss = data.get("winter_event_rice_loss")
    if isinstance(loss, bool) or not isinstance(loss, int) or loss < 0:
        raise CliError(f"winter_event_rice_loss: expected a whole number, 0 or more, got {loss!r}")
    players = data.get("players")
    if not isinstance(players, Mapping) or not players:
        raise CliError("players: expected {id: {rice, provinces}}")
    out: dict[str, Any] = {}
    for player, entry in players.items():
        if not isinstance(entry, Mapping):
            raise CliError(f"players.{player}: expected {{rice, provinces}}")
        provinces = entry.get("provinces")
        if isinstance(provinces, list):
            provinces = len(provinces)
        values = clean({"rice": entry.get("rice", 0), "provinces": provinces if provinces is not None else 0},
                       f"players.{player}")
        line = winters.supply(pack, values.get("rice", 0), values.get("provinces", 0), loss)
        report = line.to_json()
        tokens = entry.get("revolt_tokens")
        if isinstance(tokens, Mapping) and line.extra_peasants is not None:
            report["peasants_per_province"] = {str(k): winters.peasants_for(int(v), line.extra_peasants)
                                               for k, v in tokens.items() if isinstance(v, int)}
        out[str(player)] = report
    return out


def run_bids(data: Any, pack: Pack) -> dict[str, Any]:
    players = _players(data)
    raw = data.get("bids", {})
    if not isinstance(raw, Mapping):
        raise CliError("bids: expected {player: {war_chest_card: n} | {province_card: name} | {none: true}}")
    for player in raw:
        if player not in players:
            raise CliError(f"bids.{player}: not one of the players")
    before = data.get("chests_before", {})
    if not isinstance(before, Mapping):
        raise CliError("chests_before: expected {player: chests}")
    chests = clean({p: before.get(p, 0) for p in players}, "chests_before")
    parsed = {p: bidding.parse_bid(p, raw.get(p, {"none": True})) for p in players}
    above_cash = str(data.get("above_cash", pack.options.a10_bid_above_cash))
    settled = bidding.settle(players, parsed, chests, above_cash=above_cash)
    report = settled.to_json()
    report["paid_to_bank"] = {p: settled.paid[p] for p in players}
    report["chests_after"] = {p: settled.chests_after[p] for p in players}
    return report


def run_pack(data: Any, pack: Pack) -> dict[str, Any]:
    return {"version": pack.version, "statuses": status_counts(pack.raw), "check_first": what_to_check_first(pack)}


HANDLERS: dict[str, Callable[[Any, Pack], dict[str, Any]]] = {
    "battle": run_battle, "odds": run_odds, "score": run_score, "winter": run_winter, "bids": run_bids,
    "pack": run_pack,
}


# ---- shogun game: a whole game in a store file -----------------------------------------------------


def _register_game(subparsers: Any) -> None:
    parser = subparsers.add_parser("game", help="keep a game of Shogun: new, do, state, undo, redo, log, export",
                                   description="Keep a game of Shogun: every change is a JSON command in the "
                                               "game file's durable log.")
    sub = parser.add_subparsers(dest="shogun_game_command", metavar="SUBCOMMAND", required=True)

    def db(p: argparse.ArgumentParser, text: str = "the game file (default: the last Shogun game played)") -> None:
        p.add_argument("--db", default=None, metavar="PATH", help=text)

    new = sub.add_parser("new", help="start a new game from its setup (JSON) and print its state")
    db(new, "the new game file (default: a new file in the user data dir)")
    new.add_argument("setup", nargs="?", default="-", help="the setup as a JSON file, or - for standard input")
    new.add_argument("--corrections", default=None, metavar="FILE",
                     help="data-pack corrections as a JSON object {dotted key: value}, over the group's own")
    new.set_defaults(handler=_game_new)
    add_keeping_verbs(sub, game="shogun", title="Shogun", new_hint="table-companion shogun game new SETUP",
                      do_example='{"type": "draw_event", "event": "e02"}', acknowledge=_acknowledge,
                      state_json=_state_json, export_default="csv")


def _game_new(args: argparse.Namespace) -> int:
    from companion.engine import CommandError
    from games.shogun import GAME
    from store.gamelog import Header, StoreError
    from store.games import new_game_path
    from store.overrides import read_overrides
    from store.sessions import factories, new_session
    from ui.session import OpenGame

    setup = read_json_input(args.setup)
    if not isinstance(setup, dict):
        raise CliError("setup: expected one JSON object {players, side, map, start ...}")
    corrections = dict(read_overrides(GAME.name))
    if args.corrections is not None:
        extra = read_json_input(args.corrections)
        if not isinstance(extra, dict):
            raise CliError("corrections: expected a JSON object {dotted key: value}")
        corrections.update(extra)
    try:
        made = GAME.new_game(corrections)
    except DataPackError as error:
        raise CliError(str(error)) from None
    path = Path(args.db) if args.db else new_game_path()
    if path.exists():
        raise CliError(f"{path} exists already; a new game needs a new file")
    path.parent.mkdir(parents=True, exist_ok=True)
    header = Header(GAME.name, made.version, setup, made.data, created_at=time.time())
    try:
        file, session = new_session(path, header, factories())
    except (CommandError, StoreError) as error:
        raise CliError(str(error)) from None
    game = OpenGame(str(path), session, file)
    try:
        print_json({"db": str(path), **session.state_json()})
    finally:
        game.close()
    return 0


def _acknowledge(session: Any, applied: Any) -> dict[str, Any]:
    """What a command did besides its log line: where the game is now (a throw's outcome when it threw)."""
    state = session.state_json()
    out: dict[str, Any] = {"state_id": session.state_id, "phase": state["phase"], "round": state["round"],
                           "prompt": state["prompt"]}
    command = applied.record.command or {}
    throws = session.state.tower.throws
    if applied.record.kind.value == "command" and "out" in command and throws:
        out["throw"] = throws[-1].to_json()
    return out


def _state_json(session: Any) -> dict[str, Any]:
    """The state, and once the game is over each player's result (VP, rank, chests, categories; spec 8)."""
    state: dict[str, Any] = session.state_json()
    result = session.game.result(session.state)
    if result is not None:
        state["result"] = [{"name": p.name, "colour": p.colour, "vp": p.score, "rank": p.rank,
                            "winner": p.winner, "chests": p.tiebreak, "categories": dict(p.categories)}
                           for p in result.players]
    return state

