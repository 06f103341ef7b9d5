"""The rules of Fuji Koro on the session engine (EN pp.2-15, Appendix A and B), one module per subject.

| module | owns |
|---|---|
| `game.py` | `FujiKoro`, the engine's `Game`: thin entry points (setup, prepare, apply, describe, queries) |
| `commands.py` | `COMMANDS`: each command type declared once (`CommandSpec`: handler, log line, defaults, flags) |
| `state.py` | the values: `State` and its parts, enums, constants, `evolve` |
| `setup.py` | the setup and its refusals (`parse_setup`, `SetupError`), the table's checklist, the coop decks |
| `checks.py` | who may do what now: players by name, the turn's checks (two actions, discs, bonuses, fights' Move) |
| `turns.py` | the turn and the round: actions, end of turn, new round, escaping, magical gear |
| `countdown.py` | the final chapter, the Countdown Token's track, the coop round track, eruptions |
| `scoring.py` | VP by category, the scoring commands, Shogun bonuses, final scoring, ranking, the `Result` |
| `coop.py` | the cooperative mode: objectives, Lives, the dragons' Status Tokens |
| `ending.py` | how a game ends (`finish`) and the table's `end_game` |
| `scenarios.py` | EN Appendix B as hook classes: `Scenario` (the base game), one subclass each, `SCENARIOS` |
| `dragons.py` | dragons revealed, on the health track, defeated (and their rewards), tamed |
| `fights.py` | fights played through the session: the fight commands and their log lines |
| `rolls.py` | dice from commands: the `roll` command, fight rolls resolved, typed dragon stats |
| `view.py` | what the screens see: `state_json`, `why_not` |

Every number comes from the data pack (:mod:`games.fujikoro.pack`); rules text that the pack does not
carry (the coop tile decks of EN p.14) is quoted with its page. Everything other code imports from
``games.fujikoro.rules`` is re-exported here.
"""

from games.fujikoro.rules.commands import COMMANDS, CommandSpec
from games.fujikoro.rules.fights import STEAL_ITEMS
from games.fujikoro.rules.game import FujiKoro, game_from_pack_raw
from games.fujikoro.rules.rolls import (
    FightRollSpec,
    describe_fight_roll,
    fight_roll_spec,
    play_fight_roll,
    typed_dragon,
)
from games.fujikoro.rules.scenarios import MONK_INITIATIVE, SCENARIOS, Scenario, scenario_of
from games.fujikoro.rules.scoring import escape_tiebreak
from games.fujikoro.rules.setup import SetupError, deal_blueprints, parse_setup, setup_checklist
from games.fujikoro.rules.state import (
    ACTIONS_PER_TURN,
    BGG_ID,
    CATEGORIES,
    GAME_NAME,
    GEAR,
    MAX_PLAYERS,
    RULES_VERSION,
    TOKEN_KINDS,
    Action,
    Category,
    Combat,
    Countdown,
    CountdownKind,
    DragonStatus,
    Ending,
    Events,
    Exit,
    Mode,
    Phase,
    PlayerSetup,
    PlayerState,
    Setup,
    State,
    Tokens,
    VpHistory,
    VpPoint,
)

__all__ = [
    "ACTIONS_PER_TURN",
    "BGG_ID",
    "CATEGORIES",
    "COMMANDS",
    "GAME_NAME",
    "GEAR",
    "MAX_PLAYERS",
    "MONK_INITIATIVE",
    "RULES_VERSION",
    "SCENARIOS",
    "STEAL_ITEMS",
    "TOKEN_KINDS",
    "Action",
    "Category",
    "Combat",
    "CommandSpec",
    "Countdown",
    "CountdownKind",
    "DragonStatus",
    "Ending",
    "Events",
    "Exit",
    "FightRollSpec",
    "FujiKoro",
    "Mode",
    "Phase",
    "PlayerSetup",
    "PlayerState",
    "Scenario",
    "Setup",
    "SetupError",
    "State",
    "Tokens",
    "VpHistory",
    "VpPoint",
    "deal_blueprints",
    "describe_fight_roll",
    "escape_tiebreak",
    "fight_roll_spec",
    "game_from_pack_raw",
    "parse_setup",
    "play_fight_roll",
    "scenario_of",
    "setup_checklist",
    "typed_dragon",
]
