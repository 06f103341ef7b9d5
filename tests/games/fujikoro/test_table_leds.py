"""Session events -> TableView -> LED colours; the LED map file; the PNG and text pictures."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.events import Event, Kind
from firmware_bridge import ledmap as ledmap_module
from firmware_bridge import render as render_module
from firmware_bridge.ledmap import LedMapError
from games.fujikoro.pack import default_pack
from games.fujikoro.table import TableView, apply, from_state, render

LEDMAP = ledmap_module.default()
SPACES = default_pack().countdown


def fold(*events: Event) -> TableView:
    view = TableView()
    for event in events:
        view = apply(view, event, SPACES)
    return view


def lit(view: TableView) -> set[int]:
    leds = render(view, LEDMAP)
    return {i for i in range(LEDMAP.chain_length) if leds.pixel(i) != (0, 0, 0)}


def test_bridge_shipped_map_has_51_lava_and_8_countdown_leds() -> None:
    assert LEDMAP.chain_length == 59 and LEDMAP.lava_count == 51 and len(LEDMAP.countdown) == 8
    assert sorted(LEDMAP.lava) == list(default_pack().lava_numbers)


def test_bridge_lava_space_lights_its_leds() -> None:
    view = fold(
        Event(Kind.FINAL_CHAPTER, 1, {"player": "A", "threshold": 30}),
        Event(Kind.COUNTDOWN_ADVANCED, 2, {"position": 1, "event": "lava", "lava": [1]}),
        Event(Kind.COUNTDOWN_ADVANCED, 3, {"position": 2, "event": "lava", "lava": [2]}),
    )
    leds = render(view, LEDMAP)
    lava = LEDMAP.colour("lava")
    assert {i for i in range(51) if leds.pixel(i) == lava} == set(LEDMAP.lava[1]) | set(LEDMAP.lava[2])
    bar = [leds.pixel(i) for i in LEDMAP.countdown]
    assert bar == [LEDMAP.colour("bar_lit")] * 2 + [LEDMAP.colour("bar_unlit")] * 6
    assert view.state_id == 3


def test_bridge_rope_turn_and_end() -> None:
    view = fold(
        Event(Kind.TURN_STARTED, 1, {"player": "A", "round": 3, "colour": "blue"}),
        Event(Kind.FINAL_CHAPTER, 2, {"player": "A", "threshold": 30}),
        Event(Kind.COUNTDOWN_ADVANCED, 3, {"position": 1, "event": "lava", "lava": [1]}),
        Event(Kind.COUNTDOWN_ADVANCED, 4, {"position": 2, "event": "lava", "lava": [2]}),
        Event(Kind.COUNTDOWN_ADVANCED, 5, {"position": 3, "event": "rope", "lava": []}),
        Event(Kind.ROPE_APPEARED, 5, {"position": 3}),
    )
    leds = render(view, LEDMAP)
    assert leds.pixel(LEDMAP.countdown[2]) == LEDMAP.colour("rope")
    assert leds.player == bytes(LEDMAP.player("blue"))
    ended = render(apply(view, Event(Kind.GAME_ENDED, 6, {"ranking": [], "reason": "end"}), SPACES), LEDMAP)
    assert all(ended.pixel(i) == LEDMAP.colour("ended") for i in LEDMAP.countdown)
    assert ended.player == b"\x00\x00\x00"


def test_bridge_lava_phase_has_no_rope_and_no_end() -> None:
    view = fold(Event(Kind.COUNTDOWN_ADVANCED, 1, {"position": 3, "event": "rope", "lava": [], "lava_phase": True}),
                Event(Kind.COUNTDOWN_ADVANCED, 2, {"position": 8, "event": "end", "lava": [], "lava_phase": True}))
    assert view.rope_space is None and not view.ended
    view = apply(view, Event(Kind.FINAL_CHAPTER, 3, {"player": "A", "phase": "end"}), SPACES)
    assert view.countdown == 0


def test_bridge_state_reset_rebuilds_the_view() -> None:
    state = {"phase": "final", "current_player": "B",
             "countdown": {"active": True, "position": 4, "rope": True},
             "players": [{"name": "A", "colour": "red"}, {"name": "B", "colour": "green"}]}
    event_view = fold(
        Event(Kind.TURN_STARTED, 1, {"player": "B", "round": 5, "colour": "green"}),
        Event(Kind.FINAL_CHAPTER, 2, {}),
        *[Event(Kind.COUNTDOWN_ADVANCED, 2 + p, {"position": p, "event": SPACES[p - 1].event.value,
                                                 "lava": list(SPACES[p - 1].lava)}) for p in range(1, 5)],
    )
    reset = apply(TableView(erupted=frozenset({5})), Event(Kind.STATE_RESET, 9, {"state": state}), SPACES)
    assert render(reset, LEDMAP) == render(event_view, LEDMAP)
    assert reset.state_id == 9
    assert from_state({"countdown": {"active": False, "position": None}}, SPACES) == TableView()
    assert from_state({"countdown": {"active": True, "position": 2, "lava": [5]}}, SPACES).erupted == {5}


def test_bridge_unknown_events_and_lava_numbers_are_harmless() -> None:
    view = fold(Event(Kind.VP_CHANGED, 1, {"player": "A", "points": 2}),
                Event(Kind.COUNTDOWN_ADVANCED, 2, {"position": 1, "event": "lava", "lava": [9]}))
    assert lit(view) == set(LEDMAP.countdown)


def test_bridge_ledmap_validation(tmp_path: Path) -> None:
    raw = json.loads(ledmap_module.DEFAULT_PATH.read_text())
    changes: list[tuple[Callable[[dict[str, Any]], object], str]] = [
        (lambda r: r["lava"]["1"].append(51), "already used"),
        (lambda r: r["countdown"].append(59), "0..58"),
        (lambda r: r["colours"].__setitem__("lava", [300, 0, 0]), "0..255"),
        (lambda r: r.pop("countdown"), "missing"),
        (lambda r: r["lava"].__setitem__("x", []), "lava numbers"),
    ]
    for change, words in changes:
        broken = json.loads(json.dumps(raw))
        change(broken)
        with pytest.raises(LedMapError, match=words):
            ledmap_module.parse(broken)
    path = tmp_path / "map.json"
    path.write_text("{")
    with pytest.raises(LedMapError, match="not valid JSON"):
        ledmap_module.load(path)
    with pytest.raises(LedMapError, match="cannot read"):
        ledmap_module.load(tmp_path / "missing.json")


def test_bridge_png_picture_is_a_valid_png() -> None:
    leds = render(fold(Event(Kind.COUNTDOWN_ADVANCED, 1, {"position": 1, "event": "lava", "lava": [1]})), LEDMAP)
    chain = [leds.pixel(i) for i in range(LEDMAP.chain_length)]
    data = render_module.png(chain, (255, 0, 0), LEDMAP, cell=10, gap=2)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (2 + 11 * 12, 2 + 7 * 12)
    at, raw = 8, b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0] == zlib.crc32(kind + body)
        if kind == b"IDAT":
            raw += body
        at += 12 + length
    pixels = zlib.decompress(raw)
    assert len(pixels) == height * (1 + width * 3)
    row = pixels[(2 + 5) * (1 + width * 3):(2 + 6) * (1 + width * 3)]  # middle of the first (lava 1) row
    assert bytes(LEDMAP.colour("lava")) in row


def test_bridge_text_picture() -> None:
    leds = render(fold(Event(Kind.COUNTDOWN_ADVANCED, 1, {"position": 1, "event": "lava", "lava": [2]})), LEDMAP)
    chain = [leds.pixel(i) for i in range(LEDMAP.chain_length)]
    text = render_module.text(chain, (0, 0, 0), LEDMAP, colour=False)
    lines = text.splitlines()
    assert lines[0].split() == ["lava", "1", "..........."]
    assert lines[1].split() == ["lava", "2", "##########"]
    assert lines[5].split() == ["countdown", "#-------"]  # space 1 lit, the rest dim
    assert lines[6].split() == ["player", "."]
    assert "\x1b[38;2;" in render_module.text(chain, (0, 0, 0), LEDMAP, colour=True)


def test_bridge_user_ledmap_replaces_the_shipped_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUJIKORO_CONFIG_DIR", str(tmp_path))
    assert ledmap_module.configured() == LEDMAP
    raw = json.loads(ledmap_module.DEFAULT_PATH.read_text())
    raw["brightness"] = 0.25
    (tmp_path / "ledmap.json").write_text(json.dumps(raw))
    mine = ledmap_module.configured()
    assert mine.brightness == 0.25 and mine.checksum == LEDMAP.checksum  # same indices, same checksum
