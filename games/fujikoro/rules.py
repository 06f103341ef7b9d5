"""The Fuji Koro game module for the session engine: setup, turns, VP, the final chapter, coop mode.

Owns what the rulebook says about the parts of a game the table taps in (EN pp.2-6, 12-15 and
Appendix B): who is to play, the two actions of a turn, rounds and the start player, VP per player by
category with a history for the chart, the final chapter and its countdown (each space's event comes
from the data pack), escapes and the Shogun bonuses, the ranking with its tie-break, the cooperative
round track, dragon status tokens, lives and objectives, and the scenarios that change scoring or the
countdown. Dragon fights are recorded by their outcome (``dragon_defeated``) and by dice rolls
(``roll``: the app's seeded rolls are undo barriers), or played roll by roll through the fight commands
(``fight_start``, ``fight_roll``, ...; see "Fights" below), which drive :mod:`games.fujikoro.combat` and apply
its result through the same code paths.

Every number comes from the data pack; rules text that the pack does not carry (the coop tile decks
of EN p.14) is quoted here with its page.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, TypeVar

from companion import results
from companion.dice import DiceError, DiceRoll, DiceSource, from_faces, roll
from companion.engine import Command, CommandError, Outcome, PlayerResult, Result
from companion.events import Kind
from games.fujikoro.combat import (
    DRAGON,
    Combatant,
    CombatError,
    DragonStats,
    Fight,
    WeaponRoll,
    combatant_from_json,
    dragon_roll,
    monk_throw,
    retreat,
    samurai_roll,
    start_dragon_fight,
    start_samurai_fight,
    surrender,
)
from games.fujikoro.combat import Mode as FightMode
from games.fujikoro.combat import Outcome as FightOutcome
from games.fujikoro.combat import Status as FighterStatus
from games.fujikoro.pack import CountdownEvent, DataPack, DataPackError, parse_face

GAME_NAME = "fujikoro"
BGG_ID = 253743
MAX_PLAYERS = 6
ACTIONS_PER_TURN = 2
# The rules a new game is played by, recorded in its setup ("rules"). 1: the turn was not checked (games
# saved before the turn rules of EN pp.4-14 were enforced replay under it); 2: the turn as the rulebook
# describes it. A setup without "rules" is a game saved before version 2.
RULES_VERSION = 2


def escape_tiebreak(escape_order: int | None) -> int | None:
    """A player's tie-break value (companion.results): who left the Volcano first wins a tie on VP, and
    a player who left beats one who stayed in (EN p.13, "Winning the Game")."""
    return results.order_tiebreak(escape_order, MAX_PLAYERS)


T = TypeVar("T")
_WITH: dict[type, tuple[Callable[[Any, dict[str, Any]], Any], frozenset[str]]] = {}


def _with(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` without its per-call introspection: replaying a long log is mostly this.

    Like :mod:`dataclasses` itself, it compiles one small constructor call per class, once.
    """
    cls = type(obj)
    entry = _WITH.get(cls)
    if entry is None:
        names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
        args = ", ".join(f"c[{n!r}] if {n!r} in c else o.{n}" for n in names)
        namespace: dict[str, Any] = {"cls": cls}
        exec(f"def build(o, c):\n    return cls({args})", namespace)  # the names are dataclass fields
        entry = _WITH[cls] = (namespace["build"], frozenset(names))
    build, names_set = entry
    if not changes.keys() <= names_set:
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - names_set)[0]!r}")
    result: T = build(obj, changes)
    return result


class SetupError(CommandError):
    """A setup the rules do not allow (player count, boards, scenario and mode)."""


class Mode(enum.StrEnum):
    COMPETITIVE = "competitive"
    COOP = "coop"


class Phase(enum.StrEnum):
    SETUP = "setup"
    PLAYING = "playing"
    FINAL = "final"
    ENDED = "ended"


class Category(enum.StrEnum):
    EXPLORE_2 = "explore_level_2"
    EXPLORE_3 = "explore_level_3"
    SCROLLS = "scrolls"
    DRAGONS = "dragons"
    GEAR_CARD = "gear_card"
    SHOGUN = "shogun"
    SCENARIO = "scenario"
    CORRECTION = "correction"


CATEGORIES = tuple(Category)
_CATEGORY_INDEX = {c: i for i, c in enumerate(CATEGORIES)}
_REASON_ALIASES: dict[str, Category] = {
    "explore_2": Category.EXPLORE_2,
    "level_2": Category.EXPLORE_2,
    "explore_level_2": Category.EXPLORE_2,
    "explore_3": Category.EXPLORE_3,
    "level_3": Category.EXPLORE_3,
    "explore_level_3": Category.EXPLORE_3,
    "scroll": Category.SCROLLS,
    "scrolls": Category.SCROLLS,
    "dragon": Category.DRAGONS,
    "dragons": Category.DRAGONS,
    "gear": Category.GEAR_CARD,
    "gear_card": Category.GEAR_CARD,
    "weapon_card": Category.GEAR_CARD,
    "shogun": Category.SHOGUN,
    "scenario": Category.SCENARIO,
    "correction": Category.CORRECTION,
}


class Action(enum.StrEnum):
    MOVE = "move"
    EXPLORE = "explore"
    GATHER = "gather"
    REST = "rest"


class Exit(enum.StrEnum):
    ROPE = "rope"
    SECRET_EXIT = "secret_exit"


class DragonStatus(enum.StrEnum):
    HIDDEN = "hidden"  # not yet explored
    REVEALED = "revealed"  # on the board (competitive: no status token)
    SLEEPING = "sleeping"  # coop status token, sleeping side up
    AWAKE = "awake"  # coop status token, awake side up
    MOVING = "moving"  # coop: token removed, moves at the start of each round
    DEFEATED = "defeated"


class CountdownKind(enum.StrEnum):
    IDLE = "idle"
    ROUNDS = "rounds"  # coop: the token on the numbered round track
    LAVA_PHASE = "lava_phase"  # scenario 3: lava rises, no rope, no end
    END_PHASE = "end_phase"  # the final chapter


GEAR = ("helmet", "weapon", "sandals")
TOKEN_KINDS = (*GEAR, "monks", "teeth")

# EN p.14 setup step 5: how the coop Level II / III draw piles are built (not in the data pack).
_COOP_DECKS = {
    (1, 2): (4, 4),
    (3, 4): (2, 6),
    (5, 6): (0, 8),
}


# ------------------------------------------------------------------------------------------------
# Values


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    name: str
    colour: str | None
    board: str


@dataclass(frozen=True, slots=True)
class Setup:
    players: tuple[PlayerSetup, ...]
    mode: Mode
    scenario: int
    adventure_tokens: bool
    start: int
    begin: bool
    rules: int = 1
    peaceful: bool = False  # EN p.12 Peaceful Variant: samurai fight only dragons


@dataclass(frozen=True, slots=True)
class Tokens:
    """What an escaped samurai can still hand to the Shogun: magical gear (0/1 each), monks, teeth."""

    helmet: int = 0
    weapon: int = 0
    sandals: int = 0
    monks: int = 0
    teeth: int = 0

    def get(self, kind: str) -> int:
        value: int = getattr(self, kind)
        return value

    def to_json(self) -> dict[str, int]:
        return {k: self.get(k) for k in TOKEN_KINDS}


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    colour: str | None
    board: str
    vp: int = 0
    by_category: tuple[int, ...] = (0,) * len(CATEGORIES)
    teeth: int = 0
    escaped: Exit | None = None
    escape_order: int | None = None
    tokens: Tokens = Tokens()
    claimed_turn: int | None = None
    lives: int = 0
    magical: frozenset[str] = frozenset()
    status_tokens: int = 0
    trophies: tuple[str, ...] = ()
    discs_used: int = 0  # Action Discs on the Action Fields (EN p.4); Rest returns them
    disc_monk: bool = False  # a Monk in the Action Disc pool: one more disc (EN p.6)
    unconscious: bool = False  # knocked out; wakes at the start of their next turn (EN p.11, p.12)
    on_rope: bool = False  # scenario 1: on the Rope Tile, leaves the Volcano at the start of their next turn
    card_action: str | None = None  # the action the weapon card's 1 VP bonus is linked to (EN p.8)


@dataclass(frozen=True, slots=True)
class Countdown:
    kind: CountdownKind = CountdownKind.IDLE
    marker: int | None = None  # the player with the Countdown Marker to their left
    position: int = 0  # 0: not on the track yet; then 1..8
    rounds_left: int | None = None  # coop: the number the token stands on
    rope: bool = False
    lava_phase_done: bool = False
    end_triggered: bool = False
    lava: tuple[int, ...] = ()  # lava numbers that have erupted so far (they stay on the board)


@dataclass(frozen=True, slots=True)
class VpPoint:
    turn: int
    round: int
    player: str
    category: str
    points: int
    total: int


class VpHistory:
    """An append-only persistent list (shares its tail), so each new state adds one point in O(1)."""

    __slots__ = ("point", "rest", "length")

    def __init__(self, point: VpPoint, rest: VpHistory | None) -> None:
        self.point = point
        self.rest = rest
        self.length: int = 1 + (rest.length if rest is not None else 0)

    def __iter__(self) -> Iterator[VpPoint]:
        points: list[VpPoint] = []
        node: VpHistory | None = self
        while node is not None:
            points.append(node.point)
            node = node.rest
        return reversed(points)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VpHistory):
            return NotImplemented
        a: VpHistory | None = self
        b: VpHistory | None = other
        while a is not None and b is not None:
            if a is b:
                return True
            if a.length != b.length or a.point != b.point:
                return False
            a, b = a.rest, b.rest
        return a is b

    def __hash__(self) -> int:
        return hash((self.length, self.point))


@dataclass(frozen=True, slots=True)
class Ending:
    reason: str
    won: bool | None  # coop and Ronin: did the table win; None in competitive
    ranking: tuple[tuple[str, int, int], ...]  # (player, vp, rank)


@dataclass(frozen=True, slots=True)
class State:
    setup: Setup
    players: tuple[PlayerState, ...]
    phase: Phase
    current: int
    round: int = 1
    turn: int = 1
    actions: tuple[str, ...] = ()
    countdown: Countdown = Countdown()
    dragons: tuple[tuple[str, DragonStatus], ...] = ()
    claims: tuple[tuple[str, int], ...] = ()
    history: VpHistory | None = None
    escapes: int = 0
    group_teeth: int = 0
    hostile_defeated: int = 0
    tamed: bool = False
    last_roll: DiceRoll | None = None
    fight: tuple[str, int] | None = None  # the dragon on the health track and its health now
    ending: Ending | None = None
    combat: Combat | None = None  # the fight played through the fight commands (the last one, once over)
    turn_over: str | None = None  # why the current turn ended before its actions (a fight, EN p.11-12)
    fought: int | None = None  # the index in ``actions`` of the Move that led into a fight this turn
    bonuses: tuple[tuple[str, int], ...] = ()  # (scroll | gear_card, index of the action it came with)
    extra_actions: int = 0  # scenario 1: actions bought with status tokens this turn
    dragon_tokens: tuple[tuple[str, int], ...] = ()  # permanent Damage Tokens per figure (EN p.11)
    eruption: tuple[int, ...] = ()  # the lava numbers of the last eruption, while the table answers it
    eruption_answers: tuple[str, ...] = ()  # who was asked about and answered for that eruption
    eruption_unconscious: tuple[str, ...] = ()  # who lay unconscious when the lava erupted
    hostiles: tuple[tuple[int, Any], ...] = ()  # scenario 7: each hostile Samurai's gear after its last fight
    hostiles_out: tuple[int, ...] = ()  # scenario 7: the hostile Samurai defeated so far

    def dragon(self, dragon_id: str) -> DragonStatus:
        for key, status in self.dragons:
            if key == dragon_id:
                return status
        raise CommandError(f"there is no dragon {dragon_id!r}; dragons are {', '.join(k for k, _ in self.dragons)}")


# ------------------------------------------------------------------------------------------------
# Setup


def parse_setup(config: Mapping[str, Any], pack: DataPack) -> Setup:
    """The setup from ``{"players": [...], "mode", "scenario", "adventure_tokens", "start_player"}``."""
    raw_players = config.get("players")
    if not isinstance(raw_players, list) or not raw_players:
        raise SetupError("a game needs a list of players")
    players: list[PlayerSetup] = []
    for item in raw_players:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict):
            raise SetupError(f"a player is a name or {{name, colour, board}}, got {item!r}")
        name = str(item.get("name", "")).strip()
        if not name:
            raise SetupError("every player needs a name")
        colour = item.get("colour")
        board = str(item.get("board") or "symmetric").lower()
        try:
            pack.board(board)
        except DataPackError as error:
            raise SetupError(str(error)) from None
        players.append(PlayerSetup(name, None if colour is None else str(colour), board))
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise SetupError("every player needs a different name")
    colours = [p.colour for p in players if p.colour is not None]
    if len(set(colours)) != len(colours):
        raise SetupError("every player takes a Player Board in a different colour (EN p.2 step 1)")
    try:
        mode = Mode(str(config.get("mode", "competitive")))
    except ValueError:
        raise SetupError(f"the mode is competitive or coop, not {config.get('mode')!r}") from None
    scenario = config.get("scenario", 0)
    if isinstance(scenario, bool) or not isinstance(scenario, int) or scenario not in pack.scenarios:
        raise SetupError(f"scenarios are numbered 0 (base game) to 8 (EN Appendix B), not {scenario!r}")
    spec = pack.scenarios[scenario]
    if mode.value not in spec.modes:
        raise SetupError(
            f"scenario {scenario} ({spec.name}) is played in {' or '.join(spec.modes)} mode (EN Appendix B)"
        )
    n = len(players)
    if mode is Mode.COMPETITIVE and not 2 <= n <= MAX_PLAYERS:
        raise SetupError(f"the competitive mode is for 2 to 6 players, not {n} (EN p.2)")
    if mode is Mode.COOP and not 1 <= n <= MAX_PLAYERS:
        raise SetupError(f"the cooperative mode is for 1 to 6 players, not {n} (EN p.2)")
    if scenario in (7, 8) and n != 1:
        raise SetupError(f"scenario {scenario} ({spec.name}) is a solo game (EN Appendix B)")
    boards = [p.board for p in players]
    if "symmetric" in boards and any(b != "symmetric" for b in boards):
        raise SetupError(
            "use the symmetrical Player Boards for all players or characters for all players (EN p.2 step 1)"
        )
    characters = [b for b in boards if b != "symmetric"]
    if len(set(characters)) != len(characters):
        raise SetupError("each character board is in the box once, so two players cannot play the same character")
    if scenario == 1 and characters:
        raise SetupError("scenario 1 uses the symmetrical Player Boards for all players (EN Appendix B)")
    rules = config.get("rules", 1)
    if isinstance(rules, bool) or rules not in (1, RULES_VERSION):
        raise SetupError(f"rules is 1 (a game saved before the turn rules) or {RULES_VERSION}, not {rules!r}")
    peaceful = bool(config.get("peaceful", False))
    if peaceful and mode is Mode.COOP:
        raise SetupError("the Peaceful Variant is for the competitive mode; coop samurai never fight (EN p.12, p.15)")
    start_name = config.get("start_player")
    start = 0
    if start_name is not None:
        if start_name not in names:
            raise SetupError(f"the start player {start_name!r} is not one of the players ({', '.join(names)})")
        start = names.index(str(start_name))
    return Setup(
        tuple(players),
        mode,
        scenario,
        bool(config.get("adventure_tokens", False)),
        start,
        bool(config.get("begin", True)),
        rules,
        peaceful,
    )


def _setup_value(pack: DataPack, key: str, default: Any) -> Any:
    section = pack.raw.get("setup", {})
    node = section.get(key) if isinstance(section, dict) else None
    return node["value"] if isinstance(node, dict) and "value" in node else default


def deal_blueprints(players: int, temples: int = 3) -> list[list[str]]:
    """EN p.2 step 10: helmets, then weapons, then sandals, dealt one at a time over the temples."""
    piles: list[list[str]] = [[] for _ in range(temples)]
    i = 0
    for kind in GEAR:
        for _ in range(players):
            piles[i % temples].append(kind)
            i += 1
    return piles


