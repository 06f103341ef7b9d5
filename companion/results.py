"""Finishing order: the one place that ranks the players of a finished game, for every game.

A game scores each player a total and, for ties, a **tie-break value** of its own choosing (higher wins;
``None`` loses to any value): Fuji Koro gives a player who left the Volcano ``7 - escape order`` and one
who stayed in ``None`` (rulebook, "Winning the Game": on equal VP the player who left first wins). Players
equal on both are the tie the rules leave to the table (Fuji Koro: chopsticks): they share a rank unless
the table says how it settled it.

Ranks use competition numbering: 1, 1, 3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Line = tuple[int, int | None]  # (total, tie-break value or None)


def _key(line: Line) -> tuple[int, float]:
    total, tiebreak = line
    return (-total, math.inf if tiebreak is None else -float(tiebreak))  # None: after every value


def order_tiebreak(place: int | None, most: int = 6) -> int | None:
    """The tie-break value of a place in an order where earlier is better (1st -> ``most``, 2nd ->
    ``most - 1`` ...); None for no place. Fuji Koro's escape order from the Volcano is such an order."""
    return None if place is None else most + 1 - place


def standing(players: Sequence[Line]) -> list[tuple[int, int]]:
    """(index, rank) of every player, best first; players sharing a rank keep the order they came in."""
    ranks = finishing_ranks(players)
    return sorted(((i, rank) for i, rank in enumerate(ranks)), key=lambda item: (item[1], item[0]))


def is_table_tie(a: Line, b: Line) -> bool:
    """Two players the rules cannot separate (same total, same tie-break value)."""
    return _key(a) == _key(b)


def finishing_ranks(players: Sequence[Line], *, table_order: Sequence[int] = ()) -> list[int]:
    """Ranks (1 = winner) of players given as (total, tie-break value). ``table_order`` (indices, best
    first) orders players the rules leave tied, as the table settled it; the others of such a tie share a
    rank."""
    preference = {index: position for position, index in enumerate(table_order)}
    order = sorted(range(len(players)), key=lambda i: (_key(players[i]), preference.get(i, math.inf)))
    ranks = [0] * len(players)
    for position, index in enumerate(order):
        if position > 0:
            previous = order[position - 1]
            shared = is_table_tie(players[index], players[previous]) and (
                preference.get(index) is None or preference.get(previous) is None
            )
            if shared:
                ranks[index] = ranks[previous]
                continue
        ranks[index] = position + 1
    return ranks


#: How :func:`rank_problems` says why one player ranks ahead: on a higher total, on the tie-break.
WHY_AHEAD = ("a higher total", "the same total but wins the tie-break")


def rank_problems(players: Sequence[tuple[int, int | None, int]], *, why: tuple[str, str] = WHY_AHEAD) -> list[str]:
    """Why given ranks break the finishing order; empty when consistent. Each player is (total, tie-break
    value, rank). Only players the rules leave tied may share a rank or be ordered either way. ``why``
    words the reason in the game's terms."""
    problems: list[str] = []
    for i, (total_i, tie_i, rank_i) in enumerate(players):
        better = sum(1 for j, p in enumerate(players) if j != i and p[2] < rank_i)
        if rank_i != better + 1:
            problems.append(
                f"player {i + 1} has rank {rank_i} but {better} player(s) rank ahead, so the rank must be "
                f"{better + 1}"
            )
        for j, (total_j, tie_j, rank_j) in enumerate(players):
            if j <= i or is_table_tie((total_i, tie_i), (total_j, tie_j)):
                continue
            i_first = _key((total_i, tie_i)) < _key((total_j, tie_j))
            if i_first and not rank_i < rank_j:
                problems.append(_order_problem(i, j, why[0] if total_i != total_j else why[1]))
            if not i_first and not rank_j < rank_i:
                problems.append(_order_problem(j, i, why[0] if total_i != total_j else why[1]))
    return problems


def _order_problem(winner: int, loser: int, why: str) -> str:
    return f"player {winner + 1} must rank ahead of player {loser + 1} ({why})"
