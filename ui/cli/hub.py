"""``fujikoro hub``: run the convention hub and manage its events from the organizer's laptop.

    fujikoro hub serve [--db URL] [--host H] [--port P] [--workers N]
    fujikoro hub event create NAME [--db URL] [--rank-points 10,7,5,3,2,1] [--hub-url URL]
    fujikoro hub event list [--db URL]
    fujikoro hub round N|close --event CODE [--db URL]
    fujikoro hub admin-token rotate|revoke --event CODE [--db URL]
    fujikoro hub join-secret show|rotate --event CODE [--db URL]
    fujikoro hub export --event CODE [--what results|standings] [--round N] [--out FILE] [--db URL]

The database defaults to hub.sqlite3 in the user's data folder (or $FUJIKORO_HUB_DB); give a
``postgresql://`` URL when several hub processes share one database. FastAPI, uvicorn and SQLAlchemy
are imported inside the handlers so ``fujikoro --help`` stays fast.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any

from ui.cli import CliError

DEFAULT_PORT = 8765


def default_db() -> str:
    """$FUJIKORO_HUB_DB, else hub.sqlite3 in $FUJIKORO_DATA_DIR or the platform's user data folder."""
    from companion.paths import app_paths

    return app_paths().hub_db


def register(subparsers: Any) -> None:
    hub = subparsers.add_parser("hub", help="convention hub: live standings for many tables",
                                description="Run the convention hub and manage its events.")
    commands = hub.add_subparsers(dest="hub_command", metavar="HUB_COMMAND")
    hub.set_defaults(handler=lambda _args: _usage(hub))

    def db_option(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--db", default=None, metavar="URL",
                            help="SQLite file or database URL (default: $FUJIKORO_HUB_DB or hub.sqlite3 in the "
                                 "user data directory)")

    serve = commands.add_parser("serve", help="start the hub web service")
    db_option(serve)
    serve.add_argument("--host", default="0.0.0.0",
                       help="address to listen on (default 0.0.0.0: reachable by the tables on the network; "
                            "127.0.0.1 for this laptop only)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    serve.add_argument("--workers", type=int, default=1, help="hub processes (more than 1 wants PostgreSQL)")
    serve.add_argument("--refresh-ms", type=int, default=5000, help="leaderboard refresh interval (ms)")
    serve.add_argument("--max-body", type=int, default=64 * 1024, help="largest request body in bytes")
    serve.add_argument("--tls-cert", default=None, metavar="PEM",
                       help="serve HTTPS with this certificate (with --tls-key); see hub/README.md")
    serve.add_argument("--tls-key", default=None, metavar="PEM", help="the certificate's private key")
    from hub.__main__ import add_guard_options

    add_guard_options(serve)
    serve.set_defaults(handler=_serve)

    event = commands.add_parser("event", help="create or list events")
    event_commands = event.add_subparsers(dest="event_command", metavar="EVENT_COMMAND")
    event.set_defaults(handler=lambda _args: _usage(event))
    create = event_commands.add_parser("create", help="create an event; prints its code and admin token")
    create.add_argument("name", help="event name shown on the projector")
    db_option(create)
    create.add_argument("--rank-points", default="10,7,5,3,2,1",
                        help="rank points for 1st, 2nd, ... (default 10,7,5,3,2,1)")
    create.add_argument("--hub-url", default=None, help="address tables use (default: this laptop's address)")
    create.set_defaults(handler=_event_create)
    listing = event_commands.add_parser("list", help="list the events in the database")
    db_option(listing)
    listing.set_defaults(handler=_event_list)

    round_parser = commands.add_parser(
        "round", help="open round N (results that arrive count in it), or close the round in play",
        description="'round N' opens round N; 'round close' closes the round in play: results that "
                    "arrive while no round is open wait for the organiser's approval on the admin page.")
    round_parser.add_argument("number", metavar="N|close")
    round_parser.add_argument("--event", required=True, metavar="CODE")
    db_option(round_parser)
    round_parser.set_defaults(handler=_round)

    token = commands.add_parser("admin-token", help="rotate or revoke an event's admin token")
    token.add_argument("action", choices=("rotate", "revoke"),
                       help="rotate: print a new token, the old one stops working; revoke: no token works "
                            "until the next rotate (every signed-in browser is signed out either way)")
    token.add_argument("--event", required=True, metavar="CODE")
    db_option(token)
    token.set_defaults(handler=_admin_token)

    secret = commands.add_parser("join-secret", help="show or rotate the secret tables need to join")
    secret.add_argument("action", choices=("show", "rotate"))
    secret.add_argument("--event", required=True, metavar="CODE")
    db_option(secret)
    secret.set_defaults(handler=_join_secret)

    export = commands.add_parser("export", help="write results or standings as CSV")
    export.add_argument("--event", required=True, metavar="CODE")
    export.add_argument("--what", choices=("results", "standings"), default="results")
    export.add_argument("--round", type=int, default=None, help="standings of one round only")
    export.add_argument("--out", default="-", help="file to write (default: standard output)")
    db_option(export)
    export.set_defaults(handler=_export)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _store(url: str | None) -> Any:
    from hub import db
    from hub.storage import HubStore

    url = url or default_db()
    if "://" not in url:
        Path(url).expanduser().parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = db.make_engine(url)
        db.migrate(engine)
    except db.DatabaseUrlError as error:
        raise CliError(str(error)) from error
    except Exception as error:  # SQLAlchemy/psycopg connection failures: one line, no traceback
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CliError(f"cannot open the hub database {_redact(url)}: {first}") from error
    return HubStore(engine)


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':')[0]}:***@{host}"
    return url


