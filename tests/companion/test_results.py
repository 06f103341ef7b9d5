"""The one finishing-order rule (companion.results), which every game and the hub use."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from companion.results import finishing_ranks, rank_problems

lines = st.lists(st.tuples(st.integers(-5, 5), st.one_of(st.none(), st.integers(0, 3))), min_size=1, max_size=6)


def test_higher_total_then_higher_tie_break_and_none_loses() -> None:
    assert finishing_ranks([(10, None), (12, None), (10, 1)]) == [3, 1, 2]
    assert finishing_ranks([(10, 0), (10, None)]) == [1, 2]  # any value beats none


def test_a_tie_the_rules_leave_open_is_shared_or_settled_by_the_table() -> None:
    assert finishing_ranks([(10, 2), (10, 2), (3, None)]) == [1, 1, 3]
    assert finishing_ranks([(10, 2), (10, 2), (3, None)], table_order=[1, 0]) == [2, 1, 3]


@given(lines)
def test_the_ranks_it_gives_are_the_ranks_it_accepts(players: list[tuple[int, int | None]]) -> None:
    ranks = finishing_ranks(players)
    assert rank_problems([(t, b, r) for (t, b), r in zip(players, ranks, strict=True)]) == []


@given(lines, st.randoms())
def test_ranks_do_not_depend_on_the_order_players_are_listed(players: list[tuple[int, int | None]],
                                                            rng: object) -> None:
    order = list(range(len(players)))
    rng.shuffle(order)  # type: ignore[attr-defined]
    shuffled = [players[i] for i in order]
    ranks = finishing_ranks(players)
    assert finishing_ranks(shuffled) == [ranks[i] for i in order]


def test_a_wrong_rank_names_the_pair_in_the_games_words() -> None:
    problems = rank_problems([(5, 1, 1), (5, 2, 2)], why=("more VP", "left first"))
    assert problems == ["player 2 must rank ahead of player 1 (left first)"]
