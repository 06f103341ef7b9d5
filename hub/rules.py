"""Pure convention rules: a game's finishing order with the rulebook tie-break, rank points, standings.

Everything here works on plain values so the hub service, the tablet-side payload builder and the tests
share one definition. Rulebook, "Winning the Game": the player with the most VP wins; in case of a tie
the tied player who left the Volcano first wins; if none of the tied players left the Volcano, the
table settles it (chopsticks) - so only that case may leave a rank shared or decided by the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from companion import results

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

#: The game schema 1 results are (tablets that sent results before results named their game).
FUJIKORO_GAME = "fujikoro"

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


def escape_tiebreak(escape_order: int | None) -> int | None:
    """Fuji Koro's tie-break value (:mod:`companion.results`), for schema 1 results: the first to leave
    the Volcano wins a tie, one who left beats one who stayed in (rulebook, "Winning the Game")."""
    return results.order_tiebreak(escape_order, MAX_PLAYERS)


#: Fuji Koro's words for why a player ranks ahead (schema 1 results are Fuji Koro's).
FUJIKORO_WHY = ("more VP", "the same VP but left the Volcano first")


def finishing_ranks(
    players: Sequence[tuple[int, int | None]], *, table_order: Sequence[int] = ()
) -> list[int]:
    """Ranks (1 = winner) for Fuji Koro players given as (total VP, escape order or None), by the one
    finishing-order rule of :func:`companion.results.finishing_ranks`: ties go to the player who left the
    Volcano first; players with equal VP of whom neither escaped share a rank unless ``table_order``
    (indices, best first) says how the table settled it."""
    return results.finishing_ranks([(t, escape_tiebreak(e)) for t, e in players], table_order=table_order)


def rank_problems(players: Sequence[tuple[int, int | None, int]]) -> list[str]:
    """Why the ranks of a Fuji Koro game (total, escape order or None, rank) break the rulebook order."""
    return results.rank_problems([(t, escape_tiebreak(e), r) for t, e, r in players], why=FUJIKORO_WHY)


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
class CountedPlayer:
    """One player's line in one counted game; ``tiebreak`` is the game's tie-break value (Fuji Koro: an
    escape from the Volcano)."""

    name: str
    total: int
    rank: int
    tiebreak: int | None


@dataclass(frozen=True, slots=True)
class CountedGame:
    """A game that counts for the standings (not void)."""

    result_id: int
    round: int
    table: str
    mode: Mode
    players: tuple[CountedPlayer, ...]
    game: str = FUJIKORO_GAME


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
    games: Iterable[CountedGame], rank_points: Sequence[int], *, round_number: int | None = None,
    game: str | None = None,
) -> list[StandingRow]:
    """Standings over the competitive games (of one round, or all when ``round_number`` is None; of one
    game, or every game when ``game`` is None - rank points are comparable across games).

    Order: rank points, then wins, then total VP, then the games with a tie-break value (in Fuji Koro,
    escapes: the rulebook rewards leaving the Volcano). Players equal on all four share a place.
    Cooperative games earn no rank points.
    """
    tallies: dict[str, _Tally] = {}
    for counted in games:
        if counted.mode is not Mode.COMPETITIVE:
            continue
        if round_number is not None and counted.round != round_number:
            continue
        if game is not None and counted.game != game:
            continue
        for line in counted.players:
            tally = tallies.setdefault(player_key(line.name), _Tally(line.name))
            tally.names[line.name] = tally.names.get(line.name, 0) + 1
            tally.rank_points += points_for_rank(line.rank, rank_points)
            tally.wins += 1 if line.rank == 1 else 0
            tally.games += 1
            tally.vp += line.total
            tally.escapes += 0 if line.tiebreak is None else 1
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