def setup_checklist(setup: Setup, pack: DataPack) -> list[str]:
    """What to put on the table for this player count, mode and scenario (EN p.2, p.14, Appendix B)."""
    n = len(setup.players)
    coop = setup.mode is Mode.COOP
    symmetric = all(p.board == "symmetric" for p in setup.players)
    items: list[str] = []
    if symmetric:
        items.append("Player Boards: the symmetrical side for every player.")
    else:
        items.append("Player Boards: " + ", ".join(f"{p.name} plays {p.board.title()}" for p in setup.players) + ".")
    monks = _setup_value(pack, "monks_symmetric" if symmetric else "monks_asymmetric", {})
    per_player = monks.get("six" if n == 6 else "up_to_5", 0) if isinstance(monks, dict) else 0
    items.append(f"Starting Monks: {per_player} per player ({n} players).")
    hexagon_from = int(_setup_value(pack, "hexagon_tokens_from_players", 5))
    if n >= hexagon_from:
        items.append(f"Add the hexagon Resource Tokens ({n} players).")
    else:
        items.append(f"Leave the hexagon Resource Tokens in the box (they are for {hexagon_from}-6 players).")
    temples = int(_setup_value(pack, "temples", 3))
    per = int(_setup_value(pack, "blueprints_per_player", 3)) // 3
    piles = deal_blueprints(n * per, temples)
    deal = "; ".join(
        f"Temple {i + 1}: " + ", ".join(f"{pile.count(k)} {k}" for k in GEAR if pile.count(k))
        for i, pile in enumerate(piles)
    )
    if setup.scenario == 1:
        items.append(
            "Scenario 1: deal the Magical Blueprints to the Temples at random and face down, hidden until "
            "someone gathers them, and leave the Secret Exit tile in the box (EN Appendix B scenario 1)."
        )
    else:
        items.append(
            f"Magical Blueprints: draw {n * per} helmet, {n * per} weapon and {n * per} sandals cards "
            f"and deal them in that order one at a time over the temples ({deal})."
        )
    if coop and symmetric:
        items.append(
            "Gear Cards: each player takes 1 helmet, weapon or sandals card, spread as evenly as possible; "
            "a weapon card's owner puts the starting Monk below the Weapon Grid (EN p.14 step 12)."
        )
        items.append(
            "Starting weapons: a player without a weapon card puts 2 wood and 2 metal cubes on the Weapon Grid; "
            "everyone builds the gear of their card exactly as pictured (EN p.14 step 12)."
        )
    else:
        items.append(f"Gear Cards: draw {n} helmet, {n} weapon and {n} sandals cards faceup (EN p.2 step 8).")
    items.append("Sacred Scrolls: shuffle, 3 cards faceup next to the draw pile.")
    if any(p.board == "tomoe" for p in setup.players):
        items.append("Tomoe plays: add a Magical Weapon Blueprint with 2 one-handed weapons (EN Appendix A).")
    if any(p.board == "mitsuhide" for p in setup.players) and _scores_vp(setup):
        items.append("Mitsuhide starts with 1 Sacred Scroll of his choice and 3 VP (already counted).")
    if coop and setup.scenario != 8:
        start = _coop_start(setup, pack)
        items.append(
            f"Countdown Token on {start} of the round track "
            f"({'solo ' if n == 1 else ''}{'with' if setup.adventure_tokens else 'without'} Adventure Tokens)."
        )
        under, over = next(v for k, v in _COOP_DECKS.items() if k[0] <= max(n, 1) <= k[1])
        removed = _setup_value(pack, "coop_removed_tiles", {})
        key = "players_1_2" if n <= 2 else "players_3_4" if n <= 4 else "players_5_6"
        if isinstance(removed, dict) and key in removed:
            items.append(f"Tiles removed for {n} players: {removed[key]} (EN p.14 step 5).")
        items.append(
            "Tile piles: shuffle 3 Level II tiles with the Secret Exit, "
            "and 3 Level III tiles with the Legendary Dragon; "
            + (
                f"put {under} other tiles under each of those piles and {over} on top"
                if under
                else f"put the {over} other tiles on top of each"
            )
            + " (EN p.14 step 5)."
        )
        items.append(f"Each player takes a Life Token, {pack.coop.lives} Lives side up; keep the Status Tokens ready.")
    else:
        threshold = pack.scenarios[setup.scenario].threshold
        items.append(f"Countdown Token on its start space; the final chapter starts at {threshold} VP.")
    if setup.scenario == 3:
        lava = pack.scenarios[3].extras.get("lava_phase_threshold")
        items.append(f"Scenario 3: a Lava Phase runs first (at {lava} VP, or after the first rounds in coop).")
    if setup.scenario == 7:
        items.append(
            "Scenario 7: at each Temple an unused symmetrical Player Board is a hostile Samurai; craft its "
            "Magical Helmet, Weapon and Sandals to random Blueprints, Blueprints beside the board and their "
            "tokens in its Backpack (EN Appendix B scenario 7)."
        )
    if setup.peaceful:
        items.append("Peaceful Variant: samurai fight only dragons, never each other (EN p.12).")
    if setup.scenario:
        items.append(f"Scenario {setup.scenario}: {pack.scenarios[setup.scenario].name} (EN Appendix B).")
    if setup.adventure_tokens:
        items.append("Adventure Tokens: place them as the Player Aid says.")
    start_player = setup.players[setup.start].name
    items.append(
        f"{start_player} is the start player" + (" and takes the Tokugawa Start Player Marker." if coop else ".")
    )
    return items


def _scores_vp(setup: Setup) -> bool:
    """Competitive games score VP, and so does the Ronin solo scenario (EN Appendix B scenario 8)."""
    return setup.mode is Mode.COMPETITIVE or setup.scenario == 8


def _uses_round_track(setup: Setup, pack: DataPack) -> bool:
    """Coop runs the round track (EN p.14); the Ronin solo only if the group's rule option says so (assumed)."""
    return setup.mode is Mode.COOP and (setup.scenario != 8 or pack.rules.ronin_round_track)


def _coop_start(setup: Setup, pack: DataPack) -> int:
    if setup.scenario == 3:
        return int(pack.scenarios[3].extras.get("coop_lava_phase_round", 5))
    return pack.coop.start(len(setup.players), setup.adventure_tokens)


# ------------------------------------------------------------------------------------------------
# The game


def _spot_tracks(pack: DataPack) -> dict[str, tuple[int, ...]]:
    tracks = {f"palace.{k}": v for k, v in pack.shogun.palace.items()}
    tracks.update({f"foot.{k}": v for k, v in pack.shogun.foot.items()})
    return tracks


