"""A finished game for other tools: the BG Stats import link and a CSV score sheet.

BG Stats takes a play as JSON in ``bgstats://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>``
(the fields below: ``sourceName``, ``playDate``, ``game`` with ``bggId``, ``players`` with score, winner,
rank, start player). Generic: it reads the engine's :class:`companion.engine.Result`.
"""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.parse
from typing import Any

from companion.engine import Result

SOURCE_NAME = "Fuji Koro Companion"
BGSTATS_URL = "bgstats://app.bgstatsapp.com/createPlay.html?data="


def bgstats_play(
    result: Result, *, started: float, finished: float, play_id: str, location: str = ""
) -> dict[str, Any]:
    """The play in BG Stats' import JSON."""
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play_id,
        "playDate": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "durationMin": max(0, round((finished - started) / 60)),
        "location": location,
        "comments": result.note,
        "game": {
            "name": result.game_name,
            "bggId": result.bgg_id,
            "sourceGameId": result.game_name,
            "highestWins": True,
            "noPoints": result.cooperative,
            "cooperative": result.cooperative,
        },
        "players": [
            {
                "name": p.name,
                "sourcePlayerId": p.name,
                "score": None if result.cooperative else p.score,
                "winner": p.winner,
                "rank": p.rank,
                "startPlayer": p.start_player,
                "role": p.colour or "",
            }
            for p in result.players
        ],
    }


def bgstats_link(play: dict[str, Any]) -> str:
    return BGSTATS_URL + urllib.parse.quote(json.dumps(play, separators=(",", ":")), safe="")


def result_csv(result: Result) -> str:
    """One row per player: rank, name, colour, winner, total, then the VP of each category."""
    categories: list[str] = []
    for p in result.players:
        categories.extend(c for c in p.categories if c not in categories)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "player", "colour", "winner", "start_player", "score", *categories])
    for p in sorted(result.players, key=lambda p: (p.rank, p.name)):
        writer.writerow(
            [
                p.rank,
                p.name,
                p.colour or "",
                int(p.winner),
                int(p.start_player),
                p.score,
                *(p.categories.get(c, 0) for c in categories),
            ]
        )
    return out.getvalue()
