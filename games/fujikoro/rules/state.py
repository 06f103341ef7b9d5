"""The values of a Fuji Koro game: the setup, each player, the countdown, the state, a fight in play.

Owns the immutable dataclasses the rules pass around (:class:`State` and its parts), the enums they use,
the constants of the game (player counts, actions per turn, the rules version) and the small helpers
that make a changed copy (:func:`evolve`, :func:`set_player`, :func:`set_dragon`). No rule lives here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

from companion.dice import DiceRoll
from companion.engine import Command, CommandError
from games.fujikoro.combat import Fight
from games.fujikoro.combat import Mode as Mode  # one mode for the game and its fights

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro

GAME_NAME = "fujikoro"
BGG_ID = 253743
MAX_PLAYERS = 6
ACTIONS_PER_TURN = 2
# The rules a new game is played by, recorded in its setup ("rules"). 1: the turn was not checked (games
# saved before the turn rules of EN pp.4-14 were enforced replay under it); 2: the turn as the rulebook
# describes it. A setup without "rules" is a game saved before version 2.
RULES_VERSION = 2

T = TypeVar("T")
_EVOLVE: dict[type, tuple[Callable[[Any, dict[str, Any]], Any], frozenset[str]]] = {}


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` without its per-call introspection: replaying a long log is mostly this.

    Like :mod:`dataclasses` itself, it compiles one small constructor call per class, once.
    """
    cls = type(obj)
    entry = _EVOLVE.get(cls)
    if entry is None:
        names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
        args = ", ".join(f"c[{n!r}] if {n!r} in c else o.{n}" for n in names)
        namespace: dict[str, Any] = {"cls": cls}
        exec(f"def build(o, c):\n    return cls({args})", namespace)  # the names are dataclass fields
        entry = _EVOLVE[cls] = (namespace["build"], frozenset(names))
    build, names_set = entry
    if not changes.keys() <= names_set:
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - names_set)[0]!r}")
    result: T = build(obj, changes)
    return result


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
CATEGORY_INDEX = {c: i for i, c in enumerate(CATEGORIES)}


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


#: What applying a command emitted so far: (kind, payload) of each event, appended in order.
Events = list[tuple[str, Mapping[str, Any]]]
#: How a command type applies: (game, the state before, the command, events) -> the new state.
Handler = Callable[["FujiKoro", State, Command, Events], State]
#: How the log says a command: (game, the state before, the command, who it is for) -> one line.
Describer = Callable[["FujiKoro", State, Command, str], str]


def set_player(players: tuple[PlayerState, ...], index: int, player: PlayerState) -> tuple[PlayerState, ...]:
    return (*players[:index], player, *players[index + 1 :])


def set_dragon(
    dragons: tuple[tuple[str, DragonStatus], ...], dragon: str, status: DragonStatus
) -> tuple[tuple[str, DragonStatus], ...]:
    return tuple((d, status if d == dragon else s) for d, s in dragons)