class FujiKoro:
    """Fuji Koro as a :class:`companion.engine.Game` over :class:`State`."""

    def __init__(self, pack: DataPack) -> None:
        self.pack = pack
        self._tracks = _spot_tracks(pack)

    @property
    def name(self) -> str:
        return GAME_NAME

    @property
    def version(self) -> str:
        return self.pack.version

    @property
    def command_types(self) -> tuple[str, ...]:
        return tuple(COMMANDS)

    # ---- Game protocol -------------------------------------------------------------------
    def setup(self, config: Mapping[str, Any]) -> State:
        setup = parse_setup(config, self.pack)
        coop = setup.mode is Mode.COOP
        lives = self.pack.coop.lives if coop else 0
        players = tuple(PlayerState(p.name, p.colour, p.board, lives=lives) for p in setup.players)
        countdown = (
            Countdown(CountdownKind.ROUNDS, rounds_left=_coop_start(setup, self.pack))
            if _uses_round_track(setup, self.pack)
            else Countdown()
        )
        state = State(
            setup=setup,
            players=players,
            phase=Phase.PLAYING if setup.begin else Phase.SETUP,
            current=setup.start,
            countdown=countdown,
            dragons=tuple((d, DragonStatus.HIDDEN) for d in sorted(self.pack.dragons)),
        )
        if _scores_vp(setup):
            for i, p in enumerate(setup.players):
                if p.board == "mitsuhide":  # EN Appendix A: starts with a scroll and its 3 VP
                    state = self._add_vp(state, i, self.pack.scoring["scroll"], Category.SCROLLS, [], check=False)
        return state

    def prepare(self, state: State, command: Command, new_seed: Callable[[], int]) -> dict[str, Any]:
        prepared = dict(command)
        kind = prepared.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        if spec is not None and spec.acts_for_current and "player" not in prepared:
            prepared["player"] = state.players[state.current].name
        if kind == "roll" and prepared.get("source", "app") == "app":
            prepared["source"] = "app"
            if prepared.get("seed") is None:
                prepared["seed"] = new_seed()
        if kind == "fight_roll" and state.combat is not None and state.combat.is_active:
            prepared.setdefault("who", state.combat.fight.whose_turn())
            if _is_app_fight_roll(prepared) and prepared.get("seed") is None:
                prepared["seed"] = new_seed()
        return prepared

    def apply(self, state: State, command: Command) -> Outcome[State]:
        kind = command.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        if spec is None:
            raise CommandError(f"unknown command type {kind!r}; known types: {', '.join(COMMANDS)}")
        if state.phase is Phase.ENDED:
            raise CommandError("the game has ended, so no more commands are accepted")
        if state.phase is Phase.SETUP and kind != "start":
            raise CommandError('the game is still being set up; send {"type": "start"} first')
        if spec.blocked_in_fight and state.combat is not None and state.combat.is_active:
            raise CommandError(
                f"a fight is being played (EN p.10-12): finish it with fight_roll (or fight_retreat), or "
                f"fight_cancel it, before {kind}"
            )
        events: list[tuple[str, Mapping[str, Any]]] = []
        new = spec.apply(self, state, command, events)
        if _scores_vp(new.setup) is False and new.phase is not Phase.ENDED:
            new = self._check_coop_win(new, events)
        return Outcome(new, tuple(events))

    def describe(
        self, state: State, command: Command, events: Sequence[tuple[str, Mapping[str, Any]]] | None = None
    ) -> str:
        """One line for the log and "Undo: ...": the command, and what else it set off (so undo names it).
        ``events``: what applying it emitted (the session passes them; else the command is applied again)."""
        base = self._describe_command(state, command)
        if events is None:
            try:
                events = self.apply(state, command).events
            except (CommandError, CombatError):
                return base
        consequences = _consequences(tuple(events), own_vp=command.get("type") in _SCORES_ITSELF)
        return f"{base} (with it: {'; '.join(consequences)})" if consequences else base

    def _describe_command(self, state: State, command: Command) -> str:
        kind = command.get("type")
        spec = COMMANDS.get(kind) if isinstance(kind, str) else None
        if spec is None:
            return str(kind)
        return spec.describe(self, state, command, str(command.get("player", state.players[state.current].name)))

    def is_automated_random(self, command: Command) -> bool:
        if command.get("type") == "fight_roll":
            return _is_app_fight_roll(command)
        return command.get("type") == "roll" and command.get("source", "app") == DiceSource.APP.value

    def is_over(self, state: State) -> bool:
        return state.phase is Phase.ENDED

    # ---- helpers ---------------------------------------------------------------------------
    def _player(self, state: State, command: Command, key: str = "player") -> int:
        name = command.get(key)
        for i, p in enumerate(state.players):
            if p.name == name:
                return i
        raise CommandError(
            f"there is no player named {name!r}; the players are {', '.join(p.name for p in state.players)}"
        )

    def _require_scoring(self, state: State, what: str) -> None:
        if not _scores_vp(state.setup):
            raise CommandError(f"{what}: players gain no VP in the cooperative mode (EN p.15)")

    def _require_scenario(self, state: State, scenario: int, what: str) -> None:
        if state.setup.scenario != scenario:
            raise CommandError(
                f"{what} is a rule of scenario {scenario} ({self.pack.scenarios[scenario].name}) only (EN Appendix B)"
            )

    def _require_coop(self, state: State, what: str) -> None:
        if state.setup.mode is not Mode.COOP:
            raise CommandError(f"{what} only exist in the cooperative mode (EN p.15)")

    def _add_vp(
        self,
        state: State,
        index: int,
        points: int,
        category: Category,
        events: list[tuple[str, Mapping[str, Any]]],
        *,
        reason: str | None = None,
        check: bool = True,
    ) -> State:
        p = state.players[index]
        by = list(p.by_category)
        by[_CATEGORY_INDEX[category]] += points
        total = p.vp + points
        player = _with(p, vp=total, by_category=tuple(by))
        point = VpPoint(state.turn, state.round, p.name, category.value, points, total)
        state = _with(state, players=_set(state.players, index, player), history=VpHistory(point, state.history))
        payload: dict[str, Any] = {"player": p.name, "points": points, "total": total, "category": category.value}
        if reason:
            payload["reason"] = reason
        events.append((Kind.VP_CHANGED, payload))
        if check:
            state = self._check_thresholds(state, index, events)
        return state

    def _check_thresholds(self, state: State, index: int, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """EN p.13: the moment a player reaches the threshold the final chapter starts (Appendix B: 3, 8)."""
        if not _scores_vp(state.setup) or state.phase is not Phase.PLAYING:
            return state
        vp = state.players[index].vp
        spec = self.pack.scenarios[state.setup.scenario]
        cd = state.countdown
        name = state.players[index].name
        if not cd.end_triggered and vp >= spec.threshold:
            # Scenario 3: an unfinished Lava Phase is cut short; the token goes back to the start.
            state = _with(
                state,
                phase=Phase.FINAL,
                countdown=Countdown(
                    CountdownKind.END_PHASE,
                    marker=index,
                    # Scenario 3: "back to 1" (assumed reading: before space 1; the rule option can say onto it)
                    position=self.pack.rules.scenario_3_back_to if cd.kind is CountdownKind.LAVA_PHASE else 0,
                    rope=False,
                    lava_phase_done=True,
                    end_triggered=True,
                    lava=cd.lava,
                ),
            )
            events.append((Kind.FINAL_CHAPTER, {"player": name, "threshold": spec.threshold, "phase": "end"}))
            return state
        lava_at = spec.extras.get("lava_phase_threshold")
        if isinstance(lava_at, int) and cd.kind is CountdownKind.IDLE and not cd.lava_phase_done and vp >= lava_at:
            state = _with(state, countdown=Countdown(CountdownKind.LAVA_PHASE, marker=index))
            events.append((Kind.FINAL_CHAPTER, {"player": name, "threshold": lava_at, "phase": "lava"}))
        return state

    def _advance(self, state: State, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """Move the Countdown Token one space and fire that space's event (EN p.13)."""
        cd = state.countdown
        position = cd.position + 1
        space = self.pack.countdown[position - 1]
        lava_phase = cd.kind is CountdownKind.LAVA_PHASE
        payload: dict[str, Any] = {"position": position, "event": space.event.value, "lava": list(space.lava)}
        if lava_phase:
            payload["lava_phase"] = True
        events.append((Kind.COUNTDOWN_ADVANCED, payload))
        cd = _with(cd, position=position, lava=tuple(sorted(set(cd.lava) | set(space.lava))))
        if space.event is CountdownEvent.ROPE and not lava_phase:
            cd = _with(cd, rope=True)
            events.append((Kind.ROPE_APPEARED, {"position": position}))
            if self.pack.rules.escape_when_rope_appears and state.setup.rules >= 2:
                # Rule option (DE rulebook only): who stands on the Central Tile now escapes at once.
                events.append(("ask_rope", {"question": "Who stands on the Central Tile? They escape now (DE)"}))
        state = _with(state, countdown=cd)
        if space.lava and state.setup.rules >= 2:
            state = self._erupt(state, space.lava, events)
        if space.event is CountdownEvent.END:
            if lava_phase:
                after: Countdown
                if _uses_round_track(state.setup, self.pack):
                    extras = self.pack.scenarios[3].extras
                    solo = len(state.players) == 1
                    rounds = int(
                        extras.get("coop_after_lava_solo", 10) if solo else extras.get("coop_lava_phase_round", 5)
                    )
                    after = Countdown(CountdownKind.ROUNDS, rounds_left=rounds, lava_phase_done=True, lava=cd.lava)
                else:
                    after = Countdown(
                        CountdownKind.IDLE, lava_phase_done=True, end_triggered=cd.end_triggered, lava=cd.lava
                    )
                events.append(("lava_phase_ended", {"position": position}))
                return _with(state, countdown=after)
            return self._finish(state, events, "the Countdown Token reached the end of the track")
        return state

    def _erupt(self, state: State, lava: tuple[int, ...], events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """EN p.13: lava erupts on these numbers; the table says who stood there (``lava_hit``)."""
        inside = [p.name for p in state.players if p.escaped is None]
        events.append(
            (
                "eruption",
                {
                    "lava": list(lava),
                    "ask": inside,
                    "rule": "a samurai standing there: sandals take 5 damage and move off, or perishes (EN p.13)",
                },
            )
        )
        lying = tuple(p.name for p in state.players if p.unconscious)
        return _with(state, eruption=lava, eruption_answers=(), eruption_unconscious=lying)

    def _lava_hit(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """A samurai stood on erupting lava (EN p.13): sandals take 5 damage (twice if the only way off is
        lava again) and the samurai moves off, or they perish and come back in a Temple (coop: a Life)."""
        index = self._player(state, command)
        p = state.players[index]
        if not state.eruption:
            raise CommandError(
                "no lava is erupting now; the table answers an eruption until the next turn ends (EN p.13)"
            )
        if p.escaped is not None:
            raise CommandError(f"{p.name} escaped the volcano, so the lava cannot reach them (EN p.13)")
        if p.name in state.eruption_answers:
            raise CommandError(f"{p.name} is already moved off this eruption's lava (EN p.13)")
        outcome = command.get("outcome")
        if outcome not in ("moved", "moved_twice", "perished"):
            raise CommandError(
                "the samurai on erupting lava moved off (sandals take 5 damage), moved_twice (over lava again: "
                f"10), or perished (EN p.13), not {outcome!r}"
            )
        if (p.unconscious or p.name in state.eruption_unconscious) and outcome != "perished":
            raise CommandError(
                f"{p.name} lies unconscious, and an unconscious samurai on erupting lava perishes (EN p.13)"
            )
        state = _with(state, eruption_answers=(*state.eruption_answers, p.name))
        if outcome == "perished":
            player = _with(state.players[index], unconscious=False)
            state = _with(state, players=_set(state.players, index, player))
            events.append(("perished", {"player": p.name, "rule": "resurrected in a Temple of their choice (EN p.13)"}))
            if state.setup.mode is Mode.COOP:
                state = self._life_lost(state, {"player": p.name, "reason": "perished in the lava"}, events)
            return state
        events.append(("sandals_damage", {"player": p.name, "damage": 10 if outcome == "moved_twice" else 5}))
        return state

    def _finish(
        self, state: State, events: list[tuple[str, Mapping[str, Any]]], reason: str, won: bool | None = None
    ) -> State:
        if _scores_vp(state.setup):
            state = self._final_scoring(state, events)
        if state.setup.scenario == 8 and won is None:
            p = state.players[0]
            target = int(self.pack.scenarios[8].extras.get("win_vp", 50))
            won = p.vp >= target and p.escaped is Exit.ROPE
            reason += (
                f"; {p.name} "
                + ("wins" if won else "loses")
                + f" with {p.vp} VP"
                + (" after escaping by the Rope" if p.escaped is Exit.ROPE else " without escaping by the Rope")
                + f" (the goal is {target} VP and the Rope)"
            )
        elif state.setup.mode is Mode.COOP and won is None:
            won = False
            missing = [text for text, done in self.objectives(state) if not done]
            reason += "; the objectives were not achieved: " + "; ".join(missing) if missing else ""
        ranking = self.ranking(state)
        state = _with(state, phase=Phase.ENDED, ending=Ending(reason, won, ranking))
        payload: dict[str, Any] = {
            "ranking": [{"player": n, "vp": vp, "rank": r} for n, vp, r in ranking],
            "reason": reason,
        }
        if won is not None:
            payload["won"] = won
        events.append((Kind.GAME_ENDED, payload))
        return state

    def _final_scoring(self, state: State, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        tracks = self._tracks
        # Scenario 1: who still stands on the Rope Tile has not left the Volcano (EN Appendix B scenario 1).
        stayed = [i for i, p in enumerate(state.players) if p.on_rope]
        for i in stayed:
            p = state.players[i]
            state = _with(state, players=_set(state.players, i, _with(p, escaped=None, escape_order=None,
                                                                       on_rope=False)))
        for i, p in enumerate(state.players):
            if p.escaped is Exit.ROPE:  # EN p.13: only who reached the big Palace scores leftover tokens
                points = 0
                for kind in TOKEN_KINDS:
                    spots = tracks.get(f"palace.{kind}", ())
                    if spots and p.tokens.get(kind):
                        points += p.tokens.get(kind) * spots[-1]
                if points:
                    state = self._add_vp(
                        state,
                        i,
                        points,
                        Category.SHOGUN,
                        events,
                        reason="remaining tokens on the last spots",
                        check=False,
                    )
                    state = _with(
                        state,
                        players=_set(
                            state.players,
                            i,
                            _with(
                                state.players[i],
                                tokens=Tokens(
                                    **{k: 0 if tracks.get(f"palace.{k}") else p.tokens.get(k) for k in TOKEN_KINDS}
                                ),
                            ),
                        ),
                    )
        extras = self.pack.scenarios[state.setup.scenario].extras
        if state.setup.scenario == 1:
            worth = int(extras.get("status_token_vp", 5))
            for i, p in enumerate(state.players):
                if p.status_tokens:
                    state = self._add_vp(
                        state,
                        i,
                        p.status_tokens * worth,
                        Category.SCENARIO,
                        events,
                        reason="remaining status tokens",
                        check=False,
                    )
        if extras.get("trophies"):
            for i, p in enumerate(state.players):
                points = self.trophy_points(p.trophies, extras)
                if points:
                    state = self._add_vp(
                        state, i, points, Category.SCENARIO, events, reason="dragon trophies", check=False
                    )
        return state

    def trophy_points(self, trophies: tuple[str, ...], extras: Mapping[str, Any]) -> int:
        """Scenario 2: VP per dragon colour, plus the best split into sets of 3 alike (+7) / 3 different (+10)."""
        colours = [self.pack.dragons[d].colour for d in trophies]
        base = sum(self.pack.colours[c].trophy_vp for c in colours)
        counts = tuple(colours.count(c) for c in self.pack.colours)
        return base + _best_sets(
            counts, int(extras.get("trophy_set_same", 7)), int(extras.get("trophy_set_different", 10))
        )

    def ranking(self, state: State) -> tuple[tuple[str, int, int], ...]:
        """Most VP first; a tie goes to the tied player who left the volcano first (EN p.13): the one
        finishing-order rule (companion.results) with the escape order as the tie-break."""
        players = state.players
        order = results.standing([(p.vp, escape_tiebreak(p.escape_order)) for p in players])
        return tuple((players[i].name, players[i].vp, rank) for i, rank in order)

    def objectives(self, state: State) -> list[tuple[str, bool]]:
        """The cooperative goals as a checklist (EN p.14, Appendix B scenarios 5-8)."""
        players = state.players
        scenario = state.setup.scenario
        if state.setup.mode is not Mode.COOP:
            return []
        if scenario == 6:
            return [
                (
                    "Lure the Legendary Dragon to the Central Tile and bring its Health to "
                    f"{self.pack.scenarios[6].extras.get('legendary_target_health', 10)} or below",
                    state.tamed,
                )
            ]
        if scenario == 8:
            target = int(self.pack.scenarios[8].extras.get("win_vp", 50))
            return [
                (f"End with at least {target} VP (now {players[0].vp})", players[0].vp >= target),
                ("Escape by the Rope on the Central Tile", players[0].escaped is Exit.ROPE),
            ]
        if scenario == 7:
            gear = len(players[0].magical)
            return [
                (f"Defeat the 3 hostile Samurai ({state.hostile_defeated}/3)", state.hostile_defeated >= 3),
                (f"Hold 3 completed Magical Gear items ({gear}/3)", gear >= 3),
                ("Escape through the Secret Exit", players[0].escaped is Exit.SECRET_EXIT),
            ]
        legendary = [d for d, s in state.dragons if self.pack.dragons[d].is_legendary]
        items = [("Defeat the Legendary Dragon", all(state.dragon(d) is DragonStatus.DEFEATED for d in legendary))]
        if scenario == 5:
            alive = [
                d
                for d, s in state.dragons
                if s in (DragonStatus.SLEEPING, DragonStatus.AWAKE, DragonStatus.MOVING, DragonStatus.REVEALED)
            ]
            items.append((f"Defeat every visible Dragon ({len(alive)} still alive)", not alive))
        out_ = [p.name for p in players if p.escaped is not Exit.SECRET_EXIT]
        items.append(
            (
                "Every player escapes through the Secret Exit" + (f" (not yet: {', '.join(out_)})" if out_ else ""),
                not out_,
            )
        )
        no_gear = [p.name for p in players if not p.magical]
        items.append(
            (
                "Every player has a completed Magical Gear item"
                + (f" (not yet: {', '.join(no_gear)})" if no_gear else ""),
                not no_gear,
            )
        )
        together = set().union(*(p.magical for p in players))
        lacking = [g for g in GEAR if g not in together]
        items.append(
            (
                "Together: a Magical Helmet, Weapon and Sandals"
                + (f" (missing: {', '.join(lacking)})" if lacking else ""),
                not lacking,
            )
        )
        return items

    def _check_coop_win(self, state: State, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        if state.setup.mode is not Mode.COOP or state.setup.scenario == 8:
            return state
        goals = self.objectives(state)
        if goals and all(done for _, done in goals) and all(p.lives > 0 for p in state.players):
            return self._finish(state, events, "all objectives achieved: everyone wins", won=True)
        return state

    def _turn_player(self, state: State, command: Command, what: str) -> int:
        index = self._player(state, command)
        if index != state.current:
            raise CommandError(
                f"{what} happens in a player's own turn, and it is {state.players[state.current].name}'s turn"
            )
        return index

    # ---- the turn as the rulebook describes it (rules version 2): one place per rule -------------
    # Each check raises a CommandError whose message is one sentence naming the rule and its page.

    def _check_may_act(self, state: State, index: int, what: str) -> None:
        """Who may do something with their own action now (EN p.4, pp.10-13)."""
        p = state.players[index]
        if index != state.current:
            raise CommandError(
                f"{what} comes in a player's own turn (EN p.4), and it is {state.players[state.current].name}'s turn"
            )
        if state.combat is not None and state.combat.is_active:
            raise CommandError(f"a fight is being played, so {what} waits until it is over (EN p.10)")
        if p.escaped is not None:
            raise CommandError(f"{p.name} escaped the volcano and takes no more actions, only Shogun bonuses (EN p.13)")
        if state.turn_over is not None:
            raise CommandError(f"{state.turn_over}, so {what} is not possible; end the turn")

    def _check_action(self, state: State, index: int, action: Action, *, status_token: bool = False) -> None:
        """Two actions a turn (EN p.4), discs from the pool for Move, Explore and Gather, Rest returns them."""
        self._check_may_act(state, index, _ACTION_NAMES[action])
        p = state.players[index]
        allowed = ACTIONS_PER_TURN + state.extra_actions
        if len(state.actions) >= allowed:
            if status_token and state.setup.scenario == 1 and p.status_tokens > 0:
                pass  # scenario 1: a status token buys one extra action (EN Appendix B)
            else:
                raise CommandError(
                    f"{p.name} has taken the turn's {allowed} actions; each player performs 2 actions a turn (EN p.4)"
                )
        if action is Action.REST:
            if p.discs_used == 0:
                raise CommandError(
                    f"{p.name} has no Action Disc on the Action Fields, and Rest needs at least one there, "
                    "so there is no Rest twice in a row (EN p.4, p.7)"
                )
        elif p.discs_used >= self._disc_capacity(p):
            raise CommandError(
                f"{p.name} has used all {self._disc_capacity(p)} Action Discs and must Rest to get them back (EN p.4)"
            )

    def _disc_capacity(self, p: PlayerState) -> int:
        return self.pack.board(p.board).action_discs + (1 if p.disc_monk else 0)

    def _take_action(
        self, state: State, index: int, action: Action, *, status_token: bool = False, monk_to_discs: bool = False
    ) -> State:
        """Record an action and move its Action Disc (EN p.4): every check comes from :meth:`_check_action`."""
        p = state.players[index]
        extra = state.extra_actions
        if len(state.actions) >= ACTIONS_PER_TURN + extra:
            p = _with(p, status_tokens=p.status_tokens - 1)
            extra += 1
        if action is Action.REST:
            p = _with(p, discs_used=0)
        else:
            p = _with(p, discs_used=p.discs_used + 1)
        if monk_to_discs:
            p = _with(p, disc_monk=True)
        return _with(
            state, players=_set(state.players, index, p), actions=(*state.actions, action.value), extra_actions=extra
        )

    def _check_end_turn(self, state: State) -> None:
        p = state.players[state.current]
        if p.escaped is not None or state.turn_over is not None:
            return
        if len(state.actions) < ACTIONS_PER_TURN:
            raise CommandError(
                f"{p.name} has taken {len(state.actions)} of the turn's 2 actions; "
                "each player performs 2 actions a turn (EN p.4)"
            )

    def _action_bonus(self, state: State, index: int, kind: str, command: Command) -> tuple[State, int]:
        """Scroll VP comes with one's own Gather (EN p.6), weapon-card VP with one's own linked action (EN p.8).

        Each action brings one of each at most; returns the state with the bonus marked and the action index.
        """
        p = state.players[index]
        what = {"scroll": "a Sacred Scroll's VP", "explore": "an Explore's VP"}.get(kind, "the weapon card's VP")
        self._check_may_act(state, index, what)
        used = {i for k, i in state.bonuses if k == kind}
        if kind == "scroll":
            wanted: set[str] = {Action.GATHER.value}
            rule = "a Sacred Scroll is picked up with a Gather action, one per Gather (EN p.6)"
        elif kind == "explore":
            wanted = {Action.EXPLORE.value}
            rule = "a Level II or III tile gives its VP when it is explored, once per Explore (EN p.5)"
        else:
            linked = command.get("action") or p.card_action
            if linked is not None and linked not in (Action.MOVE.value, Action.EXPLORE.value, Action.GATHER.value):
                raise CommandError(f"a weapon card is linked to Move, Explore or Gather (EN p.8), not {linked!r}")
            if p.card_action is not None and linked != p.card_action:
                raise CommandError(
                    f"{p.name}'s weapon card is linked to {p.card_action} for the rest of the game (EN p.8)"
                )
            wanted = {str(linked)} if linked else {Action.MOVE.value, Action.EXPLORE.value, Action.GATHER.value}
            rule = (
                "the weapon card's 1 VP comes with the action it is linked to, once per action (EN p.8)"
                + (f"; {p.name}'s is linked to {linked}" if linked else "")
            )
        free = [i for i, a in enumerate(state.actions) if a in wanted and i not in used]
        if not free:
            raise CommandError(f"{p.name} has no action this turn to score {what} with: {rule}")
        at = free[-1]
        state = _with(state, bonuses=(*state.bonuses, (kind, at)))
        if kind == "gear_card" and p.card_action is None:
            state = _with(
                state, players=_set(state.players, index, _with(p, card_action=state.actions[at]))
            )
        return state, at

    def _fight_move(self, state: State, command: Command) -> tuple[State, bool]:
        """A fight the active player starts comes with a Move onto the tile or space (EN p.4, p.10, p.12).

        The fight belongs to the turn's last action if it is a Move that has not led to a fight yet;
        otherwise starting the fight records that Move. Returns the state and whether it was the first action.
        """
        index = state.current
        self._check_may_act(state, index, "starting a fight")
        last = len(state.actions) - 1
        if not (state.actions and state.actions[-1] == Action.MOVE.value and state.fought != last):
            self._check_action(state, index, Action.MOVE)
            state = self._take_action(state, index, Action.MOVE)
            last = len(state.actions) - 1
        first = last == 0
        claimed = command.get("first_action")
        if claimed is not None and bool(claimed) != first:
            name = state.players[index].name
            raise CommandError(
                f"this fight comes with {name}'s {'first' if first else 'second'} action, "
                f"not the {'first' if claimed else 'second'} (EN p.11)"
            )
        return _with(state, fought=last), first

    def _check_can_fight(self, state: State, index: int, role: str) -> None:
        """EN p.11, p.12: an unconscious samurai can't be attacked or join a fight until their next turn."""
        p = state.players[index]
        if p.unconscious:
            raise CommandError(
                f"{p.name} is unconscious until the start of their next turn and cannot {role} (EN p.11, p.12)"
            )

    def _knocked_out(self, state: State, combat: Combat, name: str) -> State:
        """A knocked-out samurai lies unconscious until the start of their next turn (EN p.11, p.12)."""
        if all(p.name != name for p in state.players):
            return state  # a hostile Samurai (scenario 7) is no player
        if combat.dragon_attacks and name == state.players[state.current].name:
            return state  # the round's dragon attack came before this player's actions: they resurrect and play
        i = self._player(state, {"player": name})
        return _with(state, players=_set(state.players, i, _with(state.players[i], unconscious=True)))

    def _after_fight_turn(self, state: State, combat: Combat) -> State:
        """Whether the fight ended the active player's turn (EN p.11, p.12; a dragon's attack, EN p.15: no)."""
        fight = combat.fight
        if combat.dragon_attacks or combat.cancelled:
            return state
        attacker = fight.fighters[0]
        if fight.attacker_may_continue():
            return state
        if attacker.status is FighterStatus.KNOCKED_OUT:
            reason = f"{attacker.name} was knocked out in their own turn, which ends it (EN p.11, p.12)"
        elif attacker.status is FighterStatus.SURRENDERED:
            reason = f"{attacker.name} surrendered the fight they started, which ends their turn (EN p.11, p.12)"
        else:
            reason = f"{attacker.name}'s fight was not their first action, which ends their turn (EN p.11)"
        return _with(state, turn_over=reason)

    # ---- commands --------------------------------------------------------------------------
    def _start(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        if state.phase is not Phase.SETUP:
            raise CommandError("the game has already started")
        p = state.players[state.current]
        events.append((Kind.TURN_STARTED, {"player": p.name, "round": state.round, "colour": p.colour}))
        return _with(state, phase=Phase.PLAYING)

    def _vp(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        self._require_scoring(state, "VP")
        points = command.get("points")
        if isinstance(points, bool) or not isinstance(points, int) or points == 0:
            raise CommandError(f"points must be a whole number other than 0, got {points!r}")
        raw_category = command.get("category")
        reason = command.get("reason")
        reason_text = str(reason).strip() if reason is not None else ""
        category: Category
        if raw_category is not None:
            try:
                category = Category(str(raw_category))
            except ValueError:
                raise CommandError(
                    f"unknown VP category {raw_category!r}; categories: {', '.join(CATEGORIES)}"
                ) from None
        elif reason_text.lower() in _REASON_ALIASES:
            category = _REASON_ALIASES[reason_text.lower()]
        else:
            category = Category.CORRECTION
        if category is Category.CORRECTION and not reason_text:
            raise CommandError("a VP correction needs a reason, so the table can see why the score changed")
        if state.setup.rules >= 2 and points > 0 and category in _ACTION_VP:
            state, _ = self._action_bonus(state, index, _ACTION_VP[category], command)
        return self._add_vp(state, index, points, category, events, reason=reason_text or None)

    def _action(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._turn_player(state, command, "an action")
        try:
            action = Action(str(command.get("action")))
        except ValueError:
            raise CommandError(
                f"the actions are move, explore, gather and rest (EN p.4), not {command.get('action')!r}"
            ) from None
        if state.setup.rules >= 2:
            status_token = bool(command.get("status_token", False))
            self._check_action(state, index, action, status_token=status_token)
            monk = command.get("monk_to")
            if monk is not None and (monk != "action_discs" or action is not Action.GATHER):
                raise CommandError(
                    'a gathered Monk goes to the Action Disc pool with {"monk_to": "action_discs"} (EN p.6)'
                )
            if monk is not None and state.players[index].disc_monk:
                raise CommandError(f"{state.players[index].name} already has a Monk in the Action Disc pool (EN p.6)")
            state = self._take_action(state, index, action, status_token=status_token, monk_to_discs=monk is not None)
        else:
            if state.players[index].escaped is not None:
                raise CommandError("a samurai who escaped performs no more actions, only Shogun bonuses (EN p.13)")
            if action is Action.REST and state.actions and state.actions[-1] == Action.REST.value:
                raise CommandError("you cannot Rest twice in a row (EN p.7)")
            state = _with(state, actions=(*state.actions, action.value))
        level = command.get("level")
        if action is Action.EXPLORE and level is not None:
            if level not in (1, 2, 3):
                raise CommandError(f"volcano tiles are Level I, II or III, not {level!r} (EN p.3)")
            if _scores_vp(state.setup) and level in (2, 3):
                category = Category.EXPLORE_2 if level == 2 else Category.EXPLORE_3
                state = self._add_vp(state, index, self.pack.scoring[category.value], category, events)
                if state.setup.rules >= 2:  # this Explore's VP is scored: not again by a VP tap
                    state = _with(state, bonuses=(*state.bonuses, ("explore", len(state.actions) - 1)))
        events.append(
            (
                "action",
                {
                    "player": state.players[index].name,
                    "action": action.value,
                    "actions": list(state.actions),
                    "actions_left": max(0, ACTIONS_PER_TURN - len(state.actions)),
                },
            )
        )
        return state

    def _explore(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        return self._action(state, {**command, "action": "explore", "level": command.get("level", 1)}, events)

    def _scroll(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        self._require_scoring(state, "a scroll's VP")
        if state.setup.rules >= 2:
            state, _ = self._action_bonus(state, index, "scroll", command)
        return self._add_vp(state, index, self.pack.scoring["scroll"], Category.SCROLLS, events)

    def _gear_card_vp(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        self._require_scoring(state, "the weapon card's VP")
        if state.setup.rules >= 2:
            state, _ = self._action_bonus(state, index, "gear_card", command)
        return self._add_vp(state, index, self.pack.scoring.get("weapon_card_vp", 1), Category.GEAR_CARD, events)

    def _end_turn(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        if state.setup.rules >= 2:
            self._check_end_turn(state)
            state = _with(state, eruption=(), eruption_answers=())  # an eruption is answered in the turn after it
        cd = state.countdown
        if cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE) and cd.marker == state.current:
            state = self._advance(state, events)
            if state.phase is Phase.ENDED:
                return state
        n = len(state.players)
        nxt = (state.current + 1) % n
        new_round = nxt == state.setup.start
        state = _with(
            state,
            current=nxt,
            actions=(),
            turn=state.turn + 1,
            round=state.round + (1 if new_round else 0),
            turn_over=None,
            fought=None,
            bonuses=(),
            extra_actions=0,
        )
        if state.players[nxt].unconscious:
            # EN p.11, p.12: the samurai wakes up at the beginning of their next turn.
            state = _with(state, players=_set(state.players, nxt, _with(state.players[nxt], unconscious=False)))
            events.append(("woke_up", {"player": state.players[nxt].name}))
        if state.players[nxt].on_rope:
            # EN Appendix B scenario 1: who ended their turn on the Rope Tile leaves the Volcano now.
            state = _with(state, players=_set(state.players, nxt, _with(state.players[nxt], on_rope=False)))
            events.append(("left_the_volcano", {"player": state.players[nxt].name}))
        if new_round:
            state = self._begin_round(state, events)
            if state.phase is Phase.ENDED:
                # Rules 2: the track's end came after the last round; that round is the one the game ended in.
                return _with(state, round=state.round - 1) if state.setup.rules >= 2 else state
        p = state.players[nxt]
        events.append((Kind.TURN_STARTED, {"player": p.name, "round": state.round, "colour": p.colour}))
        return state

    def _begin_round(self, state: State, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """EN p.15: at a new round the start player moves the Countdown Token, then flips the status tokens."""
        cd = state.countdown
        if cd.kind is CountdownKind.ROUNDS:
            assert cd.rounds_left is not None
            if cd.rounds_left > 1:
                state = _with(state, countdown=_with(cd, rounds_left=cd.rounds_left - 1))
                events.append(("round_track", {"rounds_left": cd.rounds_left - 1, "round": state.round}))
            else:
                lava = state.setup.scenario == 3 and not cd.lava_phase_done
                kind = CountdownKind.LAVA_PHASE if lava else CountdownKind.END_PHASE
                state = _with(
                    state,
                    countdown=Countdown(
                        kind, rounds_left=0, lava_phase_done=cd.lava_phase_done, end_triggered=not lava, lava=cd.lava
                    ),
                    phase=Phase.PLAYING if lava else Phase.FINAL,
                )
                events.append(
                    (Kind.FINAL_CHAPTER, {"player": None, "round": state.round, "phase": "lava" if lava else "end"})
                )
                if state.setup.rules < 2:
                    state = self._advance(state, events)
                # Rules 2: EN p.14 "20 rounds + 8 final rounds". The round the phase is triggered in is the
                # first of the 8, as in the competitive game (EN p.13: the triggering turn counts); the token
                # then moves one space at the start of each later round, so space 8 (the end) comes right
                # after the 8th final round instead of before it.
        elif cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE) and cd.marker is None:
            state = self._advance(state, events)
        if state.phase is Phase.ENDED:
            return state
        if state.setup.mode is Mode.COOP:
            flipped = []
            for dragon, status in state.dragons:
                if status is DragonStatus.AWAKE:
                    status = DragonStatus.MOVING
                elif status is DragonStatus.SLEEPING:
                    status = DragonStatus.AWAKE
                flipped.append((dragon, status))
            state = _with(state, dragons=tuple(flipped))
            moving = [d for d, s in state.dragons if s is DragonStatus.MOVING]
            if moving:
                events.append(
                    (
                        "dragons_move",
                        {
                            "dragons": moving,
                            "round": state.round,
                            "rule": "each moves 1 tile toward the nearest visible samurai",
                        },
                    )
                )
        elif self.pack.scenarios[state.setup.scenario].extras.get("dragons_move"):
            moving = [d for d, s in state.dragons if s is DragonStatus.REVEALED]
            if moving:
                events.append(
                    (
                        "dragons_move",
                        {
                            "dragons": moving,
                            "round": state.round - 1,
                            "rule": "each moves 1 tile toward the nearest samurai; not if two are equally near",
                        },
                    )
                )
        if state.setup.scenario == 4:
            events.append(
                (
                    "monks_move",
                    {"round": state.round - 1, "rule": "each monk moves 2 spaces toward the nearest samurai"},
                )
            )
        return state

    def _dragon_revealed(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        dragon = str(command.get("dragon"))
        if state.dragon(dragon) is not DragonStatus.HIDDEN:
            raise CommandError(f"dragon {dragon} is already on the board")
        status = DragonStatus.SLEEPING if state.setup.mode is Mode.COOP else DragonStatus.REVEALED
        state = _with(state, dragons=_set_dragon(state.dragons, dragon, status))
        events.append(("dragon_revealed", {"dragon": dragon, "status": status.value}))
        if state.setup.scenario == 5 and state.setup.mode is Mode.COMPETITIVE:
            players = list(state.players)
            for i, p in enumerate(players):
                if p.escaped is not None:
                    players[i] = _with(p, escaped=None)
                    events.append(("returned", {"player": p.name, "rule": "scenario 5: escaped samurai return"}))
            state = _with(state, players=tuple(players))
        return state

    def _dragon_defeated(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        dragon_id = str(command.get("dragon"))
        status = state.dragon(dragon_id)
        if status is DragonStatus.DEFEATED:
            raise CommandError(f"dragon {dragon_id} was already defeated and removed from the game (EN p.11)")
        names = command.get("players")
        if not isinstance(names, list) or not names:
            raise CommandError("a defeated dragon needs the list of players still in the combat")
        indices = [self._player(state, {"player": n}) for n in names]
        if len(set(indices)) != len(indices):
            raise CommandError("each player is listed once in a combat")
        if state.setup.scenario == 1 and len(indices) > 1:
            raise CommandError("in scenario 1 a dragon combat cannot be joined by another samurai (EN Appendix B)")
        dragon = self.pack.dragons[dragon_id]
        colour = self.pack.colours[dragon.colour]
        extras = self.pack.scenarios[state.setup.scenario].extras
        final_blow = command.get("final_blow")
        if extras.get("trophies"):
            if final_blow is None and len(indices) == 1:
                final_blow = names[0]
            if final_blow not in names:
                raise CommandError(
                    "in scenario 2 the player who dealt the final blow keeps the dragon, so name them "
                    "in final_blow (one of the players in the combat)"
                )
        state = _with(state, dragons=_set_dragon(state.dragons, dragon_id, DragonStatus.DEFEATED), fight=None)
        health = self.pack.dragon_health(
            dragon, mode=state.setup.mode.value, players=len(state.players), scenario=state.setup.scenario
        )
        events.append((Kind.DRAGON_HEALTH, {"dragon": dragon_id, "health": 0, "max": health}))
        events.append(("dragon_defeated", {"dragon": dragon_id, "colour": dragon.colour, "players": list(names)}))
        if state.setup.mode is Mode.COOP:
            state = _with(state, group_teeth=state.group_teeth + colour.coop_teeth)
            if state.setup.scenario == 6 and dragon.is_legendary:
                return self._finish(
                    state, events, "the Legendary Dragon was killed instead of tamed, so everyone loses", won=False
                )
        for i in indices:
            if _scores_vp(state.setup):
                state = self._add_vp(state, i, colour.vp, Category.DRAGONS, events)
            if state.setup.mode is Mode.COMPETITIVE and state.setup.scenario != 1:
                p = state.players[i]
                state = _with(state, players=_set(state.players, i, _with(p, teeth=p.teeth + 1)))
        if extras.get("trophies") and final_blow is not None:
            i = names.index(final_blow)
            p = state.players[indices[i]]
            state = _with(state, players=_set(state.players, indices[i], _with(p, trophies=(*p.trophies, dragon_id))))
        return state

    def _record_dragon_defeated(
        self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]
    ) -> State:
        """A dragon fight played at the table without the fight screen, told by its result: the same turn
        rules as a fight the app runs (rules version 2). The player whose turn it is started it with a Move
        (EN p.10) and the others joined; nobody unconscious (EN p.11, p.12); a dragon on the board (EN p.5);
        a fight that was not the first action ends the turn (EN p.11)."""
        if state.setup.rules < 2:
            return self._dragon_defeated(state, command, events)
        dragon_id = str(command.get("dragon"))
        if state.dragon(dragon_id) is DragonStatus.HIDDEN:
            raise CommandError(f"{dragon_id} has not been revealed: a dragon is fought once an Explore turned it up "
                               "(EN p.5)")
        names = command.get("players")
        if isinstance(names, list):
            for name in names:
                self._check_can_fight(state, self._player(state, {"player": name}), "join a fight")
            active = state.players[state.current].name
            if active not in names:
                raise CommandError(f"a dragon fight is started by the player whose turn it is ({active}) with a Move, "
                                   "and the others join it (EN p.10)")
        state, first = self._fight_move(state, command)
        state = self._dragon_defeated(state, command, events)
        if not first:
            active = state.players[state.current].name
            state = _with(state, turn_over=f"{active}'s fight was not their first action, which ends their turn "
                                           "(EN p.11)")
        return state

    def _dragon_health(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """The dragon health track during a fight (EN p.11): set it, and the table display follows."""
        dragon_id = str(command.get("dragon"))
        if state.dragon(dragon_id) is DragonStatus.DEFEATED:
            raise CommandError(f"dragon {dragon_id} was already defeated and removed from the game (EN p.11)")
        dragon = self.pack.dragons[dragon_id]
        full = self.pack.dragon_health(
            dragon, mode=state.setup.mode.value, players=len(state.players), scenario=state.setup.scenario
        )
        health = command.get("health", full)
        if isinstance(health, bool) or not isinstance(health, int) or not 1 <= health <= full:
            raise CommandError(
                f"{dragon_id}'s health is 1 to {full} on the track (a defeat is dragon_defeated), got {health!r}"
            )
        events.append((Kind.DRAGON_HEALTH, {"dragon": dragon_id, "health": health, "max": full}))
        return _with(state, fight=(dragon_id, health))

    def _roll_of(self, command: Command) -> DiceRoll:
        source = command.get("source", "app")
        try:
            if source == "app":
                kinds = command.get("dice")
                seed = command.get("seed")
                if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
                    raise CommandError('an app roll names its dice, such as {"dice": ["tooth", "tooth"]}')
                if isinstance(seed, bool) or not isinstance(seed, int):
                    raise CommandError("an app roll carries its seed so that a replay rolls the same faces")
                return roll(kinds, self.pack.dice, seed=seed)
            if source in ("hand", "tray"):
                faces = command.get("faces")
                if not isinstance(faces, list) or not faces:
                    raise CommandError(
                        'hand-entered dice list their faces, such as {"faces": [["tooth", "3"], ["wood", "0b"]]}'
                    )
                # Faces as typed: 3, "3" or "0b" (DiceRoll.to_json writes plain faces as text).
                normalised = [
                    [f[0], int(f[1]) if isinstance(f[1], str) and f[1].isdigit() else f[1]]
                    if isinstance(f, list) and len(f) == 2
                    else f
                    for f in faces
                ]
                parsed = DiceRoll.from_json({"dice": normalised, "source": source})
                return from_faces([(d.kind, d.face) for d in parsed.dice], self.pack.dice, DiceSource(source))
        except DiceError as error:
            raise CommandError(str(error)) from None
        raise CommandError(f"dice come from the app, by hand or from a tray, not {source!r}")

    def _roll(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        dice = self._roll_of(command)
        events.append(
            (
                "dice_rolled",
                {"roll": dice.to_json(), "hits": dice.hits, "broken": dice.broken(), "purpose": command.get("purpose")},
            )
        )
        return _with(state, last_roll=dice)

    def _escape(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._turn_player(state, command, "escaping the volcano")
        p = state.players[index]
        if p.escaped is not None:
            raise CommandError(f"{p.name} has already escaped the volcano")
        try:
            via = Exit(str(command.get("via", "rope")))
        except ValueError:
            raise CommandError("a samurai escapes by the rope or the secret_exit (EN p.13)") from None
        if state.setup.rules >= 2:
            self._check_escape(state, index, via, command)
        if via is Exit.ROPE and not state.countdown.rope:
            raise CommandError(
                "the Rope Tile is not on the Central Tile yet; it appears on its countdown space (EN p.13)"
            )
        if via is Exit.SECRET_EXIT and state.setup.scenario == 1:
            raise CommandError("scenario 1 does not use the Secret Exit (EN Appendix B)")
        if state.setup.scenario == 5:
            alive = [d for d, s in state.dragons if s not in (DragonStatus.HIDDEN, DragonStatus.DEFEATED)]
            if alive:
                raise CommandError(f"in scenario 5 no one escapes while a visible dragon lives ({', '.join(alive)}) "
                                   "(EN Appendix B scenario 5)")
        raw = command.get("tokens", {})
        if not isinstance(raw, dict) or set(raw) - set(TOKEN_KINDS):
            raise CommandError(f"escape tokens are a mapping of {', '.join(TOKEN_KINDS)} to counts")
        counts: dict[str, int] = {}
        for kind in TOKEN_KINDS:
            value = raw.get(kind, 0)
            if isinstance(value, bool):
                value = int(value)
            if not isinstance(value, int) or value < 0:
                raise CommandError(f"the number of {kind} tokens must be a whole number of at least 0, got {value!r}")
            if kind in GEAR and value > 1:
                raise CommandError(f"a samurai has at most 1 magical {kind} to show the Shogun")
            counts[kind] = value
        order = state.escapes + 1
        magical = p.magical | {g for g in GEAR if counts[g]}
        # Scenario 1 (rules 2): the samurai ends the turn on the Rope Tile and leaves at the start of their
        # next turn (EN Appendix B scenario 1): no Shogun bonus before then, no escape if the game ends first.
        on_rope = state.setup.rules >= 2 and state.setup.scenario == 1 and via is Exit.ROPE
        player = _with(p, escaped=via, escape_order=p.escape_order or order, tokens=Tokens(**counts),
                       magical=magical, on_rope=on_rope)
        state = _with(state, players=_set(state.players, index, player), escapes=order)
        events.append(("escaped", {"player": p.name, "via": via.value, "order": order}))
        return state

    def _check_escape(self, state: State, index: int, via: Exit, command: Command) -> None:
        """Escaping ends the turn on a Rope (EN p.13); in coop through the Secret Exit with magical gear (EN p.14)."""
        p = state.players[index]
        if state.combat is not None and state.combat.is_active:
            raise CommandError("a fight is being played, so escaping waits until it is over (EN p.10)")
        if state.turn_over is None and len(state.actions) < ACTIONS_PER_TURN:
            raise CommandError(
                f"a samurai escapes by ending the turn on a Rope, after the turn's 2 actions (EN p.4, p.13), "
                f"and {p.name} has taken {len(state.actions)}"
            )
        if state.setup.mode is Mode.COOP and state.setup.scenario != 8:
            if via is Exit.ROPE:
                raise CommandError(
                    "in the cooperative mode every player must escape through the Secret Exit (EN p.14), not the Rope"
                )
            raw = command.get("tokens", {})
            shown = isinstance(raw, dict) and any(raw.get(g) for g in GEAR)
            if not p.magical and not shown:
                raise CommandError(
                    f"in the cooperative mode each player escapes with at least one completed Magical Gear item "
                    f"(EN p.14), and {p.name} has none"
                )

    def _shogun_bonus(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._turn_player(state, command, "a Shogun bonus")
        self._require_scoring(state, "a Shogun bonus")
        p = state.players[index]
        if p.escaped is None:
            raise CommandError(f"{p.name} must escape the volcano before claiming Shogun bonuses (EN p.13)")
        if p.on_rope:
            raise CommandError(f"{p.name} is on the Rope Tile and leaves the Volcano at the start of their next turn, "
                               "then claims Shogun bonuses (EN Appendix B scenario 1)")
        if p.claimed_turn == state.turn:
            raise CommandError("an escaped samurai claims one Shogun bonus per turn (EN p.13)")
        kind = str(command.get("track"))
        if kind not in TOKEN_KINDS:
            raise CommandError(f"the Shogun bonus tracks are {', '.join(TOKEN_KINDS)}, not {kind!r}")
        if p.tokens.get(kind) < 1:
            raise CommandError(f"{p.name} has no {kind} token left to hand to the Shogun")
        if p.escaped is Exit.ROPE:
            track = f"palace.{kind}"
        else:
            track = f"foot.{'blueprints' if kind in GEAR else kind}"
        spots = self._tracks.get(track, ())
        if not spots:
            raise CommandError(f"the foot of the mountain gives no VP for {kind} (EN p.13)")
        claims = dict(state.claims)
        taken = claims.get(track, 0)
        if track.startswith("foot.") and taken >= len(spots):
            raise CommandError(
                f"all {len(spots)} spots of the {track.split('.')[1]} bonus at the foot of the mountain are taken"
            )
        if track == "foot.blueprints" and state.setup.rules >= 2:
            # EN p.13: "only 1 Shogun bonus for each category" at the foot: its 3 blueprint spots are one
            # for a Magical Helmet, one for a Weapon, one for Sandals.
            if claims.get(f"foot.{kind}", 0):
                raise CommandError(f"the {kind} bonus at the foot of the mountain is taken: there is only 1 Shogun "
                                   "bonus for each category after the Secret Exit (EN p.13)")
            claims[f"foot.{kind}"] = 1
        value = spots[min(taken, len(spots) - 1)]
        claims[track] = taken + 1
        tokens = _with(p.tokens, **{kind: p.tokens.get(kind) - 1})
        player = _with(p, tokens=tokens, claimed_turn=state.turn)
        state = _with(state, players=_set(state.players, index, player), claims=tuple(sorted(claims.items())))
        events.append(("shogun_bonus", {"player": p.name, "track": track, "spot": taken + 1, "vp": value}))
        return self._add_vp(state, index, value, Category.SHOGUN, events, reason=track)

    def _magical_gear(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        gear = command.get("gear")
        if gear not in GEAR:
            raise CommandError(f"magical gear is a helmet, weapon or sandals, not {gear!r}")
        p = state.players[index]
        if state.setup.rules >= 2 and p.escaped is not None:
            raise CommandError(
                f"{p.name} escaped the volcano and takes no more actions, so their gear no longer changes (EN p.13)"
            )
        completed = bool(command.get("completed", True))
        magical = p.magical | {gear} if completed else p.magical - {gear}
        events.append(("magical_gear", {"player": p.name, "gear": gear, "completed": completed}))
        return _with(state, players=_set(state.players, index, _with(p, magical=frozenset(magical))))

    def _life_lost(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        self._require_coop(state, "Lives")
        p = state.players[index]
        lives = p.lives - 1
        state = _with(state, players=_set(state.players, index, _with(p, lives=lives)))
        events.append(("life_lost", {"player": p.name, "lives": lives, "reason": command.get("reason")}))
        if lives <= 0:
            return self._finish(state, events, f"{p.name} lost a second Life, so everyone loses (EN p.15)", won=False)
        return state

    def _status_tokens(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        self._require_scenario(state, 1, "Keeping status tokens")
        delta = command.get("delta")
        if isinstance(delta, bool) or not isinstance(delta, int) or delta == 0:
            raise CommandError(f"delta must be a whole number other than 0, got {delta!r}")
        p = state.players[index]
        if p.status_tokens + delta < 0:
            raise CommandError(f"{p.name} has only {p.status_tokens} status tokens")
        events.append(("status_tokens", {"player": p.name, "count": p.status_tokens + delta}))
        return _with(state, players=_set(state.players, index, _with(p, status_tokens=p.status_tokens + delta)))

    def _monk_defeat(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        index = self._player(state, command)
        self._require_scenario(state, 4, "Losing to a Monk")
        points = int(self.pack.scenarios[4].extras.get("monk_defeat_vp", -5))
        return self._add_vp(state, index, points, Category.SCENARIO, events, reason="defeated by a Monk")

    def _hostile_defeated(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        self._require_scenario(state, 7, "Defeating a hostile samurai")
        if state.hostile_defeated >= 3:
            raise CommandError("all 3 hostile samurai are already defeated")
        events.append(("hostile_defeated", {"count": state.hostile_defeated + 1}))
        return _with(state, hostile_defeated=state.hostile_defeated + 1)

    def _tamed(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        """A taming the table played without the fight screen (the fight screen notices it by itself)."""
        self._require_scenario(state, 6, "Taming the Legendary Dragon")
        if state.setup.rules >= 2:
            legendary = [d for d, _s in state.dragons if self.pack.dragons[d].is_legendary]
            if not any(state.dragon(d) not in (DragonStatus.HIDDEN, DragonStatus.DEFEATED) for d in legendary):
                raise CommandError("the Legendary Dragon is tamed in a fight on the Central Tile, so it must be on "
                                   "the board first (EN Appendix B scenario 6)")
        return _with(state, tamed=True)

    def _end_game(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        reason = str(command.get("reason") or "").strip()
        if not reason:
            raise CommandError('ending the game early needs a reason, such as "we ran out of time"')
        return self._finish(
            state,
            events,
            f"ended by the table: {reason}",
            won=False if state.setup.mode is Mode.COOP and state.setup.scenario != 8 else None,
        )

    # ---- fights (EN pp.10-12, coop p.15) ------------------------------------------------------
    def _active_combat(self, state: State) -> Combat:
        combat = state.combat
        if combat is None or not combat.is_active:
            raise CommandError('no fight is being played; start one with {"type": "fight_start", ...}')
        return combat

    def _fight_mode(self, state: State) -> FightMode:
        return FightMode(state.setup.mode.value)

    def _fighter_entry(self, state: State, item: Any, what: str) -> tuple[int, Combatant]:
        if not isinstance(item, dict):
            raise CommandError(f"{what} is an object such as {{\"player\": \"A\", \"gear\": {{...}}}}, got {item!r}")
        index = self._player(state, item)
        player = state.players[index]
        if player.escaped is not None:
            raise CommandError(f"{player.name} has escaped the volcano and fights no more (EN p.13)")
        data = {**item, "name": player.name}
        gear = item.get("gear")
        if isinstance(gear, dict):
            board = str(gear.get("board") or player.board).lower()
            if board != player.board:
                raise CommandError(
                    f"{player.name} plays the {player.board} board, but the gear is on the {board} board"
                )
            data["gear"] = {**gear, "board": board}
        try:
            return index, combatant_from_json(data, self.pack)
        except CombatError as error:
            raise CommandError(str(error)) from None

    def _dragon_stats(self, state: State, raw: Any) -> tuple[DragonStats, str | None]:
        mode = self._fight_mode(state)
        if raw == "monk":
            return self._monk(state), None
        if isinstance(raw, str):
            figure = self.pack.dragons.get(raw)
            if figure is None:
                raise CommandError(f"unknown dragon figure {raw!r}; figures: {', '.join(sorted(self.pack.dragons))}")
            if state.dragon(raw) is DragonStatus.DEFEATED:
                raise CommandError(f"dragon {raw} was already defeated and removed from the game (EN p.11)")
            stats = DragonStats.from_figure(
                figure, self.pack, mode=mode, players=len(state.players), scenario=state.setup.scenario
            )
            return stats, raw
        if isinstance(raw, dict):
            return typed_dragon(raw, mode), None
        raise CommandError(
            'the dragon is a figure id such as "green_1" or typed stats {"health", "initiative", "dice"}'
        )

    def _monk(self, state: State) -> DragonStats:
        """EN Appendix B scenario 4: a Monk fights with infinite Initiative, 4 Health and 4 wooden dice."""
        self._require_scenario(state, 4, "Fighting a Monk")
        extras = self.pack.scenarios[4].extras
        return DragonStats(
            name="Monk",
            colour=None,
            initiative=MONK_INITIATIVE,
            health=int(extras.get("monk_health", 4)),
            dice=int(extras.get("monk_dice", 4)),
            legendary=False,
            vp=0,
            coop_teeth=0,
            die="wood",
        )

    def _fight_start(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        raw = command.get("samurai")
        if not isinstance(raw, list) or not raw:
            raise CommandError('a fight needs "samurai": the attacker and anyone who joins, as a list')
        entries = [self._fighter_entry(state, item, "each samurai") for item in raw]
        indices = [i for i, _ in entries]
        if len(set(indices)) != len(indices):
            raise CommandError("each player is listed once in a combat")
        mode = self._fight_mode(state)
        extras = self.pack.scenarios[state.setup.scenario].extras
        dragon_attacks = bool(command.get("dragon_attacks", False))
        monk = command.get("dragon") == "monk"
        if monk:
            self._monk(state)  # scenario 4 only
            if len(indices) > 1:
                raise CommandError("a Monk Combat can't be joined by other Samurai (EN Appendix B scenario 4)")
            if any(isinstance(item, dict) and item.get("heroic_monk") not in (None, "none") for item in raw):
                raise CommandError("a Heroic Monk distracts a Dragon (EN p.10), not another Monk")
        if dragon_attacks and mode is FightMode.COMPETITIVE and not extras.get("dragons_move") and not monk:
            raise CommandError(
                "dragons move onto samurai only in the cooperative mode and when dragons are on the move (scenario 2)"
            )
        n = len(state.players)
        strict = state.setup.rules >= 2
        first_action = command.get("first_action")
        if strict:
            if not dragon_attacks and state.current in indices:
                self._check_may_act(state, state.current, "starting a fight")
            for i in indices:
                self._check_can_fight(state, i, "be attacked" if dragon_attacks else "join a fight")
            if dragon_attacks:
                if state.actions or state.current != state.setup.start:
                    raise CommandError(
                        "dragons move onto samurai at the start of a round, before the start player's actions "
                        "(EN p.15, Appendix B scenario 2)"
                    )
                attacker = command.get("dragon")
                if mode is FightMode.COOP and isinstance(attacker, str) and attacker != "monk":
                    status = state.dragon(attacker)
                    if status in (DragonStatus.SLEEPING, DragonStatus.AWAKE):
                        raise CommandError(
                            f"{attacker} still has its Status Token ({status.value}): only a dragon without one "
                            "moves at the start of a round (EN p.15)"
                        )
            else:
                if state.current not in indices:
                    raise CommandError(
                        f"the attacker is the player whose turn it is ({state.players[state.current].name}); "
                        "the others join the fight"
                    )
                state, first_action = self._fight_move(state, command)
        if dragon_attacks:
            # The samurai on the tile defend; ties between them go by turn order from the active player.
            start = state.current
        else:
            start = state.current
            if start not in indices:
                raise CommandError(
                    f"the attacker is the player whose turn it is ({state.players[start].name}); "
                    "the others join the fight"
                )
        # Joiners are asked in turn order from the attacker's left (EN p.10): that is the fight's order.
        entries.sort(key=lambda e: (e[0] - start) % n)
        stats, dragon_id = self._dragon_stats(state, command.get("dragon"))
        placed = dict(state.dragon_tokens).get(dragon_id, 0) if dragon_id and strict else 0
        tokens = command.get("damage_tokens", placed)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise CommandError(f"damage_tokens is a whole number of at least 0, got {tokens!r}")
        if tokens < placed:
            raise CommandError(
                f"{dragon_id} carries {placed} permanent Damage Tokens, and they stay when it heals (EN p.11)"
            )
        if strict and dragon_id and tokens != placed:
            state = _with(state, dragon_tokens=tuple(sorted({**dict(state.dragon_tokens), dragon_id: tokens}.items())))
        if first_action is None:
            first_action = not dragon_attacks and len(state.actions) <= 1
        try:
            fight = start_dragon_fight(
                stats,
                [c for _, c in entries],
                self.pack,
                mode=mode,
                dragon_attacks=dragon_attacks,
                damage_tokens=tokens,
                first_action=bool(first_action),
                joining_allowed=not extras.get("no_joining"),
            )
        except CombatError as error:
            raise CommandError(
                str(error) + (" (EN Appendix B scenario 1)" if "scenario" in str(error) else "")
            ) from None
        if not strict:
            fight = _with(fight, least_loss=False)  # rules 1 chose broken cubes one at a time
        combat = Combat(
            fight, dragon_id=dragon_id, max_health=stats.health, dragon_attacks=dragon_attacks, monk=monk
        )
        label = dragon_id or stats.name
        events.append(
            (
                "fight_started",
                {"dragon": label, "order": list(fight.order), "samurai": [f.name for f in fight.fighters]},
            )
        )
        events.append((Kind.DRAGON_HEALTH, {"dragon": label, "health": fight.health, "max": stats.health}))
        return _with(state, combat=combat, fight=(dragon_id, fight.health) if dragon_id else state.fight)

    def _samurai_fight_start(
        self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]
    ) -> State:
        raw_defender = command.get("defender")
        hostile = raw_defender.get("hostile") if isinstance(raw_defender, dict) else None
        if state.setup.mode is Mode.COOP and hostile is None:
            raise CommandError("samurai do not fight each other in the cooperative mode (EN p.14)")
        a_index, attacker = self._fighter_entry(state, command.get("attacker"), "the attacker")
        if hostile is not None and isinstance(raw_defender, dict):
            state, defender = self._hostile(state, raw_defender)
            d_index = -1
        else:
            d_index, defender = self._fighter_entry(state, raw_defender, "the defender")
        if a_index == d_index:
            raise CommandError("a samurai cannot fight themselves")
        if a_index != state.current:
            raise CommandError(
                f"the attacker is the player whose turn it is ({state.players[state.current].name}) (EN p.12)"
            )
        first_action = command.get("first_action")
        if state.setup.peaceful:
            raise CommandError("in the Peaceful Variant samurai fight only dragons, never each other (EN p.12)")
        if state.setup.rules >= 2:
            if d_index >= 0:
                self._check_can_fight(state, d_index, "be attacked")
            state, first_action = self._fight_move(state, command)
        if first_action is None:
            first_action = len(state.actions) <= 1
        try:
            fight = start_samurai_fight(attacker, defender, self.pack, first_action=bool(first_action))
        except CombatError as error:
            raise CommandError(str(error)) from None
        if state.setup.rules < 2:
            fight = _with(fight, least_loss=False)  # rules 1 chose broken cubes one at a time
        events.append(("fight_started", {"dragon": None, "order": list(fight.order),
                                         "samurai": [f.name for f in fight.fighters]}))
        return _with(state, combat=Combat(fight, hostile=int(hostile) if hostile is not None else None))

    def _hostile(self, state: State, raw: Mapping[str, Any]) -> tuple[State, Combatant]:
        """EN Appendix B scenario 7: a hostile Samurai guards each Temple; damage dealt to it is not repaired."""
        self._require_scenario(state, 7, "A hostile Samurai")
        number = raw.get("hostile")
        if number not in (1, 2, 3):
            raise CommandError(f"the hostile Samurai are numbered 1 to 3, one per Temple (EN Appendix B scenario 7), "
                               f"not {number!r}")
        if number in state.hostiles_out:
            raise CommandError(
                f"hostile Samurai {number} is defeated and removed from the game (EN Appendix B scenario 7)"
            )
        kept = dict(state.hostiles).get(number)
        gear = raw.get("gear")
        if kept is not None and gear is not None and gear != kept:
            raise CommandError(
                f"hostile Samurai {number} keeps the damage of earlier fights, which is not repaired "
                "(EN Appendix B scenario 7); leave out its gear"
            )
        if kept is None and not isinstance(gear, dict):
            raise CommandError(
                f"hostile Samurai {number} needs its gear for the first fight (EN Appendix B scenario 7)"
            )
        data = {**raw, "name": f"Hostile Samurai {number}", "gear": kept if kept is not None else gear}
        data.pop("hostile", None)
        try:
            return state, combatant_from_json(data, self.pack)
        except CombatError as error:
            raise CommandError(str(error)) from None

    def _fight_roll(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        combat = self._active_combat(state)
        fight = combat.fight
        spec = fight_roll_spec(fight, command, self.pack)
        removals, magic = _helmet_choices(command)
        if (removals or magic) and spec.who != DRAGON:
            raise CommandError("helmet removals are chosen when the dragon rolls")
        hit = {f.name for f in fight.fighters if f.is_in}
        for name in [*removals, *magic]:
            if name not in hit:
                raise CommandError(f"{name} is not in the fight, so the dragon's roll does not hit their helmet")
        new = play_fight_roll(fight, spec, self.pack, removals=removals, use_magic=magic)
        final_blow = combat.final_blow
        if new.outcome is FightOutcome.DRAGON_DEFEATED and fight.outcome is None:
            final_blow = spec.who.removeprefix("monk:")
        choices = tuple((name, tuple(cells), name in magic) for name, cells in removals.items())
        updated = _with(
            combat,
            fight=new,
            before_dragon=fight if spec.who == DRAGON else None,
            dragon_dice=spec.rolls[0][1] if spec.who == DRAGON else None,
            helmet_choices=choices if spec.who == DRAGON else (),
            final_blow=final_blow,
        )
        events.append(("fight_rolled", spec.to_json()))
        return self._after_fight_change(state, combat, updated, events)

    def _fight_helmet(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        combat = self._active_combat(state)
        if combat.before_dragon is None or combat.dragon_dice is None:
            raise CommandError("a helmet removal is chosen right after the dragon's roll, before anyone else rolls")
        name = state.players[self._player(state, command)].name
        before = combat.before_dragon
        if not any(f.name == name and f.is_in for f in before.fighters):
            raise CommandError(f"{name} was not hit by the dragon's roll")
        cells = _cells(command.get("cells"), "cells")
        magic = bool(command.get("magic", False))
        choices = tuple(c for c in combat.helmet_choices if c[0] != name) + ((name, cells, magic),)
        try:
            new = dragon_roll(
                before,
                combat.dragon_dice,
                self.pack,
                removals={n: c for n, c, _ in choices},
                use_magic=[n for n, _, m in choices if m],
            )
        except CombatError as error:
            raise CommandError(str(error)) from None
        events.append(("fight_helmet", {"player": name, "cells": [list(c) for c in cells], "magic": magic}))
        return self._after_fight_change(state, combat, _with(combat, fight=new, helmet_choices=choices), events)

    def _fight_retreat(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        combat = self._active_combat(state)
        name = state.players[self._player(state, command)].name
        try:
            new = retreat(combat.fight, name, self.pack)
        except CombatError as error:
            raise CommandError(str(error) + " (EN p.11)") from None
        events.append(("fight_retreat", {"player": name}))
        return self._after_fight_change(state, combat, _with(combat, fight=new, before_dragon=None), events)

    def _fight_surrender(
        self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]
    ) -> State:
        combat = self._active_combat(state)
        name = state.players[self._player(state, command)].name
        try:
            new = surrender(combat.fight, name, self.pack)
        except CombatError as error:
            raise CommandError(str(error) + " (EN p.12)") from None
        events.append(("fight_surrender", {"player": name}))
        return self._after_fight_change(state, combat, _with(combat, fight=new, before_dragon=None), events)

    def _fight_steal(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        combat = state.combat
        if combat is None or combat.fight.dragon is not None or combat.fight.winner is None or combat.cancelled:
            raise CommandError("only the winner of a samurai combat steals an item (EN p.12)")
        if combat.stolen is not None:
            raise CommandError(f"{combat.fight.winner} already stole {combat.stolen}: one item per combat (EN p.12)")
        item = command.get("item")
        if item not in STEAL_ITEMS:
            raise CommandError(f"the winner steals one {', '.join(STEAL_ITEMS)} from the backpack, not {item!r}")
        winner = combat.fight.winner
        loser = next(f.name for f in combat.fight.fighters if f.name != winner)
        state = _with(state, combat=_with(combat, stolen=str(item)))
        events.append(("fight_steal", {"winner": winner, "loser": loser, "item": item}))
        if item == "scroll" and _scores_vp(state.setup):
            # Stealing a scroll scores as gathering one; the victim keeps their VP (EN p.12).
            index = self._player(state, {"player": winner})
            state = self._add_vp(state, index, self.pack.scoring["scroll"], Category.SCROLLS, events,
                                 reason="stolen scroll")
        return state

    def _fight_cancel(self, state: State, command: Command, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        combat = self._active_combat(state)
        label = combat.label
        if combat.fight.dragon is not None:
            events.append((Kind.DRAGON_HEALTH, {"dragon": label, "health": combat.max_health,
                                                "max": combat.max_health}))
        events.append(("fight_ended", {"dragon": label, "outcome": "cancelled", "reason": command.get("reason")}))
        return _with(state, combat=_with(combat, cancelled=True, before_dragon=None),
                     fight=None if combat.dragon_id else state.fight)

    def _after_fight_change(
        self, state: State, old_combat: Combat, combat: Combat, events: list[tuple[str, Mapping[str, Any]]]
    ) -> State:
        """Carry a fight step into the game: health events, teeth, lives, and the end of the fight."""
        old, new = old_combat.fight, combat.fight
        coop = new.mode is FightMode.COOP
        defeated_now = new.outcome is FightOutcome.DRAGON_DEFEATED and old.outcome is None
        if new.dragon is not None and new.health != old.health and new.health > 0:
            events.append((Kind.DRAGON_HEALTH, {"dragon": combat.label, "health": new.health,
                                                "max": combat.max_health}))
            target = int(self.pack.scenarios[6].extras.get("legendary_target_health", 10))
            legendary = combat.dragon_id is not None and self.pack.dragons[combat.dragon_id].is_legendary
            if state.setup.scenario == 6 and legendary and new.health <= target and not state.tamed:
                # Appendix B scenario 6: its Health at 10 or below on the Central Tile tames it; with every
                # objective achieved the players win at once (EN p.15).
                state = _with(state, tamed=True)
                events.append(("tamed", {"dragon": combat.dragon_id, "health": new.health}))
        players = list(state.players)
        if not coop:
            for before, after in zip(old.fighters, new.fighters, strict=True):
                # Teeth broken off the dragon during the fight; the defeat's own tooth comes with its VP below.
                delta = after.teeth - before.teeth - (1 if defeated_now and after.is_in else 0)
                if delta:
                    i = self._player(state, {"player": after.name})
                    players[i] = _with(players[i], teeth=players[i].teeth + delta)
        pool = new.teeth_pool - old.teeth_pool - (new.dragon.coop_teeth if defeated_now and new.dragon else 0)
        health_track = state.fight
        if combat.dragon_id is not None and not new.is_over:
            health_track = (combat.dragon_id, new.health)
        state = _with(state, players=tuple(players), group_teeth=state.group_teeth + pool, combat=combat,
                      fight=health_track)
        if state.setup.rules >= 2:
            for before, after in zip(old.fighters, new.fighters, strict=True):
                if before.is_in and after.status is FighterStatus.KNOCKED_OUT:
                    state = self._knocked_out(state, combat, after.name)
        if coop and new.dragon is not None:
            for before, after in zip(old.fighters, new.fighters, strict=True):
                if before.is_in and after.status is FighterStatus.KNOCKED_OUT:
                    # Coop: being knocked out by a dragon costs a Life (EN p.15), at once.
                    state = self._life_lost(
                        state, {"player": after.name, "reason": f"knocked out by {combat.label}"}, events
                    )
                    if state.phase is Phase.ENDED:
                        return state
        if new.is_over and not old.is_over:
            state = self._fight_ended(state, combat, events)
        return state

    def _fight_ended(self, state: State, combat: Combat, events: list[tuple[str, Mapping[str, Any]]]) -> State:
        fight = combat.fight
        label = combat.label
        payload: dict[str, Any] = {
            "dragon": label if fight.dragon is not None else None,
            "outcome": fight.outcome.value if fight.outcome else None,
            "standing": [f.name for f in fight.fighters if f.is_in],
            "knocked_out": [f.name for f in fight.fighters if f.status is FighterStatus.KNOCKED_OUT],
            "retreated": [f.name for f in fight.fighters if f.status is FighterStatus.RETREATED],
            "attacker_may_continue": fight.attacker_may_continue(),
        }
        if state.setup.rules >= 2:
            state = self._after_fight_turn(state, combat)
            payload["turn_over"] = state.turn_over
        if fight.dragon is None and combat.hostile is not None:
            number = combat.hostile
            hostile_gear = fight.fighters[1].gear.to_json()
            state = _with(state, hostiles=tuple(sorted({**dict(state.hostiles), number: hostile_gear}.items())))
            if fight.winner != fight.fighters[1].name:
                state = _with(state, hostiles_out=(*state.hostiles_out, number))
                state = self._hostile_defeated(state, {}, events)
        if fight.dragon is None:
            loser = next(f.name for f in fight.fighters if f.name != fight.winner)
            payload.update(
                winner=fight.winner,
                loser=loser,
                steal=list(STEAL_ITEMS),
                loser_turn_ends=loser == state.players[state.current].name,
            )
            events.append(("fight_ended", payload))
            return state
        dragon = fight.dragon
        if combat.monk:
            return self._monk_fight_ended(state, combat, payload, events)
        if fight.outcome is FightOutcome.DRAGON_DEFEATED:
            names = payload["standing"]
            payload["final_blow"] = combat.final_blow
            if combat.dragon_id is not None:
                command = {"dragon": combat.dragon_id, "players": names, "final_blow": combat.final_blow}
                state = self._dragon_defeated(state, command, events)
            else:
                # Typed stats: the same rewards, without a figure to remove or keep as a trophy.
                events.append((Kind.DRAGON_HEALTH, {"dragon": label, "health": 0, "max": combat.max_health}))
                if state.setup.mode is Mode.COOP:
                    state = _with(state, group_teeth=state.group_teeth + dragon.coop_teeth)
                for name in names:
                    i = self._player(state, {"player": name})
                    if _scores_vp(state.setup):
                        state = self._add_vp(state, i, dragon.vp, Category.DRAGONS, events)
                    if state.setup.mode is Mode.COMPETITIVE and state.setup.scenario != 1:
                        p = state.players[i]
                        state = _with(state, players=_set(state.players, i, _with(p, teeth=p.teeth + 1)))
        else:
            # Every samurai is out: the dragon heals fully; permanent damage tokens stay (EN p.11).
            events.append(
                (Kind.DRAGON_HEALTH, {"dragon": label, "health": combat.max_health, "max": combat.max_health})
            )
            state = _with(state, fight=None if combat.dragon_id else state.fight)
        events.append(("fight_ended", payload))
        return state

    def _monk_fight_ended(
        self, state: State, combat: Combat, payload: dict[str, Any], events: list[tuple[str, Mapping[str, Any]]]
    ) -> State:
        """EN Appendix B scenario 4: a conquered Monk joins the player's board; a Monk's win costs 5 VP."""
        fight = combat.fight
        if fight.outcome is FightOutcome.DRAGON_DEFEATED:
            events.append(("monk_conquered", {"players": payload["standing"],
                                              "rule": "the Monk goes on the Player Board (EN Appendix B scenario 4)"}))
        else:
            events.append((Kind.DRAGON_HEALTH, {"dragon": "Monk", "health": combat.max_health,
                                                "max": combat.max_health}))
            for name in payload["knocked_out"]:
                state = self._monk_defeat(state, {"player": name}, events)
        events.append(("fight_ended", payload))
        return state

    def _describe_fight(self, state: State, command: Command) -> str:
        kind = command.get("type")
        combat = state.combat
        try:
            if kind == "fight_start":
                raw = command.get("samurai")
                seats = {p.name: i for i, p in enumerate(state.players)}
                names = [str(s.get("player")) for s in raw if isinstance(s, dict)] if isinstance(raw, list) else []
                # The attacker (whose turn it is) first, then the joiners from their left, as in the fight.
                names.sort(key=lambda n: (seats.get(n, 0) - state.current) % len(state.players))
                stats, dragon_id = self._dragon_stats(state, command.get("dragon"))
                who = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]
                verb = "defends against" if command.get("dragon_attacks") else "fights"
                if len(names) > 1:
                    verb = "defend against" if command.get("dragon_attacks") else "fight"
                return f"{who} {verb} {dragon_id or stats.name} (health {stats.health})"
            if kind == "samurai_fight_start":
                a, d = command.get("attacker"), command.get("defender")
                a_name = a.get("player") if isinstance(a, dict) else a
                d_name = d.get("player") if isinstance(d, dict) else d
                if d_name is None and isinstance(d, dict) and "hostile" in d:
                    d_name = f"hostile Samurai {d['hostile']}"
                return f"{a_name} attacks {d_name} (samurai combat)"
            if kind == "fight_roll" and combat is not None:
                return describe_fight_roll(combat.fight, fight_roll_spec(combat.fight, command, self.pack))
            if kind == "fight_helmet" and combat is not None and combat.before_dragon is not None:
                name = str(command.get("player"))
                helmet = combat.before_dragon.fighter(name).gear.cubes("helmet")
                cells = _cells(command.get("cells"), "cells")
                return f"{name} chooses the helmet removal: {_cube_counts(helmet, cells, bool(command.get('magic')))}"
            if kind == "fight_retreat":
                return f"{command.get('player')} retreats from the fight"
            if kind == "fight_surrender":
                return f"{command.get('player')} surrenders"
            if kind == "fight_steal" and combat is not None:
                winner = combat.fight.winner
                loser = next((f.name for f in combat.fight.fighters if f.name != winner), "?")
                return f"{winner} steals a {command.get('item')} from {loser}"
            if kind == "fight_cancel":
                return "Abandon the fight" + (f" ({command['reason']})" if command.get("reason") else "")
        except (CommandError, CombatError, KeyError):
            pass
        return str(kind).replace("_", " ").capitalize()

    def _combat_json(self, combat: Combat | None) -> dict[str, Any] | None:
        if combat is None:
            return None
        fight = combat.fight
        data = fight.to_json()
        who = fight.whose_turn() if combat.is_active else None
        data.update(
            dragon_id=combat.dragon_id,
            max_health=combat.max_health,
            active=combat.is_active,
            cancelled=combat.cancelled,
            final_blow=combat.final_blow,
            stolen=combat.stolen,
            whose_turn=who,
            attacker_may_continue=fight.attacker_may_continue(),
            can_retreat=[f.name for f in fight.fighters if f.broke_this_turn and f.is_in] if combat.is_active else [],
            helmet_choice_open=combat.is_active and combat.before_dragon is not None,
        )
        if who is not None:
            data["dice_to_roll"] = [{"hand": hand, "dice": kinds} for hand, kinds in _actor_dice(fight, who, self.pack)]
        return data

    # ---- output ----------------------------------------------------------------------------
    def state_json(self, state: State) -> dict[str, Any]:
        setup = state.setup
        cd = state.countdown
        current = state.players[state.current]
        data: dict[str, Any] = {
            "game": GAME_NAME,
            "pack_version": self.pack.version,
            "mode": setup.mode.value,
            "scenario": setup.scenario,
            "scenario_name": self.pack.scenarios[setup.scenario].name,
            "adventure_tokens": setup.adventure_tokens,
            "phase": state.phase.value,
            "current_player": current.name,
            "start_player": setup.players[setup.start].name,
            "round": state.round,
            "turn": state.turn,
            "actions": list(state.actions),
            "actions_left": self._actions_left(state),
            "rules": setup.rules,
            "turn_over": state.turn_over,
            "why_not": self.why_not(state),
            "scores": {p.name: p.vp for p in state.players},
            "countdown": {
                "active": cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE),
                "position": cd.position if cd.kind in (CountdownKind.LAVA_PHASE, CountdownKind.END_PHASE) else None,
                "kind": cd.kind.value,
                "marker_after": state.players[cd.marker].name if cd.marker is not None else None,
                "rounds_left": cd.rounds_left,
                "rope": cd.rope,
                "lava": list(cd.lava),
                "threshold": self.pack.scenarios[setup.scenario].threshold if _scores_vp(setup) else None,
            },
            "players": [
                {
                    "name": p.name,
                    "colour": p.colour,
                    "board": p.board,
                    "vp": p.vp,
                    "categories": {c.value: p.by_category[i] for i, c in enumerate(CATEGORIES)},
                    "teeth": p.teeth,
                    "escaped": p.escaped.value if p.escaped else None,
                    "escape_order": p.escape_order,
                    "on_rope": p.on_rope,
                    "tokens": p.tokens.to_json(),
                    "bonus_claimed_this_turn": p.claimed_turn == state.turn,
                    "lives": p.lives if setup.mode is Mode.COOP else None,
                    "magical_gear": sorted(p.magical),
                    "status_tokens": p.status_tokens,
                    "trophies": list(p.trophies),
                    "unconscious": p.unconscious,
                    "action_discs": {"used": p.discs_used, "total": self._disc_capacity(p)},
                    "weapon_card_action": p.card_action,
                }
                for p in state.players
            ],
            "dragons": {d: s.value for d, s in state.dragons if s is not DragonStatus.HIDDEN},
            "dragon_damage_tokens": dict(state.dragon_tokens),
            "eruption": {"lava": list(state.eruption), "answered": list(state.eruption_answers)}
            if state.eruption
            else None,
            "shogun_claims": dict(state.claims),
            "vp_history": [
                {
                    "turn": v.turn,
                    "round": v.round,
                    "player": v.player,
                    "category": v.category,
                    "points": v.points,
                    "total": v.total,
                }
                for v in (state.history or ())
            ],
            "last_roll": state.last_roll.to_json() if state.last_roll else None,
            "fight": {"dragon": state.fight[0], "health": state.fight[1]} if state.fight else None,
            "combat": self._combat_json(state.combat),
            "setup_checklist": setup_checklist(setup, self.pack),
        }
        if setup.mode is Mode.COOP:
            data["objectives"] = [{"text": t, "done": d} for t, d in self.objectives(state)]
            data["group_teeth"] = state.group_teeth
            data["moving_dragons"] = [d for d, s in state.dragons if s is DragonStatus.MOVING]
        if state.ending is not None:
            data["ending"] = {
                "reason": state.ending.reason,
                "won": state.ending.won,
                "ranking": [{"player": n, "vp": vp, "rank": r} for n, vp, r in state.ending.ranking],
            }
        return data

    def why_not(self, state: State) -> dict[str, Any]:
        """Why each table button is refused now (None: allowed), by the very checks the commands run.

        Buttons: move, explore, gather, rest, end_turn, scroll, gear_card_vp; "fight": the active player
        starting a fight; "join": per player, why they cannot join a fight or be attacked.
        """
        out: dict[str, Any] = {}
        if state.phase is Phase.ENDED:
            return {key: "the game has ended" for key in (*_BUTTONS, "fight")} | {"join": {}}
        for key, command in _BUTTONS.items():
            prepared = {**command, "player": state.players[state.current].name} if key != "end_turn" else command
            if key in ("scroll", "gear_card_vp") and not _scores_vp(state.setup):
                out[key] = "players gain no VP in the cooperative mode (EN p.15)"
                continue
            try:
                self.apply(state, prepared)
                out[key] = None
            except CommandError as error:
                out[key] = str(error)
        try:
            self._why_not_fight(state)
            out["fight"] = None
        except CommandError as error:
            out["fight"] = str(error)
        join: dict[str, str | None] = {}
        for i, p in enumerate(state.players):
            try:
                if p.escaped is not None:
                    raise CommandError(f"{p.name} has escaped the volcano and fights no more (EN p.13)")
                self._check_can_fight(state, i, "join a fight")
                join[p.name] = None
            except CommandError as error:
                join[p.name] = str(error)
        out["join"] = join
        return out

    def _why_not_fight(self, state: State) -> None:
        if state.setup.rules < 2:
            return
        if state.combat is not None and state.combat.is_active:
            raise CommandError("a fight is being played; finish it before starting another (EN p.10)")
        self._fight_move(state, {})

    def _actions_left(self, state: State) -> int:
        if state.turn_over is not None or state.players[state.current].escaped is not None:
            return 0
        return max(0, ACTIONS_PER_TURN + state.extra_actions - len(state.actions))

    def result(self, state: State) -> Result | None:
        ending = state.ending
        if ending is None:
            return None
        coop = state.setup.mode is Mode.COOP and state.setup.scenario != 8
        ranks = {name: rank for name, _, rank in ending.ranking}
        players = []
        for i, p in enumerate(state.players):
            winner = bool(ending.won) if ending.won is not None else ranks[p.name] == 1
            players.append(
                PlayerResult(
                    name=p.name,
                    score=p.vp,
                    rank=1 if coop else ranks[p.name],
                    winner=winner,
                    start_player=i == state.setup.start,
                    colour=p.colour,
                    categories={c.value: p.by_category[j] for j, c in enumerate(CATEGORIES)},
                    tiebreak=escape_tiebreak(p.escape_order),
                )
            )
        scenario = state.setup.scenario
        return Result("Fuji Koro", BGG_ID, coop, tuple(players), ending.reason,
                      variant=f"scenario {scenario}" if scenario else None)


# ------------------------------------------------------------------------------------------------
# Fights: the session's side of :mod:`games.fujikoro.combat`
#
# Commands (each a JSON object; "player" names are the game's players):
#   fight_start          {"dragon": "green_1" | {"health", "initiative", "dice", ...}, "samurai": [{"player",
#                         "gear": <gear-inspect input>, "heroic_monk", "monk_from", "blueprints"}, ...],
#                         "dragon_attacks": false, "first_action": true, "damage_tokens": 0}
#   samurai_fight_start  {"attacker": {"player", "gear", ...}, "defender": {...}, "first_action"}
#   fight_roll           whoever acts next: {"dice": [[kind, face], ...]} (hand; per weapon a list of such
#                         lists, or "weapons": [{"hand", "dice", "breaks"}]), or no dice = the app rolls with
#                         the "seed" recorded in the command (an undo barrier). For the dragon, "removals":
#                         {player: [[row, col], ...]} and "magic": [player, ...] choose helmet removals.
#   fight_helmet         {"player", "cells": [[row, col], ...], "magic": bool}: a player's own removal, right
#                         after the dragon's roll (the roll is re-applied with it)
#   fight_retreat / fight_surrender {"player"}; fight_steal {"item": blueprint|monk|scroll|resource};
#   fight_cancel {"reason"}: drop the fight without a result.

STEAL_ITEMS = ("blueprint", "monk", "scroll", "resource")
MONK_INITIATIVE = 10**6  # EN Appendix B scenario 4: "infinite" (the Czech rulebook says 4)
_KIND_LETTERS = {"w": "wood", "m": "metal", "t": "tooth", "x": "magic"}
_ACTION_NAMES = {Action.MOVE: "a Move", Action.EXPLORE: "an Explore", Action.GATHER: "a Gather", Action.REST: "a Rest"}
# The buttons of the table whose refusal the app shows beside them (see FujiKoro.why_not).
_BUTTONS: dict[str, dict[str, Any]] = {
    "move": {"type": "action", "action": "move"},
    "explore": {"type": "action", "action": "explore", "level": 1},
    "gather": {"type": "action", "action": "gather"},
    "rest": {"type": "action", "action": "rest"},
    "end_turn": {"type": "end_turn"},
    "scroll": {"type": "scroll"},
    "gear_card_vp": {"type": "gear_card_vp"},
}


@dataclass(frozen=True, slots=True)
class Combat:
    """A fight played through the session: the engine's snapshot and what the game needs around it."""

    fight: Fight
    dragon_id: str | None = None  # the data-pack figure; None for typed stats and samurai combat
    max_health: int = 0
    before_dragon: Fight | None = None  # the fight before the dragon's last roll, while removals may change
    dragon_dice: DiceRoll | None = None
    helmet_choices: tuple[tuple[str, tuple[tuple[int, int], ...], bool], ...] = ()
    final_blow: str | None = None
    stolen: str | None = None
    cancelled: bool = False
    dragon_attacks: bool = False  # a dragon moved onto the samurai (coop, scenario 2): nobody's action
    monk: bool = False  # scenario 4: the opponent is a Monk to conquer, not a dragon
    hostile: int | None = None  # scenario 7: the hostile Samurai (1-3) defending

    @property
    def is_active(self) -> bool:
        return not self.fight.is_over and not self.cancelled

    @property
    def label(self) -> str:
        if self.dragon_id is not None:
            return self.dragon_id
        return self.fight.dragon.name if self.fight.dragon is not None else "samurai combat"


@dataclass(frozen=True, slots=True)
class FightRollSpec:
    """One fight_roll resolved against the fight: who rolls which dice (and which cubes break)."""

    who: str  # a samurai's name, "dragon", or "monk:NAME"
    rolls: tuple[tuple[str, DiceRoll], ...]  # (hand, dice); the hand is "" for the dragon and monks
    breaks: tuple[tuple[tuple[int, int], ...], ...]
    source: DiceSource
    seed: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "who": self.who,
            "rolls": [{"hand": hand, **dice.to_json()} for hand, dice in self.rolls],
            "hits": sum(d.hits for _, d in self.rolls),
            "broken": sum(d.broken() for _, d in self.rolls),
            "source": self.source.value,
            "seed": self.seed,
        }


def typed_dragon(raw: Mapping[str, Any], mode: FightMode) -> DragonStats:
    """Dragon stats typed in: health, initiative and dice, optionally name, colour, legendary, vp, coop_teeth."""

    def number(key: str, default: int | None = None, low: int = 0) -> int:
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise CommandError(f"dragon.{key} must be a whole number of at least {low}, got {value!r}")
        return value

    colour = raw.get("colour")
    return DragonStats(
        name=str(raw.get("name") or "dragon"),
        colour=None if colour is None else str(colour),
        initiative=number("initiative"),
        health=number("health", low=1),
        dice=number("dice", low=1),
        legendary=bool(raw.get("legendary", False)),
        vp=number("vp", 0),
        coop_teeth=number("coop_teeth", 0),
    )


def _actor_dice(fight: Fight, who: str, pack: DataPack) -> list[tuple[str, list[str]]]:
    """The dice whoever acts next rolls: per weapon for a samurai, one group for the dragon or a monk."""
    if who.startswith("monk:"):
        return [("", [str(fight.fighter(who.removeprefix("monk:")).heroic_monk)])]
    if who == DRAGON:
        assert fight.dragon is not None
        return [("", [fight.dragon.die] * fight.dragon.dice)]
    return fight.dice_to_roll(who, pack)


def _is_app_fight_roll(command: Command) -> bool:
    return command.get("dice") is None and command.get("weapons") is None


def _is_die(item: Any, pack: DataPack) -> bool:
    return not isinstance(item, list) or (len(item) == 2 and isinstance(item[0], str) and item[0] in pack.dice)


def _hand_dice(label: str, items: Any, kinds: list[str], pack: DataPack, source: DiceSource) -> DiceRoll:
    """Typed faces: [kind, face] pairs, or bare faces taken in the order of the dice to roll."""
    if not isinstance(items, list):
        raise CommandError(f"{label}: the dice are a list such as [[\"tooth\", 3], [\"tooth\", \"0b\"]]")
    if len(items) > len(kinds):
        raise CommandError(f"{label} rolls at most {len(kinds)} dice ({', '.join(kinds)}), not {len(items)}")
    faces = []
    for i, item in enumerate(items):
        kind, face = (item[0], item[1]) if isinstance(item, list) and len(item) == 2 else (kinds[i], item)
        kind = _KIND_LETTERS.get(kind, kind)
        if isinstance(face, str) and face.isdigit():
            face = int(face)
        try:
            faces.append((kind, parse_face(f"{label} die {i + 1}", face)))
        except DataPackError as error:
            raise CommandError(str(error)) from None
    try:
        return from_faces(faces, pack.dice, source)
    except DiceError as error:
        raise CommandError(f"{label}: {error}") from None


def _cells(raw: Any, key: str) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in c)
        for c in raw
    ):
        raise CommandError(f"{key} is a list of [row, column] cells, got {raw!r}")
    return tuple((c[0], c[1]) for c in raw)


def _helmet_choices(command: Command) -> tuple[dict[str, tuple[tuple[int, int], ...]], list[str]]:
    raw = command.get("removals") or {}
    if not isinstance(raw, dict):
        raise CommandError("removals maps a player to the helmet cells they remove")
    magic = command.get("magic") or []
    if not isinstance(magic, list) or not all(isinstance(m, str) for m in magic):
        raise CommandError("magic lists the players whose removal includes the helmet's magical cube")
    return {str(k): _cells(v, f"removals.{k}") for k, v in raw.items()}, list(magic)


def fight_roll_spec(fight: Fight, command: Mapping[str, Any], pack: DataPack) -> FightRollSpec:
    """Resolve a fight_roll command: typed dice (source hand or tray) or the app's seeded roll."""
    who = fight.whose_turn()
    if who is None:
        raise CommandError("the fight is over")
    expected = command.get("who")
    if expected is not None and expected != who:
        raise CommandError(f"this roll is for {expected}, but {who} rolls next")
    groups = _actor_dice(fight, who, pack)
    seed = command.get("seed")
    if _is_app_fight_roll(command):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise CommandError("an app roll carries its seed so that a replay rolls the same faces")
        rolled: tuple[tuple[str, DiceRoll], ...]
        if who == DRAGON or who.startswith("monk:"):
            rolled = ((groups[0][0], roll(groups[0][1], pack.dice, seed=seed)),)
        else:  # as games.fujikoro.combat.roll_for_turn: one seed per weapon
            rolled = tuple((hand, roll(kinds, pack.dice, seed=seed * 7 + i)) for i, (hand, kinds) in enumerate(groups))
        return FightRollSpec(who, rolled, ((),) * len(rolled), DiceSource.APP, seed)
    try:
        source = DiceSource(str(command.get("source", "hand")))
    except ValueError:
        raise CommandError(f"typed dice come by hand or from a tray, not {command.get('source')!r}") from None
    if source is DiceSource.APP:
        raise CommandError("dice the app rolls carry a seed, not faces; leave out dice to let the app roll")
    label = "the dragon" if who == DRAGON else f"{who.removeprefix('monk:')}'s heroic monk" if ":" in who else who
    kinds_by_hand = dict(groups)
    wanted: list[tuple[str, Any, Any]] = []  # (hand, dice, breaks)
    weapons = command.get("weapons")
    dice = command.get("dice")
    if weapons is not None:
        if who == DRAGON or who.startswith("monk:"):
            raise CommandError(f"{label} has no weapons; give its dice as \"dice\"")
        if not isinstance(weapons, list) or not all(isinstance(w, dict) for w in weapons):
            raise CommandError('weapons is a list of {"hand", "dice", "breaks"} objects')
        wanted = [(str(w.get("hand")), w.get("dice", []), w.get("breaks")) for w in weapons]
    elif not isinstance(dice, list):
        raise CommandError(f"{label}: the dice are a list such as [[\"tooth\", 3], [\"tooth\", \"0b\"]]")
    elif who == DRAGON or who.startswith("monk:"):
        wanted = [("", dice, None)]
    elif all(_is_die(item, pack) for item in dice) and dice:
        if len(groups) != 1:
            hands = ", ".join(h for h, _ in groups) or "none"
            raise CommandError(f"{who} has {len(groups)} usable weapons ({hands}): give the dice per weapon")
        wanted = [(groups[0][0], dice, command.get("breaks"))]
    else:
        if len(dice) > len(groups):
            raise CommandError(f"{who} has {len(groups)} usable weapon(s), not {len(dice)}")
        wanted = [(groups[i][0], d, None) for i, d in enumerate(dice) if d]
    rolls: list[tuple[str, DiceRoll]] = []
    breaks: list[tuple[tuple[int, int], ...]] = []
    for hand, items, cells in wanted:
        if hand not in kinds_by_hand:
            usable = ", ".join(kinds_by_hand) or "none"
            raise CommandError(f"{label} has no usable {hand or 'unnamed'} weapon (usable: {usable})")
        rolls.append((hand, _hand_dice(label, items, kinds_by_hand[hand], pack, source)))
        breaks.append(_cells(cells, "breaks"))
    return FightRollSpec(who, tuple(rolls), tuple(breaks), source, None)


def play_fight_roll(
    fight: Fight,
    spec: FightRollSpec,
    pack: DataPack,
    *,
    removals: Mapping[str, tuple[tuple[int, int], ...]] | None = None,
    use_magic: list[str] | None = None,
) -> Fight:
    """Apply a resolved roll to the fight; a rule the roll breaks is a CommandError."""
    try:
        if spec.who.startswith("monk:"):
            return monk_throw(fight, spec.who.removeprefix("monk:"), spec.rolls[0][1])
        if spec.who == DRAGON:
            return dragon_roll(fight, spec.rolls[0][1], pack, removals=removals, use_magic=use_magic or ())
        rolls = [WeaponRoll(hand, dice, cells) for (hand, dice), cells in zip(spec.rolls, spec.breaks, strict=True)]
        return samurai_roll(fight, spec.who, rolls, pack)
    except CombatError as error:
        raise CommandError(str(error)) from None


_HAND_NAMES = {"left": "left weapon", "right": "right weapon", "two": "two-handed weapon", "sandals": "sandals"}


def describe_fight_roll(fight: Fight, spec: FightRollSpec) -> str:
    """One line for the log: "Dragon rolls 3 dice: 3, 3, 0★ = 6 hits"."""
    if spec.who == DRAGON:
        # Scenario 4: the Monk stands in the dragon's place (EN Appendix B).
        if fight.dragon is not None and fight.dragon.name == "Monk":
            return f"The Monk rolls {spec.rolls[0][1].describe()}"
        return f"Dragon rolls {spec.rolls[0][1].describe()}"
    if spec.who.startswith("monk:"):
        name = spec.who.removeprefix("monk:")
        return f"{name}'s heroic monk throws {fight.fighter(name).heroic_monk}: {spec.rolls[0][1].describe()}"
    if not spec.rolls:
        return f"{spec.who} rolls no dice"
    if len(spec.rolls) == 1:
        return f"{spec.who} rolls {spec.rolls[0][1].describe()}"
    parts = "; ".join(f"{_HAND_NAMES.get(hand, hand)} {dice.describe()}" for hand, dice in spec.rolls)
    return f"{spec.who} rolls {parts}"


def _cube_counts(cubes: Mapping[tuple[int, int], Any], cells: tuple[tuple[int, int], ...], magic: bool) -> str:
    counts: dict[str, int] = {}
    for cell in cells:
        material = cubes.get(cell)
        name = {"W": "wood", "M": "metal", "T": "tooth"}.get(getattr(material, "value", ""), "empty cell")
        counts[name] = counts.get(name, 0) + 1
    parts = (["the magical cube"] if magic else []) + [f"{n} {k}" for k, n in counts.items()]
    return "remove " + (" and ".join(parts) if parts else "nothing")


# ------------------------------------------------------------------------------------------------


#: Commands whose own line already says the VP they give.
_SCORES_ITSELF = frozenset({"vp", "scroll", "gear_card_vp", "explore"})


def _consequences(events: tuple[tuple[str, Mapping[str, Any]], ...], *, own_vp: bool = False) -> list[str]:
    """What a command set off beyond itself, as the table would say it (EN p.13-15): undo takes it back too."""
    out: list[str] = []
    for kind, payload in events:
        if kind == Kind.VP_CHANGED and not own_vp:
            points = int(payload.get("points", 0))
            out.append(f"{payload.get('player')} {points:+d} VP")
            continue
        if kind == "fight_ended":
            out += [f"{name} is knocked out" for name in payload.get("knocked_out") or []]
        if kind == Kind.FINAL_CHAPTER:
            out.append("the Lava Phase begins" if payload.get("phase") == "lava" else "the final chapter begins")
        elif kind == Kind.COUNTDOWN_ADVANCED:
            out.append(f"the Countdown Token moves to space {payload.get('position')}")
            lava = payload.get("lava") or []
            if lava:
                out.append(f"lava erupts on {', '.join(str(n) for n in lava)}")
        elif kind == Kind.ROPE_APPEARED:
            out.append("the Rope appears")
        elif kind == "lava_phase_ended":
            out.append("the Lava Phase ends")
        elif kind == "dragon_defeated":
            out.append(f"{payload.get('dragon')} is defeated")
        elif kind == "life_lost":
            out.append(f"{payload.get('player')} loses a Life")
        elif kind == "fight_ended" and payload.get("turn_over"):
            out.append("the fight ends the turn")
        elif kind == Kind.GAME_ENDED:
            out.append("the game ends with the final scoring")
    return out


def _set(players: tuple[PlayerState, ...], index: int, player: PlayerState) -> tuple[PlayerState, ...]:
    return (*players[:index], player, *players[index + 1 :])


def _set_dragon(
    dragons: tuple[tuple[str, DragonStatus], ...], dragon: str, status: DragonStatus
) -> tuple[tuple[str, DragonStatus], ...]:
    return tuple((d, status if d == dragon else s) for d, s in dragons)


#: VP that come with one's own action (rules version 2): the action bonus each category needs.
_ACTION_VP = {
    Category.SCROLLS: "scroll",
    Category.GEAR_CARD: "gear_card",
    Category.EXPLORE_2: "explore",
    Category.EXPLORE_3: "explore",
}


def _roman(level: object) -> str:
    return {1: "I", 2: "II", 3: "III"}.get(level, str(level)) if isinstance(level, int) else str(level)


@lru_cache(maxsize=256)
def _best_sets(counts: tuple[int, ...], same: int, different: int) -> int:
    """The most bonus VP from disjoint sets of 3 dragons of one colour or 3 of different colours."""
    best = 0
    for i, c in enumerate(counts):
        if c >= 3:
            rest = tuple(x - 3 if j == i else x for j, x in enumerate(counts))
            best = max(best, same + _best_sets(rest, same, different))
    present = [i for i, c in enumerate(counts) if c]
    for a in range(len(present)):
        for b in range(a + 1, len(present)):
            for c in range(b + 1, len(present)):
                chosen = {present[a], present[b], present[c]}
                rest = tuple(x - 1 if j in chosen else x for j, x in enumerate(counts))
                best = max(best, different + _best_sets(rest, same, different))
    return best


def game_from_pack_raw(raw: Mapping[str, Any] | None) -> FujiKoro:
    """The game module over the data pack stored with a game (so replays use the values it was played with)."""
    from games.fujikoro.pack import default_pack, parse

    if raw is None:
        return FujiKoro(default_pack())
    try:
        return FujiKoro(parse(raw))
    except DataPackError as error:
        raise SetupError(f"the data pack stored with this game does not load: {error}") from None


# ------------------------------------------------------------------------------------------------
# The commands: each command type declared once (how it applies, how the log says it, whether the
# player whose turn it is is its default "player", whether a fight in play blocks it).

Events = list[tuple[str, Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class CommandSpec:
    apply: Callable[[FujiKoro, State, Command, Events], State]
    describe: Callable[[FujiKoro, State, Command, str], str]
    acts_for_current: bool = False
    blocked_in_fight: bool = False


def _say_vp(game: FujiKoro, state: State, command: Command, who: str) -> str:
    reason = command.get("reason") or command.get("category") or "correction"
    points = command.get("points")
    sign = "+" if isinstance(points, int) and points >= 0 else ""
    return f"{who} {sign}{points} VP ({reason})"


def _say_action(game: FujiKoro, state: State, command: Command, who: str) -> str:
    level = command.get("level")
    return f"{who}: {command.get('action')}" + (f" a Level {_roman(level)} tile" if isinstance(level, int) else "")


def _say_dragon_defeated(game: FujiKoro, state: State, command: Command, who: str) -> str:
    players = command.get("players") or []
    names = " and ".join(str(p) for p in players) if isinstance(players, list) else str(players)
    verb = "defeats" if isinstance(players, list) and len(players) == 1 else "defeat"
    return f"{names} {verb} {command.get('dragon')}"


def _say_roll(game: FujiKoro, state: State, command: Command, who: str) -> str:
    purpose = command.get("purpose") or ("The app" if command.get("source", "app") == "app" else "Hand")
    try:
        dice = game._roll_of(command)
    except CommandError:
        return f"{purpose} rolls"
    return f"{purpose} rolls {dice.describe()}"


def _say_lava_hit(game: FujiKoro, state: State, command: Command, who: str) -> str:
    outcome = command.get("outcome")
    if outcome == "perished":
        return f"{who} perishes in the lava and comes back in a Temple"
    return f"{who} stood on erupting lava: sandals take {10 if outcome == 'moved_twice' else 5} damage"


def _with_reason(text: str) -> Callable[[FujiKoro, State, Command, str], str]:
    return lambda game, state, command, who: text + (f" ({command['reason']})" if command.get("reason") else "")


def _say_fight(game: FujiKoro, state: State, command: Command, who: str) -> str:
    return game._describe_fight(state, command)


COMMANDS: dict[str, CommandSpec] = {
    "start": CommandSpec(FujiKoro._start, lambda g, s, c, who: "Start the game"),
    "vp": CommandSpec(FujiKoro._vp, _say_vp, acts_for_current=True),
    "action": CommandSpec(FujiKoro._action, _say_action, acts_for_current=True),
    "explore": CommandSpec(FujiKoro._explore, lambda g, s, c, who:
                           f"{who}: explore a Level {_roman(c.get('level'))} tile", acts_for_current=True),
    "scroll": CommandSpec(FujiKoro._scroll, lambda g, s, c, who:
                          f"{who} gathers a Sacred Scroll (+{g.pack.scoring['scroll']} VP)", acts_for_current=True),
    "gear_card_vp": CommandSpec(FujiKoro._gear_card_vp, lambda g, s, c, who:
                                f"{who} uses the weapon card bonus (+{g.pack.scoring.get('weapon_card_vp', 1)} VP)",
                                acts_for_current=True),
    "end_turn": CommandSpec(FujiKoro._end_turn, lambda g, s, c, who:
                            f"End {s.players[s.current].name}'s turn (round {s.round})", blocked_in_fight=True),
    "dragon_revealed": CommandSpec(FujiKoro._dragon_revealed, lambda g, s, c, who:
                                   f"Dragon {c.get('dragon')} revealed"),
    "dragon_defeated": CommandSpec(FujiKoro._record_dragon_defeated, _say_dragon_defeated, blocked_in_fight=True),
    "dragon_health": CommandSpec(FujiKoro._dragon_health, lambda g, s, c, who:
                                 f"{c.get('dragon')} health {c.get('health', 'full')}", blocked_in_fight=True),
    "roll": CommandSpec(FujiKoro._roll, _say_roll),
    "escape": CommandSpec(FujiKoro._escape, lambda g, s, c, who:
                          f"{who} escapes by {'the central Rope' if c.get('via') == Exit.ROPE else 'the Secret Exit'}",
                          acts_for_current=True, blocked_in_fight=True),
    "shogun_bonus": CommandSpec(FujiKoro._shogun_bonus, lambda g, s, c, who:
                                f"{who} claims the Shogun bonus for {c.get('track')}", acts_for_current=True),
    "magical_gear": CommandSpec(FujiKoro._magical_gear, lambda g, s, c, who:
                                f"{who} {'completes' if c.get('completed', True) else 'loses'} magical {c.get('gear')}",
                                acts_for_current=True),
    "life_lost": CommandSpec(FujiKoro._life_lost, lambda g, s, c, who:
                             _with_reason(f"{who} loses a Life")(g, s, c, who), acts_for_current=True),
    "status_tokens": CommandSpec(FujiKoro._status_tokens, lambda g, s, c, who:
                                 f"{who} status tokens {int(c.get('delta', 0)):+d}", acts_for_current=True),
    "monk_defeat": CommandSpec(FujiKoro._monk_defeat, lambda g, s, c, who:
                               f"A Monk defeats {who} ({g.pack.scenarios[4].extras.get('monk_defeat_vp', -5)} VP)",
                               acts_for_current=True),
    "hostile_defeated": CommandSpec(FujiKoro._hostile_defeated, lambda g, s, c, who: "A hostile Samurai is defeated"),
    "tamed": CommandSpec(FujiKoro._tamed, lambda g, s, c, who: "The Legendary Dragon is tamed on the Central Tile"),
    "end_game": CommandSpec(FujiKoro._end_game, _with_reason("End the game"), blocked_in_fight=True),
    "lava_hit": CommandSpec(FujiKoro._lava_hit, _say_lava_hit),
    "fight_start": CommandSpec(FujiKoro._fight_start, _say_fight, blocked_in_fight=True),
    "samurai_fight_start": CommandSpec(FujiKoro._samurai_fight_start, _say_fight, blocked_in_fight=True),
    "fight_roll": CommandSpec(FujiKoro._fight_roll, _say_fight),
    "fight_helmet": CommandSpec(FujiKoro._fight_helmet, _say_fight),
    "fight_retreat": CommandSpec(FujiKoro._fight_retreat, _say_fight),
    "fight_surrender": CommandSpec(FujiKoro._fight_surrender, _say_fight),
    "fight_steal": CommandSpec(FujiKoro._fight_steal, _say_fight),
    "fight_cancel": CommandSpec(FujiKoro._fight_cancel, _say_fight),
}
