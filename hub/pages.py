"""HTML of the hub: the projector leaderboard (refreshes itself) and the organizer's admin page.

Pure functions from plain values to strings; every value that came from a table or an admin goes
through :func:`html.escape`. No templates engine: the pages are small and a projector needs no assets.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from hub.rules import CATEGORIES, StandingRow

#: The one stylesheet, served at /static/hub.css (the Content-Security-Policy allows no inline styles).
STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee}
header{display:flex;justify-content:space-between;align-items:baseline;padding:1rem 2rem;background:#7a1f0e}
h1{margin:0;font-size:2.2rem}h2{margin:1.2rem 0 .4rem;font-size:1.4rem;color:#f5a623}
main{padding:0 2rem 2rem}table{border-collapse:collapse;width:100%;font-size:1.4rem}
th,td{padding:.35rem .6rem;text-align:left;border-bottom:1px solid #333}th{color:#aaa;font-weight:500}
td.n,th.n{text-align:right}.muted{color:#888}.void{text-decoration:line-through;color:#777}
nav a,td a{color:#eee;margin-right:1rem;text-decoration:none}#status{font-size:.9rem}
.admin body,.admin{background:#fafafa;color:#111}.admin table{font-size:1rem}.admin th{color:#555}
.admin header{background:#333;color:#fff}textarea{width:100%;font-family:monospace}
.admin td a{color:#114}.error{color:#b00}.inline{display:inline}.light{color:#eee}.warn{background:#fff3cd}
.pending{background:#eef}input.num{width:3.5rem}
"""

#: The projector's refresh, served at /static/leaderboard.js: it swaps in a fresh fragment every
#: ``data-refresh-ms`` and keeps the last standings on screen while the hub is unreachable.
LEADERBOARD_JS = """
(function () {
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const every = Number(board.dataset.refreshMs) || 5000;
  const url = board.dataset.fragmentUrl;
  async function refresh() {
    try {
      const reply = await fetch(url, {cache: "no-store"});
      if (!reply.ok) throw new Error(reply.status);
      board.innerHTML = await reply.text();
      status.textContent = "";
      board.dataset.refreshed = String(Date.now());
    } catch (error) {
      status.textContent = "(hub unreachable - showing the last standings)";
    } finally {
      setTimeout(refresh, every);
    }
  }
  setTimeout(refresh, every);
})();
"""

_HEAD = '<meta charset="utf-8"><link rel="stylesheet" href="/static/hub.css">'


def index_page() -> str:
    return (
        f"<!doctype html><html lang='en'><head>{_HEAD}<title>Fuji Koro hub</title></head><body><main>"
        "<p>Fuji Koro convention hub. The projector page is <code>/events/&lt;EVENT CODE&gt;/leaderboard</code>, "
        "the organizer's page <code>/events/&lt;EVENT CODE&gt;/admin</code>.</p></main></body></html>"
    )


def error_page(status: int, message: str) -> str:
    """What a browser shows for a page the hub cannot give (a mistyped event code on the projector, a player
    not in the event): the hub's sentence, not its JSON."""
    title = {404: "Not found", 401: "Sign in needed", 403: "Not allowed"}.get(status, "Cannot show this page")
    return (
        f"<!doctype html><html lang='en'><head>{_HEAD}<title>{escape(title)}</title></head><body>"
        f"<header><h1>{escape(title)}</h1></header><main><p>{escape(message)}</p>"
        "<p class='muted'>The projector page is <code>/events/&lt;EVENT CODE&gt;/leaderboard</code>.</p>"
        "</main></body></html>"
    )


def leaderboard_page(
    *, event_name: str, event_code: str, fragment: str, refresh_ms: int, round_number: int | None,
    game: str | None = None,
) -> str:
    """The full projector page; /static/leaderboard.js swaps in a fresh fragment every ``refresh_ms``."""
    params = {k: v for k, v in (("round", round_number), ("game", game)) if v is not None}
    query = "" if not params else "?" + urlencode(params)
    fragment_url = f"/events/{quote(event_code, safe='')}/leaderboard/fragment{query}"
    return f"""<!doctype html>
<html lang="en"><head>{_HEAD}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(event_name)} - Fuji Koro standings</title>
<noscript><meta http-equiv="refresh" content="{max(1, refresh_ms // 1000)}"></noscript>
</head>
<body><header><h1>{escape(event_name)}</h1>
<span>event code <b>{escape(event_code)}</b> <span id="status" class="muted"></span></span></header>
<main id="board" data-refresh-ms="{int(refresh_ms)}"
 data-fragment-url="{escape(fragment_url, quote=True)}">{fragment}</main>
<script src="/static/leaderboard.js"></script></body></html>"""


