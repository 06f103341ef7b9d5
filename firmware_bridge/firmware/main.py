"""Fuji Koro table firmware for a Raspberry Pi Pico (RP2040) running MicroPython.

Owns the device end of the table link: decodes host frames (protocol.py, shared with the host),
drives the WS2812 chain (lava spaces + countdown bar) and the player-colour LED, debounces the
buttons and the dice-tray vibration switch, reads optional smart-dice / keypad results from a UART,
and reports them as events with retry. After link_lost_ms without a valid host frame it dims the
chain to 1/8 and blinks the player LED red ("link lost").

Copy main.py, protocol.py, config.json and ledmap.json to the Pico's flash (see
hardware_docs/flashing.md). The emulator runs this same file unmodified under CPython with
stand-ins for machine, neopixel, utime, micropython, select and sys.
"""

import json

import machine
import neopixel

import protocol as P

try:
    import utime as time
except ImportError:  # pragma: no cover - plain CPython without the emulator's stand-ins
    import time

try:
    import random  # MicroPython's (getrandbits; seeded from the RP2040's ring oscillator at power-on)
except ImportError:  # pragma: no cover - a MicroPython build without it
    random = None

EVENT_RETRY_MS = 250
EVENT_TRIES = 5
DICE_LETTERS = {"W": 0, "M": 1, "T": 2, "G": 3}
LOST_RED = (255, 0, 0)


def load_json(name):
    with open(name) as f:
        return json.load(f)


class UsbLink:
    """USB CDC serial (/dev/ttyACM0 on the host): binary stdin/stdout with Ctrl-C disabled."""

    def __init__(self):
        import micropython
        import select
        import sys

        micropython.kbd_intr(-1)  # a 0x03 byte in a frame must not stop the program
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        while len(data) < 256 and self._poll.poll(0):
            chunk = self._in.read(1)
            if not chunk:
                break
            data.extend(chunk)
        return data

    def write(self, data):
        self._out.write(data)


class UartLink:
    """A hardware UART (GP0 TX / GP1 RX) to a USB-serial adapter or a Pi's UART."""

    def __init__(self, uart_id, baudrate):
        self._uart = machine.UART(uart_id, baudrate)

    def read(self):
        if self._uart.any():
            return self._uart.read() or b""
        return b""

    def write(self, data):
        self._uart.write(data)


def open_link(config):
    if config.get("link", "usb") == "usb":
        return UsbLink()
    return UartLink(int(config.get("uart_id", 0)), int(config.get("baud", 115200)))


class Debounced:
    """A digital input that changes state only after the raw level held for ``ms``."""

    def __init__(self, pin, ms, now):
        self.pin = pin
        self.ms = ms
        self.stable = pin.value()
        self.candidate = self.stable
        self.since = now

    def update(self, now):
        """Returns the new stable level when it changes, else None."""
        raw = self.pin.value()
        if raw != self.candidate:
            self.candidate = raw
            self.since = now
        elif raw != self.stable and time.ticks_diff(now, self.since) >= self.ms:
            self.stable = raw
            return raw
        return None


class Tray:
    """The vibration switch in the dice tray: any edge means rolling, quiet for still_ms means still."""

    def __init__(self, pin, still_ms, now):
        self.pin = pin
        self.still_ms = still_ms
        self.level = pin.value()
        self.last_edge = now
        self.state = P.TRAY_STILL

    def update(self, now):
        raw = self.pin.value()
        if raw != self.level:
            self.level = raw
            self.last_edge = now
            if self.state == P.TRAY_STILL:
                self.state = P.TRAY_ROLLING
                return P.TRAY_ROLLING
        elif self.state == P.TRAY_ROLLING and time.ticks_diff(now, self.last_edge) >= self.still_ms:
            self.state = P.TRAY_STILL
            return P.TRAY_STILL
        return None


def parse_dice_line(line):
    """'W1 M2b T0' -> [(kind, hits, broken)]; None for a line that is not a dice reading, or one that
    does not fit one DICE event (more than MAX_DICE dice, hits over 127)."""
    out = []
    for token in line.split():
        kind = DICE_LETTERS.get(token[:1].upper())
        rest = token[1:]
        broken = rest.endswith("b")
        if broken:
            rest = rest[:-1]
        if kind is None or not rest.isdigit() or int(rest) > 127:
            return None
        out.append((kind, int(rest), broken))
    if len(out) > P.MAX_DICE:
        return None
    return out or None


