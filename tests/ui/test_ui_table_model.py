"""The table's view model says why a button is disabled (no window: the model fed by a real session).

The reasons are the rules engine's own refusals: two actions a turn (EN p.4), Rest needs a disc on the
Action Fields (EN p.4, p.7), a fight that ends the turn (EN p.11), in the app's language.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, DictProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty

from companion.engine import Session
from games.fujikoro.app.sentences import SENTENCES, WORDS
from games.fujikoro.app.table import TableModel
from games.fujikoro.pack import default_pack
from games.fujikoro.rules import RULES_VERSION, FujiKoro
from ui import coretext
from ui.tr import tr


@pytest.fixture(autouse=True)
def _fujikoro_hosted() -> Iterator[None]:
    """The app hosting Fuji Koro: its sentence shapes translate the reasons (ui.coretext.use)."""
    coretext.use(SENTENCES, WORDS)
    yield
    coretext.use(())

PACK = default_pack()


class FakeGame(EventDispatcher):  # type: ignore[misc]
    """The GameModel properties the table model reads, filled from a session's state JSON."""

    loaded = BooleanProperty(True)
    busy = BooleanProperty(False)
    state = DictProperty({})
    phase = StringProperty("playing")
    mode = StringProperty("competitive")
    scenario = NumericProperty(0)
    round = NumericProperty(1)
    current_player = StringProperty("")
    players = ListProperty([])
    last_description = StringProperty("")

    def __init__(self, session: Session[Any]) -> None:
        super().__init__()
        self.session = session
        self.show()

    def show(self) -> None:
        state = self.session.state_json()
        self.phase, self.round, self.current_player = state["phase"], state["round"], state["current_player"]
        self.players = state["players"]
        self.state = state

    def do(self, command: dict[str, Any]) -> None:
        self.session.do(command)
        self.show()


class FakePack(EventDispatcher):  # type: ignore[misc]
    pack = ObjectProperty(PACK)


def table() -> tuple[TableModel, FakeGame]:
    session = Session(FujiKoro(PACK), {"players": ["Aiko", "Botan"], "rules": RULES_VERSION}, new_seed=lambda: 1)
    game = FakeGame(session)
    return TableModel(game, FakePack()), game


def test_end_turn_and_rest_are_disabled_with_the_rule_at_the_start_of_the_game_p4_p7() -> None:
    model, _ = table()
    assert model.reason("move") == "" and model.reason("gather") == ""
    assert "0 of the turn's 2 actions" in model.reason("end_turn") and "(EN p.4)" in model.reason("end_turn")
    assert "no Action Disc on the Action Fields" in model.reason("rest")
    assert model.reason("rest") in model.blocked_text or model.blocked_text.startswith("Aiko")


def test_after_two_actions_the_actions_are_disabled_and_end_turn_is_not_p4() -> None:
    model, game = table()
    model.action("move")
    model.action("gather")
    for key in ("move", "gather", "rest", "explore_1", "explore_3"):
        assert "2 actions" in model.reason(key), key
    assert model.reason("end_turn") == ""
    assert "EN p.4" in model.blocked_text
    model.end_turn()
    assert game.current_player == "Botan" and model.reason("move") == ""


def test_a_fight_that_ends_the_turn_disables_everything_but_end_turn_p11() -> None:
    model, game = table()
    model.action("gather")
    game.do({"type": "fight_start", "dragon": {"health": 1, "initiative": 0, "dice": 1},
             "samurai": [{"player": "Aiko", "gear": {"helmet": ["TT"], "weapon_left": ["WW"]}}]})
    game.do({"type": "fight_roll", "dice": [["wood", 1]]})
    assert "not their first action" in model.reason("move") and "(EN p.11)" in model.reason("move")
    assert model.reason("fight") and model.reason("end_turn") == ""


def test_the_reasons_come_in_the_apps_language() -> None:
    model, _ = table()
    try:
        tr.switch("de")
        model.refresh()
        german = model.reason("end_turn")
        tr.switch("cs")
        model.refresh()
        czech = model.reason("end_turn")
    finally:
        tr.switch("en")
    assert german == ("Aiko hat 0 der 2 Aktionen des Zuges ausgeführt; "
                      "jeder Spieler führt 2 Aktionen pro Zug aus (EN S. 4)")
    assert czech == "Aiko provedl 0 ze 2 akcí tahu; každý hráč provádí 2 akce za tah (EN s. 4)"


def test_an_eruption_asks_the_table_player_by_player_p13() -> None:
    model, game = table()
    game.do({"type": "vp", "player": "Aiko", "points": 30, "reason": "test: the final chapter"})
    while not game.state.get("eruption"):
        model.action("move")
        model.action("gather" if game.state["players"][game.session.state.current]["action_discs"]["used"] < 3
                     else "rest")
        if model.reason("end_turn"):
            model.action("rest")
        model.end_turn()
    assert model.eruption_player == "Aiko" and "did Aiko stand there?" in model.eruption_text
    model.lava_next()  # Aiko was not on the lava
    assert model.eruption_player == "Botan"
    model.lava_hit("moved")
    assert game.state["eruption"]["answered"] == ["Botan"]


class FakeGameWithFights(FakeGame):
    __events__ = ("on_game_event",)
    path = StringProperty("game.fujikoro-game")
    open_game = ObjectProperty(None, allownone=True)

    def on_game_event(self, *_: Any) -> None:
        pass


class NoGear:
    def gear_of(self, name: str) -> Any:
        raise AssertionError("no fight may start")


def test_the_combat_model_says_why_no_fight_can_start_and_who_cannot_join_p11() -> None:
    from games.fujikoro.app.combat import CombatModel

    session = Session(FujiKoro(PACK), {"players": ["Aiko", "Botan", "Chiyo"], "rules": RULES_VERSION},
                      new_seed=lambda: 1)
    game = FakeGameWithFights(session)
    model = CombatModel(game, FakePack(), NoGear())
    assert model.start_reason == ""
    try:
        _fight_and_join(model, game)
    finally:
        model.close()


def _fight_and_join(model: Any, game: FakeGameWithFights) -> None:
    # Aiko is knocked out by a dragon in her own turn: the turn is over, and she lies unconscious.
    game.do({"type": "fight_start", "dragon": {"health": 9, "initiative": 20, "dice": 1},
             "samurai": [{"player": "Aiko", "gear": {"helmet": ["W"], "weapon_left": ["WW"]}}]})
    game.do({"type": "fight_roll", "dice": [3]})
    assert "knocked out in their own turn" in model.start_reason and "EN p.11" in model.start_reason
    model.start()
    assert model.message == model.start_reason
    model.end_fight()  # "New fight": the ended fight is put away
    game.do({"type": "end_turn"})
    assert model.start_reason == "" and model.participants[0]["name"] == "Botan"
    aiko = next(p for p in model.participants if p["name"] == "Aiko")
    assert "unconscious" in aiko["reason"] and not aiko["joined"]
    model.toggle_join(model.participants.index(aiko))
    assert "unconscious" in model.message
