"""The tablet app at a convention, end to end: it joins the hub with the event code and the join secret from
Settings, a game played on its screens to the end is sent through the outbox as the game's own result
(schema 2), and the hub counts it in the round in play. A real hub process, a real app window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub import db
from hub.loadtest import ServerProcess
from hub.storage import HubStore
from ui.settings import Settings, save

pytestmark = pytest.mark.ui


def test_ui_a_finished_game_reaches_the_convention_hub(run_app: Any, tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'hub.sqlite3'}"
    engine = db.make_engine(database)
    db.migrate(engine)
    store = HubStore(engine)
    created = store.create_event("Tablet Con")
    store.set_round(created.event, 3)
    with ServerProcess(database) as hub:
        save(Settings(hub_url=hub.url, event_code=created.event.code, join_secret=created.event.join_secret,
                      table_name="Table 7", hardware_url="none"))
        steps: list[dict[str, Any]] = [
            {"do": "wait_until", "path": "convention.joined", "equals": True, "timeout": 30},
            {"do": "press", "id": "start_game"}, {"do": "wait_until", "path": "game.phase", "equals": "playing"},
        ]
        for _ in range(3):  # Aiko reaches 30 VP: the final chapter
            steps += [{"do": "press", "id": "vp_0"}] + [{"do": "press", "id": "vp_amount_plus"}] * 9
            steps += [{"do": "press", "id": "vp_cat_dragons"}]
        steps += [{"do": "until", "path": "game.phase", "equals": "ended",
                   "press": ["end_turn", "action_move", "action_rest"], "max": 150, "pause": 0.2},
                  {"do": "wait_until", "path": "convention.status_text", "equals": "Hub: all sent", "timeout": 40},
                  {"do": "quit"}]
        report = run_app(steps)
    assert report["errors"] == []
    event = store.event(created.event.code)
    results = store.results(event)
    assert len(results) == 1
    result = results[0]
    assert (result["game"], result["schema_version"], result["table"], result["round"]) == ("fujikoro", 2, "Table 7", 3)
    assert [(p["name"], p["rank"]) for p in result["players"]][0] == ("Aiko", 1)
    assert result["players"][0]["scores"]["dragons"] == 30
    engine.dispose()
