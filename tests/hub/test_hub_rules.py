"""The pure convention rules: finishing order with the rulebook tie-break, rank points, standings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.rules import (
    CountedGame,
    CountedPlayer,
    Mode,
    RankPointsError,
    finishing_ranks,
    parse_rank_points,
    rank_problems,
    standings,
)


def test_most_vp_wins() -> None:
    assert finishing_ranks([(40, None), (52, None), (45, 1)]) == [3, 1, 2]


def test_tie_goes_to_the_player_who_left_the_volcano_first() -> None:
    # Rulebook: "In case of a tie, the tied player who left the Volcano first wins the game."
    assert finishing_ranks([(50, 2), (50, 1), (30, 3)]) == [2, 1, 3]


def test_an_escaped_player_beats_a_tied_player_who_stayed_inside() -> None:
    assert finishing_ranks([(50, None), (50, 3)]) == [2, 1]


def test_tie_nobody_escaped_is_shared_unless_the_table_settled_it() -> None:
    players = [(50, None), (50, None), (60, None)]
    assert finishing_ranks(players) == [2, 2, 1]
    assert finishing_ranks(players, table_order=[1, 0]) == [3, 2, 1]


def test_rank_problems_accepts_rulebook_ranks_and_names_the_broken_pair() -> None:
    assert rank_problems([(50, 2, 2), (50, 1, 1)]) == []
    assert rank_problems([(50, None, 1), (50, None, 1)]) == []  # chopsticks not fought yet: shared
    assert rank_problems([(50, None, 2), (50, None, 1)]) == []  # the table settled it
    problems = rank_problems([(50, 2, 1), (50, 1, 2)])
    assert problems == ["player 2 must rank ahead of player 1 (the same VP but left the Volcano first)"]
    assert rank_problems([(40, None, 1), (41, None, 2)])[0].startswith("player 2 must rank ahead")
    assert "must be 2" in rank_problems([(40, None, 1), (30, None, 3)])[0]


players_strategy = st.lists(
    st.tuples(st.integers(0, 60), st.booleans()), min_size=2, max_size=6
).flatmap(
    lambda rows: st.permutations(range(len(rows))).map(
        lambda order: [
            (total, order[i] + 1 if escaped else None) for i, (total, escaped) in enumerate(rows)
        ]
    )
)


@given(players_strategy)
def test_computed_ranks_always_pass_the_check(players: list[tuple[int, int | None]]) -> None:
    # escape orders from a permutation may leave gaps; the ranking only uses their relative order
    ranks = finishing_ranks(players)
    assert rank_problems([(t, e, r) for (t, e), r in zip(players, ranks, strict=True)]) == []
    assert min(ranks) == 1


def test_rank_points_tables() -> None:
    assert parse_rank_points("10,7,5,3,2,1") == (10, 7, 5, 3, 2, 1)
    assert parse_rank_points("3, 1") == (3, 1)
    for bad in ("", "a,b", "1,2", "-1", "1,1,1,1,1,1,1"):
        with pytest.raises(RankPointsError):
            parse_rank_points(bad)


def _game(result_id: int, round_number: int, *lines: tuple[str, int, int, int | None], mode: Mode = Mode.COMPETITIVE
          ) -> CountedGame:
    return CountedGame(result_id, round_number, "T", mode, tuple(CountedPlayer(*line) for line in lines))


def test_standings_sum_rank_points_per_round_and_overall() -> None:
    games = [
        _game(1, 1, ("Aiko", 50, 1, 1), ("Ben", 40, 2, None)),
        _game(2, 1, ("Chiyo", 45, 1, None), ("dan", 30, 2, None)),
        _game(3, 2, ("ben", 60, 1, 1), ("Chiyo", 20, 2, None)),
        _game(4, 2, ("Aiko", 10, 1, None), ("Dan", 5, 2, None), mode=Mode.COOPERATIVE),
    ]
    overall = standings(games, (10, 7))
    by_name = {r.name: r for r in overall}
    assert by_name["Ben"].rank_points == 17 and by_name["Ben"].vp == 100  # "Ben" and "ben" are one player
    assert by_name["Chiyo"].rank_points == 17 and by_name["Chiyo"].vp == 65
    assert [r.name for r in overall] == ["Ben", "Chiyo", "Aiko", "dan"]  # equal points and wins: VP decides
    assert by_name["Aiko"].games == 1  # the cooperative game earns nothing
    round_two = standings(games, (10, 7), round_number=2)
    assert [(r.name, r.rank_points) for r in round_two] == [("ben", 10), ("Chiyo", 7)]


def test_players_equal_on_everything_share_a_place() -> None:
    games = [_game(1, 1, ("A", 30, 1, None), ("B", 30, 1, None))]
    assert [(r.place, r.name) for r in standings(games, (10, 7))] == [(1, "A"), (1, "B")]