def leaderboard_fragment(
    *,
    event_code: str,
    rows: Sequence[StandingRow],
    rounds: Sequence[int],
    round_number: int | None,
    current_round: int,
    live: Sequence[dict[str, Any]],
    recent: Sequence[dict[str, Any]],
    round_open: bool = True,
    games: Sequence[str] = (),
    game: str | None = None,
) -> str:
    base = f"/events/{escape(event_code)}/leaderboard"
    links = [f'<a href="{base}">Overall</a>'] + [f'<a href="{base}?round={r}">Round {r}</a>' for r in rounds]
    if len(games) > 1:  # an event of several games: each game's own standings too
        links += [f'<a href="{base}?game={quote(g, safe="")}">{escape(g)}</a>' for g in games]
    title = "Overall standings" if round_number is None else f"Round {round_number} standings"
    if game is not None:
        title += f": {escape(game)}"
    parts = [
        f"<nav>{' '.join(links)}</nav>",
        f"<h2>{title} <span class='muted'>(round {current_round} "
        f"{'in play' if round_open else 'closed'})</span></h2>",
    ]
    if rows:
        body = "".join(
            f"<tr data-player='{escape(row.name, quote=True)}'><td class='n'>{row.place}</td>"
            f"<td><a href='/events/{escape(event_code)}/players/{quote(row.name, safe='')}'>{escape(row.name)}</a></td>"
            f"<td class='n'>{row.rank_points}</td><td class='n'>{row.wins}</td>"
            f"<td class='n'>{row.games}</td><td class='n'>{row.vp}</td><td class='n'>{row.escapes}</td></tr>"
            for row in rows
        )
        parts.append(
            "<table id='standings'><thead><tr><th class='n'>#</th><th>Player</th><th class='n'>Rank points</th>"
            "<th class='n'>Wins</th><th class='n'>Games</th><th class='n'>VP</th><th class='n'>Escapes</th>"
            f"</tr></thead><tbody>{body}</tbody></table>"
        )
    else:
        parts.append("<p id='standings' class='muted'>No results yet.</p>")
    if live:
        parts.append("<h2>Playing now</h2><table id='live'><tbody>")
        for playing in live:
            scores = ", ".join(f"{escape(p['name'])} {int(p['vp'])}" for p in playing.get("players", []))
            countdown = playing.get("countdown")
            extra = "" if countdown is None else f" <span class='muted'>countdown {int(countdown)}</span>"
            parts.append(f"<tr><td>{escape(playing['table'])}</td><td>{scores}{extra}</td></tr>")
        parts.append("</tbody></table>")
    if recent:
        parts.append("<h2>Latest games</h2><table id='recent'><tbody>")
        for result in recent:
            players = sorted(result["players"], key=lambda p: p["rank"])
            line = ", ".join(f"{p['rank']}. {escape(p['name'])} {p['total']}" for p in players)
            css = " class='void'" if result["void"] else ""
            parts.append(
                f"<tr{css}><td>{escape(result['table'])}</td><td>round {result['round']}</td><td>{line}</td></tr>"
            )
        parts.append("</tbody></table>")
    return "".join(parts)


def login_page(*, event_code: str, message: str = "") -> str:
    note = f"<p class='error'>{escape(message)}</p>" if message else ""
    return f"""<!doctype html><html lang="en" class="admin"><head>{_HEAD}
<title>Hub admin - sign in</title></head><body class="admin">
<header><h1>Event {escape(event_code)}: admin</h1></header><main>{note}
<form method="post" action="/events/{escape(event_code)}/admin/login">
<label>Admin token <input name="token" type="password" autocomplete="off" size="48"></label>
<button type="submit">Sign in</button></form></main></body></html>"""


def _form(action: str, csrf: str, inner: str, *, inline: bool = False) -> str:
    css = " class='inline'" if inline else ""
    return (f"<form method='post' action='{escape(action, quote=True)}'{css}>"
            f"<input type='hidden' name='csrf' value='{escape(csrf, quote=True)}'>{inner}</form>")


