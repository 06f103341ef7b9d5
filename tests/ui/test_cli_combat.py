"""``fujikoro combat`` driven as a user drives it: a script on stdin, the transcript on stdout."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from games.fujikoro.pack import default_pack

TAKEKO_ROWS = "board=takeko helmet=MMMM weapon_left=WWWMM weapon_right=MMM"
MITSUHIDE_ROWS = ("board=mitsuhide monks=weapon,action helmet=MMW,MW.,W.. magic=helmet weapon_left=WWWMM "
                  "weapon_right=TMM blueprint_helmet=MW,W.")

EXAMPLE_2 = [
    "competitive", "green_1", "2", "3",
    "Takeko", TAKEKO_ROWS, "",
    "Mitsuhide", MITSUHIDE_ROWS, "wood", "action",
    "0",                                   # the heroic monk's wood die
    "t0b m0 m0 m1 m1 w1 w0 w0",            # Mitsuhide: 3 hits, the tooth breaks off
    "3 3 0b",                              # the dragon
    "",                                    # Mitsuhide takes the suggested removal
    "w0b w0b w1 m0b m2 m2 m2 m1",          # Takeko: 8 hits, her hilt breaks
    "n",                                   # she does not retreat
    "m2 m2",                               # Mitsuhide finishes the dragon
]


def fujikoro(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.cli", *args], input=stdin, capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)


def script(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_combat_example_2_typed_in_from_the_questions_to_7_vp_each() -> None:
    result = fujikoro("combat", "--dragon-dice", "hand", stdin=script(EXAMPLE_2))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Initiative order: Mitsuhide (8) (heroic monk), the dragon (9), Takeko (8)." in out
    assert "Odds: the dragon is defeated" in out
    healths = [line.split(".")[0] for line in out.splitlines() if line.startswith("Health ")]
    assert healths == ["Health 12", "Health 9", "Health 9", "Health 1", "Health 0"]
    assert "Takeko takes 6 damage: remove 3 metal." in out
    assert "  1) remove the magical cube and 1 metal (suggested)" in out
    assert "> Dragon rolls 3 dice: 3, 3, 0★ = 6 hits" in out
    assert "Takeko has no usable weapon left. Retreat? [y/N]" in out
    assert "Takeko: in, 7 VP, 2 dragon teeth." in out
    assert "Mitsuhide: in, 7 VP, 2 dragon teeth." in out
    assert "Takeko attacked as their first action and stands" in out
    assert out.count("Odds:") == 5  # before the fight and after every roll but the last
    assert result.stderr == ""


def test_the_app_rolls_everything_seeded_and_the_same_seed_plays_the_same_fight(tmp_path: Path) -> None:
    setup = {"mode": "competitive", "dragon": "green_2",
             "samurai": [{"name": "Ann", "gear": {"helmet": ["MMM", "WW"], "weapon_left": ["WWMMM"]}},
                         {"name": "Bo", "gear": {"helmet": ["MW"], "weapon_left": ["WWWM"]}, "heroic_monk": "metal"}]}
    path = tmp_path / "fight.json"
    path.write_text(json.dumps(setup))
    enters = "\n" * 200  # Enter everywhere: the app rolls, suggested removals, no retreat
    first = fujikoro("combat", "--setup", str(path), "--seed", "11", stdin=enters)
    assert first.returncode == 0, first.stderr
    assert "The app rolls for the dragon (seed " in first.stdout
    assert "(the app rolled, seed " in first.stdout
    assert "The fight is over." in first.stdout
    second = fujikoro("combat", "--setup", str(path), "--seed", "11", stdin=enters)
    assert second.stdout == first.stdout
    other = fujikoro("combat", "--setup", str(path), "--seed", "12", stdin=enters)
    assert other.stdout != first.stdout


def test_bad_answers_are_asked_again_and_end_of_input_stops_cleanly() -> None:
    answers = ["duel", "competitive", "purple_9", "typed", "0", "12", "9", "3", "maybe", "n", "",
               "9", "1", "", "Solo", "helmet=MMQ", "weapon_left=WWWWWWWWW", "helmet=MM weapon_left=WWM", "rock"]
    result = fujikoro("combat", stdin=script(answers))
    assert result.returncode == 1
    out = result.stdout
    assert "  The mode is competitive or coop or samurai. Please try again." in out
    assert "  'purple_9' is not a figure" in out
    assert "  Type a whole number of at least 1. Please try again." in out  # health 0
    assert "  Answer y or n. Please try again." in out
    assert "  Type a number from 1 to 6. Please try again." in out
    assert "  Every samurai needs a name. Please try again." in out
    assert "unknown cell 'Q'" in out
    assert "  Weapon_left row 1 has 9 cells; this board's weapon_left grid has 5 columns. Please try again." in out
    assert "  The heroic monk throws wood, metal or tooth" in out
    assert "Input ended before the fight was over; nothing was stored." in out
    assert "Traceback" not in result.stderr and "Traceback" not in out


def test_a_broken_setup_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"mode": "competitive", "dragon": "nope", "samurai": []}')
    result = fujikoro("combat", "--setup", str(path), stdin="")
    assert result.returncode == 2
    assert result.stderr.startswith("fujikoro: unknown dragon figure 'nope'") and result.stderr.count("\n") == 1
    missing = fujikoro("combat", "--db", str(tmp_path / "none.fujikoro-game"), stdin="")
    assert missing.returncode == 2 and missing.stderr.startswith("fujikoro: there is no game file")


def test_recorded_into_a_game_with_db(tmp_path: Path) -> None:
    db = tmp_path / "game.fujikoro-game"
    new = fujikoro("game", "new", "--db", str(db), "--players", "Takeko,Masatsura,Mitsuhide",
                   "--boards", "takeko,masatsura,mitsuhide", stdin="")
    assert new.returncode == 0, new.stderr
    answers = ["dragon", *EXAMPLE_2[1:3], "", TAKEKO_ROWS.removeprefix("board=takeko "), "", *EXAMPLE_2[7:]]
    result = fujikoro("combat", "--db", str(db), "--dragon-dice", "hand", stdin=script(answers))
    assert result.returncode == 0, result.stderr
    assert "Recorded in the game. Scores: Takeko 7, Masatsura 0, Mitsuhide 10" in result.stdout
    state = json.loads(fujikoro("game", "state", "--db", str(db), stdin="").stdout)
    assert state["combat"]["outcome"] == "dragon_defeated"
    assert state["dragons"]["green_1"] == "defeated"
    log = json.loads(fujikoro("game", "log", "--db", str(db), stdin="").stdout)
    assert [r["description"] for r in log] == [
        "Takeko and Mitsuhide fight green_1 (health 12)",
        "Mitsuhide's heroic monk throws wood: 1 die: 0 = 0 hits",
        "Mitsuhide rolls 8 dice: 0★, 0, 0, 1, 1, 1, 0, 0 = 3 hits",
        "Dragon rolls 3 dice: 3, 3, 0★ = 6 hits",
        "Takeko rolls 8 dice: 0★, 0★, 1, 0★, 2, 2, 2, 1 = 8 hits",
        "Mitsuhide rolls 2 dice: 2, 2 = 4 hits (with it: green_1 is defeated; Takeko +7 VP; Mitsuhide +7 VP)",
    ]


def test_samurai_combat_in_process_with_injected_streams() -> None:
    from games.fujikoro.cli.combat import walkthrough

    answers = ["samurai", "A", "helmet=MMMM weapon_left=WWM", "D", "helmet=MMMM weapon_left=WM",
               "w0b w1", "y", "hat", "scroll"]
    out = io.StringIO()
    code = walkthrough(io.StringIO(script(answers)), out, pack=default_pack(), seed=1)
    text = out.getvalue()
    assert code == 0, text
    assert "Initiative order: A (3), D (0)." in text
    assert "A has no usable weapon left. Surrender? [y/N]" in text
    assert "> A surrenders" in text
    assert "  The winner steals a blueprint, monk, scroll or resource. Please try again." in text
    assert "> D steals a scroll from A" in text
    assert "Odds:" not in text  # odds are for dragon fights


class _Interrupted(io.StringIO):
    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise KeyboardInterrupt


def test_ctrl_c_stops_without_a_traceback() -> None:
    from games.fujikoro.cli.combat import walkthrough

    out = io.StringIO()
    assert walkthrough(_Interrupted(), out, pack=default_pack()) == 130
    assert out.getvalue().endswith("Stopped.\n")


def test_odds_of_example_2_report_the_least_loss_policy_for_broken_cubes() -> None:
    # EN p.11 example 2 (Takeko and Mitsuhide against green_1); EN p.12: the player chooses which cube a
    # broken die removes, and the odds assume the choice that loses the fewest cubes, as a fight does.
    request = {
        "dragon": "green_1", "players": 3,
        "samurai": [
            {"name": "Takeko", "gear": {"board": "takeko", "helmet": ["MMMM"], "weapon_left": ["WWWMM"],
                                        "weapon_right": ["MMM"]}},
            {"name": "Mitsuhide", "heroic_monk": "wood", "monk_from": "action", "blueprints": {"helmet": ["MW", "W."]},
             "gear": {"board": "mitsuhide", "monks": ["weapon", "action"], "helmet": ["MMW", "MW.", "W.."],
                      "magic": ["helmet"], "weapon_left": ["WWWMM"], "weapon_right": ["TMM"]}},
        ],
    }
    done = fujikoro("odds", "-", stdin=json.dumps(request))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["policy"]["broken"].startswith("least_loss")
    assert 0.9 < out["p_dragon_defeated"] < 1.0


def test_odds_refuse_fields_they_do_not_know_rather_than_answer_without_them() -> None:
    # A newcomer (2026-12-01) put a samurai's board and helmet beside its name instead of under gear, and
    # got p_dragon_defeated 0.0 as if the samurai had no gear; a stray dragon_health was ignored too.
    done = fujikoro("odds", "-", stdin=json.dumps(
        {"dragon": "green_1", "samurai": [{"name": "Ann", "board": "takeko", "helmet": ["MMMM"]}]}))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("fujikoro: samurai Ann: unknown field 'board'; a samurai has blueprints, gear, "
                                   "heroic_monk, monk_from, name (helmet, weapons and sandals go under gear)")
    done = fujikoro("odds", "-", stdin=json.dumps({"dragon": "green_1", "dragon_health": 4,
                                                   "samurai": [{"name": "Ann"}]}))
    assert done.returncode == 2 and "unknown field 'dragon_health'" in done.stderr
    # The input is described where a user looks for it, and its example works.
    helped = fujikoro("odds", "--help", stdin="")
    example = helped.stdout.split("e.g.\n", 1)[1].split("\nfields:", 1)[0]
    done = fujikoro("odds", "-", stdin=example)
    assert done.returncode == 0 and 0.0 <= json.loads(done.stdout)["p_dragon_defeated"] <= 1.0
