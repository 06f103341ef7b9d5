"""The table emulator: the real firmware under CPython, served on a pty or a TCP port.

:class:`Emulator` boots ``firmware/main.py`` on a :class:`~firmware_bridge.standins.Board` in a thread
(its own ``main()`` loop), and moves bytes between the board's USB serial and a pseudo-terminal
(``/dev/pts/N`` behind a stable symlink) or one TCP client. The line can be throttled to a baud rate
(each byte takes 10 bit times, both directions, like 8N1 UART), faults can be injected
(:mod:`firmware_bridge.faults`), and the line can be unplugged and replugged (which restarts the board,
as pulling the Pico's USB cable does). Buttons, the tray switch and a dice reader are driven through the
board's pin and UART stand-ins, exactly where the real parts are wired.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import re
import select
import socket
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.faults import FaultInjector, FaultSpec
from firmware_bridge.firmware import protocol
from firmware_bridge.standins import Board, FirmwareStopped, NeoPixel, RealClock, firmware_files, load_firmware

RGB = tuple[int, int, int]


class EmulatorError(ValueError):
    """The emulator cannot serve as asked (port in use, no pty support, unknown button)."""


COMMANDS = (
    "press BUTTON (end_turn, dragon_roll, undo)",
    "tray [SECONDS] (rattle the tray switch, default 0.3)",
    "roll DICE (rattle the tray, the reader reports DICE, e.g. roll W1 M0b)",
    "dice DICE (the reader or keypad reports DICE without the tray)",
    "leds (the colours shown now)",
    "unplug",
    "replug",
    "help",
    "quit",
)
_DICE_TOKEN = re.compile(r"[WMTG]([0-9]{1,3})b?")


def _hex(rgb: RGB) -> str:
    r, g, b = rgb
    return f"{r:02x}{g:02x}{b:02x}"


def _dice_line(verb: str, tokens: list[str]) -> str:
    """The dice reader's line for ``tokens`` (hardware_docs/protocol.md §9), checked so the reader takes it."""
    if not tokens:
        raise EmulatorError(f"{verb} needs at least one die, e.g. {verb} W1 M0b")
    if len(tokens) > protocol.MAX_DICE:
        raise EmulatorError(f"{verb}: {len(tokens)} dice do not fit one DICE event; at most {protocol.MAX_DICE}")
    for token in tokens:
        match = _DICE_TOKEN.fullmatch(token)
        if match is None or int(match.group(1)) > 127:
            raise EmulatorError(f"{verb}: {token!r} is not a die: a kind W, M, T or G, hits 0..127, "
                                "then b for the broken icon (W1, M0b)")
    return " ".join(tokens)


class _Line:
    """One direction of the serial line: fault injection, then the wire time at the baud rate."""

    def __init__(self, baudrate: int | None, faults: FaultInjector | None) -> None:
        self.baudrate = baudrate
        self.faults = faults
        self._free_at = 0.0

    def pass_through(self, data: bytes) -> tuple[bytes, bool]:
        unplug = False
        if self.faults is not None:
            data, unplug = self.faults.feed(data)
        if self.baudrate and data:
            now = time.monotonic()
            self._free_at = max(now, self._free_at) + len(data) * 10 / self.baudrate
            delay = self._free_at - now
            if delay > 0:
                time.sleep(delay)
        return data, unplug


