from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.fujikoro.pack import default_pack
from vision.template import GEAR_GRIDS, TemplateError, load_template, template_from_json


def test_default_template_agrees_with_the_data_pack() -> None:
    template = load_template()
    spec = default_pack().board("symmetric")
    assert template.name == "symmetric"
    assert (template.grids["helmet"].rows, template.grids["helmet"].cols) == spec.helmet_grid
    assert (template.grids["sandals"].rows, template.grids["sandals"].cols) == spec.sandals_grid
    assert (template.grids["weapon_left"].rows, template.grids["weapon_left"].cols) == spec.weapon_left_grid
    assert (template.grids["weapon_right"].rows, template.grids["weapon_right"].cols) == spec.weapon_right_grid
    assert template.markers.dictionary == "DICT_4X4_50" and len(template.markers.ids) == 4


def test_the_weapon_grids_touch_as_the_rules_say() -> None:
    t = load_template()
    left, right = t.grids["weapon_left"], t.grids["weapon_right"]
    assert left.origin_mm[0] + left.size_mm[0] == pytest.approx(right.origin_mm[0])
    assert left.origin_mm[1] == pytest.approx(right.origin_mm[1])


def test_round_trip_through_json() -> None:
    t = load_template()
    again = template_from_json(json.loads(json.dumps(t.to_json())))
    assert again == t


def test_a_grid_size_that_disagrees_with_the_pack_is_refused() -> None:
    data = load_template().to_json()
    data["grids"]["helmet"]["cols"] = 5
    with pytest.raises(TemplateError, match=r"grids.helmet: .* 3x4 in the data pack, the template says 3x5"):
        template_from_json(data, default_pack())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["markers"].update(ids=[0, 1, 2]), "markers.ids"),
        (lambda d: d["markers"].update(dictionary="DICT_9X9"), "markers.dictionary"),
        (lambda d: d["grids"].pop("sandals"), "missing sandals"),
        (lambda d: d["grids"]["helmet"].update(cell_mm=7), "must be larger than a cube"),
        (lambda d: d["grids"]["helmet"].update(origin_mm=[270, 30]), "does not fit on the board"),
        (lambda d: d.update(board="nobody"), "unknown board"),
        (lambda d: d.update(board_mm=[280]), "board_mm"),
    ],
)
def test_malformed_templates_name_the_field(change, message) -> None:  # type: ignore[no-untyped-def]
    data = load_template().to_json()
    change(data)
    with pytest.raises(TemplateError, match=message):
        template_from_json(data, default_pack())


def test_files_that_are_not_templates(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="does not exist"):
        load_template(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(TemplateError, match="is not JSON"):
        load_template(bad)


def test_every_gear_grid_is_described() -> None:
    assert set(GEAR_GRIDS) <= set(load_template().grids)


def test_calibrated_print_fields_round_trip_and_are_checked() -> None:
    data = load_template().to_json()
    data["board_lab"] = [70.0, -3.0, 5.0]
    data["grid_lab"] = {"helmet": [40.0, 10.0, 2.0]}
    data["band_ratio"] = {"helmet": [[40.0, 26.0, 0.5, 0.4, 0.45]]}
    again = template_from_json(template_from_json(data).to_json())
    assert again.grid_lab == {"helmet": (40.0, 10.0, 2.0)}
    assert again.band_ratio == {"helmet": ((40.0, 26.0, 0.5, 0.4, 0.45),)}
    data["band_ratio"] = {"hat": [[1.0, 2.0, 0.5, 0.4, 0.45]]}
    with pytest.raises(TemplateError, match="band_ratio: no grid named hat"):
        template_from_json(data)
    data["band_ratio"] = {"helmet": [[1.0, 2.0, 0.5, 0.4]]}
    with pytest.raises(TemplateError, match="band_ratio.helmet"):
        template_from_json(data)


def test_the_grid_lists_calibration_writes_name_grids_the_template_has() -> None:
    # clipped_print and faint_lines (calibration's lists of grids) may name the optional backpack grid when the
    # template has one: a user template with a backpack must load again after calibration.
    data = load_template().to_json()
    data["faint_lines"] = ["helmet"]
    data["clipped_print"] = ["sandals"]
    data["unset_grids"] = ["weapon_right"]
    again = template_from_json(template_from_json(data).to_json())
    assert again.faint_lines == ("helmet",) and again.clipped_print == ("sandals",)
    assert again.unset_grids == ("weapon_right",)
    data["faint_lines"] = ["backpack"]
    with pytest.raises(TemplateError, match="faint_lines: no grid named backpack"):
        template_from_json(data)
    data["grids"]["backpack"] = {"origin_mm": [200.0, 120.0], "cell_mm": 12.0, "rows": 2, "cols": 2}
    assert template_from_json(data).faint_lines == ("backpack",)
    data["clipped_print"] = ["hat"]
    with pytest.raises(TemplateError, match="clipped_print: expected a list of grid names"):
        template_from_json(data)
    data["clipped_print"] = []
    data["unset_grids"] = "helmet"
    with pytest.raises(TemplateError, match="unset_grids: expected a list of grid names"):
        template_from_json(data)