def admin_page(
    *,
    event_name: str,
    event_code: str,
    current_round: int,
    tables: Sequence[dict[str, Any]],
    results: Sequence[dict[str, Any]],
    audit: Sequence[dict[str, Any]],
    csrf_token: str,
    round_open: bool = True,
    join_secret: str = "",
    lookalikes: Sequence[Sequence[str]] = (),
    message: str = "",
) -> str:
    code = escape(event_code)
    base = f"/events/{quote(event_code, safe='')}/admin"
    note = f"<p><b>{escape(message)}</b></p>" if message else ""
    reason = "<input name='reason' placeholder='reason' required>"
    rows = []
    for r in reversed(results):
        players = "<br>".join(
            f"{p['rank']}. {escape(p['name'])} ({escape(p['colour'])}) {p['total']}"
            + ("" if p.get("escape_order") is None else f" - escaped #{p['escape_order']}")
            + ("" if p.get("tiebreak") is None else f" - tie-break {p['tiebreak']}")
            + " <span class='muted'>"
            + " ".join(f"{escape(c)}={v}" for c, v in p["scores"].items())
            + "</span>"
            for p in sorted(r["players"], key=lambda p: p["rank"])
        )
        editable = escape(json.dumps(r["players"], indent=1), quote=False)
        rid = r["result_id"]
        action = "restore" if r["void"] else "void"
        approve = ""
        if r["pending"]:
            approve = _form(f"{base}/results/{rid}/approve", csrf_token,
                            f"<b>Waiting for approval</b> - round <input name='round' class='num' value='{r['round']}'>"
                            f" {reason} <button>Approve</button>")
        css = "void" if r["void"] else "pending" if r["pending"] else ""
        rows.append(
            f"<tr class='{css}'><td>{rid}</td><td>{escape(r['table'])}<br><span class='muted'>"
            f"{escape(r['game'])}{'' if not r['variant'] else ', ' + escape(r['variant'])}</span></td>"
            f"<td>{r['round']}</td><td>{players}</td><td>rev {r['revision']}</td><td>{approve}"
            + _form(f"{base}/results/{rid}/{action}", csrf_token, f"{reason} <button>{action.title()}</button>")
            + "<details><summary>Correct</summary>"
            + _form(f"{base}/results/{rid}/correct", csrf_token,
                    f"<textarea name='players' rows='8'>{editable}</textarea>"
                    f"Round <input name='round' class='num' value='{r['round']}'> {reason} "
                    "<button>Save correction</button>")
            + "</details></td></tr>"
        )
    table_rows = []
    for t in tables:
        tid = t["table_id"]
        state = "revoked" if t["revoked"] else "active"
        toggle = "restore" if t["revoked"] else "revoke"
        buttons = [
            _form(f"{base}/tables/{tid}/rename", csrf_token,
                  f"<input name='name' placeholder='new name' required size='10'> {reason} <button>Rename</button>"),
            _form(f"{base}/tables/{tid}/{toggle}", csrf_token, f"{reason} <button>{toggle.title()}</button>"),
        ]
        if not t["results"]:
            buttons.append(_form(f"{base}/tables/{tid}/delete", csrf_token, f"{reason} <button>Delete</button>"))
        if t["live_at"]:
            buttons.append(_form(f"{base}/tables/{tid}/remove-live", csrf_token,
                                 f"{reason} <button>Remove live game</button>"))
        table_rows.append(
            f"<tr><td>{tid}</td><td>{escape(t['name'])}</td><td>{state}</td><td>{t['results']}</td>"
            f"<td>{escape(t['live_at'] or '')}</td><td>{''.join(buttons)}</td></tr>"
        )
    warn = ""
    if lookalikes:
        groups = "".join(f"<li>{' / '.join(escape(n) for n in group)}</li>" for group in lookalikes)
        warn = (f"<div class='warn'><h2>Names that look alike</h2><p>These are different names that look the "
                f"same on screen (letters from other alphabets, 0 and O ...). If they are one person, correct "
                f"the results so they use one spelling.</p><ul>{groups}</ul></div>")
    round_state = (
        "open: results that arrive now count in it" if round_open
        else "closed: results that arrive now wait for your approval"
    )
    paper_rows = "".join(
        f"<tr><td><input name='name_{i}' size='10'></td><td><input name='colour_{i}' size='6'></td>"
        + "".join(f"<td><input name='{c}_{i}' class='num'></td>" for c in CATEGORIES)
        + f"<td><input name='escape_{i}' class='num'></td></tr>"
        for i in range(1, 7)
    )
    paper = _form(
        f"{base}/paper", csrf_token,
        "<table><thead><tr><th>Name</th><th>Colour</th>" + "".join(f"<th>{c}</th>" for c in CATEGORIES)
        + f"<th>Escaped #</th></tr></thead><tbody>{paper_rows}</tbody></table>"
        "Table <input name='table_name' size='10'> Mode <select name='mode'><option>competitive</option>"
        "<option>cooperative</option></select> Scenario <input name='scenario' class='num' value='0'> "
        f"Round <input name='round' class='num' value='{current_round}'> "
        "Tie settled at the table (names, best first) <input name='table_order' size='16'> "
        f"{reason} <button>Enter result</button>",
    )
    audit_rows = "".join(
        f"<tr><td>{escape(a['at'])}</td><td>{escape(a['action'])}</td><td>{escape(a['actor'])}</td>"
        f"<td>{'' if a['result_id'] is None else a['result_id']}</td><td>{escape(a['reason'] or '')}</td></tr>"
        for a in reversed(audit[-200:])
    )
    return f"""<!doctype html><html lang="en" class="admin"><head>{_HEAD}
<title>{escape(event_name)} - hub admin</title></head><body class="admin">
<header><h1>{escape(event_name)}: admin</h1><span>code <b>{code}</b>
{_form(f"{base}/logout", csrf_token, "<button>Sign out</button>", inline=True)}
</span></header><main>{note}{warn}
<h2>Round</h2><p>Round {current_round} is {round_state}.</p>
{_form(f"{base}/round", csrf_token, "Open round <input name='round' class='num' value='"
       + str(current_round + 1) + "'> <button>Open</button>")}
{_form(f"{base}/close-round", csrf_token, "<button>Close the round</button>") if round_open else ""}
<h2>Tables</h2><p>Tables join with the event code <b>{code}</b> and the join secret <b id="join-secret">
{escape(join_secret)}</b> (tell it to the tables; it is not on the projector).</p>
{_form(f"{base}/join-secret", csrf_token, "<button>New join secret</button>")}
<table id="tables"><thead><tr><th>#</th><th>Name</th><th>State</th><th>Results</th><th>Live since</th>
<th>Change</th></tr></thead><tbody>{"".join(table_rows)}</tbody></table>
<p>Export: <a href="/api/events/{code}/export.csv?what=results">results CSV</a>,
<a href="/api/events/{code}/export.csv?what=standings">standings CSV</a>.
Projector: <a href="/events/{code}/leaderboard">leaderboard</a>.</p>
<h2>Results</h2><table id="results"><thead><tr><th>#</th><th>Table</th><th>Round</th><th>Players</th>
<th></th><th>Change</th></tr></thead><tbody>{"".join(rows)}</tbody></table>
<h2>Enter a result from paper</h2><p>For a table without a working tablet: type the score sheet in; the hub
adds the totals and the ranks.</p>{paper}
<h2>Audit log</h2><table id="audit"><thead><tr><th>At</th><th>Action</th><th>By</th><th>Result</th>
<th>Reason</th></tr></thead><tbody>{audit_rows}</tbody></table></main></body></html>"""


