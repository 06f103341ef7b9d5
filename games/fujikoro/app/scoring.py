"""Final scoring: the ranking with the tie-break explained, Shogun bonuses, VP over time, export.

Reads the session state (the game module already applied the end-of-game scoring and ranking);
exporting the BG Stats link and the CSV score sheet runs on a worker thread and writes both files to
the ``exports`` folder next to the games folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import ListProperty, ObjectProperty, StringProperty

from games.fujikoro.app.table import category_label
from ui import coretext
from ui import session as session_port
from ui.theme import player_colour
from ui.tr import tr
from ui.worker import Worker


def exports_dir() -> Path:
    from store.games import games_dir

    return games_dir().parent / "exports"


class ScoringModel(EventDispatcher):  # type: ignore[misc]
    game = ObjectProperty(None)
    rows = ListProperty([])  # [{"rank", "name", "vp", "detail", "colour"}]
    tie_text = StringProperty("")
    title = StringProperty("")
    chart = ListProperty([])
    shogun_lines = ListProperty([])
    export_text = StringProperty("")
    link = StringProperty("")

    def __init__(self, game: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.game = game
        self._worker = Worker("export")
        game.bind(state=self.refresh, vp_history=self.refresh)
        tr.bind(language=self.refresh)
        self.refresh()

    def refresh(self, *_: Any) -> None:
        state = self.game.state
        players = {p["name"]: p for p in self.game.players}
        ending = state.get("ending")
        if ending:
            ranking = [(r["player"], r["vp"], r["rank"]) for r in ending["ranking"]]
            self.title = tr._("Final scoring")
        else:
            ranking = live_ranking(self.game.players)
            self.title = tr._("Standings so far") if players else tr._("No game yet")
        rows = []
        for name, vp, rank in ranking:
            p = players.get(name, {})
            parts = [f"{category_label(c)} {v}" for c, v in (p.get("categories") or {}).items() if v]
            if p.get("escape_order"):
                parts.append(tr.f("left the volcano #{n}", n=p["escape_order"]))
            rows.append({"rank": str(rank), "name": name, "vp": str(vp), "detail": ", ".join(parts),
                         "colour": p.get("colour") or ""})
        self.rows = rows
        self.tie_text = tie_explanation(ranking, players)
        lines = []
        claims = state.get("shogun_claims") or {}
        for name, p in players.items():
            shogun = (p.get("categories") or {}).get("shogun", 0)
            left = ", ".join(f"{k} {v}" for k, v in (p.get("tokens") or {}).items() if v)
            text = tr.f("{name}: {vp} VP from the Shogun", name=name, vp=shogun)
            if left:
                text += " - " + tr.f("tokens left: {tokens}", tokens=left)
            lines.append(text)
        if claims:
            lines.append(tr._("Spots taken") + ": " + ", ".join(f"{k} {v}" for k, v in claims.items()))
        objectives = state.get("objectives") or []
        if objectives:  # cooperative games: the goals instead of a ranking by VP
            lines = [tr._("Objectives") + ":"] + [
                ("[x] " if o.get("done") else "[ ] ") + str(o.get("text", "")) for o in objectives]
        if ending and ending.get("reason"):
            lines.append(tr.f("The game ended: {reason}", reason=coretext.translate(str(ending["reason"]))))
        self.shogun_lines = lines
        self.chart = [(player_colour(s.get("colour") or ""), list(s["totals"])) for s in self.game.vp_history]

    def export(self) -> None:
        game = self.game.open_game
        if game is None:
            self.export_text = tr._("Start or resume a game first")
            return

        def job() -> tuple[str, str, str] | None:
            result = session_port.export(game)
            if result is None:
                return None
            folder = exports_dir()
            folder.mkdir(parents=True, exist_ok=True)
            stem = Path(game.path).stem
            csv_path = folder / f"{stem}.csv"
            link_path = folder / f"{stem}.bgstats.txt"
            csv_path.write_text(result.csv, encoding="utf-8")
            link_path.write_text(result.bgstats_link + "\n", encoding="utf-8")
            return result.bgstats_link, str(csv_path), str(link_path)

        def done(result: tuple[str, str, str] | None) -> None:
            if result is None:
                self.export_text = tr._("Only a finished game can be exported")
                return
            link, csv_path, link_path = result
            self.link = link
            self.export_text = tr.f("Saved {csv} and {link} in {folder}", csv=Path(csv_path).name,
                                    link=Path(link_path).name, folder=str(Path(csv_path).parent))
            try:
                from kivy.core.clipboard import Clipboard

                Clipboard.copy(link)
            except Exception:  # noqa: BLE001 - no clipboard on this system: the file is there
                pass

        def failed(error: BaseException) -> None:
            self.export_text = str(error)

        self._worker.submit(job, done, failed)


def live_ranking(players: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """Most VP first; a tie goes to whoever left the volcano first (EN p.13): the game's own rule."""
    from companion.results import standing
    from games.fujikoro.rules import escape_tiebreak

    order = standing([(int(p.get("vp", 0)), escape_tiebreak(p.get("escape_order"))) for p in players])
    return [(players[i]["name"], int(players[i].get("vp", 0)), rank) for i, rank in order]


def tie_explanation(ranking: list[tuple[str, int, int]], players: dict[str, dict[str, Any]]) -> str:
    """Say how each tie on VP was broken, in the rulebook's words."""
    lines = []
    by_vp: dict[int, list[str]] = {}
    for name, vp, _rank in ranking:
        by_vp.setdefault(vp, []).append(name)
    for vp, names in by_vp.items():
        if len(names) < 2:
            continue
        escaped = [n for n in names if players.get(n, {}).get("escape_order")]
        together = ", ".join(names)
        if escaped:
            first = min(escaped, key=lambda n: players[n]["escape_order"])
            lines.append(tr.f("{names} have {vp} VP each: {first} left the volcano first and wins the tie "
                              "(rulebook p.13).", names=together, vp=vp, first=first))
        else:
            lines.append(tr.f("{names} have {vp} VP each and none of them left the volcano: the rulebook "
                              "says to settle it at the table (chopsticks suggested).", names=together, vp=vp))
    return "\n".join(lines) or tr._("No ties.")
