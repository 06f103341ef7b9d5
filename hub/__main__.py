"""``python -m hub``: run the hub server alone (used by the load test and the benchmark; people use
``fujikoro hub serve``). ``--fd`` serves on a socket the parent process already bound. A port it cannot
listen on (one in use) is one sentence on stderr and exit status 2, as ``fujikoro hub serve`` says it."""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence
from typing import Any


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hub", description="Run the Fuji Koro convention hub.")
    parser.add_argument("--db", required=True, help="database URL or SQLite file path")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--fd", type=int, default=None, help="serve on this inherited listening socket")
    parser.add_argument("--refresh-ms", type=int, default=5000)
    parser.add_argument("--max-body", type=int, default=64 * 1024)
    parser.add_argument("--log-level", default="info")
    add_guard_options(parser)
    args = parser.parse_args(argv)

    import uvicorn

    from hub.server import HubSettings, cannot_listen, create_app, listening_socket, uvicorn_config

    settings = HubSettings(db_url=args.db, max_body_bytes=args.max_body, refresh_ms=args.refresh_ms,
                           guard=guard_settings(args), body_timeout=args.body_timeout)
    if args.fd is not None:
        # uvicorn's own --fd assumes a unix socket, so TCP_NODELAY would never be set on connections
        # (asyncio only sets it for sockets it knows are TCP): adopt the socket with its real family.
        sock = socket.socket(fileno=args.fd)
        config = uvicorn_config(create_app(settings), settings, log_level=args.log_level, access_log=False)
    else:
        try:
            sock = listening_socket(args.host, args.port)
        except OSError as error:
            print(f"python -m hub: {cannot_listen(args.host, args.port, error)}", file=sys.stderr)
            return 2
        config = uvicorn_config(create_app(settings), settings, log_level=args.log_level, host=args.host,
                                port=args.port)
    with sock:
        uvicorn.Server(config).run(sockets=[sock])
    return 0


def add_guard_options(parser: argparse.ArgumentParser) -> None:
    """The abuse limits, shared by ``python -m hub`` and ``fujikoro hub serve``."""
    from hub.guard import GuardSettings

    defaults = GuardSettings()
    parser.add_argument("--header-timeout", type=float, default=defaults.header_timeout,
                        help="seconds a connection may take to send its request headers (default %(default)s)")
    parser.add_argument("--body-timeout", type=float, default=15.0,
                        help="seconds a request body may take to arrive (default %(default)s)")
    parser.add_argument("--max-connections", type=int, default=defaults.max_connections,
                        help="open connections at most (default %(default)s)")
    parser.add_argument("--max-connections-per-client", type=int, default=defaults.max_connections_per_client,
                        help="open connections from one address at most; 0: no cap, e.g. behind a reverse "
                        "proxy (default %(default)s)")


def guard_settings(args: argparse.Namespace) -> Any:
    from hub.guard import GuardSettings

    return GuardSettings(header_timeout=args.header_timeout, max_connections=args.max_connections,
                         max_connections_per_client=args.max_connections_per_client)


if __name__ == "__main__":
    sys.exit(main())
