"""Property tests: turning gear never changes what it is worth, and inspect never crashes."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from games.fujikoro.gear import GearError, check_weapons, gear_from_json, grid_cubes, inspect, render, rotate
from games.fujikoro.pack import default_pack

PACK = default_pack()
CELL = st.sampled_from("WMT..")


def square(size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.text(CELL, min_size=size, max_size=size), min_size=size, max_size=size)


def turned(rows: list[str], quarter_turns: int, size: int) -> list[str]:
    cubes = grid_cubes(rows)
    out = {}
    for (r, c), m in cubes.items():
        for _ in range(quarter_turns):
            r, c = c, size - 1 - r
        out[(r, c)] = m
    return list(render(out, size, size))


@settings(max_examples=150, deadline=None)
@given(square(3), st.integers(1, 3))
def test_turning_a_helmet_keeps_strength_legality_and_matches(rows: list[str], turns: int) -> None:
    board = "masatsura"  # helmet of up to 12 cubes, so legality varies in a 3x3 square too
    before = inspect(gear_from_json({"board": board, "helmet": rows}, PACK), PACK)
    after = inspect(gear_from_json({"board": board, "helmet": turned(rows, turns, 3)}, PACK), PACK)
    assert after.helmet_strength == before.helmet_strength
    assert after.helmet_legal == before.helmet_legal
    assert after.gear_cards == before.gear_cards and after.blueprints == before.blueprints


@settings(max_examples=150, deadline=None)
@given(square(3), st.integers(1, 3), st.booleans())
def test_turning_a_one_grid_weapon_keeps_everything(rows: list[str], turns: int, magic: bool) -> None:
    def report(r: list[str]):  # type: ignore[no-untyped-def]
        data = {"board": "symmetric", "weapon_left": r, "magic": ["weapon"] if magic and any(
            ch != "." for row in r for ch in row) else []}
        return inspect(gear_from_json(data, PACK), PACK)

    before, after = report(rows), report(turned(rows, turns, 3))
    assert after.legal == before.legal
    assert after.initiative == before.initiative
    assert sorted((w.cubes, w.length, w.usable) for w in after.weapons.weapons) == sorted(
        (w.cubes, w.length, w.usable) for w in before.weapons.weapons)
    assert after.gear_cards == before.gear_cards and after.blueprints == before.blueprints


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(CELL, min_size=10, max_size=10), min_size=3, max_size=3))
def test_half_turn_of_masakos_symmetric_weapon_plane(rows: list[str]) -> None:
    # Masako's two weapon grids are both 3x5, so the whole plane turns into itself.
    spec = PACK.board("masako")
    plane = grid_cubes(rows)
    turned_plane = {(2 - r, 9 - c): m for (r, c), m in plane.items()}
    a = check_weapons(plane, spec, frozenset(), frozenset())
    b = check_weapons(turned_plane, spec, frozenset(), frozenset())
    assert a.legal == b.legal
    assert sorted((w.cubes, w.length, w.usable, w.hand != "two") for w in a.weapons) == sorted(
        (w.cubes, w.length, w.usable, w.hand != "two") for w in b.weapons)


@given(st.dictionaries(st.sampled_from("WMT"), st.integers(0, 3)))
def test_rotate_four_times_is_identity(counts: dict[str, int]) -> None:
    rows = ["".join(k * n for k, n in counts.items()) or "W"]
    cubes = grid_cubes(rows)
    assert rotate(cubes, 4) == cubes


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=6),
    max_leaves=20,
)
GEARISH = st.fixed_dictionaries(
    {},
    optional={
        "board": st.sampled_from(["symmetric", "takeko", "tomoe", "masako", "nobody"]) | JSON,
        "monks": st.lists(st.sampled_from(["weapon", "backpack", "x"]), max_size=3) | JSON,
        "helmet": st.lists(st.text("WMT.X", max_size=5), max_size=4) | JSON,
        "sandals": st.lists(st.text("WMT.", max_size=4), max_size=2) | JSON,
        "weapon_left": st.lists(st.text("WMT.", max_size=6), max_size=4) | JSON,
        "weapon_right": st.lists(st.text("WMT.", max_size=4), max_size=4) | JSON,
        "magic": st.lists(st.sampled_from(["helmet", "sandals", "weapon", "weapon_right", "cape"]), max_size=2) | JSON,
    },
)


@settings(max_examples=400, deadline=None)
@given(JSON | GEARISH)
def test_inspect_never_crashes_on_any_json(data: object) -> None:
    try:
        report = inspect(gear_from_json(data, PACK), PACK)
    except GearError as error:
        assert str(error) and "\n" not in str(error)
        return
    out = report.to_json()
    json.dumps(out)
    assert out["legal"] == (not out["problems"])
