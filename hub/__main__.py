"""``python -m hub``: run the hub server alone (used by the load test and the benchmark; people use
``fujikoro hub serve``). ``--fd`` serves on a socket the parent process already bound."""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hub", description="Run the Fuji Koro convention hub.")
    parser.add_argument("--db", required=True, help="database URL or SQLite file path")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--fd", type=int, default=None, help="serve on this inherited listening socket")
    parser.add_argument("--refresh-ms", type=int, default=5000)
    parser.add_argument("--max-body", type=int, default=64 * 1024)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)

    import uvicorn

    from hub.server import HubSettings, create_app

    app = create_app(HubSettings(db_url=args.db, max_body_bytes=args.max_body, refresh_ms=args.refresh_ms))
    if args.fd is not None:
        # uvicorn's own --fd assumes a unix socket, so TCP_NODELAY would never be set on connections
        # (asyncio only sets it for sockets it knows are TCP): adopt the socket with its real family.
        sock = socket.socket(fileno=args.fd)
        config = uvicorn.Config(app, log_level=args.log_level, access_log=False, server_header=False)
        uvicorn.Server(config).run(sockets=[sock])
    else:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, server_header=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
