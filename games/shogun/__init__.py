"""Shogun (Dirk Henn, Queen Games 2006) as a game of the Table Companion (issue 17).

Where things are:

* ``pack.py`` + ``data/shogun.toml`` - the data pack (map, supply table, events, tower model, rule options),
  every value with its status;
* ``tower.py`` - the tower's bookkeeping (inside, tray, throws) and the cube audit;
* ``battle.py`` - what goes into the tower, the counting rule, the consequences;
* ``odds.py`` - the tower model, exact odds, Monte Carlo, the maximum-likelihood fit, the track record;
* ``bids.py``, ``winter.py``, ``scoring.py`` - turn order, winter supply, winter scoring;
* ``state.py`` + ``rules.py`` - the game on the session engine; ``views.py`` - what screens show;
* ``cli.py`` - ``table-companion shogun battle|score|winter|bids|odds`` and ``shogun game new|do|state ...``;
* ``table.py`` - the table's LED script; ``app/`` - the screens (new game, round, battle, winter, scoring).

The specification is ``../shared/rules/shogun.md`` (cited as "spec N" throughout).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.datapack import PackSpec, status_counts
from companion.registry import GameModule, NewGame
from games.shogun.pack import Pack, load, parse, shipped_raw
from games.shogun.rules import GAME_NAME, ShogunRules


def _rules(data: Mapping[str, Any]) -> ShogunRules:
    raw = data.get("pack")
    return ShogunRules(parse(raw) if isinstance(raw, Mapping) else load())


def _new_game(corrections: Mapping[str, Any]) -> NewGame:
    """A new game keeps the whole data pack, with the group's corrections, in its file."""
    pack = load(dict(corrections))
    return NewGame(pack.version, {"pack": dict(pack.raw)})


def _cli(subparsers: Any) -> None:
    from games.shogun.cli import register

    register(subparsers)


def _app() -> Any:
    from games.shogun.app import game_app

    return game_app()


def _summary(pack: Pack) -> str:
    counts = status_counts(pack.raw)
    sides = ", ".join(f"{len(side.provinces)} provinces on the {name} side" for name, side in pack.sides.items())
    return f"{sides}, {len(pack.events)} event cards; {', '.join(f'{n} {s}' for s, n in counts.items())}"


#: The data pack for the shared data verbs: a correction goes through ``load``, which keeps the supply table's
#: rows the rulebook gives locked (spec 7.2, 9).
DATA_PACK = PackSpec(shipped_raw=shipped_raw, load=load, parse=parse, summary=_summary)

GAME = GameModule(name=GAME_NAME, title="Shogun", rules=_rules, new_game=_new_game, players=(3, 5), cli=_cli,
                  app=_app, package=__name__, data_pack=DATA_PACK)
