"""Battles and revolts (spec 6): the rulebook's worked examples first, then each counting rule."""

from __future__ import annotations

import pytest

from games.shogun.battle import ATTACKER, DEFENDER, DRAW, BattleError, BattleSetup, judge, resolve
from games.shogun.tower import Tower


def test_kozuke_example() -> None:
    """Spec 6.8 Kozuke [§ Výsledek bitvy a její důsledky › Hráč proti hráči nebo neutrální provincii]: blue
    moves 4 from Shinano into yellow's Kozuke (3 armies, no token); out fall 3 blue, 1 yellow, 1 green; the
    green helps yellow: 3 against 2, blue wins; back to supplies 1 yellow, 1 green, 2 blue; 1 blue occupies
    Kozuke and blue takes the card."""
    setup = BattleSetup("attack", attacker="blue", defender="yellow", moved=4, source_armies=6, target_armies=3)
    assert setup.added() == {"blue": 4, "yellow": 3}
    result = resolve(setup, Tower(inside={"green": 1}), {"blue": 3, "yellow": 1, "green": 1})
    assert (result.attacking, result.defending, result.winner) == (3, 2, ATTACKER)
    assert result.returned_to_supply == {"yellow": 1, "green": 1, "blue": 2}
    assert result.target_after.owner == "blue" and result.target_after.armies == 1
    assert result.source_after == 2
    assert result.tower.tray == {}  # everything taking part left the tray
    assert result.tower.inside == {"blue": 1, "yellow": 2}  # 4 + 3 + 1 in, 5 out (spec 6.1)


@pytest.mark.parametrize("out, owner_wins", [({"red": 3, "green": 1}, True), ({"red": 1, "green": 2}, False)])
def test_mikawa_example(out: dict[str, int], owner_wins: bool) -> None:
    """Spec 6.8 Mikawa [§ … › Revolta – vzbouření sedláků proti hráči]: Petr collects taxes in Mikawa with 2
    revolt tokens: he throws in his 4 armies from Mikawa, 2 peasant cubes and the tray; if he wins he keeps
    Mikawa and adds another token."""
    setup = BattleSetup("revolt", defender="red", target_armies=4, revolt_tokens=2, buildings=("temple",))
    assert setup.added() == {"red": 4, "green": 2}
    tray = {"blue": 1}
    result = resolve(setup, Tower(inside={"green": 1}, tray=tray), out | {"blue": 1}, add_token_if_held=True)
    assert result.thrown == {"red": 4, "green": 2, "blue": 1}  # the tray goes in too
    if owner_wins:
        assert result.winner == DEFENDER
        # A3: the owner loses as many cubes as there are greens in the tray; the rest stay
        assert result.target_after.armies == 2 and result.target_after.revolt_tokens == 3
        assert result.target_after.buildings == ("temple",)
    else:
        assert result.winner == ATTACKER
        assert result.target_after.owner is None
        assert result.target_after.buildings == () and result.target_after.revolt_tokens == 0
    assert result.tower.tray == {"blue": 1}  # a colour not in the battle stays in the tray (spec 6.4)


def test_kai_example_three_peasants() -> None:
    """Spec 6.8 Kai [§ … › Revolta …]: in winter Ota lacks 2 rice; Kai revolts with 3 peasants: 2 from the
    supply table and 1 for Kai's revolt token."""
    setup = BattleSetup("revolt", defender="red", target_armies=2, revolt_tokens=1, winter_extra_peasants=2)
    assert setup.added() == {"red": 2, "green": 3}


def test_greens_stay_out_when_the_defended_province_has_a_token() -> None:
    """Spec 6.4: with one or more revolt tokens the greens do not help the defender and stay in the tray."""
    setup = BattleSetup("attack", attacker="blue", defender="red", moved=2, target_armies=2, revolt_tokens=1)
    result = resolve(setup, Tower(inside={"green": 2}), {"blue": 2, "red": 1, "green": 2})
    assert result.winner == ATTACKER and result.defending == 1
    assert result.tower.tray == {"green": 2}
    assert result.target_after.revolt_tokens == 1  # tokens stay with a conquered province (spec 6.5)


def test_only_greens_out_is_a_draw_and_a_draw_clears_the_province() -> None:
    """Spec 6.4 note and 6.5: only green cubes fall out -> a draw; a draw removes armies, buildings and tokens
    and the card goes to the neutral pile."""
    setup = BattleSetup("attack", attacker="blue", defender="red", moved=2, target_armies=3,
                        buildings=("castle", "theatre"))
    result = resolve(setup, Tower(inside={"green": 1}), {"green": 1})
    assert result.winner == DRAW
    assert result.target_after.owner is None and result.target_after.buildings == ()
    assert result.returned_to_supply == {"green": 1}


