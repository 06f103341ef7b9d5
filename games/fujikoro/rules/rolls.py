"""Dice from commands (EN p.10-12): the ``roll`` command and the rolls of a fight.

Owns reading dice out of a command: the app's seeded rolls (so a replay rolls the same faces) and
faces typed by hand or sent by a tray; for a fight, who rolls next and which dice
(:func:`fight_roll_spec`), applying the roll to the fight (:func:`play_fight_roll`) and the log line for
it (:func:`describe_fight_roll`); dragon stats typed in (:func:`typed_dragon`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.dice import DiceError, DiceRoll, DiceSource, from_faces, roll
from companion.engine import Command, CommandError
from games.fujikoro.combat import (
    DRAGON,
    CombatError,
    DragonStats,
    Fight,
    WeaponRoll,
    dragon_roll,
    monk_throw,
    samurai_roll,
)
from games.fujikoro.pack import DataPack, DataPackError, parse_face
from games.fujikoro.rules.state import Events, Mode, State, evolve

if TYPE_CHECKING:
    from games.fujikoro.rules.game import FujiKoro

KIND_LETTERS = {"w": "wood", "m": "metal", "t": "tooth", "x": "magic"}


def roll_of(pack: DataPack, command: Command) -> DiceRoll:
    """The dice of a ``roll`` command: the app's seeded roll, or faces typed by hand or sent by a tray."""
    source = command.get("source", "app")
    try:
        if source == "app":
            kinds = command.get("dice")
            seed = command.get("seed")
            if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
                raise CommandError('an app roll names its dice, such as {"dice": ["tooth", "tooth"]}')
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise CommandError("an app roll carries its seed so that a replay rolls the same faces")
            return roll(kinds, pack.dice, seed=seed)
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
            return from_faces([(d.kind, d.face) for d in parsed.dice], pack.dice, DiceSource(source))
    except DiceError as error:
        raise CommandError(str(error)) from None
    raise CommandError(f"dice come from the app, by hand or from a tray, not {source!r}")


def prepare_roll(state: State, prepared: dict[str, Any], new_seed: Callable[[], int]) -> None:
    """A roll the app makes records its source and draws its seed now, so a replay rolls the same faces."""
    if prepared.get("source", "app") == "app":
        prepared["source"] = "app"
        if prepared.get("seed") is None:
            prepared["seed"] = new_seed()


def is_app_roll(command: Command) -> bool:
    """A roll the app made (an undo barrier)."""
    return bool(command.get("source", "app") == DiceSource.APP.value)


def record_roll(game: FujiKoro, state: State, command: Command, events: Events) -> State:
    """A dice roll for the log (EN p.10-12): the last roll stays on the state for the screens."""
    dice = roll_of(game.pack, command)
    events.append(
        (
            "dice_rolled",
            {"roll": dice.to_json(), "hits": dice.hits, "broken": dice.broken(), "purpose": command.get("purpose")},
        )
    )
    return evolve(state, last_roll=dice)


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


def typed_dragon(raw: Mapping[str, Any], mode: Mode) -> DragonStats:
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


def actor_dice(fight: Fight, who: str, pack: DataPack) -> list[tuple[str, list[str]]]:
    """The dice whoever acts next rolls: per weapon for a samurai, one group for the dragon or a monk."""
    if who.startswith("monk:"):
        return [("", [str(fight.fighter(who.removeprefix("monk:")).heroic_monk)])]
    if who == DRAGON:
        assert fight.dragon is not None
        return [("", [fight.dragon.die] * fight.dragon.dice)]
    return fight.dice_to_roll(who, pack)


def is_app_fight_roll(command: Command) -> bool:
    """A fight roll without typed dice: the app rolls it (an undo barrier)."""
    return command.get("dice") is None and command.get("weapons") is None


def prepare_fight_roll(state: State, prepared: dict[str, Any], new_seed: Callable[[], int]) -> None:
    """A fight roll names who rolls; one the app makes draws its seed now."""
    if state.combat is not None and state.combat.is_active:
        prepared.setdefault("who", state.combat.fight.whose_turn())
        if is_app_fight_roll(prepared) and prepared.get("seed") is None:
            prepared["seed"] = new_seed()


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
        kind = KIND_LETTERS.get(kind, kind)
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


def parse_cells(raw: Any, key: str) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in c)
        for c in raw
    ):
        raise CommandError(f"{key} is a list of [row, column] cells, got {raw!r}")
    return tuple((c[0], c[1]) for c in raw)


def helmet_choices(command: Command) -> tuple[dict[str, tuple[tuple[int, int], ...]], list[str]]:
    raw = command.get("removals") or {}
    if not isinstance(raw, dict):
        raise CommandError("removals maps a player to the helmet cells they remove")
    magic = command.get("magic") or []
    if not isinstance(magic, list) or not all(isinstance(m, str) for m in magic):
        raise CommandError("magic lists the players whose removal includes the helmet's magical cube")
    return {str(k): parse_cells(v, f"removals.{k}") for k, v in raw.items()}, list(magic)


def fight_roll_spec(fight: Fight, command: Mapping[str, Any], pack: DataPack) -> FightRollSpec:
    """Resolve a fight_roll command: typed dice (source hand or tray) or the app's seeded roll."""
    who = fight.whose_turn()
    if who is None:
        raise CommandError("the fight is over")
    expected = command.get("who")
    if expected is not None and expected != who:
        raise CommandError(f"this roll is for {expected}, but {who} rolls next")
    groups = actor_dice(fight, who, pack)
    seed = command.get("seed")
    if is_app_fight_roll(command):
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
        breaks.append(parse_cells(cells, "breaks"))
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


def cube_counts(cubes: Mapping[tuple[int, int], Any], cells: tuple[tuple[int, int], ...], magic: bool) -> str:
    counts: dict[str, int] = {}
    for cell in cells:
        material = cubes.get(cell)
        name = {"W": "wood", "M": "metal", "T": "tooth"}.get(getattr(material, "value", ""), "empty cell")
        counts[name] = counts.get(name, 0) + 1
    parts = (["the magical cube"] if magic else []) + [f"{n} {k}" for k, n in counts.items()]
    return "remove " + (" and ".join(parts) if parts else "nothing")

