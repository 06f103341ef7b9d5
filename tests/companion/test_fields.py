"""companion.fields: a field an input does not know is named in one sentence, with the fields it knows."""

from __future__ import annotations

from companion.fields import unknown_field


def test_every_field_known_is_no_problem() -> None:
    assert unknown_field({"out": {}}, {"out"}) is None
    assert unknown_field({}, set()) is None


def test_an_unknown_field_is_named_with_the_known_ones() -> None:
    assert unknown_field({"type": "seed_tower", "fell_out": {}}, {"type", "out"}, what="seed_tower") == (
        "seed_tower: unknown field 'fell_out'; the fields are out, type")
    assert unknown_field({"dragon_health": 4}, {"dragon", "samurai"}, note="see fujikoro odds --help") == (
        "unknown field 'dragon_health'; the fields are dragon, samurai (see fujikoro odds --help)")


def test_of_several_unknown_fields_the_first_is_named_and_an_empty_list_says_none() -> None:
    assert unknown_field({"b": 1, "a": 2, "c": 3}, {"c"}, what="x", has="x has") == "x: unknown field 'a'; x has c"
    assert unknown_field({"x": 1}, (), what="score") == "score: unknown field 'x'; the fields are none"