class Emulator:
    """An emulated table. Use :meth:`serve_pty` or :meth:`serve_tcp`, then point a SerialLink at it."""

    def __init__(
        self,
        *,
        baudrate: int | None = None,
        faults: FaultSpec | None = None,
        seed: int | None = None,
        ledmap: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        unplug_s: float = 0.5,
        on_leds: Callable[[Emulator], None] | None = None,
    ) -> None:
        self.baudrate = baudrate
        self.unplug_s = unplug_s
        self.on_leds = on_leds
        self._files = firmware_files(ledmap, config)
        rng = random.Random(seed)
        self._rx = _Line(baudrate, FaultInjector(faults, random.Random(rng.random())) if faults else None)
        self._tx = _Line(baudrate, FaultInjector(faults, random.Random(rng.random())) if faults else None)
        self._lock = threading.RLock()
        self._closed = False
        self._plugged = False
        self._mode: str | None = None
        self._pty_link: Path | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._server: socket.socket | None = None
        self._tcp_address: tuple[str, int] | None = None
        self._client: socket.socket | None = None
        self._txq: queue.Queue[bytes | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self.board: Board = self._boot()
        self.boots = 1
        self.unplugs = 0

    # --------------------------------------------------------------- the board
    def _boot(self) -> Board:
        board = Board(RealClock(), self._files)
        namespace = load_firmware(board)
        board.usb.on_tx = self._txq.put
        board.write_listeners.append(self._leds_changed)
        ready = threading.Event()

        def run() -> None:
            board.stopped = False
            ready.set()
            with contextlib.suppress(FirmwareStopped):
                namespace["main"]()

        thread = threading.Thread(target=run, name="fujikoro-firmware", daemon=True)
        thread.start()
        ready.wait(2)
        deadline = time.monotonic() + 2
        while not board.neopixels and time.monotonic() < deadline:  # the firmware builds its chain first
            time.sleep(0.001)
        board.thread = thread  # type: ignore[attr-defined]
        return board

    def _halt(self, board: Board) -> None:
        board.stopped = True
        board.wake.set()
        thread = getattr(board, "thread", None)
        if thread is not None:
            thread.join(timeout=2)

    def _leds_changed(self, pixels: NeoPixel) -> None:
        if self.on_leds is not None:
            self.on_leds(self)

    def chain(self) -> tuple[RGB, ...]:
        """The colours the WS2812 chain shows now (after the last ``write()``)."""
        pixels = self._chain_pixels()
        return pixels.shown if pixels is not None else ()

    def player(self) -> RGB:
        config = self._config()
        pixels = self.board.neopixels.get(int(config["player_pin"]))
        return pixels.shown[0] if pixels is not None else (0, 0, 0)

    def _chain_pixels(self) -> NeoPixel | None:
        return self.board.neopixels.get(int(self._config()["chain_pin"]))

    def _config(self) -> dict[str, Any]:
        import json

        if "config.json" in self._files:
            config: dict[str, Any] = json.loads(self._files["config.json"])
            return config
        with self.board._open("config.json") as f:
            loaded: dict[str, Any] = json.load(f)
            return loaded

    # ---------------------------------------------------------- the table parts
    def press(self, button: str, hold_s: float = 0.08, bounce: int = 3) -> None:
        """Press and release a button, with contact bounce, as a finger on the real switch does."""
        pin_id = self._config().get("buttons", {}).get(button)
        if pin_id is None:
            raise EmulatorError(f"no button {button!r}; this build has {', '.join(self._config().get('buttons', {}))}")
        pin = self.board.pins[int(pin_id)]
        for _ in range(bounce):
            pin.drive(0)
            time.sleep(0.001)
            pin.drive(1)
            time.sleep(0.001)
        pin.drive(0)
        time.sleep(hold_s)
        pin.drive(1)
        # A finger is off the switch for longer than the debounce time before it can press again: without
        # this wait, a second press right after this one would merge with it into one BUTTON event.
        time.sleep(int(self._config().get("button_debounce_ms", 30)) / 1000 + 0.02)

    def shake_tray(self, roll_s: float = 0.3, dice: str | None = None) -> None:
        """Rattle the tray switch for ``roll_s``; optionally have the dice reader report ``dice`` ('W1 M2b')."""
        uart_id = self._config().get("dice_uart")
        if dice is not None and uart_id is None:
            raise EmulatorError("this build has no dice reader (dice_uart in config.json)")
        tray_pin = self._config().get("tray_pin")
        if tray_pin is None:
            raise EmulatorError("this build has no tray switch (tray_pin in config.json)")
        pin = self.board.pins[int(tray_pin)]
        end = time.monotonic() + roll_s
        level = 0
        while time.monotonic() < end:
            pin.drive(level)
            level ^= 1
            time.sleep(0.01)
        pin.drive(1)
        if dice is not None:
            self.read_dice(dice)

    def read_dice(self, dice: str) -> None:
        """The dice reader (or keypad) sends one line ``dice`` ('W1 M2b') on its UART, tray or no tray."""
        uart_id = self._config().get("dice_uart")
        if uart_id is None:
            raise EmulatorError("this build has no dice reader (dice_uart in config.json)")
        self.board.uarts[int(uart_id)].inject(dice.encode() + b"\n")

    def command(self, line: str) -> str:
        """Run one line of the table command language (``fujikoro bridge emulate --commands``).

        Returns the reply without its leading ``ok``; raises EmulatorError (one sentence) for a line that
        is not a command or a part this build lacks. hardware_docs/emulator.md documents the language.
        """
        words = line.split()
        if not words:
            raise EmulatorError("empty command; try help")
        verb, rest = words[0].lower(), words[1:]
        if verb == "help":
            return "help: " + "; ".join(COMMANDS)
        if verb == "leds":
            if rest:
                raise EmulatorError("leds takes no arguments")
            colours = " ".join(f"{i}={_hex(rgb)}" for i, rgb in enumerate(self.chain()))
            return f"leds player={_hex(self.player())} {colours}"
        if verb == "unplug":
            self._no_args(verb, rest)
            self.unplug()
            return "unplug"
        if verb == "replug":
            self._no_args(verb, rest)
            self.replug()
            return "replug"
        if verb not in ("press", "tray", "roll", "dice"):
            verbs = ", ".join(c.split()[0] for c in COMMANDS)
            raise EmulatorError(f"unknown command {words[0]!r}; the commands are {verbs}")
        if self._mode is not None and not self._plugged:  # serving, with the cable pulled
            raise EmulatorError("the table is unplugged; send replug first")
        if verb == "press":
            if len(rest) != 1:
                raise EmulatorError("press takes one button: end_turn, dragon_roll or undo")
            self.press(rest[0])
            return f"press {rest[0]}"
        if verb == "tray":
            seconds = 0.3
            if len(rest) > 1:
                raise EmulatorError("tray takes at most one number of seconds")
            if rest:
                try:
                    seconds = float(rest[0])
                except ValueError:
                    raise EmulatorError(f"tray: {rest[0]!r} is not a number of seconds") from None
                if not 0.01 <= seconds <= 10:
                    raise EmulatorError(f"tray: the rattle lasts 0.01..10 seconds, got {rest[0]}")
            self.shake_tray(seconds)
            return f"tray {seconds:g}"
        dice = _dice_line(verb, rest)
        if verb == "roll":
            self.shake_tray(0.3, dice=dice)
        else:
            self.read_dice(dice)
        return f"{verb} {dice}"

    @staticmethod
    def _no_args(verb: str, rest: list[str]) -> None:
        if rest:
            raise EmulatorError(f"{verb} takes no arguments")

    # ---------------------------------------------------------------- serving
    def serve_pty(self, link: Path | str | None = None) -> str:
        """Serve on a new pseudo-terminal; returns the path a host opens (a stable symlink if ``link``)."""
        self._mode = "pty"
        self._pty_link = Path(link) if link is not None else None
        path = self._open_pty()
        self._start_io()
        return path

    def serve_tcp(self, port: int = 0, host: str = "127.0.0.1") -> int:
        """Serve one client at a time on a TCP port (0: any free port); returns the port."""
        self._mode = "tcp"
        self._listen(host, port)
        self._plugged = True
        self._start_io()
        assert self._tcp_address is not None
        return self._tcp_address[1]

    def _listen(self, host: str, port: int) -> None:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            server.bind((host, port))
        except OSError as error:
            server.close()
            raise EmulatorError(f"cannot listen on {host}:{port}: {error.strerror}") from None
        server.listen(1)
        server.settimeout(0.05)
        self._server = server
        self._tcp_address = (host, int(server.getsockname()[1]))

    @property
    def url(self) -> str:
        """The pyserial URL of the running emulator."""
        if self._mode == "tcp" and self._tcp_address is not None:
            host, port = self._tcp_address
            return f"socket://{host}:{port}"
        if self._mode == "pty":
            return str(self._pty_link) if self._pty_link is not None else os.ttyname(self._slave or -1)
        raise EmulatorError("the emulator is not serving yet")

    def _open_pty(self) -> str:
        master, slave = os.openpty()
        tty.setraw(slave)
        self._master, self._slave = master, slave
        path = os.ttyname(slave)
        if self._pty_link is not None:
            tmp = self._pty_link.with_name(self._pty_link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            os.symlink(path, tmp)
            os.replace(tmp, self._pty_link)
            path = str(self._pty_link)
        self._plugged = True
        return path

    def _start_io(self) -> None:
        for target, name in ((self._rx_loop, "fujikoro-emu-rx"), (self._tx_loop, "fujikoro-emu-tx")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _read_host(self) -> bytes | None:
        """Bytes from the host, b'' when idle, None when the host side closed."""
        if self._mode == "pty":
            master = self._master
            if master is None:
                time.sleep(0.01)
                return b""
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                return os.read(master, 4096) if ready else b""
            except (OSError, ValueError):
                return b""  # EIO while no host has the slave open; unplug closes the fds
        client = self._client
        if client is None:
            server = self._server
            if server is None or not self._plugged:
                time.sleep(0.01)
                return b""
            try:
                client, _ = server.accept()
            except (TimeoutError, OSError):
                return b""
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            client.settimeout(0.05)
            with self._lock:
                self._client = client
            return b""
        try:
            data = client.recv(4096)
        except TimeoutError:
            return b""
        except OSError:
            return None
        return data if data else None

    def _write_host(self, data: bytes) -> None:
        with self._lock:
            if not self._plugged:
                return
            try:
                if self._mode == "pty" and self._master is not None:
                    os.write(self._master, data)
                elif self._client is not None:
                    self._client.sendall(data)
            except OSError:
                pass

    def _rx_loop(self) -> None:
        while not self._closed:
            data = self._read_host()
            if data is None:
                with self._lock:
                    if self._client is not None:
                        self._client.close()
                        self._client = None
                continue
            if not data:
                continue
            passed, unplug = self._rx.pass_through(data)
            if passed:
                self.board.usb.host_write(passed)
            if unplug:
                self._fault_unplug()

    def _tx_loop(self) -> None:
        while not self._closed:
            try:
                data = self._txq.get(timeout=0.1)
            except queue.Empty:
                continue
            if data is None:
                break
            passed, unplug = self._tx.pass_through(data)
            if passed:
                self._write_host(passed)
            if unplug:
                self._fault_unplug()

    def _fault_unplug(self) -> None:
        self.unplug()
        timer = threading.Timer(self.unplug_s, self._replug_if_open)
        timer.daemon = True
        timer.start()

    def _replug_if_open(self) -> None:
        if not self._closed:
            self.replug()

    def unplug(self) -> None:
        """Pull the cable: the host's port goes away and the board loses power."""
        with self._lock:
            if not self._plugged:
                return
            self._plugged = False
            self.unplugs += 1
            if self._mode == "pty":
                # The device node vanishes like a pulled USB device's, so the host cannot reopen
                # a recycled /dev/pts/N through a stale link while the cable is out.
                if self._pty_link is not None:
                    with contextlib.suppress(OSError):
                        self._pty_link.unlink()
                for fd in (self._master, self._slave):
                    if fd is not None:
                        with contextlib.suppress(OSError):
                            os.close(fd)
                self._master = self._slave = None
            if self._client is not None:
                with contextlib.suppress(OSError):
                    self._client.shutdown(socket.SHUT_RDWR)
                self._client.close()
                self._client = None
            if self._server is not None:  # a pulled cable refuses connections, it does not hang them
                self._server.close()
                self._server = None
            for line in (self._rx, self._tx):
                if line.faults is not None:
                    line.faults.reset()
        self._halt(self.board)

    def replug(self) -> None:
        """Plug the cable back in: the board boots from scratch (all LEDs dark) and the port reappears."""
        with self._lock:
            if self._plugged:
                return
            while not self._txq.empty():
                with contextlib.suppress(queue.Empty):
                    self._txq.get_nowait()
            self.board = self._boot()
            self.boots += 1
            if self._mode == "pty":
                self._open_pty()
            else:
                assert self._tcp_address is not None
                self._listen(*self._tcp_address)
                self._plugged = True

    def close(self) -> None:
        self._closed = True
        self._txq.put(None)
        for thread in self._threads:
            thread.join(timeout=2)
        self.unplug()
        self._halt(self.board)
        if self._server is not None:
            self._server.close()
        if self._pty_link is not None:
            with contextlib.suppress(FileNotFoundError):
                self._pty_link.unlink()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
