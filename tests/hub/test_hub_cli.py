"""``fujikoro hub``: create an event (code, admin token, join instructions), set the round, export CSV,
and start the server as a real process; bad input is one line on stderr, exit 2."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from hub import db as hub_db
from ui.cli.main import main


def _create(db: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(["hub", "event", "create", "Autumn Con", "--db", str(db), "--rank-points", "4,2,1",
                 "--hub-url", "http://192.168.1.20:8765"]) == 0
    out = capsys.readouterr().out
    code = re.search(r"Event code:\s+(\w+)", out)
    token = re.search(r"Admin token:\s+(\S+)", out)
    assert code and token
    assert f"http://192.168.1.20:8765/events/{code[1]}/leaderboard" in out
    assert "Settings -> Convention" in out and "hub address: http://192.168.1.20:8765" in out
    return code[1], token[1]


def test_event_create_round_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "hub.sqlite3"
    code, token = _create(db, capsys)
    from hub import db as hub_db
    from hub.storage import HubStore

    store = HubStore(hub_db.make_engine(str(db)))
    event = store.event(code)
    assert event.rank_points == (4, 2, 1) and store.is_admin(event, token)
    assert main(["hub", "round", "3", "--event", code.lower(), "--db", str(db)]) == 0
    assert "round 3 is now in play" in capsys.readouterr().out
    assert store.event(code).current_round == 3
    assert main(["hub", "event", "list", "--db", str(db)]) == 0
    assert f"{code}  Autumn Con  round 3  tables 0  results 0" in capsys.readouterr().out
    out_file = tmp_path / "standings.csv"
    assert main(["hub", "export", "--event", code, "--what", "standings", "--out", str(out_file), "--db", str(db)]) == 0
    assert out_file.read_text().startswith("place,name,rank_points")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hub", "round", "2", "--event", "NOPE99"], "no event with code"),
        (["hub", "round", "0", "--event", "NOPE99"], "round is a number"),
        (["hub", "event", "create", "X", "--rank-points", "1,5"], "must not grow"),
        (["hub", "event", "create", "X", "--rank-points", "ten"], "comma-separated integers"),
        (["hub", "serve", "--db", "mysql://host/db"], "SQLite or PostgreSQL"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    if "--db" not in argv:
        argv = [*argv, "--db", str(tmp_path / "hub.sqlite3")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_serve_on_a_port_in_use_says_so_in_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """uvicorn, left to bind the port itself, logged its own error and exited with status 3."""
    with socket.socket() as other_server:
        other_server.bind(("127.0.0.1", 0))
        other_server.listen()
        port = other_server.getsockname()[1]
        argv = ["--db", str(tmp_path / "hub.sqlite3"), "--host", "127.0.0.1", "--port", str(port)]
        assert main(["hub", "serve", *argv]) == 2
        out, err = capsys.readouterr()
        assert err == (f"fujikoro: port {port} on 127.0.0.1 is already in use; stop the other server or choose "
                       "another port with --port\n")
        assert "Tables connect to" not in out  # nothing claims the hub is reachable
        alone = subprocess.run([sys.executable, "-m", "hub", *argv], capture_output=True, text=True, timeout=120)
        assert alone.returncode == 2
        assert alone.stderr == f"python -m hub: port {port} on 127.0.0.1 is already in use; stop the other " \
                               "server or choose another port with --port\n"


def test_serve_refuses_a_certificate_it_cannot_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "cert.pem"
    junk.write_text("not a certificate\n")
    assert main(["hub", "serve", "--db", str(tmp_path / "hub.sqlite3"), "--host", "127.0.0.1",
                 "--tls-cert", str(junk), "--tls-key", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fujikoro: cannot serve HTTPS with --tls-cert {junk} and --tls-key {junk}: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_serve_starts_a_real_server(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = tmp_path / "served.sqlite3"
    process = subprocess.Popen(
        [sys.executable, "-m", "ui.cli", "hub", "serve", "--db", str(db), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, "the hub did not start"
                time.sleep(0.1)
        assert health.json() == {"ok": True, "database": "sqlite", "schema": hub_db.head_revision()}
        assert httpx.get(f"http://127.0.0.1:{port}/api/events/NOPE99/standings").status_code == 404
    finally:
        process.terminate()
        out = process.communicate(timeout=20)[0].decode()
    assert f"data in {db}" in out and "Traceback" not in out
