"""CSV exports of an event: one row per player per result, or the standings. Pure functions of the
plain dicts :class:`hub.storage.HubStore` returns."""

from __future__ import annotations

import csv
import io
from typing import Any

from hub.rules import CATEGORIES, points_for_rank


def _cell(value: Any) -> Any:
    """Keep spreadsheet programs from running a player name as a formula."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def results_csv(results: list[dict[str, Any]], rank_points: tuple[int, ...]) -> str:
    """One row per player per result; a column per score category of every game in the event (Fuji Koro's
    first, in its order), empty where a game has no such category; ``scenario_number`` is Fuji Koro's
    scenario, empty for a game without scenarios (see :func:`hub.schema.scenario_number`)."""
    categories = list(CATEGORIES)
    for r in results:
        for p in r["players"]:
            categories += [c for c in p["scores"] if c not in categories]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["result_id", "game_id", "round", "table", "mode", "scenario_number", "duration_seconds", "void",
         "revision", "player", "colour", *(f"vp_{c}" for c in categories), "total", "rank", "escape_order",
         "rank_points", "game", "variant", "tiebreak", "pending"]
    )
    for r in results:
        for p in r["players"]:
            counted = not r["void"] and not r["pending"] and r["mode"] == "competitive"
            points = points_for_rank(p["rank"], rank_points) if counted else 0
            escape, tiebreak = p.get("escape_order"), p.get("tiebreak")
            writer.writerow(
                [r["result_id"], r["game_id"], r["round"], _cell(r["table"]), r["mode"],
                 "" if r["scenario"] is None else r["scenario"],
                 r["duration_seconds"], int(r["void"]), r["revision"], _cell(p["name"]), _cell(p["colour"]),
                 *(p["scores"].get(c, "") for c in categories), p["total"], p["rank"],
                 "" if escape is None else escape, points, r["game"], _cell(r["variant"] or ""),
                 "" if tiebreak is None else tiebreak, int(r["pending"])]
            )
    return out.getvalue()


def standings_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = ["place", "name", "rank_points", "wins", "games", "vp", "escapes"]
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row[c]) for c in columns])
    return out.getvalue()