def _event(store: Any, code: str) -> Any:
    from hub.storage import NotFoundError

    try:
        return store.event(code)
    except NotFoundError as error:
        raise CliError(str(error)) from error


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent); 127.0.0.1 when offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def _serve(args: argparse.Namespace) -> int:
    from hub.__main__ import guard_settings
    from hub.server import HubSettings, cannot_listen, listening_socket, serve

    url = args.db or default_db()
    if args.workers < 1 or not 0 < args.port < 65536:
        raise CliError("--workers must be at least 1 and --port between 1 and 65535")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise CliError("HTTPS needs both --tls-cert and --tls-key")
    for path in (args.tls_cert, args.tls_key):
        if path is not None and not Path(path).is_file():
            raise CliError(f"there is no file {path}")
    if args.tls_cert is not None:
        _check_tls(args.tls_cert, args.tls_key)
    store = _store(url)  # migrate and check the database before binding the port
    store.engine.dispose()
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as error:
        raise CliError(cannot_listen(args.host, args.port, error)) from None
    address = lan_address() if args.host in ("0.0.0.0", "::") else args.host
    print(f"Fuji Koro hub: data in {_redact(url)}")
    scheme = "https" if args.tls_cert else "http"
    print(f"Tables connect to {scheme}://{address}:{args.port} ; events: fujikoro hub event list")
    try:
        serve(HubSettings(db_url=url, max_body_bytes=args.max_body, refresh_ms=args.refresh_ms,
                          body_timeout=args.body_timeout, guard=guard_settings(args)),
              host=args.host, port=args.port, workers=args.workers, tls_cert=args.tls_cert, tls_key=args.tls_key,
              sock=sock)
    except OSError as error:
        raise CliError(f"the hub stopped: {error.strerror or error}") from error
    return 0


def _check_tls(cert: str, key: str) -> None:
    """The certificate and key load as a server's (uvicorn would stop with the same error once serving)."""
    import ssl

    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (ssl.SSLError, OSError) as error:
        raise CliError(f"cannot serve HTTPS with --tls-cert {cert} and --tls-key {key}: "
                       f"{getattr(error, 'reason', None) or error.strerror or error}") from None


