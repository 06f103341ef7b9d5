"""The table screen's model: player cards, whose turn and which actions, the countdown track.

Built from :class:`ui.viewmodels.game.GameModel` (the session state) and the data pack (countdown
spaces, VP per category). Commands go back through the game model; nothing here changes state.
"""

from __future__ import annotations

from typing import Any

from kivy.event import EventDispatcher
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)

from ui import coretext
from ui.tr import tr

# VP categories the tap-to-add chooser offers, with the pack key of their usual amount.
VP_CATEGORIES: tuple[tuple[str, str | None], ...] = (
    ("scrolls", "scroll"),
    ("explore_level_2", "explore_level_2"),
    ("explore_level_3", "explore_level_3"),
    ("dragons", None),
    ("gear_card", "weapon_card_vp"),
    ("shogun", None),
    ("scenario", None),
)

ACTIONS: tuple[tuple[str, str, int | None], ...] = (
    ("move", "move", None),
    ("explore_1", "explore", 1),
    ("explore_2", "explore", 2),
    ("explore_3", "explore", 3),
    ("gather", "gather", None),
    ("rest", "rest", None),
)


def category_label(category: str) -> str:
    return {
        "scrolls": tr._("Sacred Scroll"),
        "explore_level_2": tr._("Level II tile"),
        "explore_level_3": tr._("Level III tile"),
        "dragons": tr._("Dragon"),
        "gear_card": tr._("Weapon card bonus"),
        "shogun": tr._("Shogun bonus"),
        "scenario": tr._("Scenario"),
        "correction": tr._("Correction"),
    }.get(category, category)


def action_label(key: str) -> str:
    return {
        "move": tr._("Move"),
        "explore_1": tr._("Explore I"),
        "explore_2": tr._("Explore II"),
        "explore_3": tr._("Explore III"),
        "gather": tr._("Gather"),
        "rest": tr._("Rest & Craft"),
        "explore": tr._("Explore"),
    }.get(key, key)


