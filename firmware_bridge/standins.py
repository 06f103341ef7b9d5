"""Stand-ins for the MicroPython modules the firmware imports, and the loader that runs it under CPython.

One :class:`Board` is one emulated Pico: its own clock, pins, NeoPixel chains, UARTs and USB serial.
:func:`load_firmware` executes ``firmware/main.py`` unmodified in a fresh namespace whose ``__import__``
hands out this board's stand-ins for ``machine``, ``neopixel``, ``utime``/``time``, ``micropython``,
``select`` and ``sys``, the shared ``protocol`` codec, and whose ``open`` reads the firmware folder.
Several boards can live in one process (tests run many), because nothing goes through ``sys.modules``.
"""

from __future__ import annotations

import builtins
import json
import threading
import time as _time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from firmware_bridge.firmware import protocol

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"


class Clock(Protocol):
    def ticks_ms(self) -> int: ...

    def sleep_ms(self, ms: int, wake: threading.Event | None) -> None: ...


class RealClock:
    """Wall-clock milliseconds; sleeping returns early when the board has input waiting."""

    def __init__(self) -> None:
        self._t0 = _time.monotonic()

    def ticks_ms(self) -> int:
        return int((_time.monotonic() - self._t0) * 1000)

    def sleep_ms(self, ms: int, wake: threading.Event | None) -> None:
        if wake is None:
            _time.sleep(ms / 1000)
        else:
            wake.wait(ms / 1000)
            wake.clear()


class FakeClock:
    """A clock tests advance by hand: ``clock.now_ms += 5``."""

    def __init__(self, now_ms: int = 0) -> None:
        self.now_ms = now_ms

    def ticks_ms(self) -> int:
        return self.now_ms

    def sleep_ms(self, ms: int, wake: threading.Event | None) -> None:
        self.now_ms += ms


