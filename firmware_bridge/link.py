"""The host end of the table link: a sans-IO protocol core and a self-healing serial link around it.

:class:`LinkCore` holds the protocol logic with time passed in (so tests drive it with a fake clock):
HELLO/IDENTITY with the device id, one frame in flight with ACK/NAK and retry, heartbeats, and a
*mirror* of what the device has acknowledged. The host only ever sends the difference between the
mirror and the wanted :class:`~firmware_bridge.view.LedState`; after a (re)connect the mirror is unknown,
so the full state goes out again. Every frame the device shows is therefore a state the host wanted.

:class:`SerialLink` runs a LinkCore over any pyserial URL (``/dev/ttyACM0``, ``socket://host:port``,
``loop://``, ``spy://...``) with ``serial.threaded.ReaderThread``, reconnecting with backoff and
re-identifying the device by id. Device events (buttons, tray, dice, errors) go to a callback and a queue.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.dice import DiceError, DiceRoll, Die
from firmware_bridge.commands import Button, dice_from_wire
from firmware_bridge.firmware import protocol as P
from firmware_bridge.ledmap import LedMap
from firmware_bridge.view import LedState
from firmware_bridge.wire import Frame, HostDecoder, frame

_SUPERVISE_S = 0.2  # longest the link thread sleeps without checking that its port reader is alive
#: How long after a device event a copy of it may still arrive: the device sends an event up to 5 times, 250 ms
#: apart (protocol.md §6), and a copy may wait in the port's buffers a little longer.
EVENT_COPIES_S = 1.5


class LinkError(ValueError):
    """A link that cannot be used: a bad URL or a device that is not the one we talk to."""


class LinkState(enum.Enum):
    DOWN = "down"
    HELLO = "hello"
    READY = "ready"


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    device_id: str
    version: int
    caps: int
    chain_length: int
    map_checksum: int


@dataclass(frozen=True, slots=True)
class Connected:
    info: DeviceInfo
    map_matches: bool


@dataclass(frozen=True, slots=True)
class Disconnected:
    reason: str


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A table button and the state the table showed when it was pressed (what it means is the game's)."""

    button: Button
    state_id: int


@dataclass(frozen=True, slots=True)
class TrayChanged:
    rolling: bool


@dataclass(frozen=True, slots=True)
class DiceRolled:
    roll: DiceRoll
    state_id: int


@dataclass(frozen=True, slots=True)
class DeviceError:
    code: int
    text: str


DeviceEvent = Connected | Disconnected | ButtonPressed | TrayChanged | DiceRolled | DeviceError
Tap = Callable[[str, Frame], None]


@dataclass(slots=True)
class _Inflight:
    frame: bytes
    mtype: int
    seq: int
    sent_at: float
    tries: int
    effect: Callable[[], None] | None
    payload: bytes = b""


