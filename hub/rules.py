"""Pure convention rules: a game's finishing order with the rulebook tie-break, rank points, standings.

Everything here works on plain values so the hub service, the tablet-side payload builder and the tests
share one definition. Rulebook, "Winning the Game": the player with the most VP wins; in case of a tie
the tied player who left the Volcano first wins; if none of the tied players left the Volcano, the
table settles it (chopsticks) - so only that case may leave a rank shared or decided by the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

#: Score categories of one player, in the order the hub shows them. ``corrections`` is the table's own
#: manual adjustment (house rules, a forgotten VP); it may be negative.
CATEGORIES: tuple[str, ...] = (
    "explored",
    "scrolls",
    "dragons",
    "gear_cards",
    "shogun",
    "scenario",
    "corrections",
)

#: Rank points by finishing rank (1st, 2nd, ...), used unless an event sets its own table.
DEFAULT_RANK_POINTS: tuple[int, ...] = (10, 7, 5, 3, 2, 1)

MAX_PLAYERS = 6


class Mode(StrEnum):
    COMPETITIVE = "competitive"
    COOPERATIVE = "cooperative"


class RankPointsError(ValueError):
    """A rank-points table that cannot be used."""


def player_key(name: str) -> str:
    """The identity of a player across tables: case- and whitespace-insensitive name."""
    return " ".join(name.split()).casefold()


def _escape_key(escape_order: int | None) -> float:
    return math.inf if escape_order is None else float(escape_order)


def is_unresolved_tie(a: tuple[int, int | None], b: tuple[int, int | None]) -> bool:
    """Two players (total, escape order) the rulebook cannot separate: same VP and neither escaped."""
    return a[0] == b[0] and a[1] is None and b[1] is None


def finishing_ranks(
    players: Sequence[tuple[int, int | None]], *, table_order: Sequence[int] = ()
) -> list[int]:
    """Ranks (1 = winner) for players given as (total VP, escape order or None).

    Ties are broken by the rulebook: the tied player who left the Volcano first ranks higher, and a
    player who escaped beats a tied player who did not. Players still tied (same VP, neither escaped)
    share a rank unless ``table_order`` (indices into ``players``, best first) says how the table
    settled it. Shared ranks use competition ranking (1, 1, 3).
    """
    preference = {index: position for position, index in enumerate(table_order)}
    order = sorted(
        range(len(players)),
        key=lambda i: (-players[i][0], _escape_key(players[i][1]), preference.get(i, math.inf)),
    )
    ranks = [0] * len(players)
    for position, index in enumerate(order):
        if position > 0:
            previous = order[position - 1]
            shared = is_unresolved_tie(players[index], players[previous]) and (
                preference.get(index) is None or preference.get(previous) is None
            )
            if shared:
                ranks[index] = ranks[previous]
                continue
        ranks[index] = position + 1
    return ranks


def rank_problems(players: Sequence[tuple[int, int | None, int]]) -> list[str]:
    """Why the ranks sent with a competitive game break the rulebook; empty when they are consistent.

    Each player is (total, escape order or None, rank). A rank must follow the VP and the escape
    tie-break; only players the rulebook cannot separate may share a rank or be ordered by the table.
    """
    problems: list[str] = []
    for i, (total_i, escape_i, rank_i) in enumerate(players):
        better = sum(1 for j, p in enumerate(players) if j != i and p[2] < rank_i)
        if rank_i != better + 1:
            problems.append(
                f"player {i + 1} has rank {rank_i} but {better} player(s) rank ahead, so the rank must be "
                f"{better + 1}"
            )
        for j, (total_j, escape_j, rank_j) in enumerate(players):
            if j <= i:
                continue
            a, b = (total_i, escape_i), (total_j, escape_j)
            if is_unresolved_tie(a, b):
                continue
            i_first = (-total_i, _escape_key(escape_i)) < (-total_j, _escape_key(escape_j))
            if i_first and not rank_i < rank_j:
                problems.append(_order_problem(i, j, total_i, total_j))
            if not i_first and not rank_j < rank_i:
                problems.append(_order_problem(j, i, total_j, total_i))
    return problems


def _order_problem(winner: int, loser: int, total_w: int, total_l: int) -> str:
    why = "more VP" if total_w != total_l else "the same VP but left the Volcano first"
    return f"player {winner + 1} must rank ahead of player {loser + 1} ({why})"


def rank_points_table(values: Iterable[int]) -> tuple[int, ...]:
    """Validate an event's rank-points table: 1 to 6 non-negative, non-increasing integers."""
    table = tuple(values)
    if not 1 <= len(table) <= MAX_PLAYERS:
        raise RankPointsError(f"rank points need 1 to {MAX_PLAYERS} values, got {len(table)}")
    if any(v < 0 for v in table):
        raise RankPointsError("rank points cannot be negative")
    if any(a < b for a, b in zip(table, table[1:], strict=False)):
        raise RankPointsError("rank points must not grow with a worse rank")
    return table