class FirmwareStopped(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised inside the firmware's main loop to end it when the emulator shuts the board down."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, board: Board, pin_id: int, mode: int = -1, pull: int = -1) -> None:
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self._level = 1 if pull == Pin.PULL_UP else 0
        board.pins[pin_id] = self

    def value(self, level: int | None = None) -> int:
        if level is not None:
            self._level = 1 if level else 0
        return self._level

    def drive(self, level: int) -> None:
        """Set the level from outside, as a switch or button wired to the pin would."""
        self._level = 1 if level else 0


class NeoPixel:
    """A WS2812 chain: ``write()`` latches the buffer; the board records every latched frame."""

    def __init__(self, board: Board, pin: Pin, n: int, bpp: int = 3) -> None:
        self.n = n
        self._buf = [(0, 0, 0)] * n
        self.shown: tuple[tuple[int, int, int], ...] = tuple(self._buf)
        self._board = board
        self.pin = pin
        board.neopixels[pin.id] = self

    def __len__(self) -> int:
        return self.n

    def __setitem__(self, i: int, colour: tuple[int, int, int]) -> None:
        r, g, b = colour
        if not all(0 <= c <= 255 for c in (r, g, b)):
            raise ValueError("colour component out of range")
        self._buf[i] = (r, g, b)

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return self._buf[i]

    def fill(self, colour: tuple[int, int, int]) -> None:
        for i in range(self.n):
            self[i] = colour

    def write(self) -> None:
        self.shown = tuple(self._buf)
        self._board.on_write(self)


class UART:
    """A hardware UART; the emulator pushes bytes in with ``inject`` (a smart-dice reader, say)."""

    def __init__(self, board: Board, uart_id: int, baudrate: int = 9600, **_: Any) -> None:
        self.id = uart_id
        self.baudrate = baudrate
        self._rx = bytearray()
        self.tx = bytearray()
        self._lock = threading.Lock()
        board.uarts[uart_id] = self

    def inject(self, data: bytes) -> None:
        with self._lock:
            self._rx.extend(data)

    def any(self) -> int:
        with self._lock:
            return len(self._rx)

    def read(self, n: int | None = None) -> bytes | None:
        with self._lock:
            if not self._rx:
                return None
            n = len(self._rx) if n is None else n
            data = bytes(self._rx[:n])
            del self._rx[:n]
            return data

    def write(self, data: bytes) -> int:
        self.tx.extend(data)
        return len(data)


class UsbSerial:
    """The Pico's USB CDC serial as the firmware sees it (sys.stdin.buffer / sys.stdout.buffer)."""

    def __init__(self, board: Board) -> None:
        self._board = board
        self._rx = bytearray()
        self._lock = threading.Lock()
        self.on_tx: Callable[[bytes], None] = lambda data: None

    def host_write(self, data: bytes) -> None:
        """Bytes arriving from the host."""
        with self._lock:
            self._rx.extend(data)
        self._board.wake.set()

    def pending(self) -> int:
        with self._lock:
            return len(self._rx)

    def read(self, n: int = -1) -> bytes:
        with self._lock:
            n = len(self._rx) if n < 0 else n
            data = bytes(self._rx[:n])
            del self._rx[:n]
            return data

    def write(self, data: bytes) -> int:
        self.on_tx(bytes(data))
        return len(data)


class Board:
    """One emulated Pico: clock, pins, LED chains, UARTs, USB serial, and the firmware's namespace."""

    def __init__(self, clock: Clock | None = None, files: dict[str, str] | None = None) -> None:
        self.clock: Clock = clock or RealClock()
        self.pins: dict[int, Pin] = {}
        self.neopixels: dict[int, NeoPixel] = {}
        self.uarts: dict[int, UART] = {}
        self.usb = UsbSerial(self)
        self.wake = threading.Event()
        self.stopped = False
        self.files = dict(files or {})
        self.writes: list[tuple[int, tuple[tuple[int, int, int], ...]]] = []
        self.record_writes = False
        self.write_listeners: list[Callable[[NeoPixel], None]] = []
        self.kbd_intr: int | None = None

    def on_write(self, pixels: NeoPixel) -> None:
        if self.record_writes:
            self.writes.append((pixels.pin.id, pixels.shown))
        for listener in self.write_listeners:
            listener(pixels)

    # ---------------------------------------------------------------- modules
    def modules(self) -> dict[str, types.ModuleType]:
        board = self

        machine = types.ModuleType("machine")

        class BoardPin(Pin):
            def __init__(self, pin_id: int, mode: int = -1, pull: int = -1) -> None:
                super().__init__(board, pin_id, mode, pull)

        class BoardUART(UART):
            def __init__(self, uart_id: int, baudrate: int = 9600, **kw: Any) -> None:
                super().__init__(board, uart_id, baudrate, **kw)

        machine.Pin = BoardPin  # type: ignore[attr-defined]
        machine.UART = BoardUART  # type: ignore[attr-defined]
        machine.unique_id = lambda: b"\xe6\x61\x38\x83\x17\x4f\x2a\x2c"  # type: ignore[attr-defined]
        machine.reset = self._reset  # type: ignore[attr-defined]

        neopixel = types.ModuleType("neopixel")

        class BoardNeoPixel(NeoPixel):
            def __init__(self, pin: Pin, n: int, bpp: int = 3, timing: int = 1) -> None:
                super().__init__(board, pin, n, bpp)

        neopixel.NeoPixel = BoardNeoPixel  # type: ignore[attr-defined]

        utime = types.ModuleType("utime")
        utime.ticks_ms = self.clock.ticks_ms  # type: ignore[attr-defined]
        utime.ticks_diff = lambda a, b: a - b  # type: ignore[attr-defined]
        utime.ticks_add = lambda a, b: a + b  # type: ignore[attr-defined]
        utime.sleep_ms = self._sleep_ms  # type: ignore[attr-defined]
        utime.sleep = lambda s: self._sleep_ms(int(s * 1000))  # type: ignore[attr-defined]

        micropython = types.ModuleType("micropython")
        micropython.const = lambda x: x  # type: ignore[attr-defined]
        micropython.kbd_intr = self._set_kbd_intr  # type: ignore[attr-defined]

        usb = self.usb

        class Poll:
            def register(self, stream: Any, mask: int = 1) -> None:
                self.stream = stream

            def poll(self, timeout: int = -1) -> list[tuple[Any, int]]:
                return [(self.stream, 1)] if usb.pending() else []

        select = types.ModuleType("select")
        select.POLLIN = 1  # type: ignore[attr-defined]
        select.poll = Poll  # type: ignore[attr-defined]

        sys_mod = types.ModuleType("sys")
        sys_mod.stdin = types.SimpleNamespace(buffer=usb)  # type: ignore[attr-defined]
        sys_mod.stdout = types.SimpleNamespace(buffer=usb)  # type: ignore[attr-defined]
        sys_mod.implementation = types.SimpleNamespace(name="micropython-emulated")  # type: ignore[attr-defined]

        return {
            "machine": machine, "neopixel": neopixel, "utime": utime, "time": utime,
            "micropython": micropython, "select": select, "uselect": select, "sys": sys_mod,
            "protocol": protocol,
        }

    def _set_kbd_intr(self, chr_code: int) -> None:
        self.kbd_intr = chr_code

    def _reset(self) -> None:
        raise FirmwareStopped("machine.reset()")

    def _sleep_ms(self, ms: int) -> None:
        if self.stopped:
            raise FirmwareStopped("board stopped")
        self.clock.sleep_ms(ms, self.wake)

    def _open(self, name: str, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "w" in mode or "a" in mode or "+" in mode:
            raise OSError(30, "read-only flash in the emulator")
        if name in self.files:
            import io

            return io.StringIO(self.files[name])
        path = (FIRMWARE_DIR / name).resolve()
        if path.parent != FIRMWARE_DIR:
            raise OSError(2, f"no such file on the emulated flash: {name}")
        return builtins.open(path, mode, *args, **kwargs)


_CODE_CACHE: dict[tuple[Path, int], types.CodeType] = {}


def _compiled(path: Path) -> types.CodeType:
    """The firmware's code object, compiled once per file version (tests boot hundreds of boards)."""
    key = (path, path.stat().st_mtime_ns)
    code = _CODE_CACHE.get(key)
    if code is None:
        code = _CODE_CACHE[key] = compile(path.read_text(), str(path), "exec")
    return code


def load_firmware(board: Board, source: Path | None = None) -> dict[str, Any]:
    """Execute the firmware's main.py (without running main()) in a namespace bound to ``board``."""
    path = source or FIRMWARE_DIR / "main.py"
    modules = board.modules()
    real_import = builtins.__import__

    def board_import(name: str, globals_: Any = None, locals_: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0 and name in modules:
            return modules[name]
        return real_import(name, globals_, locals_, fromlist, level)

    own_builtins = dict(vars(builtins))
    own_builtins["__import__"] = board_import
    own_builtins["open"] = board._open
    namespace: dict[str, Any] = {"__name__": "fujikoro_firmware", "__file__": str(path), "__builtins__": own_builtins}
    exec(_compiled(path), namespace)  # noqa: S102 - running the firmware source is the point of the emulator
    return namespace


def firmware_files(ledmap: dict[str, Any] | None = None, config: dict[str, Any] | None = None) -> dict[str, str]:
    """Override files for the emulated flash (an edited LED map or config)."""
    files: dict[str, str] = {}
    if ledmap is not None:
        files["ledmap.json"] = json.dumps(ledmap)
    if config is not None:
        files["config.json"] = json.dumps(config)
    return files