class LinkCore:
    """Protocol state machine. Feed it bytes and ticks; take bytes to write and device events."""

    def __init__(
        self,
        ledmap: LedMap,
        *,
        dice: Mapping[str, Die],
        expected_id: str | None = None,
        baudrate: int = 115200,
        heartbeat_s: float = 0.5,
        max_tries: int = 6,
        tap: Tap | None = None,
    ) -> None:
        self.ledmap = ledmap
        self.dice = dice
        self.expected_id = expected_id
        self.baudrate = baudrate
        self.heartbeat_s = heartbeat_s
        self.max_tries = max_tries
        self.tap = tap
        self.state = LinkState.DOWN
        self.info: DeviceInfo | None = None
        self.map_matches = False
        self.want_reconnect: str | None = None
        self.state_id = -1
        self._desired = LedState(bytes(ledmap.chain_length * 3), b"\x00\x00\x00")
        self._mirror = bytearray(ledmap.chain_length * 3)
        self._known = bytearray(ledmap.chain_length)
        self._mirror_player: bytes | None = None
        self._n = ledmap.chain_length
        self._decoder = HostDecoder()
        self._out = bytearray()
        self._events: list[DeviceEvent] = []
        self._inflight: _Inflight | None = None
        self._seq = 0
        self._last_tx = 0.0
        self._last_device_seq = -1
        self._last_event_at = -math.inf
        self.synced_at: float | None = None
        self.stats = {"sent": 0, "retries": 0, "naks": 0, "acks": 0, "bad_frames": 0, "reconnects": 0}

    # ------------------------------------------------------------------ inputs
    def connection_made(self, now: float) -> None:
        self.want_reconnect = None
        self._decoder.reset()
        self._out.clear()
        self._handshake(now)

    def _handshake(self, now: float) -> None:
        self.state = LinkState.HELLO
        self._known = bytearray(self._n)
        self._mirror_player = None
        self._inflight = None
        # (The last device seq is kept: a device that did not restart sends an event whose ACK was lost again
        # after the new HELLO, with its seq. _identify forgets it when the device says it restarted.)
        self._send(P.HELLO, P.hello(), now, None)

    def connection_lost(self, reason: str = "connection lost") -> None:
        if self.state is not LinkState.DOWN:
            self._events.append(Disconnected(reason))
            self.stats["reconnects"] += 1
        self.state = LinkState.DOWN
        self._inflight = None
        self._out.clear()  # bytes for a port that is gone must not reach the next device

    def set_desired(self, leds: LedState, now: float, state_id: int = -1) -> None:
        if len(leds.chain) != self._n * 3:
            raise LinkError(f"LED state has {len(leds.chain) // 3} LEDs, the map has {self._n}")
        self._desired = leds
        self.state_id = state_id
        self.synced_at = None
        self._pump(now)

    def feed(self, data: bytes, now: float) -> None:
        for item in self._decoder.feed(data):
            if self.tap is not None:
                self.tap("<", item)
            self._handle(item, now)
        self._pump(now)

    def tick(self, now: float) -> None:
        flight = self._inflight
        if flight is not None and now - flight.sent_at >= self._timeout(flight):
            self._retransmit(now)
        self._pump(now)

    # ----------------------------------------------------------------- outputs
    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_events(self) -> list[DeviceEvent]:
        events, self._events = self._events, []
        return events

    @property
    def synced(self) -> bool:
        return self.state is LinkState.READY and self._inflight is None and not self._differs()

    @property
    def desired(self) -> LedState:
        return self._desired

    def next_deadline(self, now: float) -> float:
        """Seconds until ``tick`` has something to do (0 when the link wants a reconnect now)."""
        if self.want_reconnect is not None:
            return 0.0
        if self._inflight is not None:
            return max(0.0, self._inflight.sent_at + self._timeout(self._inflight) - now)
        if self.state is LinkState.READY:
            return max(0.0, self._last_tx + self.heartbeat_s - now)
        return self.heartbeat_s

    # ---------------------------------------------------------------- internals
    def _timeout(self, flight: _Inflight) -> float:
        wire = (len(flight.frame) + 16) * 10 / self.baudrate
        return 0.05 + 2 * wire

    def _send(self, mtype: int, payload: bytes, now: float, effect: Callable[[], None] | None) -> None:
        self._seq = (self._seq + 1) & 0xFF
        data = frame(mtype, self._seq, payload)
        self._inflight = _Inflight(data, mtype, self._seq, now, 1, effect, payload)
        self._write(data, (mtype, self._seq, payload), now)
        self.stats["sent"] += 1

    def _write(self, data: bytes, item: Frame, now: float) -> None:
        self._out.extend(data)
        self._last_tx = now
        if self.tap is not None:
            self.tap(">", item)

    def _retransmit(self, now: float) -> None:
        flight = self._inflight
        assert flight is not None
        if flight.tries >= self.max_tries:
            # The device may or may not have applied it: forget what it shows, start over after a reconnect.
            self._inflight = None
            self._known = bytearray(self._n)
            self._mirror_player = None
            self.want_reconnect = f"no answer to {P.NAMES.get(flight.mtype, flight.mtype)} after {flight.tries} tries"
            return
        flight.tries += 1
        flight.sent_at = now
        self.stats["retries"] += 1
        self._out.extend(flight.frame)
        self._last_tx = now
        if self.tap is not None:
            self.tap(">R", (flight.mtype, flight.seq, flight.payload))

    def _handle(self, item: Frame, now: float) -> None:
        mtype, seq, payload = item
        if mtype == P.BAD:
            self.stats["bad_frames"] += 1
            return
        flight = self._inflight
        if mtype == P.IDENTITY:
            if flight is not None and flight.mtype == P.HELLO and flight.seq == seq:
                self._identify(payload, now)
            return
        if mtype == P.ACK:
            if flight is not None and flight.seq == seq and self.state is LinkState.READY:
                self.stats["acks"] += 1
                self._inflight = None
                if flight.effect is not None:
                    flight.effect()
                if not self._differs():
                    self.synced_at = now
            return
        if mtype == P.NAK:
            self.stats["naks"] += 1
            code = payload[0] if payload else 0
            if flight is None or seq not in (0, flight.seq):
                return
            if code in (P.E_CRC, P.E_COBS, P.E_SHORT, P.E_OVERSIZE) or (seq == 0 and code == 0):
                self._retransmit(now)
            elif code == P.E_HELLO and seq == flight.seq:
                self._events.append(DeviceError(code, "device restarted; sending the full state again"))
                self._handshake(now)
            elif seq == flight.seq:
                # The device understood the frame and refused it (a build that does not fit the LED map):
                # retrying cannot help, so count it as shown rather than resend it for ever.
                self._inflight = None
                if flight.effect is not None:
                    flight.effect()
                _, text = P.parse_error(payload) if payload else (0, "")
                self._events.append(DeviceError(code, text or P.ERROR_NAMES.get(code, "refused")))
                if flight.mtype == P.HELLO:
                    self.want_reconnect = f"device refused HELLO: {text or P.ERROR_NAMES.get(code, code)}"
            return
        # Unsolicited device events: always ACK (the ACK may have been lost), act once per seq.
        self._out.extend(frame(P.ACK, seq))
        if self.tap is not None:
            self.tap(">", (P.ACK, seq, b""))
        self._last_event_at = now
        if seq == self._last_device_seq:
            return
        self._last_device_seq = seq
        self._device_event(mtype, payload)

    def _identify(self, payload: bytes, now: float) -> None:
        try:
            version, caps, n, crc, ident = P.parse_identity(payload)
        except (P.CodecError, UnicodeDecodeError):
            self.want_reconnect = "unreadable IDENTITY"
            return
        self._inflight = None
        if self.expected_id is not None and ident != self.expected_id:
            self.want_reconnect = f"device {ident!r} is not the expected {self.expected_id!r}"
            self._events.append(DeviceError(P.E_VERSION, self.want_reconnect))
            return
        self.expected_id = ident  # re-identify by id on every later reconnect
        if caps & P.STARTED and now - self._last_event_at > EVENT_COPIES_S:
            # The device restarted: its event seqs began again. (An event that came within EVENT_COPIES_S
            # may be the new life's, whose copy may still come: then the seq is kept.)
            self._last_device_seq = -1
        caps &= ~P.STARTED
        self.info = DeviceInfo(ident, version, caps, n, crc)
        self.map_matches = crc == self.ledmap.checksum and n == self._n
        if n < self._n:
            self._events.append(DeviceError(P.E_RANGE, f"device has {n} LEDs, the LED map {self._n}"))
        self.state = LinkState.READY
        self._events.append(Connected(self.info, self.map_matches))

    def _device_event(self, mtype: int, payload: bytes) -> None:
        try:
            if mtype == P.BUTTON:
                button = Button(payload[0])
                self._events.append(ButtonPressed(button, self.state_id))
            elif mtype == P.TRAY:
                self._events.append(TrayChanged(payload[:1] == bytes((P.TRAY_ROLLING,))))
            elif mtype == P.DICE:
                roll = dice_from_wire(P.parse_dice(payload), self.dice)
                self._events.append(DiceRolled(roll, self.state_id))
            elif mtype == P.ERROR:
                code, text = P.parse_error(payload)
                self._events.append(DeviceError(code, text))
        except (P.CodecError, DiceError, ValueError, IndexError) as error:
            self._events.append(DeviceError(P.E_PAYLOAD, f"{P.NAMES.get(mtype, mtype)}: {error}"))

    def _differs(self) -> bool:
        return self._mirror_player != self._desired.player or self._diff_range() is not None

    def _diff_range(self) -> tuple[int, int] | None:
        want = self._desired.chain
        have = self._mirror
        known = self._known
        limit = self._n if self.info is None else min(self._n, self.info.chain_length)
        lo = hi = -1
        for i in range(limit):
            at = i * 3
            if not known[i] or have[at:at + 3] != want[at:at + 3]:
                if lo < 0:
                    lo = i
                hi = i
        return None if lo < 0 else (lo, hi)

    def _pump(self, now: float) -> None:
        if self.state is not LinkState.READY or self._inflight is not None or self.want_reconnect:
            return
        want = self._desired
        if self._mirror_player != want.player:
            player = bytes(want.player)

            def set_player() -> None:
                self._mirror_player = player

            self._send(P.PLAYER, P.player(player), now, set_player)
            return
        span = self._diff_range()
        if span is not None:
            lo, hi = span
            countdown = self._as_countdown(lo, hi)
            if countdown is not None:
                self._send(P.COUNTDOWN, countdown, now, self._paint_effect(countdown))
                return
            hi = min(hi, lo + P.MAX_LEDS_PER_FRAME - 1)
            rgb = bytes(want.chain[lo * 3:(hi + 1) * 3])

            def set_range() -> None:
                self._mirror[lo * 3:(hi + 1) * 3] = rgb
                self._known[lo:hi + 1] = b"\x01" * (hi + 1 - lo)

            self._send(P.LED_FRAME, P.led_frame(lo, rgb), now, set_range)
            return
        if now - self._last_tx >= self.heartbeat_s:
            self._send(P.HEARTBEAT, b"", now, None)

    def _as_countdown(self, lo: int, hi: int) -> bytes | None:
        """A COUNTDOWN payload when only the bar differs and it shows the lit/unlit pattern."""
        bar = self.ledmap.countdown
        if not self.map_matches or not bar or lo < min(bar) or hi > max(bar):
            return None
        changed = {i for i in range(lo, hi + 1) if not self._known[i] or
                   self._mirror[i * 3:i * 3 + 3] != self._desired.chain[i * 3:i * 3 + 3]}
        if not changed <= set(bar) or not all(self._known[i] for i in range(self._n) if i not in bar):
            return None
        chain = self._desired.chain
        colours = [bytes(chain[i * 3:i * 3 + 3]) for i in bar]
        lit = colours[0]
        position = 0
        while position < len(colours) and colours[position] == lit:
            position += 1
        unlit = colours[position] if position < len(colours) else b"\x00\x00\x00"
        if any(c != unlit for c in colours[position:]):
            return None
        return P.countdown(position, lit, unlit)

    def _paint_effect(self, payload: bytes) -> Callable[[], None]:
        def paint() -> None:
            position, lit, unlit = P.parse_countdown(payload)
            P.paint_countdown(self._mirror, self.ledmap.countdown, position, lit, unlit)
            for i in self.ledmap.countdown:
                self._known[i] = 1

        return paint