def _event_create(args: argparse.Namespace) -> int:
    from hub.rules import RankPointsError, parse_rank_points
    from hub.storage import InvalidError

    try:
        points = parse_rank_points(args.rank_points)
    except RankPointsError as error:
        raise CliError(str(error)) from error
    store = _store(args.db)
    try:
        created = store.create_event(args.name, rank_points=points)
    except InvalidError as error:
        raise CliError(str(error)) from error
    hub_url = (args.hub_url or f"http://{lan_address()}:{DEFAULT_PORT}").rstrip("/")
    code = created.event.code
    print(f"Event:        {created.event.name}")
    print(f"Event code:   {code}")
    print(f"Admin token:  {created.admin_token}")
    print("              (shown once - keep it secret; it corrects and voids results)")
    print(f"Rank points:  {', '.join(map(str, points))} for 1st, 2nd, ...")
    print()
    print("Tables join in the app: Settings -> Convention")
    print(f"  hub address: {hub_url}")
    print(f"  event code:  {code}")
    print(f"  join secret: {created.event.join_secret}   (tell the tables; it is not on the projector)")
    print("  table name:  the number on the table (each table joins once)")
    print()
    print(f"Projector:    {hub_url}/events/{code}/leaderboard")
    print(f"Admin page:   {hub_url}/events/{code}/admin  (sign in with the admin token)")
    print("Start the hub: fujikoro hub serve" + ("" if args.db is None else f" --db {args.db}"))
    return 0


def _event_list(args: argparse.Namespace) -> int:
    store = _store(args.db)
    events = store.events()
    if not events:
        print("no events yet: fujikoro hub event create NAME")
        return 0
    for event in events:
        results = store.results(event)
        counted = sum(1 for r in results if not r["void"])
        print(f"{event.code}  {event.name}  round {event.current_round}  tables {len(store.tables(event))}  "
              f"results {counted}")
    return 0


def _round(args: argparse.Namespace) -> int:
    from hub.storage import ConflictError

    if args.number == "close":
        store = _store(args.db)
        try:
            event = store.close_round(_event(store, args.event), actor="admin:cli")
        except ConflictError as error:
            raise CliError(str(error)) from error
        print(f"{event.name}: round {event.current_round} is closed; late results wait for approval")
        return 0
    try:
        number = int(args.number)
    except ValueError:
        number = 0
    if not 1 <= number <= 999:
        raise CliError("the round is a number from 1 to 999, or 'close'")
    store = _store(args.db)
    event = store.set_round(_event(store, args.event), number, actor="admin:cli")
    print(f"{event.name}: round {event.current_round} is now in play; results that arrive now count in it")
    return 0


def _admin_token(args: argparse.Namespace) -> int:
    store = _store(args.db)
    event = _event(store, args.event)
    if args.action == "rotate":
        token = store.rotate_admin_token(event, actor="admin:cli")
        print(f"New admin token for {event.code}: {token}")
        print("The old token no longer works and every signed-in browser was signed out.")
    else:
        store.revoke_admin_token(event, actor="admin:cli")
        print(f"The admin token of {event.code} is revoked; no token works until "
              f"'fujikoro hub admin-token rotate --event {event.code}'.")
    return 0


def _join_secret(args: argparse.Namespace) -> int:
    store = _store(args.db)
    event = _event(store, args.event)
    secret = store.rotate_join_secret(event, actor="admin:cli") if args.action == "rotate" else event.join_secret
    print(f"Join secret of {event.code}: {secret}")
    if args.action == "rotate":
        print("Tables that already joined keep working; new tables need this secret.")
    return 0


def _export(args: argparse.Namespace) -> int:
    from hub.export import results_csv, standings_csv
    from hub.rules import rounds_played, standings

    store = _store(args.db)
    event = _event(store, args.event)
    if args.what == "results":
        text = results_csv(store.results(event), event.rank_points)
    else:
        games = store.counted_games(event)
        if args.round is not None and args.round not in rounds_played(games):
            raise CliError(f"no counted games in round {args.round}")
        rows = standings(games, event.rank_points, round_number=args.round)
        text = standings_csv([{"place": r.place, "name": r.name, "rank_points": r.rank_points, "wins": r.wins,
                                "games": r.games, "vp": r.vp, "escapes": r.escapes} for r in rows])
    if args.out == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot write {args.out}: {error.strerror or error}") from error
        print(f"wrote {args.out}")
    return 0
