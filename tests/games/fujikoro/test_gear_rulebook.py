"""Every worked gear example of the English rulebook (pages 7-12), as a test.

The pictures are lost from the OCR text, so each layout below is built to fit every fact the text
states about it (cube counts, materials, which grid, what breaks off).
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.fujikoro.gear import (
    Gear,
    absorb_options,
    apply_break,
    break_options,
    check_weapons,
    craft,
    forced_removals,
    gear_from_json,
    grid_cubes,
    inspect,
)
from games.fujikoro.pack import Material, default_pack

PACK = default_pack()
SYM = PACK.board("symmetric")


def gear(**grids: object) -> Gear:
    data = {"board": "symmetric", "monks": ["weapon"]}
    data.update(grids)
    return gear_from_json(data, PACK)


def test_helmet_of_strength_eight() -> None:
    # EN p.7: "2 Metal absorb 4 Damage (2x2) and 4 Wood also absorb 4 Damage (4x1)."
    report = inspect(gear(helmet=["MWW.", "WMW."]), PACK)
    assert report.helmet_cubes == 6
    assert report.helmet_strength == 8
    assert report.helmet_legal


def test_helmet_of_nine_cubes_is_illegal_but_masatsura_may_carry_twelve() -> None:
    nine = ["MMMW", "WWWW", "W..."]
    report = inspect(gear(helmet=nine), PACK)
    assert not report.legal
    assert "the helmet has 9 cubes; at most 8" in report.problems
    assert inspect(gear_from_json({"board": "masatsura", "helmet": ["MMMM", "MMMM", "MMMM"]}, PACK), PACK).legal


def test_sandals_of_three_metal_take_five_damage() -> None:
    # EN p.7: Mitsuhide's sandals of 3 metal (strength 6) take 5 damage: all 3 go, 1 is lost.
    sandals = grid_cubes(["MMM"])
    best = absorb_options(sandals, 5, PACK)[0]
    assert len(best.cells) == 3
    assert best.absorbed == 6 and best.waste == 1
    assert best.remaining == {}


def test_magical_sandals_cross_two_lava_spaces() -> None:
    # EN p.9 example 1: 3 metal + magic = 10; two lava spaces = 10 damage; everything goes.
    report = inspect(gear(sandals=["MMM"], magic=["sandals"]), PACK)
    assert report.sandals_strength == 10 and report.sandals_complete
    best = absorb_options(grid_cubes(["MMM"]), 10, PACK, magic=True)[0]
    assert best.magic_used and len(best.cells) == 3 and best.waste == 0


def test_thirteen_cube_two_handed_weapon_is_illegal_and_loses_one_cube() -> None:
    # EN p.7 picture 1: a two-handed weapon of 13 cubes.
    g = gear(weapon_left=["WWWMM", "....M", "..MMM"], weapon_right=["M..", "M..", "MM."])
    check = check_weapons(g.weapon_plane(SYM), SYM, g.monks, g.magic)
    assert [w.hand for w in check.weapons] == ["two"]
    assert check.weapons[0].cubes == 13
    assert "the two-handed weapon has 13 cubes; at most 12" in check.problems
    fixes = forced_removals(g, PACK)
    assert fixes and all(len(fix) == 1 for fix in fixes)


def test_same_cubes_all_connected_form_one_legal_weapon() -> None:
    # EN p.7 picture 2: cubes connected to each other form one legal weapon, while the same cubes
    # with a gap are two weapons in one grid plus a two-handed one, which is illegal.
    connected = gear(weapon_left=["WWWMM", "....M"], weapon_right=["MMM", "..."])
    assert inspect(connected, PACK).legal
    gap = gear(weapon_left=["WW.MM", "....M"], weapon_right=["MMM", "..."])
    report = inspect(gap, PACK)
    assert not report.legal
    assert "a two-handed weapon cannot be kept together with a one-handed weapon" in report.problems


def test_nine_cubes_in_the_left_grid_is_illegal() -> None:
    # EN p.7 picture 3: the right-grid weapon is legal, the left one has 9 cubes.
    g = gear(weapon_left=["WWMMM", "M...M", "MM..."], weapon_right=["..W", "..W", "..M"])
    report = inspect(g, PACK)
    hands = {w.hand: w for w in report.weapons.weapons}
    assert hands["right"].legal and hands["right"].usable
    assert not hands["left"].legal
    assert "the left-grid weapon has 9 cubes; at most 8" in report.problems
    fix = forced_removals(g, PACK)[0]
    assert len(fix) == 1 and all(c < SYM.weapon_left_grid[1] for _, c in fix)


def test_eleven_cubes_with_two_wood_is_legal_but_unusable() -> None:
    # EN p.7 picture 4.
    g = gear(weapon_left=["WMMMM", "W...M", "....."], weapon_right=["MMM", "M..", "..."])
    report = inspect(g, PACK)
    (weapon,) = report.weapons.weapons
    assert (weapon.hand, weapon.cubes, weapon.wood) == ("two", 11, 2)
    assert weapon.legal and not weapon.usable
    assert report.legal and report.initiative == 0


def test_right_weapon_reaching_into_the_left_grid_is_illegal() -> None:
    # EN p.7 picture 5: 8 cubes in the left grid + 4 in the right, but one of the right weapon's
    # cubes lies in the left grid: that cube must go.
    g = gear(weapon_left=["WWMMM", "WMM..", "....M"], weapon_right=["...", "...", "WWM"])
    report = inspect(g, PACK)
    assert not report.legal
    fix = forced_removals(g, PACK)[0]
    assert fix == frozenset({(2, 4)})
    plane = {c: m for c, m in g.weapon_plane(SYM).items() if c not in fix}
    after = check_weapons(plane, SYM, g.monks, g.magic)
    assert after.legal
    assert sorted((w.hand, w.cubes) for w in after.weapons) == [("left", 8), ("right", 3)]


def test_twelve_cubes_with_three_wood_is_legal_and_usable() -> None:
    # EN p.7 picture 6.
    g = gear(weapon_left=["WMMMM", "W...M", "W...."], weapon_right=["MMM", "M..", "..."])
    report = inspect(g, PACK)
    (weapon,) = report.weapons.weapons
    assert (weapon.hand, weapon.cubes, weapon.wood, weapon.usable) == ("two", 12, 3, True)
    assert report.initiative == weapon.length == 8


# Mitsuhide's two-handed weapon of 8 cubes, 3 of them wood (EN p.11, example 1).
MITSUHIDE_WEAPON = {"weapon_left": [".M...", ".WWWM"], "weapon_right": ["...", "MMM"]}


def test_mitsuhide_loses_the_third_wood_and_his_weapon_falls_apart() -> None:
    g = gear(**MITSUHIDE_WEAPON)
    (weapon,) = inspect(g, PACK).weapons.weapons
    assert (weapon.hand, weapon.cubes, weapon.wood, weapon.usable) == ("two", 8, 3, True)
    options = {o.broken: o for o in break_options(g, Material.WOOD, PACK)}
    third = options[(1, 3)]
    # The metal cube of the right piece that lies in the left grid has to go.
    assert third.forced == frozenset({(1, 4)})
    report = inspect(third.gear, PACK)
    assert report.legal
    weapons = {w.hand: w for w in report.weapons.weapons}
    assert (weapons["left"].cubes, weapons["left"].wood, weapons["left"].usable) == (3, 2, True)
    assert (weapons["right"].cubes, weapons["right"].usable) == (3, False)


def test_mitsuhide_could_lose_the_leftmost_wood_instead() -> None:
    g = gear(**MITSUHIDE_WEAPON)
    options = {o.broken: o for o in break_options(g, Material.WOOD, PACK)}
    leftmost = options[(1, 1)]
    assert leftmost.forced == frozenset({(0, 1)})  # the metal cube attached to it
    (weapon,) = inspect(leftmost.gear, PACK).weapons.weapons
    assert (weapon.hand, weapon.wood, weapon.cubes - weapon.wood, weapon.legal, weapon.usable) == (
        "two", 2, 4, True, False)


def test_default_repair_keeps_a_usable_weapon() -> None:
    g = gear(**MITSUHIDE_WEAPON)
    after = apply_break(g, Material.WOOD, PACK)
    assert any(w.usable for w in inspect(after, PACK).weapons.weapons)


def test_mitsuhide_uses_the_magical_cube_to_keep_his_blueprint() -> None:
    # EN p.9 example 2: 2 damage; removing a metal cube would break the blueprint match and lose
    # the magic as well, so the magical cube absorbs the 2 damage.
    helmet = grid_cubes(["MMW", "MW."])
    blueprint = ["MM", "MW"]
    options = absorb_options(helmet, 2, PACK, magic=True, blueprint=blueprint)
    best = options[0]
    assert best.magic_used and not best.cells and best.waste == 2
    metal_only = next(o for o in options if not o.magic_used and len(o.cells) == 1)
    assert metal_only.magic_lost and metal_only.strength_lost == 6


def test_combat_example_helmet_removals() -> None:
    # EN p.12 example 2: 6 damage. Mitsuhide removes the magical cube and 1 metal; Takeko 3 metal.
    mitsuhide = grid_cubes(["MMW", "MW.", "W.."])
    best = absorb_options(mitsuhide, 6, PACK, magic=True, blueprint=["MW", "W."])[0]
    counts = Counter(mitsuhide[c] for c in best.cells)
    assert best.magic_used and counts == Counter({Material.METAL: 1}) and best.waste == 0
    takeko = grid_cubes(["MMM", "MM."])
    best = absorb_options(takeko, 6, PACK)[0]
    assert len(best.cells) == 3 and best.waste == 0


def test_takekos_craft_wastes_one_wooden_cube() -> None:
    # EN p.8: weapon of 6 wood + 5 metal; adds 1 tooth and 3 metal, returns 3 wood, 1 is wasted.
    backpack = Counter({Material.TOOTH: 1, Material.METAL: 4})
    before = Counter({Material.WOOD: 6, Material.METAL: 5})
    after = Counter({Material.WOOD: 3, Material.METAL: 8, Material.TOOTH: 1})
    result = craft(before, after, backpack, waste=Material.WOOD)
    assert result.backpack == Counter({Material.METAL: 1, Material.WOOD: 2})
    assert result.wasted == Material.WOOD
    takeko = gear_from_json({"board": "takeko", "weapon_left": ["WMMMM", "W...T"],
                             "weapon_right": ["MMM", "W..", "M.."]}, PACK)
    (weapon,) = inspect(takeko, PACK).weapons.weapons
    assert (weapon.cubes, weapon.wood, weapon.usable) == (12, 3, True)


def test_craft_needs_the_cubes_in_the_backpack() -> None:
    with pytest.raises(ValueError, match="the backpack has 0 dragon tooth"):
        craft(Counter({Material.WOOD: 2}), Counter({Material.WOOD: 2, Material.TOOTH: 1}), Counter())


def test_takeko_cannot_hold_a_one_handed_weapon_and_tomoe_no_two_handed() -> None:
    one = gear_from_json({"board": "takeko", "weapon_left": ["WWM"]}, PACK)
    assert not inspect(one, PACK).legal
    two = gear_from_json({"board": "tomoe", "weapon_left": ["..WWM"], "weapon_right": ["M.."]}, PACK)
    assert not inspect(two, PACK).legal
    assert inspect(gear_from_json({"board": "tomoe", "weapon_left": ["WWM"], "weapon_right": ["WWM"]}, PACK),
                   PACK).legal


def test_right_grid_needs_a_monk_on_the_symmetric_board() -> None:
    data = {"board": "symmetric", "monks": [], "weapon_left": ["WW"], "weapon_right": ["WW"]}
    report = inspect(gear_from_json(data, PACK), PACK)
    assert "the right weapon grid holds cubes but no monk unlocks it" in report.problems


def test_initiative_is_longest_usable_weapon_plus_four_when_magical() -> None:
    g = gear(weapon_left=["WWMMM"], weapon_right=["WW."], magic=["weapon_right"])
    report = inspect(g, PACK)
    assert report.initiative == max(5, 3 + 4)
    g = gear(weapon_left=["WWMMM", "....W", "....W"], magic=["weapon"])
    assert inspect(g, PACK).initiative == 5 + 4
