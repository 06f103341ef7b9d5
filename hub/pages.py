"""HTML of the hub: the projector leaderboard (refreshes itself) and the organizer's admin page.

Pure functions from plain values to strings; every value that came from a table or an admin goes
through :func:`html.escape`. No templates engine: the pages are small and a projector needs no assets.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from hub.rules import CATEGORIES, StandingRow

_STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee}
header{display:flex;justify-content:space-between;align-items:baseline;padding:1rem 2rem;background:#7a1f0e}
h1{margin:0;font-size:2.2rem}h2{margin:1.2rem 0 .4rem;font-size:1.4rem;color:#f5a623}
main{padding:0 2rem 2rem}table{border-collapse:collapse;width:100%;font-size:1.4rem}
th,td{padding:.35rem .6rem;text-align:left;border-bottom:1px solid #333}th{color:#aaa;font-weight:500}
td.n,th.n{text-align:right}.muted{color:#888}.void{text-decoration:line-through;color:#777}
nav a,td a{color:#eee;margin-right:1rem;text-decoration:none}#status{font-size:.9rem}
.admin body,.admin{background:#fafafa;color:#111}.admin table{font-size:1rem}.admin th{color:#555}
.admin header{background:#333;color:#fff}textarea{width:100%;font-family:monospace}
"""


def leaderboard_page(
    *, event_name: str, event_code: str, fragment: str, refresh_ms: int, round_number: int | None
) -> str:
    """The full projector page; a script swaps in a fresh fragment every ``refresh_ms`` milliseconds."""
    query = "" if round_number is None else f"?round={round_number}"
    fragment_url = f"/events/{escape(event_code)}/leaderboard/fragment{query}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(event_name)} - Fuji Koro standings</title>
<noscript><meta http-equiv="refresh" content="{max(1, refresh_ms // 1000)}"></noscript>
<style>{_STYLE}</style></head>
<body><header><h1>{escape(event_name)}</h1>
<span>event code <b>{escape(event_code)}</b> <span id="status" class="muted"></span></span></header>
<main id="board" data-refresh-ms="{refresh_ms}">{fragment}</main>
<script>
(function () {{
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const every = {int(refresh_ms)};
  async function refresh() {{
    try {{
      const reply = await fetch({json.dumps(fragment_url)}, {{cache: "no-store"}});
      if (!reply.ok) throw new Error(reply.status);
      board.innerHTML = await reply.text();
      status.textContent = "";
      board.dataset.refreshed = String(Date.now());
    }} catch (error) {{
      status.textContent = "(hub unreachable - showing the last standings)";
    }} finally {{
      setTimeout(refresh, every);
    }}
  }}
  setTimeout(refresh, every);
}})();
</script></body></html>"""


def leaderboard_fragment(
    *,
    event_code: str,
    rows: Sequence[StandingRow],
    rounds: Sequence[int],
    round_number: int | None,
    current_round: int,
    live: Sequence[dict[str, Any]],
    recent: Sequence[dict[str, Any]],
) -> str:
    base = f"/events/{escape(event_code)}/leaderboard"
    links = [f'<a href="{base}">Overall</a>'] + [f'<a href="{base}?round={r}">Round {r}</a>' for r in rounds]
    title = "Overall standings" if round_number is None else f"Round {round_number} standings"
    parts = [
        f"<nav>{' '.join(links)}</nav>",
        f"<h2>{title} <span class='muted'>(round {current_round} in play)</span></h2>",
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
        for game in live:
            scores = ", ".join(f"{escape(p['name'])} {int(p['vp'])}" for p in game.get("players", []))
            countdown = game.get("countdown")
            extra = "" if countdown is None else f" <span class='muted'>countdown {int(countdown)}</span>"
            parts.append(f"<tr><td>{escape(game['table'])}</td><td>{scores}{extra}</td></tr>")
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
    note = f"<p style='color:#b00'>{escape(message)}</p>" if message else ""
    return f"""<!doctype html><html lang="en" class="admin"><head><meta charset="utf-8">
