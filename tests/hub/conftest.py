"""Fixtures for the hub tests: a private throwaway PostgreSQL cluster, a database per test on SQLite and
PostgreSQL, and a real uvicorn server on a free loopback port."""

from __future__ import annotations

import http.server
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hub.loadtest import PostgresUnavailableError, PrivatePostgres


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PrivatePostgres]:
    """A private PostgreSQL cluster (initdb + pg_ctl in a temporary directory) for the whole session."""
    try:
        cluster = PrivatePostgres()
    except PostgresUnavailableError as error:
        pytest.skip(str(error))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PrivatePostgres) -> Iterator[str]:
    """A fresh database in the private cluster, dropped after the test."""
    name = "hub_" + uuid.uuid4().hex[:12]
    url = pg_cluster.create_database(name)
    try:
        yield url
    finally:
        pg_cluster.drop_database(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty hub database: an SQLite file, or a new database in the private PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'hub.sqlite3'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@dataclass
class LiveServer:
    url: str
    app: object


@pytest.fixture
def live_server(db_url: str, request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """The hub app on a real uvicorn server (a thread of this process) on a free loopback port; settings
    other than the defaults come as an indirect parameter (a dict of HubSettings fields)."""
    import uvicorn

    from hub.server import HubSettings, create_app

    app = create_app(HubSettings(db_url=db_url, **{"refresh_ms": 300, **getattr(request, "param", {})}))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP: asyncio sets NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()
        app.state.store.engine.dispose()  # type: ignore[attr-defined]


@pytest.fixture
def html_page() -> Iterator[Callable[[str], str]]:
    """Serve a fixed HTML page on another loopback port, answering every GET and POST with 200
    text/html (a captive portal, or a hostile page next to the hub); call it with the page, get its URL."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def serve(page: str) -> str:
        body = page.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer  # noqa: N815 - http.server's names

            def log_message(self, *_args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()