def test_a_defender_who_wins_by_greens_keeps_what_the_greens_absorb() -> None:
    """Spec 6.5 with A4 (greens first): the defender loses A, greens absorb first, keeping own - max(0, A - G);
    with no own cube left it is a draw."""
    setup = BattleSetup("attack", attacker="blue", defender="red", moved=3, target_armies=3)
    result = resolve(setup, Tower(inside={"green": 3}), {"blue": 2, "red": 2, "green": 1})
    assert result.winner == DEFENDER
    assert result.target_after.armies == 1  # 2 - max(0, 2 - 1)
    assert result.returned_to_supply == {"blue": 2, "red": 1, "green": 1}
    assert judge("attack", 1, 0, 3, greens_count=True) == DRAW  # wins on greens alone: A4 draw
    assert judge("attack", 1, 2, 0, greens_count=True, a4_losses="own_first") == DEFENDER


def test_neutral_and_revolt_counting() -> None:
    """Spec 6.4: attacker against all greens; revolt: owner against greens, peasants win on a tie."""
    assert judge("neutral", 2, 0, 1, greens_count=True) == ATTACKER
    assert judge("neutral", 0, 0, 2, greens_count=True) == DRAW  # only greens out
    assert judge("neutral", 1, 0, 2, greens_count=True) == DEFENDER
    assert judge("revolt", 2, 2, 2, greens_count=True) == DRAW  # tie: the peasants win or draw (6.6)
    assert judge("revolt", 1, 2, 1, greens_count=True) == DEFENDER


def test_privilege_cubes_and_one_neutral_green_go_in() -> None:
    """Spec 6.3: +1 army attacking / defending add a cube; a neutral province throws 1 green."""
    setup = BattleSetup("attack", attacker="blue", defender="red", moved=2, target_armies=1, attack_extra=1,
                        defence_extra=1)
    assert setup.added() == {"blue": 3, "red": 2}
    assert BattleSetup("neutral", attacker="blue", defender=None, moved=2).added() == {"blue": 2, "green": 1}


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "attack", "attacker": "blue", "defender": "red", "moved": 4, "source_armies": 4, "target_armies": 1},
     "at least one army stays"),
    ({"kind": "attack", "attacker": "blue", "defender": "blue", "moved": 1, "target_armies": 1}, "another player"),
    ({"kind": "neutral", "attacker": "blue", "defender": None, "moved": 1, "target_armies": 2}, "neutral province"),
    ({"kind": "siege", "defender": "red"}, "kind"),
])
def test_impossible_battles_say_why(kwargs: dict[str, object], message: str) -> None:
    """Spec 5 (Moving): one army stays behind; spec 6.2: kinds of battle."""
    with pytest.raises(BattleError, match=message):
        BattleSetup(**kwargs)  # type: ignore[arg-type]


def test_a3_the_other_reading_loses_as_many_as_the_greens_thrown_in() -> None:
    """Spec 10 A3 [§ … › Revolta]: "the owner returns as many of their cubes as there were peasants"; the default
    reads the greens in the tray (spec 6.6), the other reading the greens thrown in. Every default is a setting the
    group can change (spec 10); the setting was listed but changed nothing (2026-12-01)."""
    out = {"blue": 4, "green": 3}  # 5 blue and 1 green thrown in, 2 greens stuck inside came out with them
    tray_reading = resolve(BattleSetup("revolt", defender="blue", target_armies=5, revolt_tokens=1),
                           Tower(inside={"green": 2}), out)
    thrown_reading = resolve(BattleSetup("revolt", defender="blue", target_armies=5, revolt_tokens=1,
                                         a3_owner_loses="greens_thrown"), Tower(inside={"green": 2}), out)
    assert tray_reading.winner == thrown_reading.winner == DEFENDER  # 4 blue against 3 peasants
    assert tray_reading.target_after.armies == 1  # 4 - 3 greens in the tray
    assert thrown_reading.target_after.armies == 3  # 4 - 1 green thrown in
    assert thrown_reading.returned_to_supply["blue"] == 1


def test_peasants_the_supply_lacks_are_not_thrown_in() -> None:
    """Spec 1 (20 green cubes) and spec 9 (warn when a component runs out): a revolt with 3 tokens and one peasant
    cube left throws that one; the supply never goes below 0 (it went to -1, 2026-12-01)."""
    setup = BattleSetup("revolt", defender="blue", target_armies=5, revolt_tokens=3, greens_missing=2)
    assert setup.added() == {"blue": 5, "green": 1}
    neutral = BattleSetup("neutral", defender=None, attacker="red", moved=1, source_armies=3, greens_missing=1)
    assert neutral.added() == {"red": 1}