def parse_rank_points(text: str) -> tuple[int, ...]:
    """``"10,7,5,3,2,1"`` -> (10, 7, 5, 3, 2, 1)."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise RankPointsError(f"rank points must be comma-separated integers, got {text!r}") from error
    return rank_points_table(values)


def points_for_rank(rank: int, table: Sequence[int]) -> int:
    return table[rank - 1] if 1 <= rank <= len(table) else 0


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """One player's line in one counted game."""

    name: str
    total: int
    rank: int
    escape_order: int | None


@dataclass(frozen=True, slots=True)
class CountedGame:
    """A game that counts for the standings (not void)."""

    result_id: int
    round: int
    table: str
    mode: Mode
    players: tuple[PlayerLine, ...]


@dataclass(frozen=True, slots=True)
class StandingRow:
    place: int
    name: str
    rank_points: int
    wins: int
    games: int
    vp: int
    escapes: int


@dataclass(slots=True)
class _Tally:
    name: str
    rank_points: int = 0
    wins: int = 0
    games: int = 0
    vp: int = 0
    escapes: int = 0
    names: dict[str, int] = field(default_factory=dict)


def standings(
    games: Iterable[CountedGame], rank_points: Sequence[int], *, round_number: int | None = None
) -> list[StandingRow]:
    """Standings over the competitive games (of one round, or all when ``round_number`` is None).

    Order: rank points, then wins, then total VP, then escapes (the rulebook rewards leaving the
    Volcano). Players equal on all four share a place. Cooperative games earn no rank points.
    """
    tallies: dict[str, _Tally] = {}
    for game in games:
        if game.mode is not Mode.COMPETITIVE:
            continue
        if round_number is not None and game.round != round_number:
            continue
        for line in game.players:
            tally = tallies.setdefault(player_key(line.name), _Tally(line.name))
            tally.names[line.name] = tally.names.get(line.name, 0) + 1
            tally.rank_points += points_for_rank(line.rank, rank_points)
            tally.wins += 1 if line.rank == 1 else 0
            tally.games += 1
            tally.vp += line.total
            tally.escapes += 0 if line.escape_order is None else 1
    ordered = sorted(
        tallies.values(),
        key=lambda t: (-t.rank_points, -t.wins, -t.vp, -t.escapes, player_key(t.name)),
    )
    rows: list[StandingRow] = []
    for position, tally in enumerate(ordered):
        key = (tally.rank_points, tally.wins, tally.vp, tally.escapes)
        place = position + 1
        if rows and (rows[-1].rank_points, rows[-1].wins, rows[-1].vp, rows[-1].escapes) == key:
            place = rows[-1].place
        shown = max(tally.names.items(), key=lambda item: item[1])[0]  # most used spelling, first on ties
        rows.append(StandingRow(place, shown, tally.rank_points, tally.wins, tally.games, tally.vp, tally.escapes))
    return rows


def rounds_played(games: Iterable[CountedGame]) -> list[int]:
    return sorted({game.round for game in games})


def category_total(scores: Mapping[str, int]) -> int:
    return sum(int(scores.get(name, 0)) for name in CATEGORIES)