def _guarded(callback: Callable[..., None]) -> Callable[..., None]:
    """A caller's callback that cannot kill the link's threads: its exceptions are logged."""

    def call(*args: Any) -> None:
        try:
            callback(*args)
        except Exception:  # noqa: BLE001 - the link must outlive a faulty subscriber
            logging.getLogger(__name__).exception("table link callback failed")

    return call


@functools.cache
def _reader_class() -> type[Any]:
    """``serial.threaded.ReaderThread`` that reports *every* way its read loop can end as a lost connection.

    pyserial's loop only catches ``SerialException`` around ``read(in_waiting or 1)``. When the device is
    pulled while the thread is between two reads (it just handled bytes, e.g. an ACK), ``in_waiting`` on
    the hung-up pty or USB CDC port raises a bare ``OSError(EIO)``: the stock thread dies with a traceback
    and never calls ``connection_lost``, so the link would not know the port is gone.
    """
    import serial.threaded

    class _LinkReader(serial.threaded.ReaderThread):
        def run(self) -> None:
            try:
                super().run()
            except Exception as error:  # noqa: BLE001 - whatever ended the loop, the port is unusable
                self.alive = False
                protocol: Any = getattr(self, "protocol", None)
                self.protocol = None  # type: ignore[assignment]  # stubs say Protocol; None means gone
                if protocol is not None:
                    protocol.connection_lost(error)

    return _LinkReader


