"""Events: what the session tells the UI and the table hardware after each command.

The port both edges subscribe to. An event is plain data: a kind, the id of the state it came from
(so a device answering an old state can be ignored), and a JSON-ready payload. Games define their
own kinds; the ones Fuji Koro emits are listed in :class:`Kind`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Kind(enum.StrEnum):
    TURN_STARTED = "turn_started"            # {"player": name, "round": n}
    VP_CHANGED = "vp_changed"                # {"player": name, "points": +n, "total": n, "category": c}
    FINAL_CHAPTER = "final_chapter"          # {"player": name, "threshold": n}
    COUNTDOWN_ADVANCED = "countdown_advanced"  # {"position": 1..8, "event": "lava"|..., "lava": [n...]}
    ROPE_APPEARED = "rope_appeared"          # {}
    DRAGON_HEALTH = "dragon_health"          # {"dragon": id, "health": n, "max": n}
    GAME_ENDED = "game_ended"                # {"ranking": [...], "reason": text}
    STATE_RESET = "state_reset"              # after undo/redo/load: {"state": full state JSON}


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    state_id: int
    payload: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "state_id": self.state_id, "payload": dict(self.payload)}
