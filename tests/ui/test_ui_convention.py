"""The tablet's result payload for the convention hub, built from a real finished session."""

from __future__ import annotations

from typing import Any

from companion.datapack import default_pack
from companion.engine import Session
from companion.fujikoro_game import FujiKoro
from ui.convention import game_uuid, result_payload


def finished_game() -> dict[str, Any]:
    session: Session[Any] = Session(FujiKoro(default_pack()), {"players": [
        {"name": "Aiko", "colour": "red"}, {"name": "Botan", "colour": "blue"}]})
    session.do({"type": "vp", "player": "Botan", "points": 3, "category": "scrolls"})
    session.do({"type": "action", "action": "explore", "level": 3})  # Aiko +2 explored
    session.do({"type": "vp", "player": "Aiko", "points": 28, "category": "dragons"})
    session.do({"type": "vp", "player": "Botan", "points": -1, "reason": "miscounted"})
    while not session.is_over:
        session.do({"type": "end_turn"})
    return session.state_json()


def test_ui_result_payload_maps_categories_and_ranks() -> None:
    state = finished_game()
    payload = result_payload(state, "/games/2026-11-23_0900.fujikoro-game", started_at=None)
    lines = {line["name"]: line for line in payload["players"]}
    assert lines["Aiko"]["scores"]["explored"] == 2 and lines["Aiko"]["scores"]["dragons"] == 28
    assert lines["Aiko"]["total"] == 30 and lines["Aiko"]["rank"] == 1
    assert lines["Botan"]["scores"]["scrolls"] == 3 and lines["Botan"]["scores"]["corrections"] == -1
    assert lines["Botan"]["rank"] == 2
    assert payload["game_id"] == str(game_uuid("elsewhere/2026-11-23_0900.fujikoro-game"))
    assert payload["seq"] == state["state_id"]
