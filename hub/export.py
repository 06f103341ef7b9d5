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
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["result_id", "game_id", "round", "table", "mode", "scenario_number", "duration_seconds", "void",
         "revision", "player", "colour", *(f"vp_{c}" for c in CATEGORIES), "total", "rank", "escape_order",
         "rank_points"]
    )
    for r in results:
        for p in r["players"]:
            points = 0 if r["void"] or r["mode"] != "competitive" else points_for_rank(p["rank"], rank_points)
            writer.writerow(
                [r["result_id"], r["game_id"], r["round"], _cell(r["table"]), r["mode"], r["scenario"],
                 r["duration_seconds"], int(r["void"]), r["revision"], _cell(p["name"]), _cell(p["colour"]),
                 *(p["scores"][c] for c in CATEGORIES), p["total"], p["rank"],
                 "" if p["escape_order"] is None else p["escape_order"], points]
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
