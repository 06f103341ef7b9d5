"""A Fuji Koro game file written before the platform split (issue 16) opens, replays and resumes.

`files/before-platform.fujikoro-game` was written by the app at commit cc4d26d (before Fuji Koro became a
game package) with `fujikoro game new/do/undo/redo`: three players, actions, a scroll's VP (EN p.6), ends
of turns, an undo and a redo, and a roll the app made (an undo barrier). `before-platform.state.json` is
the state that version printed for it (`fujikoro game state`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from companion.engine import UndoBarrierError
from store.sessions import factories, open_session

FILES = Path(__file__).resolve().parent / "files"


def test_a_game_file_from_before_the_split_replays_to_the_state_it_had(tmp_path: Path) -> None:
    path = tmp_path / "old.fujikoro-game"
    shutil.copy(FILES / "before-platform.fujikoro-game", path)
    expected = json.loads((FILES / "before-platform.state.json").read_text(encoding="utf-8"))
    file, session = open_session(path, factories())
    with file:
        assert file.header.game == "fujikoro"
        assert session.state_json() == expected
        assert session.state_id == 12
        # The app's roll is still an undo barrier; the game resumes where it was: Chiyo's turn.
        with pytest.raises(UndoBarrierError):
            session.undo()
        session.do({"type": "action", "action": "gather"}, expected_state_id=12)
        assert session.state_json()["current_player"] == "Chiyo"
        assert session.undo_description() == "Chiyo: gather"
    reopened, again = open_session(path, factories())
    with reopened:
        assert again.state_id == 13 and again.state_json()["actions"] == ["gather"]
