"""The platform (issue 16): games are found by the registry, and a game the shared code has never heard
of - the counter game in tests/counter_game, which registers itself - plays through the session engine and
the store's game files exactly as Fuji Koro does."""

from __future__ import annotations

from pathlib import Path

import counter_game  # noqa: F401 - importing it is how it registers itself
import pytest

from companion.registry import UnknownGameError, game, games, rules_for
from store.gamelog import Header
from store.sessions import factories, new_session, open_session


def test_the_registry_finds_the_shipped_game_and_a_registered_one() -> None:
    known = games()
    assert {"fujikoro", "counter"} <= set(known)
    assert known["fujikoro"].title == "Fuji Koro"
    assert rules_for("fujikoro", {}).name == "fujikoro"
    with pytest.raises(UnknownGameError, match="cannot play 'chess' games; it knows"):
        game("chess")


def test_a_registered_game_plays_through_the_store_and_replays(tmp_path: Path) -> None:
    made = game("counter").new_game({})
    header = Header("counter", made.version, {"start": 5}, made.data)
    path = tmp_path / "count.fujikoro-game"
    file, session = new_session(path, header, factories())
    session.do({"type": "add", "n": 10})
    session.do({"type": "random"})
    rolled = session.state.total
    session.do({"type": "add", "n": 3})
    session.undo()
    file.close()
    reopened, replayed = open_session(path, factories())
    assert replayed.state.total == rolled and replayed.state_id == session.state_id
    assert replayed.redo_description() == "add 3"
    replayed.do({"type": "add", "n": 200}, expected_state_id=replayed.state_id)
    assert replayed.is_over
    reopened.close()


def test_a_file_of_a_game_this_app_does_not_know_says_so(tmp_path: Path) -> None:
    from store.gamelog import GameFile, StoreError

    path = tmp_path / "go.fujikoro-game"
    GameFile.create(path, Header("go", "1", {})).close()
    with pytest.raises(StoreError, match="cannot play 'go' games"):
        open_session(path, factories())
