"""LinkCore against the real firmware in-process (fake clock): handshake, diffs, events, retries."""

from __future__ import annotations

from dataclasses import replace

from companion.dice import DiceSource
from firmware_bridge import ledmap as ledmap_module
from firmware_bridge.commands import Button
from firmware_bridge.faults import FaultSpec
from firmware_bridge.firmware import protocol as P
from firmware_bridge.link import (
    ButtonPressed,
    Connected,
    DeviceError,
    DiceRolled,
    LinkCore,
    LinkState,
    TrayChanged,
)
from firmware_bridge.soak import Soak
from firmware_bridge.wire import HostDecoder, frame
from games.fujikoro.pack import default_pack
from games.fujikoro.table import TableView, render

LEDMAP = ledmap_module.default()


def settle(soak: Soak, steps: int = 200) -> None:
    for _ in range(steps):
        soak.step()
        if soak.core.synced:
            return


def sent_types(soak: Soak) -> list[int]:
    types: list[int] = []
    soak.core.tap = lambda d, item: types.append(item[0]) if d == ">" else None
    return types


def test_bridge_link_handshake_then_full_state() -> None:
    soak = Soak(FaultSpec())
    want = render(TableView(erupted=frozenset({2}), countdown=4, player_colour="green"), LEDMAP)
    soak.set_state(want)
    settle(soak)
    assert soak.core.state is LinkState.READY and soak.core.synced
    events = soak.core.take_events()
    assert isinstance(events[0], Connected) and events[0].map_matches
    assert events[0].info.device_id == "fujikoro-table-1"
    assert soak._shown_chain() == soak._wanted_chain()


