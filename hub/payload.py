"""Build the JSON a table sends to the hub for a finished game, from plain dicts (no I/O, no app types).

The session module calls :func:`build_result_payload` when a game ends and puts the dict in the
outbox (:mod:`hub.outbox`). Totals and ranks are computed here with the rulebook tie-break, so a table
never sends ranks the hub would reject; only a tie the rulebook cannot settle (same VP, nobody of them
escaped) needs ``table_order`` from the players, otherwise those players share the rank.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from companion import results
from companion.engine import Result
from hub.rules import CATEGORIES, Mode, finishing_ranks, player_key

#: The session's category names (games.fujikoro.rules.Category) and what the hub calls them; both
#: exploring categories add up to the hub's ``explored``.
CATEGORY_ALIASES: dict[str, str] = {
    "explore_level_2": "explored",
    "explore_level_3": "explored",
    "gear_card": "gear_cards",
    "correction": "corrections",
}

MODE_ALIASES: dict[str, str] = {"coop": "cooperative"}


class PayloadError(ValueError):
    """The game data cannot form a result payload."""


def build_result_payload(
    players: Sequence[Mapping[str, Any]],
    *,
    game_id: str | uuid.UUID,
    seq: int,
    mode: str | Mode,
    scenario: int,
    duration_seconds: float,
    round_number: int | None = None,
    finished_at: datetime | None = None,
    table_order: Sequence[str] = (),
) -> dict[str, Any]:
    """The result payload (schema in hub/README.md) for one finished game.

    ``players``: dicts with ``name``, ``colour`` (None becomes "seat N"), ``scores`` (category -> VP;
    the session's names in :data:`CATEGORY_ALIASES` are accepted, missing categories are 0, unknown
    ones are an error) and ``escape_order`` (1 for the first to leave the Volcano, None if they did
    not escape). ``mode`` also accepts the session's ``"coop"``. ``table_order``: names, best first,
    for ties the table settled itself.
    """
    try:
        parsed_mode = Mode(MODE_ALIASES.get(str(mode), str(mode)))
    except ValueError as error:
        raise PayloadError(f"mode must be one of {[m.value for m in Mode]}, got {mode!r}") from error
    try:
        parsed_id = uuid.UUID(str(game_id))
    except ValueError as error:
        raise PayloadError(f"game_id must be a UUID, got {game_id!r}") from error
    lines: list[dict[str, Any]] = []
    for index, player in enumerate(players):
        scores = dict.fromkeys(CATEGORIES, 0)
        for raw_name, value in dict(player.get("scores") or {}).items():
            name = CATEGORY_ALIASES.get(str(raw_name), str(raw_name))
            if name not in scores:
                raise PayloadError(f"player {index + 1}: unknown score category {raw_name!r}")
            scores[name] += int(value)
        escape = player.get("escape_order")
        colour = player.get("colour")
        lines.append(
            {
                "name": str(player["name"]).strip(),
                "colour": f"seat {index + 1}" if colour is None else str(colour).strip(),
                "scores": scores,
                "total": sum(scores.values()),
                "rank": 0,
                "escape_order": None if escape is None else int(escape),
            }
        )
    keys = [player_key(line["name"]) for line in lines]
    order_keys = [player_key(name) for name in table_order]
    unknown_names = [name for name, key in zip(table_order, order_keys, strict=True) if key not in keys]
    if unknown_names:
        raise PayloadError(f"table_order names players not in the game: {unknown_names}")
    ranks = finishing_ranks(
        [(line["total"], line["escape_order"]) for line in lines],
        table_order=[keys.index(key) for key in order_keys],
    )
    for line, rank in zip(lines, ranks, strict=True):
        line["rank"] = rank
    payload: dict[str, Any] = {
        "schema_version": 1,
        "game_id": str(parsed_id),
        "seq": int(seq),
        "mode": parsed_mode.value,
        "scenario": int(scenario),
        "duration_seconds": int(round(duration_seconds)),
        "round": round_number,
        "finished_at": None if finished_at is None else finished_at.isoformat(),
        "players": lines,
    }
    return payload


def build_lines(
    players: Sequence[Mapping[str, Any]], *, table_order: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """Schema 2 player lines from plain dicts (``name``, ``colour`` or None, ``scores``, ``tiebreak`` or
    None): totals added, ranks by the one finishing-order rule (:mod:`companion.results`)."""
    lines: list[dict[str, Any]] = []
    for index, player in enumerate(players):
        scores = {str(name): int(value) for name, value in dict(player.get("scores") or {}).items()}
        colour = player.get("colour")
        tiebreak = player.get("tiebreak")
        lines.append({
            "name": str(player["name"]).strip(),
            "colour": f"seat {index + 1}" if colour is None else str(colour).strip(),
            "scores": scores,
            "total": sum(scores.values()),
            "tiebreak": None if tiebreak is None else int(tiebreak),
            "rank": 0,
        })
    keys = [player_key(line["name"]) for line in lines]
    unknown = [name for name in table_order if player_key(name) not in keys]
    if unknown:
        raise PayloadError(f"table_order names players not in the game: {unknown}")
    ranks = results.finishing_ranks([(line["total"], line["tiebreak"]) for line in lines],
                                    table_order=[keys.index(player_key(name)) for name in table_order])
    for line, rank in zip(lines, ranks, strict=True):
        line["rank"] = rank
    return lines


def payload_from_result(
    result: Result, *, game: str, game_id: str | uuid.UUID, seq: int, duration_seconds: float,
    finished_at: datetime | None = None, table_order: Sequence[str] = (),
) -> dict[str, Any]:
    """The schema 2 payload of a finished game, from the game's own :class:`companion.engine.Result`
    (categories and tie-break value per player, as the game scored them)."""
    try:
        parsed_id = uuid.UUID(str(game_id))
    except ValueError as error:
        raise PayloadError(f"game_id must be a UUID, got {game_id!r}") from error
    lines = build_lines(
        [{"name": p.name, "colour": p.colour, "scores": dict(p.categories), "tiebreak": p.tiebreak}
         for p in result.players],
        table_order=table_order,
    )
    if result.cooperative:
        for line, player in zip(lines, result.players, strict=True):
            line["rank"] = player.rank
    return {
        "schema_version": 2,
        "game": game,
        "game_id": str(parsed_id),
        "seq": int(seq),
        "mode": Mode.COOPERATIVE.value if result.cooperative else Mode.COMPETITIVE.value,
        "variant": result.variant,
        "duration_seconds": int(round(duration_seconds)),
        "finished_at": None if finished_at is None else finished_at.isoformat(),
        "players": lines,
    }