class _ReaderProtocol:
    """serial.threaded.Protocol adapter: bytes to the link, loss to the link."""

    def __init__(self, link: SerialLink, generation: int) -> None:
        self._link = link
        self._generation = generation

    def connection_made(self, transport: Any) -> None:
        pass

    def data_received(self, data: bytes) -> None:
        self._link._received(data, self._generation)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._link._lost(self._generation, str(exc) if exc else "port closed")


class SerialLink:
    """A LinkCore on a pyserial URL with threads, reconnect/backoff and device re-identification.

    ``link.set_leds(state)`` from any thread; ``link.events`` (a queue) and ``on_event`` receive
    device events. ``close()`` stops the threads and closes the port.
    """

    def __init__(
        self,
        url: str,
        ledmap: LedMap,
        *,
        dice: Mapping[str, Die] | None = None,
        baudrate: int = 115200,
        expected_id: str | None = None,
        on_event: Callable[[DeviceEvent], None] | None = None,
        tap: Tap | None = None,
        backoff: tuple[float, float] = (0.05, 0.4),
        open_port: Callable[..., Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if dice is None:
            dice = {}  # the open game hands in its dice (Table.use); until then rolls are taken as read
        self.url = url
        self.baudrate = baudrate
        self.core = LinkCore(ledmap, dice=dice, expected_id=expected_id, baudrate=baudrate,
                             tap=_guarded(tap) if tap is not None else None)
        self.events: queue.Queue[DeviceEvent] = queue.Queue()
        self.on_event = _guarded(on_event) if on_event is not None else None
        self._backoff = backoff
        self._open_port = open_port
        self._clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._closed = False
        self._port: Any = None
        self._reader: Any = None
        self._generation = 0
        self._dead: str | None = None
        self.last_error: str | None = None
        self._thread = threading.Thread(target=self._run, name=f"fujikoro-link {url}", daemon=True)

    def start(self) -> SerialLink:
        self._thread.start()
        return self

    def __enter__(self) -> SerialLink:
        return self.start() if not self._thread.is_alive() else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self.core.state is LinkState.READY

    def set_leds(self, leds: LedState, state_id: int = -1) -> None:
        with self._lock:
            self.core.set_desired(leds, self._clock(), state_id)
            self._flush()
        self._wake.set()
        self._dispatch()

    def wait_synced(self, timeout: float) -> bool:
        """Block until the device has acknowledged the wanted state (or the timeout passes)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self.core.synced:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.05))
            return True

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=3)
        self._close_port("closed")

    # ------------------------------------------------------------------ threads
    def _run(self) -> None:
        delay = self._backoff[0]
        while not self._closed:
            if self._port is None:
                if self._connect():
                    delay = self._backoff[0]
                else:
                    self._wake.wait(delay)
                    self._wake.clear()
                    delay = min(delay * 2, self._backoff[1])
                    continue
            self._wake.clear()
            with self._lock:
                reason = self._dead or self.core.want_reconnect
                if reason is None and self._reader is not None and not self._reader.is_alive():
                    reason = "the port reader stopped"
                if reason is not None:
                    self.last_error = reason
                    self._close_port(reason)
                    continue
                self.core.tick(self._clock())
                self._flush()
                timeout = self.core.next_deadline(self._clock())
                self._changed.notify_all()
            self._dispatch()
            # Wake at least every _SUPERVISE_S to notice a dead reader thread, whatever the protocol timers say
            # (heartbeat_s may be long, or changed by the caller while this thread sleeps).
            self._wake.wait(min(max(0.001, timeout), _SUPERVISE_S))

    def _connect(self) -> bool:
        import serial

        opener = self._open_port or serial.serial_for_url
        try:
            port = opener(self.url, baudrate=self.baudrate, timeout=None)
        except (serial.SerialException, OSError, ValueError) as error:
            self.last_error = str(error)
            return False
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._dead = None
            self._port = port
            reader = _reader_class()(port, lambda: _ReaderProtocol(self, generation))
            reader.daemon = True
            self._reader = reader
            reader.start()
        with contextlib.suppress(RuntimeError):  # the port died at once: the loop sees it as dead
            reader.connect()
        if not hasattr(port, "cancel_read"):
            port.timeout = 0.05  # ReaderThread set 1 s; a short poll lets close() stop it promptly
        with self._lock:
            self.core.connection_made(self._clock())
            self._flush()
        return True

    def _close_port(self, reason: str) -> None:
        with self._lock:
            reader, port = self._reader, self._port
            self._reader = self._port = None
            self._generation += 1
            self.core.connection_lost(reason)
            self._changed.notify_all()
        if reader is not None:
            reader.alive = False
            if hasattr(port, "cancel_read"):
                with contextlib.suppress(Exception):  # a port that is already gone cannot be cancelled
                    port.cancel_read()
            if reader is not threading.current_thread():
                reader.join(timeout=1)
        if port is not None:
            with contextlib.suppress(Exception):  # closing a vanished device may fail in many ways
                port.close()
        self._dispatch()

    def _received(self, data: bytes, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self.core.feed(data, self._clock())
            self._flush()
            self._changed.notify_all()
        self._wake.set()
        self._dispatch()

    def _lost(self, generation: int, reason: str) -> None:
        with self._lock:
            if generation == self._generation:
                self._dead = reason
        self._wake.set()

    def _flush(self) -> None:
        data = self.core.take_output()
        if data and self._port is not None:
            try:
                self._port.write(data)
            except Exception as error:  # noqa: BLE001 - any write failure means the device went away
                self._dead = f"write failed: {error}"
                self._wake.set()

    def _dispatch(self) -> None:
        with self._lock:
            events = self.core.take_events()
        for event in events:
            self.events.put(event)
            if self.on_event is not None:
                self.on_event(event)
