"""Shogun's data pack from the command line (spec 9, 12.4: every value editable at the table): ``table-companion
shogun data show|set|reset|validate``, the same verbs as ``fujikoro data`` (ui/cli/packdata.py), and ``fujikoro
data validate`` on the Shogun pack. A correction goes through ``pack.load``: the supply table's rows the rulebook
gives stay locked (spec 7.2, 9)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from store.overrides import overrides_path, read_overrides
from ui.cli.main import main

REPO = Path(__file__).resolve().parents[3]
SHIPPED = REPO / "games" / "shogun" / "data" / "shogun.toml"


def _tc(args: list[str], capsys: pytest.CaptureFixture[str], prog: str = "table-companion") -> tuple[int, str, str]:
    code = main(args, prog=prog)
    out, err = capsys.readouterr()
    return code, out, err


def _real(*args: str) -> subprocess.CompletedProcess[str]:
    """``fujikoro ARGS`` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "ui.cli", *args], cwd=REPO, env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)


def test_fujikoro_data_validate_takes_the_shipped_shogun_pack(tmp_path: Path) -> None:
    """The Shogun pack was called invalid ("cubes: the section is missing": Fuji Koro's parser). A whole pack is
    checked by the parser of the game its meta.game names."""
    done = _real("data", "validate", str(SHIPPED))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{SHIPPED}: valid Shogun data pack ") and done.stderr == ""
    done = _real("shogun", "data", "validate", str(SHIPPED))
    assert done.returncode == 0 and "valid Shogun data pack" in done.stdout
    fuji = REPO / "games" / "fujikoro" / "data" / "fujikoro.toml"
    done = _real("shogun", "data", "validate", str(fuji))
    assert done.returncode == 0 and "valid Fuji Koro data pack" in done.stdout


