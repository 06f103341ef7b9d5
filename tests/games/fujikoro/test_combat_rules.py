"""Combat rules (EN p.10-12, coop p.15), starting with the rulebook's combat example 2 replayed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.dice import DiceRoll, DiceSource, DieResult
from games.fujikoro.combat import (
    DRAGON,
    Combatant,
    CombatError,
    DragonStats,
    Mode,
    Outcome,
    Status,
    WeaponRoll,
    dragon_roll,
    monk_throw,
    retreat,
    roll_for_turn,
    samurai_roll,
    start_dragon_fight,
    start_samurai_fight,
    surrender,
)
from games.fujikoro.gear import gear_from_json, inspect
from games.fujikoro.pack import Face, default_pack

PACK = default_pack()


def hand(*dice: tuple[str, int | str]) -> DiceRoll:
    """Physical dice typed in: (kind, face) with faces as in the data pack ("0b" = 0 + broken)."""
    results = []
    for kind, face in dice:
        text = str(face)
        results.append(DieResult(kind, Face(int(text.rstrip("b")), text.endswith("b"))))
    return DiceRoll(tuple(results), DiceSource.HAND)


def green_dragon() -> DragonStats:
    return DragonStats.from_figure(PACK.dragons["green_1"], PACK, mode=Mode.COMPETITIVE, players=3)


def takeko() -> Combatant:
    gear = gear_from_json({"board": "takeko", "helmet": ["MMMM"], "weapon_left": ["WWWMM"],
                           "weapon_right": ["MMM"]}, PACK)
    return Combatant("Takeko", gear)


def mitsuhide(monk: str | None = "wood") -> Combatant:
    gear = gear_from_json({"board": "mitsuhide", "monks": ["weapon", "action"],
                           "helmet": ["MMW", "MW.", "W.."], "magic": ["helmet"],
                           "weapon_left": ["WWWMM"], "weapon_right": ["TMM"]}, PACK)
    return Combatant("Mitsuhide", gear, heroic_monk=monk, monk_from="action",
                     blueprints={"helmet": ("MW", "W.")})


def test_combat_example_2_replays_exactly() -> None:
    dragon = green_dragon()
    assert (dragon.health, dragon.initiative, dragon.vp) == (12, 9, 7)
    assert inspect(takeko().gear, PACK).initiative == 8
    assert inspect(mitsuhide().gear, PACK).initiative == 8
    fight = start_dragon_fight(dragon, [takeko(), mitsuhide()], PACK)
    # Mitsuhide sent a heroic monk: he goes first, then the dragon (wins the tie with Takeko), then Takeko.
    assert fight.order == ("Mitsuhide", DRAGON, "Takeko")
    assert fight.whose_turn() == "monk:Mitsuhide"

    fight = monk_throw(fight, "Mitsuhide", hand(("wood", 0)))
    assert fight.health == 12

    assert fight.whose_turn() == "Mitsuhide"
    fight = samurai_roll(fight, "Mitsuhide", [WeaponRoll("two", hand(
        ("wood", 1), ("wood", 0), ("wood", 0), ("metal", 0), ("metal", 0), ("metal", 1), ("metal", 1),
        ("tooth", "0b")))], PACK)
    assert fight.health == 9
    weapons = inspect(fight.fighter("Mitsuhide").gear, PACK).weapons.weapons
    assert all(w.dice.get("tooth", 0) == 0 for w in weapons)  # the tooth broke off

    assert fight.whose_turn() == DRAGON
    fight = dragon_roll(fight, hand(("tooth", 3), ("tooth", 3), ("tooth", "0b")), PACK)
    m, t = fight.fighter("Mitsuhide"), fight.fighter("Takeko")
    # Mitsuhide removes the magical cube and 1 metal; Takeko removes 3 metal.
    assert "helmet" not in m.gear.magic and m.magic_used == {"helmet"}
    assert inspect(m.gear, PACK).helmet_cubes == 5
    assert "".join(m.gear.helmet).count("M") == 2
    assert "".join(t.gear.helmet).count("M") == 1
    assert (m.teeth, t.teeth) == (1, 1)

    assert fight.whose_turn() == "Takeko"
    fight = samurai_roll(fight, "Takeko", [WeaponRoll("two", hand(
        ("wood", "0b"), ("wood", "0b"), ("wood", 1), ("metal", "0b"), ("metal", 2), ("metal", 2), ("metal", 2),
        ("metal", 1)))], PACK)
    assert fight.health == 1
    assert fight.usable_weapons("Takeko", PACK) == []  # her hilt is too small now
    assert fight.fighter("Takeko").broke_this_turn

    assert fight.whose_turn() == "Mitsuhide" and fight.round == 2
    fight = samurai_roll(fight, "Mitsuhide", [WeaponRoll("left", hand(("metal", 2), ("metal", 2)))], PACK)
    assert fight.outcome is Outcome.DRAGON_DEFEATED and fight.health == 0
    m, t = fight.fighter("Mitsuhide"), fight.fighter("Takeko")
    assert (m.vp, t.vp) == (7, 7)
    assert (m.teeth, t.teeth) == (2, 2)
    assert "helmet" in m.gear.magic  # still matches his blueprint: the magic comes back
    assert fight.attacker_may_continue()  # Takeko attacked as her first action and stands


def test_takeko_may_retreat_only_right_after_her_weapon_broke() -> None:
    fight = start_dragon_fight(green_dragon(), [takeko()], PACK)
    assert fight.order == (DRAGON, "Takeko")
    with pytest.raises(CombatError, match="only right after their own roll"):
        retreat(fight, "Takeko", PACK)
    fight = dragon_roll(fight, hand(("tooth", 0), ("tooth", 0), ("tooth", 1)), PACK)
    fight = samurai_roll(fight, "Takeko", [WeaponRoll("two", hand(
        ("wood", "0b"), ("wood", "0b"), ("wood", 1)))], PACK)  # a player may roll fewer dice
    fight = retreat(fight, "Takeko", PACK)
    assert fight.outcome is Outcome.SAMURAI_LOST
    assert fight.fighter("Takeko").status is Status.RETREATED


def test_knocked_out_when_the_helmet_is_gone_and_a_hit_remains() -> None:
    weak = Combatant("Weak", gear_from_json({"helmet": ["W"], "weapon_left": ["WW"]}, PACK))
    fight = start_dragon_fight(green_dragon(), [weak], PACK)
    fight = dragon_roll(fight, hand(("tooth", 1), ("tooth", 0), ("tooth", 0)), PACK)
    assert fight.fighter("Weak").is_in  # exactly absorbed: helmet gone, still standing
    fight = samurai_roll(fight, "Weak", [WeaponRoll("left", hand(("wood", 0), ("wood", 0)))], PACK)
    fight = dragon_roll(fight, hand(("tooth", 1), ("tooth", 0), ("tooth", 0)), PACK)
    assert fight.fighter("Weak").status is Status.KNOCKED_OUT
    assert fight.outcome is Outcome.SAMURAI_LOST
    assert fight.log[-1].endswith("heals fully.")


def test_samurai_defend_and_win_ties_when_a_dragon_moves_onto_them_in_coop() -> None:
    dragon = DragonStats("typed", None, initiative=8, health=10, dice=3, legendary=False, vp=0, coop_teeth=2)
    fight = start_dragon_fight(dragon, [takeko()], PACK, mode=Mode.COOP, dragon_attacks=True)
    assert fight.order == ("Takeko", DRAGON)
    fight = start_dragon_fight(dragon, [takeko()], PACK, mode=Mode.COMPETITIVE)
    assert fight.order == (DRAGON, "Takeko")


def test_coop_teeth_go_to_the_group_and_no_vp() -> None:
    dragon = DragonStats("typed", "green", initiative=1, health=2, dice=3, legendary=False, vp=7, coop_teeth=2)
    fight = start_dragon_fight(dragon, [takeko()], PACK, mode=Mode.COOP)
    fight = samurai_roll(fight, "Takeko", [WeaponRoll("two", hand(("metal", 2)))], PACK)
    assert fight.outcome is Outcome.DRAGON_DEFEATED
    assert fight.fighter("Takeko").vp == 0 and fight.fighter("Takeko").teeth == 0
    assert fight.teeth_pool == 2


def test_ties_between_samurai_follow_turn_order_from_the_attacker() -> None:
    a = Combatant("A", gear_from_json({"weapon_left": ["WWM"]}, PACK))
    b = Combatant("B", gear_from_json({"weapon_left": ["WWM"]}, PACK))
    dragon = DragonStats("small", "blue", initiative=1, health=5, dice=2, legendary=False, vp=4, coop_teeth=1)
    assert start_dragon_fight(dragon, [b, a], PACK).order == ("B", "A", DRAGON)
    assert start_dragon_fight(dragon, [a, b], PACK).order == ("A", "B", DRAGON)


def test_heroic_monk_rules() -> None:
    legendary = DragonStats.from_figure(PACK.dragons["legendary"], PACK, mode=Mode.COMPETITIVE, players=4)
    with pytest.raises(CombatError, match="Legendary"):
        start_dragon_fight(legendary, [mitsuhide()], PACK)
    # An empty backpack: the monk shouts, still takes the initiative, and no die is rolled.
    fight = start_dragon_fight(green_dragon(), [takeko(), mitsuhide("none")], PACK)
    assert fight.order[0] == "Mitsuhide" and fight.whose_turn() == "Mitsuhide"
    assert "shouts" in fight.log[-1]
    # A monk sent from the weapon spot takes the right grid with it.
    gear = gear_from_json({"monks": ["weapon"], "weapon_left": ["WWM"], "weapon_right": ["WWM"]}, PACK)
    fight = start_dragon_fight(green_dragon(), [Combatant("S", gear, heroic_monk="metal", monk_from="weapon")], PACK)
    assert fight.fighter("S").gear.weapon_right == ("...", "...", "...")
    with pytest.raises(CombatError, match="exactly one metal die"):
        monk_throw(fight, "S", hand(("wood", 1)))


def test_samurai_combat_defender_wins_ties_and_surrender_needs_a_broken_weapon() -> None:
    attacker = Combatant("A", gear_from_json({"helmet": ["W"], "weapon_left": ["WWM"]}, PACK))
    defender = Combatant("D", gear_from_json({"helmet": ["MM"], "weapon_left": ["WWM"]}, PACK))
    fight = start_samurai_fight(attacker, defender, PACK)
    assert fight.order == ("D", "A")
    with pytest.raises(CombatError, match="only right after"):
        surrender(fight, "A", PACK)
    with pytest.raises(CombatError, match="heroic monks"):
        start_samurai_fight(Combatant("A", attacker.gear, heroic_monk="wood"), defender, PACK)
    with pytest.raises(CombatError, match="peaceful"):
        start_samurai_fight(attacker, defender, PACK, peaceful=True)
    fight = samurai_roll(fight, "D", [WeaponRoll("left", hand(("wood", 1), ("metal", 1)))], PACK)
    assert fight.outcome is Outcome.SAMURAI_WON and fight.winner == "D"
    assert fight.fighter("A").status is Status.KNOCKED_OUT


def test_samurai_combat_surrender_after_the_weapon_broke() -> None:
    attacker = Combatant("A", gear_from_json({"helmet": ["MMMM"], "weapon_left": ["WWM"]}, PACK))
    defender = Combatant("D", gear_from_json({"helmet": ["MMMM"], "weapon_left": ["WM"]}, PACK))
    fight = start_samurai_fight(attacker, defender, PACK)
    assert fight.order == ("A", "D")
    fight = samurai_roll(fight, "A", [WeaponRoll("left", hand(("wood", "0b"), ("wood", 1)))], PACK)
    fight = surrender(fight, "A", PACK)
    assert fight.winner == "D" and fight.outcome is Outcome.SAMURAI_WON


def test_rejections_name_the_rule() -> None:
    fight = start_dragon_fight(green_dragon(), [takeko()], PACK)
    with pytest.raises(CombatError, match="not Takeko's roll"):
        samurai_roll(fight, "Takeko", [WeaponRoll("two", hand(("wood", 1)))], PACK)
    with pytest.raises(CombatError, match="exactly 3 white"):
        dragon_roll(fight, hand(("tooth", 1)), PACK)
    fight = dragon_roll(fight, hand(("tooth", 0), ("tooth", 0), ("tooth", 0)), PACK)
    with pytest.raises(CombatError, match="no tooth die"):
        samurai_roll(fight, "Takeko", [WeaponRoll("two", hand(("tooth", 3)))], PACK)


def test_app_rolls_are_seeded_and_replay_exactly() -> None:
    def play(seed: int) -> tuple[str, ...]:
        fight = start_dragon_fight(green_dragon(), [takeko(), mitsuhide()], PACK)
        step = 0
        while not fight.is_over and step < 60:
            fight = roll_for_turn(fight, PACK, seed=seed * 1000 + step)
            step += 1
        return fight.log

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_fight_json_round_trip() -> None:
    from games.fujikoro.combat import Fight

    fight = start_dragon_fight(green_dragon(), [takeko(), mitsuhide()], PACK)
    fight = roll_for_turn(fight, PACK, seed=1)
    assert Fight.from_json(fight.to_json(), PACK) == fight


def test_dice_roll_json_round_trip() -> None:
    roll = hand(("wood", 1), ("metal", "0b"), ("tooth", 3))
    assert DiceRoll.from_json(roll.to_json()) == roll


def _example_2_before_takekos_roll():  # type: ignore[no-untyped-def]
    fight = start_dragon_fight(green_dragon(), [takeko(), mitsuhide()], PACK)
    fight = monk_throw(fight, "Mitsuhide", hand(("wood", 0)))
    fight = samurai_roll(fight, "Mitsuhide", [WeaponRoll("two", hand(
        ("wood", 1), ("wood", 0), ("wood", 0), ("metal", 0), ("metal", 0), ("metal", 1), ("metal", 1),
        ("tooth", "0b")))], PACK)
    return dragon_roll(fight, hand(("tooth", 3), ("tooth", 3), ("tooth", "0b")), PACK)


TAKEKOS_ROLL = hand(("wood", "0b"), ("wood", "0b"), ("wood", 1), ("metal", "0b"), ("metal", 2), ("metal", 2),
                    ("metal", 2), ("metal", 1))


def _weapon_cubes(fight, name: str) -> int:  # type: ignore[no-untyped-def]
    gear = fight.fighter(name).gear
    return len(gear.weapon_plane(PACK.board(gear.board)))


def test_unchosen_broken_cubes_default_to_the_least_loss_choice_example_2_p11_p12() -> None:
    # EN p.11 example 2: Takeko breaks off 2 wood and 1 metal; EN p.12: the player chooses the cubes, then
    # removes cubes only as needed to keep the weapon legal. Chosen well, that costs exactly those 3 cubes.
    fight = _example_2_before_takekos_roll()
    assert _weapon_cubes(fight, "Takeko") == 8
    after = samurai_roll(fight, "Takeko", [WeaponRoll("two", TAKEKOS_ROLL)], PACK)
    assert _weapon_cubes(after, "Takeko") == 5, "2 wood + 1 metal broken: 3 cubes lost, no more"
    assert after.usable_weapons("Takeko", PACK) == []  # one wood left: no hilt (EN p.11)
    assert not any("more cube" in line for line in after.log)
    # Cube by cube (the old default) it happened to cost 3 here too; on this weapon it costs one more.
    gear = gear_from_json({"board": "takeko", "helmet": ["MMMM"], "weapon_left": ["M.WMM", "MWWWM"],
                           "weapon_right": ["WWM", "..."]}, PACK)
    alone = start_dragon_fight(DragonStats("d", "blue", 0, 30, 1, False, 0, 0), [Combatant("T", gear)], PACK)
    roll = hand(("metal", "0b"), ("wood", "0b"), ("wood", "0b"))
    least = samurai_roll(alone, "T", [WeaponRoll("two", roll)], PACK)
    assert _weapon_cubes(alone, "T") - _weapon_cubes(least, "T") == 3
    old = samurai_roll(replace(alone, least_loss=False), "T", [WeaponRoll("two", roll)], PACK)
    assert _weapon_cubes(alone, "T") - _weapon_cubes(old, "T") == 4


def test_cubes_the_player_chooses_are_still_the_ones_removed_p12() -> None:
    fight = _example_2_before_takekos_roll()
    # Broken icons resolve tooth, metal, wood: the first chosen cell is the metal one. Choosing the first
    # metal (next to the hilt) and then the woods costs the forced removals the player chose to pay.
    plane = fight.fighter("Takeko").gear.weapon_plane(PACK.board("takeko"))
    metal = min(c for c, m in plane.items() if m.value == "M")
    after = samurai_roll(fight, "Takeko", [WeaponRoll("two", TAKEKOS_ROLL, (metal,))], PACK)
    assert metal not in after.fighter("Takeko").gear.weapon_plane(PACK.board("takeko"))