class Device:
    def __init__(self, config, ledmap):
        now = time.ticks_ms()
        self.config = config
        self.n = int(ledmap["chain_length"])
        self.bar = list(ledmap["countdown"])
        self.map_crc = P.map_checksum(ledmap)
        self.chain = bytearray(self.n * 3)
        self.player = bytearray(3)
        self.pixels = neopixel.NeoPixel(machine.Pin(config["chain_pin"], machine.Pin.OUT), self.n)
        self.player_pixel = neopixel.NeoPixel(machine.Pin(config["player_pin"], machine.Pin.OUT), 1)
        self.link = open_link(config)
        self.decoder = P.Decoder()
        self.caps = P.CAP_LEDS | P.CAP_PLAYER_LED
        pull = machine.Pin.PULL_UP
        self.tray = None
        if config.get("tray_pin") is not None:
            self.tray = Tray(machine.Pin(config["tray_pin"], machine.Pin.IN, pull),
                             int(config.get("tray_still_ms", 600)), now)
            self.caps |= P.CAP_TRAY
        self.buttons = []
        names = {"end_turn": P.BUTTON_END_TURN, "dragon_roll": P.BUTTON_DRAGON_ROLL, "undo": P.BUTTON_UNDO}
        for name, pin in sorted(config.get("buttons", {}).items()):
            if name in names and pin is not None:
                debounce = int(config.get("button_debounce_ms", 30))
                self.buttons.append((names[name], Debounced(machine.Pin(pin, machine.Pin.IN, pull), debounce, now)))
        if self.buttons:
            self.caps |= P.CAP_BUTTONS
        self.dice_uart = None
        self.dice_text = b""
        self.dice_reading = None
        if config.get("dice_uart") is not None:
            self.dice_uart = machine.UART(int(config["dice_uart"]), 9600)
            self.caps |= P.CAP_DICE
        self.lost_ms = int(config.get("link_lost_ms", 2000))
        self.last_rx = now
        self.lost = False
        self.blink_on = False
        self.last_host_seq = -1
        # Event numbering starts at random at each start, so that a host which did not notice the restart
        # (and still holds the last seq of the device's previous life) rarely takes a new event for a copy.
        self.seq = random.getrandbits(8) if random is not None else time.ticks_ms() & 0xFF
        # IDENTITY says the device started (P.STARTED) in its answer to the first HELLO since, and in the answer to
        # that HELLO retransmitted; not after another HELLO.
        self.announce = P.STARTED
        self.events = []
        self.pending = None  # [frame, seq, sent_at, tries]
        self.show()

    # ------------------------------------------------------------------ output
    def show(self):
        chain = self.chain
        shift = 3 if self.lost else 0
        pixels = self.pixels
        for i in range(self.n):
            at = i * 3
            pixels[i] = (chain[at] >> shift, chain[at + 1] >> shift, chain[at + 2] >> shift)
        pixels.write()
        self.show_player()

    def show_player(self):
        if self.lost:
            colour = LOST_RED if self.blink_on else (0, 0, 0)
        else:
            colour = (self.player[0], self.player[1], self.player[2])
        self.player_pixel[0] = colour
        self.player_pixel.write()

    def send(self, mtype, seq, payload=b""):
        self.link.write(P.pack(mtype, seq, payload))

    # ------------------------------------------------------------------- input
    def poll(self):
        now = time.ticks_ms()
        data = self.link.read()
        if data:
            for mtype, seq, payload in self.decoder.feed(data):
                self.handle(mtype, seq, payload, now)
        self.check_link(now)
        self.scan_inputs(now)
        self.send_events(now)

    def handle(self, mtype, seq, payload, now):
        if mtype == P.BAD:
            self.send(P.NAK, 0, P.error(seq))
            return
        self.last_rx = now
        if self.lost:
            self.lost = False
            self.show()
        if mtype == P.ACK:
            if self.pending is not None and self.pending[1] == seq:
                self.pending = None
            return
        if mtype == P.HELLO:
            if not payload or payload[0] != P.VERSION:
                self.send(P.NAK, seq, P.error(P.E_VERSION, "protocol %d" % P.VERSION))
                return
            if self.last_host_seq >= 0 and seq != self.last_host_seq:
                self.announce = 0
            self.last_host_seq = seq
            caps = self.caps | self.announce
            ident = P.identity(P.VERSION, caps, self.n, self.map_crc, self.config["device_id"])
            self.send(P.IDENTITY, seq, ident)
            return
        if self.last_host_seq < 0:
            # No HELLO since boot: this frame belongs to a session the device no longer remembers, and
            # applying it would show half a state. The host answers with HELLO and the full state.
            self.send(P.NAK, seq, P.error(P.E_HELLO))
            return
        if seq == self.last_host_seq:
            self.send(P.ACK, seq)  # a retransmission whose ACK got lost: already applied
            return
        try:
            self.apply(mtype, payload)
        except P.CodecError as error:
            self.send(P.NAK, seq, P.error(error.code, str(error)))
            return
        self.last_host_seq = seq
        self.send(P.ACK, seq)

    def apply(self, mtype, payload):
        if mtype == P.LED_FRAME:
            start, rgb = P.parse_led_frame(payload)
            if start * 3 + len(rgb) > len(self.chain):
                raise P.CodecError(P.E_RANGE, "LEDs past the end of the chain")
            self.chain[start * 3:start * 3 + len(rgb)] = rgb
            self.show()
        elif mtype == P.COUNTDOWN:
            position, lit, unlit = P.parse_countdown(payload)
            if position > len(self.bar):
                raise P.CodecError(P.E_RANGE, "countdown position past the bar")
            P.paint_countdown(self.chain, self.bar, position, lit, unlit)
            self.show()
        elif mtype == P.PLAYER:
            self.player[:] = P.parse_player(payload)
            self.show_player()
        elif mtype != P.HEARTBEAT:
            raise P.CodecError(P.E_TYPE, "unknown message type %d" % mtype)

    def check_link(self, now):
        if not self.lost and time.ticks_diff(now, self.last_rx) >= self.lost_ms:
            self.lost = True
            self.show()
        if self.lost:
            blink = (now // 500) % 2 == 0
            if blink != self.blink_on:
                self.blink_on = blink
                self.show_player()

    def scan_inputs(self, now):
        for button_id, button in self.buttons:
            if button.update(now) == 0:  # active low: pressed
                self.events.append((P.BUTTON, bytes((button_id,))))
        if self.dice_uart is not None and self.dice_uart.any():
            self.read_dice(self.dice_uart.read() or b"")
        if self.tray is not None:
            state = self.tray.update(now)
            if state is not None:
                self.events.append((P.TRAY, bytes((state,))))
                if state == P.TRAY_STILL and self.dice_reading:
                    self.events.append((P.DICE, P.dice(self.dice_reading)))
                    self.dice_reading = None

    def read_dice(self, data):
        self.dice_text += data
        while b"\n" in self.dice_text:
            line, self.dice_text = self.dice_text.split(b"\n", 1)
            reading = parse_dice_line(P.text(line))
            if reading is None:
                continue
            if self.tray is not None and self.tray.state == P.TRAY_ROLLING:
                self.dice_reading = reading  # reported when the tray comes to rest
            else:
                self.events.append((P.DICE, P.dice(reading)))
        if len(self.dice_text) > 128:
            self.dice_text = b""

    def send_events(self, now):
        pending = self.pending
        if pending is None:
            if self.events:
                mtype, payload = self.events.pop(0)
                self.seq = (self.seq + 1) & 0xFF
                frame = P.pack(mtype, self.seq, payload)
                self.link.write(frame)
                self.pending = [frame, self.seq, now, 1]
        elif time.ticks_diff(now, pending[2]) >= EVENT_RETRY_MS:
            if pending[3] >= EVENT_TRIES:
                self.pending = None
            else:
                self.link.write(pending[0])
                pending[2] = now
                pending[3] += 1


def maintenance_requested(config):
    """Undo held at power-up: leave the REPL usable (main() disables Ctrl-C) to update files."""
    pin = config.get("buttons", {}).get("undo")
    if pin is None:
        return False
    return machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def main():
    config = load_json("config.json")
    if maintenance_requested(config):
        print("fujikoro table: maintenance mode (undo held at power-up); REPL stays open")
        return
    device = Device(config, load_json("ledmap.json"))
    while True:
        device.poll()
        time.sleep_ms(1)


if __name__ == "__main__":
    main()