def test_an_invalid_shogun_pack_is_still_reported_in_one_sentence(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 12.4 (the map's neighbours): a one-way border is named with its field path, exit 2, one line."""
    text = SHIPPED.read_text(encoding="utf-8")
    kozuke = 'neighbours = { value = ["echigo", "musashi", "shimotsuke", "shinano"]'
    assert kozuke in text  # the sun side's Kozuke comes first (the moon side is a copy)
    broken = tmp_path / "shogun.toml"
    broken.write_text(text.replace(kozuke, 'neighbours = { value = ["echigo", "shimotsuke", "shinano"]', 1),
                      encoding="utf-8")
    for prog, args in (("fujikoro", ["data"]), ("table-companion", ["shogun", "data"])):
        code, out, err = _tc([*args, "validate", str(broken)], capsys, prog=prog)
        assert code == 2 and out == ""
        assert err == (f"{prog}: {broken}: sides.sun.provinces.musashi.neighbours: lists 'kozuke', but 'kozuke' "
                       "does not list 'musashi' back\n")


def test_an_unknown_supply_row_is_corrected_shown_used_and_reset(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 7.2: only rows 0, 2 and 3 of the board's supply table are known; the group enters row 4 from its board
    and the winter calculator uses it; reset gives the placeholder back (unknown: the calculator asks again)."""
    winter = tmp_path / "winter.json"
    winter.write_text(json.dumps({"winter_event_rice_loss": 0, "players": {"blue": {"rice": 0, "provinces": 4}}}),
                      encoding="utf-8")
    code, out, _ = _tc(["shogun", "winter", str(winter)], capsys)
    assert code == 0 and json.loads(out)["blue"]["revolting_provinces"] is None  # unknown: read it off the board

    for key, value in (("supply_table.u4.revolts", "3"), ("supply_table.u4.extra_peasants", "1")):
        code, out, err = _tc(["shogun", "data", "set", key, value], capsys)
        assert code == 0, err
        assert out.startswith(f"{key} = {value} (yours; shipped ") and ", unknown) saved in " in out
    assert read_overrides("shogun") == {"supply_table.u4.revolts": 3, "supply_table.u4.extra_peasants": 1}

    code, out, _ = _tc(["shogun", "data", "show", "supply_table.u4", "--json"], capsys)
    shown = json.loads(out)
    assert shown["supply_table.u4.revolts"]["value"] == 3 and shown["supply_table.u4.revolts"]["yours"]
    assert shown["supply_table.u4.revolts"]["shipped"]["status"] == "unknown"
    code, out, _ = _tc(["shogun", "winter", str(winter)], capsys)
    assert json.loads(out)["blue"]["revolting_provinces"] == 3
    assert json.loads(out)["blue"]["extra_peasants_per_revolt"] == 1
    code, out, _ = _tc(["shogun", "pack"], capsys)
    assert json.loads(out)["statuses"]["corrected"] == 2

    code, out, _ = _tc(["shogun", "data", "show", "--assumed", "supply_table"], capsys)
    assert "supply_table.u4" not in out and "supply_table.u5.revolts" in out and "[confirmed]" not in out

    code, out, _ = _tc(["shogun", "data", "reset", "supply_table.u4"], capsys)
    assert code == 0 and read_overrides("shogun") == {}
    code, out, _ = _tc(["shogun", "winter", str(winter)], capsys)
    assert json.loads(out)["blue"]["revolting_provinces"] is None


@pytest.mark.parametrize("key", ["supply_table.u2.revolts", "supply_table.u3.extra_peasants",
                                 "supply_table.u0.revolts"])
def test_a_row_the_rulebook_gives_is_refused_in_one_sentence_and_nothing_is_saved(
        key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 7.2 and 9: rows 2 and 3 come from the rulebook's examples (confirmed), row 0 follows from the rules
    (derived); they stay locked, from the command line as in a corrections file."""
    code, out, err = _tc(["shogun", "data", "set", key, "5"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"table-companion: not saved: {key} is ") and "stays as it is" in err
    assert not overrides_path("shogun").exists()
    corrections = tmp_path / "mine.toml"
    corrections.write_text(f'[values]\n"{key}" = 5\n', encoding="utf-8")
    code, _, err = _tc(["shogun", "data", "validate", str(corrections)], capsys)
    assert code == 2 and "stays as it is" in err and err.count("\n") == 1
    corrections.write_text('[values]\n"supply_table.u4.revolts" = 2\n', encoding="utf-8")
    code, out, _ = _tc(["shogun", "data", "validate", str(corrections)], capsys)
    assert code == 0 and "1 correction(s), valid on data pack" in out


def test_a_bad_value_or_a_section_is_refused_and_a_shogun_key_is_pointed_to_from_fujikoro(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 12.4: the map is editable, but a neighbour that does not list the province back is refused."""
    cases: list[tuple[str, list[str], str]] = [
        ("table-companion", ["shogun", "data", "set", "sides.sun.provinces.kozuke.neighbours", '["echigo"]'],
         "not saved: sides.sun.provinces.shimotsuke.neighbours: lists 'kozuke', but 'kozuke' does not list"),
        ("table-companion", ["shogun", "data", "set", "supply_table.u4", "2"],
         "supply_table.u4 is a section; name one value inside it, e.g. supply_table.u4.revolts"),
        ("table-companion", ["shogun", "data", "set", "supply_table.u9.revolts", "2"],
         "no such key 'supply_table.u9.revolts' in the data pack; see `table-companion shogun data show`"),
        ("fujikoro", ["data", "set", "supply_table.u4.revolts", "2"],
         "it is a key of the Shogun data pack (`table-companion shogun data`)"),
    ]
    for prog, args, message in cases:
        code, out, err = _tc(args, capsys, prog=prog)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    assert not overrides_path("shogun").exists()


def test_a_corrected_value_goes_into_a_new_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 7.1: the winter event's rice loss, entered once for the box, is what a new game's winter uses."""
    assert _tc(["shogun", "data", "set", "events.e04.rice_loss", "3"], capsys)[0] == 0
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"players": ["blue", "red", "yellow"], "map": False}), encoding="utf-8")
    db = tmp_path / "g.fujikoro-game"
    code, out, err = _tc(["shogun", "game", "new", "--db", str(db), str(setup)], capsys)
    assert code == 0, err
    from store.sessions import factories, open_session

    file, session = open_session(db, factories())
    with file:
        rules: Any = session.game
        assert rules.pack.events["e04"].rice_loss == 3