def test_bridge_link_sends_only_the_difference() -> None:
    soak = Soak(FaultSpec())
    view = TableView(countdown=2, player_colour="red")
    soak.set_state(render(view, LEDMAP))
    settle(soak)
    types = sent_types(soak)
    payloads: list[bytes] = []

    def tap(direction: str, item: tuple[int, int, bytes]) -> None:
        if direction == ">":
            types.append(item[0])
            payloads.append(item[2])

    soak.core.tap = tap
    soak.set_state(render(replace(view, countdown=3), LEDMAP))  # only the bar: COUNTDOWN, 7 bytes
    settle(soak)
    assert types == [P.COUNTDOWN] and P.parse_countdown(payloads[0])[0] == 3
    types.clear()
    payloads.clear()
    soak.set_state(render(replace(view, countdown=3, erupted=frozenset({5})), LEDMAP))
    settle(soak)
    start, rgb = P.parse_led_frame(payloads[0])
    assert types == [P.LED_FRAME] and (start, len(rgb) // 3) == (4, 46)  # LEDs 4..49 = lava 5's span
    assert soak._shown_chain() == soak._wanted_chain()


def test_bridge_link_without_matching_map_uses_led_frames() -> None:
    soak = Soak(FaultSpec())
    soak.set_state(render(TableView(countdown=1), LEDMAP))
    settle(soak)
    soak.core.map_matches = False
    types = sent_types(soak)
    soak.set_state(render(TableView(countdown=2), LEDMAP))
    settle(soak)
    assert types == [P.LED_FRAME]
    assert soak._shown_chain() == soak._wanted_chain()


def test_bridge_link_reidentifies_by_device_id() -> None:
    core = LinkCore(LEDMAP, dice=default_pack().dice, expected_id="other-table")
    core.connection_made(0.0)
    hello = HostDecoder().feed(core.take_output())[0]
    core.feed(frame(P.IDENTITY, hello[1], P.identity(1, 0x1F, 59, LEDMAP.checksum, "fujikoro-table-1")), 0.01)
    assert core.want_reconnect and "other-table" in core.want_reconnect
    assert core.state is not LinkState.READY
    assert any(isinstance(e, DeviceError) for e in core.take_events())


def test_bridge_link_device_events_become_button_presses_and_dice() -> None:
    soak = Soak(FaultSpec())
    soak.set_state(render(TableView(), LEDMAP))
    settle(soak)
    soak.core.take_events()
    soak.core.state_id = 42
    assert soak.board is not None
    pin = soak.board.pins[10]  # end_turn in the shipped config
    pin.drive(0)
    for _ in range(60):
        soak.step()
    pin.drive(1)
    soak.board.uarts[1].inject(b"T3 M0b\n")
    for _ in range(60):
        soak.step()
    events = soak.core.take_events()
    press = next(e for e in events if isinstance(e, ButtonPressed))
    assert press.button is Button.END_TURN
    assert press.state_id == 42
    roll = next(e for e in events if isinstance(e, DiceRolled)).roll
    assert roll.source is DiceSource.TRAY and roll.hits == 3 and roll.broken("metal") == 1


def test_bridge_link_duplicate_device_event_acted_on_once() -> None:
    core = LinkCore(LEDMAP, dice=default_pack().dice)
    core.connection_made(0.0)
    core.take_output()
    core.feed(frame(P.TRAY, 7, bytes((P.TRAY_ROLLING,))) * 2, 0.1)
    out = HostDecoder().feed(core.take_output())
    assert out == [(P.ACK, 7, b""), (P.ACK, 7, b"")]  # both ACKed (the first ACK may be lost)
    assert [e for e in core.take_events() if isinstance(e, TrayChanged)] == [TrayChanged(True)]


def _connect(core: LinkCore, now: float, caps: int) -> None:
    """(Re)connect ``core`` to a device whose IDENTITY has these caps (P.STARTED: its first HELLO since it started)."""
    core.connection_made(now)
    hello = HostDecoder().feed(core.take_output())[0]
    core.feed(frame(P.IDENTITY, hello[1], P.identity(1, caps, 59, LEDMAP.checksum, "t")), now)
    core.take_output()


def _presses(core: LinkCore) -> list[Button]:
    return [e.button for e in core.take_events() if isinstance(e, ButtonPressed)]


def test_bridge_link_an_event_sent_again_after_a_reconnect_is_acted_on_once() -> None:
    """hardware_docs/protocol.md §6: the device keeps its event in flight and its seq across a HELLO; a host that
    forgot the last seq at the HELLO (as this one did, 2026-12-01) took the copy for a second press."""
    core = LinkCore(LEDMAP, dice=default_pack().dice)
    _connect(core, 0.0, 0x1F | P.STARTED)
    core.feed(frame(P.BUTTON, 7, bytes((P.BUTTON_END_TURN,))), 0.1)
    assert _presses(core) == [Button.END_TURN]
    # The ACK was lost; the link gave up and reconnects to the same device, which did not restart.
    core.connection_lost("timeouts")
    _connect(core, 3.0, 0x1F)
    core.feed(frame(P.BUTTON, 7, bytes((P.BUTTON_END_TURN,))), 3.1)
    assert HostDecoder().feed(core.take_output()) == [(P.ACK, 7, b"")]  # ACKed, not acted on
    assert _presses(core) == []
    core.feed(frame(P.BUTTON, 8, bytes((P.BUTTON_UNDO,))), 3.2)
    assert _presses(core) == [Button.UNDO]


def test_bridge_link_a_restarted_device_numbers_its_events_afresh() -> None:
    """protocol.md §6: an IDENTITY with the started bit makes the host forget the last seq (the device's numbering
    began again), unless a device event came within EVENT_COPIES_S: that may be the new start's, and come again."""
    core = LinkCore(LEDMAP, dice=default_pack().dice)
    _connect(core, 0.0, 0x1F | P.STARTED)
    core.feed(frame(P.BUTTON, 7, bytes((P.BUTTON_END_TURN,))), 0.1)
    assert _presses(core) == [Button.END_TURN]
    core.connection_lost("unplugged")
    _connect(core, 5.0, 0x1F | P.STARTED)  # replugged: it restarted, and its random first seq happens to be 7
    assert core.info is not None and core.info.caps == 0x1F  # (the started bit is no capability)
    core.feed(frame(P.BUTTON, 7, bytes((P.BUTTON_DRAGON_ROLL,))), 5.2)
    assert _presses(core) == [Button.DRAGON_ROLL]
    # A restart the host did not notice: the new start's first event came before the host's next HELLO.
    core.feed(frame(P.BUTTON, 200, bytes((P.BUTTON_UNDO,))), 9.0)
    assert _presses(core) == [Button.UNDO]
    core.connection_lost("NAK hello first")
    _connect(core, 9.4, 0x1F | P.STARTED)
    core.feed(frame(P.BUTTON, 200, bytes((P.BUTTON_UNDO,))), 9.5)  # its ACK was lost: a copy
    assert _presses(core) == []


def test_bridge_link_bad_dice_from_device_is_an_error_not_a_crash() -> None:
    core = LinkCore(LEDMAP, dice=default_pack().dice)
    core.connection_made(0.0)
    core.feed(frame(P.DICE, 3, P.dice([(0, 3, False)])), 0.1)  # a wood die has no 3
    (event,) = core.take_events()
    assert isinstance(event, DeviceError) and "wood" in event.text


def test_bridge_link_gives_up_after_retries_and_forgets_the_mirror() -> None:
    core = LinkCore(LEDMAP, dice=default_pack().dice, max_tries=3)
    core.connection_made(0.0)
    hello = HostDecoder().feed(core.take_output())[0]
    core.feed(frame(P.IDENTITY, hello[1], P.identity(1, 0x1F, 59, LEDMAP.checksum, "t")), 0.0)
    core.set_desired(render(TableView(countdown=1), LEDMAP), 0.0)
    now = 0.0
    for _ in range(3):
        now += 1.0
        core.tick(now)
    assert core.want_reconnect is not None and "3 tries" in core.want_reconnect
    assert not core.synced
    core.connection_lost("test")
    core.connection_made(now)
    assert HostDecoder().feed(core.take_output())[0][0] == P.HELLO  # old bytes never reach the next port


def test_bridge_link_give_up_asks_for_the_reconnect_at_once() -> None:
    """A give-up must not wait for the next heartbeat (benchmarks/bridge.py runs with heartbeat_s = 3600)."""
    core = LinkCore(LEDMAP, dice=default_pack().dice, max_tries=2, heartbeat_s=3600.0)
    core.connection_made(0.0)
    hello = HostDecoder().feed(core.take_output())[0]
    core.feed(frame(P.IDENTITY, hello[1], P.identity(1, 0x1F, 59, LEDMAP.checksum, "t")), 0.0)
    core.set_desired(render(TableView(countdown=1), LEDMAP), 0.0)
    now = 0.0
    while core.want_reconnect is None:
        now += core.next_deadline(now)
        core.tick(now)
        assert now < 1.0
    assert core.next_deadline(now) == 0.0


def test_bridge_link_restarted_device_gets_a_new_handshake() -> None:
    soak = Soak(FaultSpec())
    soak.set_state(render(TableView(countdown=5, erupted=frozenset({1})), LEDMAP))
    settle(soak)
    soak._boot()  # the Pico resets while the port stays open (a UART link)
    soak.set_state(render(TableView(countdown=6, erupted=frozenset({1})), LEDMAP))
    settle(soak, 400)
    assert soak.core.synced and soak._shown_chain() == soak._wanted_chain()
    assert any(isinstance(e, DeviceError) and e.code == P.E_HELLO for e in soak.core.take_events())