<title>Hub admin - sign in</title><style>{_STYLE}</style></head><body class="admin">
<header><h1>Event {escape(event_code)}: admin</h1></header><main>{note}
<form method="post" action="/events/{escape(event_code)}/admin/login">
<label>Admin token <input name="token" type="password" autocomplete="off" size="48"></label>
<button type="submit">Sign in</button></form></main></body></html>"""


def admin_page(
    *,
    event_name: str,
    event_code: str,
    current_round: int,
    tables: Sequence[str],
    results: Sequence[dict[str, Any]],
    audit: Sequence[dict[str, Any]],
    message: str = "",
) -> str:
    code = escape(event_code)
    note = f"<p><b>{escape(message)}</b></p>" if message else ""
    rows = []
    for r in reversed(results):
        players = "<br>".join(
            f"{p['rank']}. {escape(p['name'])} ({escape(p['colour'])}) {p['total']}"
            + ("" if p["escape_order"] is None else f" - escaped #{p['escape_order']}")
            + " <span class='muted'>"
            + " ".join(f"{c}={p['scores'][c]}" for c in CATEGORIES)
            + "</span>"
            for p in sorted(r["players"], key=lambda p: p["rank"])
        )
        editable = escape(json.dumps(r["players"], indent=1), quote=False)
        action = "restore" if r["void"] else "void"
        rows.append(
            f"<tr{' class=void' if r['void'] else ''}><td>{r['result_id']}</td><td>{escape(r['table'])}</td>"
            f"<td>{r['round']}</td><td>{players}</td><td>rev {r['revision']}</td><td>"
            f"<form method='post' action='/events/{code}/admin/results/{r['result_id']}/{action}'>"
            f"<input name='reason' placeholder='reason' required> <button>{action.title()}</button></form>"
            f"<details><summary>Correct</summary>"
            f"<form method='post' action='/events/{code}/admin/results/{r['result_id']}/correct'>"
            f"<textarea name='players' rows='8'>{editable}</textarea>"
            f"Round <input name='round' size='3' value='{r['round']}'> "
            f"<input name='reason' placeholder='reason' required> <button>Save correction</button>"
            f"</form></details></td></tr>"
        )
    audit_rows = "".join(
        f"<tr><td>{escape(a['at'])}</td><td>{escape(a['action'])}</td><td>{escape(a['actor'])}</td>"
        f"<td>{'' if a['result_id'] is None else a['result_id']}</td><td>{escape(a['reason'] or '')}</td></tr>"
        for a in reversed(audit[-200:])
    )
    return f"""<!doctype html><html lang="en" class="admin"><head><meta charset="utf-8">
<title>{escape(event_name)} - hub admin</title><style>{_STYLE}</style></head><body class="admin">
<header><h1>{escape(event_name)}: admin</h1><span>code <b>{code}</b>
<form method="post" action="/events/{code}/admin/logout" style="display:inline"><button>Sign out</button></form>
</span></header><main>{note}
<h2>Round</h2><form method="post" action="/events/{code}/admin/round">
Current round <input name="round" size="3" value="{current_round}"> <button>Set</button></form>
<p>Tables ({len(tables)}): {escape(", ".join(tables)) or "none yet"}.
Export: <a href="/api/events/{code}/export.csv?what=results">results CSV</a>,
<a href="/api/events/{code}/export.csv?what=standings">standings CSV</a>.
Projector: <a href="/events/{code}/leaderboard">leaderboard</a>.</p>
<h2>Results</h2><table id="results"><thead><tr><th>#</th><th>Table</th><th>Round</th><th>Players</th>
<th></th><th>Change</th></tr></thead><tbody>{"".join(rows)}</tbody></table>
<h2>Audit log</h2><table id="audit"><thead><tr><th>At</th><th>Action</th><th>By</th><th>Result</th>
<th>Reason</th></tr></thead><tbody>{audit_rows}</tbody></table></main></body></html>"""


def player_page(*, event_name: str, event_code: str, player: str, games: Sequence[dict[str, Any]]) -> str:
    """One player's games in this event, with the rank points each earned."""
    rows = "".join(
        f"<tr{' class=void' if g['void'] else ''}><td>{g['round']}</td><td>{escape(g['table'])}</td>"
        f"<td class='n'>{g['rank']} / {g['players']}</td><td class='n'>{g['total']}</td>"
        f"<td class='n'>{g['rank_points']}</td><td>{'' if g['escape_order'] is None else g['escape_order']}</td>"
        f"<td>{escape(g['mode'])}, scenario {g['scenario']}</td></tr>"
        for g in games
    )
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>{escape(player)} - {escape(event_name)}</title><style>{_STYLE}</style></head><body>
<header><h1>{escape(player)}</h1><span><a style="color:#eee" href="/events/{escape(event_code)}/leaderboard">
{escape(event_name)} standings</a></span></header><main><table id="history"><thead><tr><th>Round</th>
<th>Table</th><th class="n">Rank</th><th class="n">VP</th><th class="n">Rank points</th><th>Escaped</th>
<th>Game</th></tr></thead><tbody>{rows}</tbody></table></main></body></html>"""