def player_page(*, event_name: str, event_code: str, player: str, games: Sequence[dict[str, Any]]) -> str:
    """One player's games in this event, with the rank points each earned."""
    rows = "".join(
        f"<tr{' class=void' if g['void'] else ''}><td>{g['round']}</td><td>{escape(g['table'])}</td>"
        f"<td class='n'>{g['rank']} / {g['players']}</td><td class='n'>{g['total']}</td>"
        f"<td class='n'>{g['rank_points']}</td><td>{'' if g.get('escape_order') is None else g['escape_order']}</td>"
        f"<td>{escape(g['game'])}, {escape(g['mode'])}{'' if not g['variant'] else ', ' + escape(g['variant'])}"
        "</td></tr>"
        for g in games
    )
    return f"""<!doctype html><html lang="en"><head>{_HEAD}
<title>{escape(player)} - {escape(event_name)}</title></head><body>
<header><h1>{escape(player)}</h1><span><a class="light" href="/events/{escape(event_code)}/leaderboard">
{escape(event_name)} standings</a></span></header><main><table id="history"><thead><tr><th>Round</th>
<th>Table</th><th class="n">Rank</th><th class="n">VP</th><th class="n">Rank points</th><th>Escaped</th>
<th>Game</th></tr></thead><tbody>{rows}</tbody></table></main></body></html>"""