class TableModel(EventDispatcher):  # type: ignore[misc]
    game = ObjectProperty(None)
    pack = ObjectProperty(None)
    cards = ListProperty([])
    turn_text = StringProperty("")
    actions_text = StringProperty("")
    track_spaces = ListProperty([])
    track_labels = ListProperty([])
    track_text = StringProperty("")
    track_position = NumericProperty(0)
    track_active = BooleanProperty(False)
    can_act = BooleanProperty(False)
    # Why a button is refused now, in the app's language ("" when allowed): the rules engine's own sentence
    # (rule and page), keyed by button id: move, gather, rest, explore_1..3, end_turn, scroll, gear_card_vp, fight.
    reasons = DictProperty({})
    blocked_text = StringProperty("")
    # An eruption the table answers (EN p.13): who stood on the lava, one player at a time.
    eruption_text = StringProperty("")
    eruption_player = StringProperty("")
    scores_vp = BooleanProperty(True)
    message = StringProperty("")
    # The VP chooser
    vp_player = StringProperty("")
    vp_amount = NumericProperty(1)
    vp_reason = StringProperty("")

    def __init__(self, game: Any, pack_model: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.game = game
        self._pack_model = pack_model
        self.pack = pack_model.pack
        pack_model.bind(pack=self._on_pack)
        game.bind(state=self.refresh, loaded=self.refresh, last_description=self._on_done)
        tr.bind(language=self.refresh)
        self.refresh()

    def _on_pack(self, _model: Any, pack: Any) -> None:
        self.pack = pack
        self.refresh()

    def _on_done(self, _game: Any, text: str) -> None:
        if text:
            self.message = text

    # ---- derived ----------------------------------------------------------------------------
    def refresh(self, *_: Any) -> None:
        game = self.game
        state = game.state
        mode = game.mode
        self.scores_vp = mode == "competitive" or game.scenario == 8
        cards = []
        for i, p in enumerate(game.players):
            escaped = p.get("escaped")
            detail = ", ".join(f"{category_label(c)} {v}" for c, v in (p.get("categories") or {}).items() if v)
            extra = []
            if escaped:
                extra.append(tr._("escaped by the Rope") if escaped == "rope" else tr._("escaped by the Secret Exit"))
            if p.get("lives") is not None:
                extra.append(tr.f("Lives: {n}", n=p["lives"]))
            cards.append({
                "index": i,
                "name": p.get("name", ""),
                "colour": p.get("colour") or "",
                "vp": int(p.get("vp", 0)),
                "detail": "; ".join(x for x in [detail, *extra] if x) or tr._("no VP yet"),
                "current": p.get("name") == game.current_player,
            })
        self.cards = cards
        done = list(state.get("actions") or [])
        left = int(state.get("actions_left", 2) or 0)
        self.can_act = bool(game.loaded) and game.phase in ("playing", "final")
        if not game.loaded:
            self.turn_text = tr._("Start or resume a game")
            self.actions_text = ""
        elif game.phase == "ended":
            self.turn_text = tr._("The game has ended")
            self.actions_text = ""
        else:
            self.turn_text = tr.f("{player}'s turn - round {n}", player=game.current_player, n=game.round)
            taken = ", ".join(action_label(a) for a in done) or tr._("none yet")
            self.actions_text = tr.f("Actions: {taken} ({left} left)", taken=taken, left=left)
        self._refresh_reasons(state)
        self._refresh_eruption(state)
        self._refresh_track(state)

    def _refresh_eruption(self, state: Any) -> None:
        eruption = state.get("eruption") if self.can_act else None
        if not eruption:
            self.eruption_text = ""
            self.eruption_player = ""
            return
        answered = set(eruption.get("answered") or [])
        waiting = [p.get("name", "") for p in self.game.players
                   if not p.get("escaped") and p.get("name") not in answered]
        if self.eruption_player not in waiting:
            self.eruption_player = waiting[0] if waiting else ""
        lava = ", ".join(str(n) for n in eruption.get("lava") or [])
        self.eruption_text = (
            tr.f("Lava erupts on {lava}: did {name} stand there?", lava=lava, name=self.eruption_player)
            if self.eruption_player
            else ""
        )

    def lava_hit(self, outcome: str) -> None:
        """The samurai asked about stood on the erupting lava: moved off (sandals take 5) or perished."""
        if self.eruption_player:
            self.game.do({"type": "lava_hit", "player": self.eruption_player, "outcome": outcome})

    def lava_next(self) -> None:
        """The samurai asked about was not on the lava: ask about the next one."""
        state = self.game.state.get("eruption") or {}
        answered = set(state.get("answered") or [])
        waiting = [p.get("name", "") for p in self.game.players
                   if not p.get("escaped") and p.get("name") not in answered]
        if self.eruption_player in waiting:
            rest = waiting[waiting.index(self.eruption_player) + 1:]
            self.eruption_player = rest[0] if rest else ""
        self._refresh_eruption(self.game.state)

    def _refresh_reasons(self, state: Any) -> None:
        why = state.get("why_not") or {}
        reasons: dict[str, str] = {}
        for key, source in (("move", "move"), ("gather", "gather"), ("rest", "rest"), ("explore_1", "explore"),
                            ("explore_2", "explore"), ("explore_3", "explore"), ("end_turn", "end_turn"),
                            ("scroll", "scroll"), ("gear_card_vp", "gear_card_vp"), ("fight", "fight")):
            text = why.get(source) if self.can_act else None
            if key == "fight" and (state.get("combat") or {}).get("active"):
                text = None  # the Fight button also leads to the fight being played
            reasons[key] = coretext.translate(text) if text else ""
        self.reasons = reasons
        # One sentence for the message line: why End turn waits, else why no action is left.
        shown = reasons["end_turn"] or (reasons["move"] if reasons["move"] and reasons["rest"] else "")
        self.blocked_text = shown[:1].upper() + shown[1:]

    def reason(self, key: str) -> str:
        """Why the button ``key`` is disabled ("" if it is not)."""
        return str(self.reasons.get(key, ""))

    def _refresh_track(self, state: Any) -> None:
        pack = self.pack
        self.track_spaces = [s.event.value for s in pack.countdown]
        labels = []
        for i, space in enumerate(pack.countdown):
            name = {"lava": tr._("Lava"), "rope": tr._("Rope"), "nothing": "-", "end": tr._("End")}[space.event.value]
            lava = " " + ",".join(str(n) for n in space.lava) if space.lava else ""
            labels.append(f"{i + 1}\n{name}{lava}")
        self.track_labels = labels
        countdown = state.get("countdown") or {}
        self.track_active = bool(countdown.get("active"))
        self.track_position = int(countdown.get("position") or 0)
        kind = countdown.get("kind")
        moving = state.get("moving_dragons") or []
        if not self.game.loaded:
            self.track_text = ""
        elif kind == "rounds":
            self.track_text = tr.f("Round track: {n} rounds left", n=countdown.get("rounds_left"))
            if moving:
                self.track_text += " - " + tr.f("dragons moving this round: {dragons}", dragons=", ".join(moving))
        elif self.track_active:
            marker = countdown.get("marker_after") or ""
            phase = tr._("Lava Phase") if kind == "lava_phase" else tr._("Final chapter")
            self.track_text = tr.f("{phase}: space {n} of 8, advances when {player} ends a turn",
                                   phase=phase, n=self.track_position, player=marker)
        else:
            threshold = countdown.get("threshold")
            self.track_text = tr.f("The final chapter starts at {n} VP", n=threshold) if threshold else ""

    # ---- commands ---------------------------------------------------------------------------
    def action(self, key: str) -> None:
        for name, action, level in ACTIONS:
            if name == key:
                command: dict[str, Any] = {"type": "action", "action": action}
                if level is not None:
                    command["level"] = level
                self.game.do(command)
                return

    def end_turn(self) -> None:
        self.game.do({"type": "end_turn"})

    def open_vp(self, player: str) -> None:
        self.vp_player = player
        self.vp_amount = 1
        self.vp_reason = ""

    def default_points(self, category: str) -> int:
        key = dict(VP_CATEGORIES).get(category)
        if key is not None and key in self.pack.scoring:
            return int(self.pack.scoring[key])
        return int(self.vp_amount)

    def add_vp(self, category: str, points: int | None = None) -> None:
        amount = int(points if points is not None else self.default_points(category))
        self.game.do({"type": "vp", "player": self.vp_player, "points": amount, "category": category})

    def correct_vp(self, points: int, reason: str) -> bool:
        reason = reason.strip()
        if not reason:
            self.message = tr._("A correction needs a reason, so the table can see why the score changed")
            return False
        if points == 0:
            self.message = tr._("Choose how many VP to add or take away")
            return False
        self.game.do({"type": "vp", "player": self.vp_player, "points": int(points), "category": "correction",
                      "reason": reason})
        return True

    def escape(self, via: str, tokens: dict[str, int]) -> None:
        self.game.do({"type": "escape", "via": via, "tokens": tokens})

    def shogun_bonus(self, track: str) -> None:
        self.game.do({"type": "shogun_bonus", "track": track})
