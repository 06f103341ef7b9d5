"""The rules engine's own sentences in the app's language: the fight log, "Undo: ...", the game log,
what makes gear illegal, the setup checklist, why the game ended.

The core (:mod:`companion`) writes plain English and keeps it in the durable game log, so a game
recorded in English reads the same in every language and old logs never need rewriting. This module
translates at the moment of showing: every sentence shape the core writes is listed below as a
template with ``{fields}``; a line is matched against them, each field's text is itself translated
(a dragon's name, a dice result, a cube list), and the template's translation from the gettext
catalogs is filled in. A line no template knows is shown as it is, in English.

``tests/ui/test_ui_coretext.py`` plays whole games and fights through the core and checks that every
line they produce is known here, so a sentence changed in the core cannot silently fall back.
"""

from __future__ import annotations

import re
from functools import lru_cache

from companion.text import Text
from ui.i18n import N_
from ui.tr import tr

#: Sentence shapes of games.fujikoro.combat, games.fujikoro.rules.describe and companion.dice, most
#: specific first (a template is tried only if no earlier one matched).
TEMPLATES: tuple[str, ...] = (
    # The session's own records (companion.engine)
    N_("Undo: {what}"),
    N_("Redo: {what}"),
    # The fight log (games.fujikoro.combat)
    N_("Fight: {names} against the {dragon} (health {health}, initiative {initiative}). Order: {order}."),
    N_("{name}'s heroic monk shouts at the dragon."),
    N_("Samurai combat: {attacker} (initiative {a}) attacks {defender} (initiative {d}). {first} rolls first."),
    N_("{name}'s heroic monk throws {kind}: {dice}; the {dragon} has {health} health."),
    N_("{name}'s weapon loses {kind} and {n} more cube(s) to stay legal"),
    N_("{name}'s weapon loses {kind}"),
    N_("The {dragon} takes {damage} damage: {health} health left."),
    N_("The {dragon} is defeated! {names} share {teeth} dragon teeth (with the fight's broken teeth: {pool})."),
    N_("{n} broken wooden dice: {names} each take {each} wood."),
    N_("The {dragon} is conquered by {names} and joins their Player Board."),
    N_("The {dragon} is defeated! {names} each receive {vp} VP and a dragon tooth."),
    N_("The {dragon} rolls {dice}."),
    N_("{n} dragon tooth(s) broke off: the group splits them."),
    N_("{n} dragon tooth(s) broke off: {names} each take {each}."),
    N_("{name} takes {hits} damage with {left} helmet left and is knocked out."),
    N_("{name} takes {hits} damage: {removal}."),
    N_("{winner} wins and may steal one item from {name}'s backpack."),
    N_("{name} retreats to the space they came from."),
    N_("{name} surrenders; {winner} may steal one item from their backpack."),
    N_("Every samurai is out; the {dragon} heals fully."),
    N_("{name} rolls {dice} with the {hand}"),
    # What makes gear illegal (games.fujikoro.gear)
    N_("the right weapon grid holds cubes but no monk unlocks it"),
    N_("a {board} board can only hold one-handed weapons; this weapon spans both grids"),
    N_("a {board} board can only hold a two-handed weapon; {weapon} lies in one grid"),
    N_("the two-handed weapon has {n} cubes; at most {most}"),
    N_("the helmet has {n} cubes; at most {most}"),
    N_("the sandals have {n} cubes; at most {most}"),
    N_("{weapon} has {n} cubes; at most {most}"),
    N_("there are {n} two-handed weapons; at most one"),
    N_("a two-handed weapon cannot be kept together with a one-handed weapon"),
    N_("the {side} weapon grid holds {n} separate weapons; at most one"),
    N_("a magical cube sits on the sandals, but the sandals are empty"),
    N_("a magical cube sits on the helmet, but the helmet is empty"),
    N_("a magical cube sits on a weapon that does not exist"),
    # The setup checklist (games.fujikoro.rules.setup_checklist)
    N_("Player Boards: the symmetrical side for every player."),
    N_("Player Boards: {boards}."),
    N_("{name} plays {board}"),
    N_("Starting Monks: {n} per player ({players} players)."),
    N_("Add the hexagon Resource Tokens ({players} players)."),
    N_("Leave the hexagon Resource Tokens in the box (they are for {players}-6 players)."),
    N_("Magical Blueprints: draw {h} helmet, {w} weapon and {s} sandals cards and deal them in that order one "
       "at a time over the temples ({deal})."),
    N_("Temple {n}: {cards}"),
    N_("Gear Cards: each player takes 1 helmet, weapon or sandals card, spread as evenly as possible; a weapon "
       "card's owner puts the starting Monk below the Weapon Grid (EN p.14 step 12)."),
    N_("Gear Cards: draw {h} helmet, {w} weapon and {s} sandals cards faceup (EN p.2 step 8)."),
    N_("Sacred Scrolls: shuffle, 3 cards faceup next to the draw pile."),
    N_("Tomoe plays: add a Magical Weapon Blueprint with 2 one-handed weapons (EN Appendix A)."),
    N_("Mitsuhide starts with 1 Sacred Scroll of his choice and 3 VP (already counted)."),
    N_("Countdown Token on {n} of the round track (solo with Adventure Tokens)."),
    N_("Countdown Token on {n} of the round track (solo without Adventure Tokens)."),
    N_("Countdown Token on {n} of the round track (with Adventure Tokens)."),
    N_("Countdown Token on {n} of the round track (without Adventure Tokens)."),
    N_("Tiles removed for {players} players: {tiles} (EN p.14 step 5)."),
    N_("Tile piles: shuffle 3 Level II tiles with the Secret Exit, and 3 Level III tiles with the Legendary "
       "Dragon; put {under} other tiles under each of those piles and {over} on top (EN p.14 step 5)."),
    N_("Tile piles: shuffle 3 Level II tiles with the Secret Exit, and 3 Level III tiles with the Legendary "
       "Dragon; put the {over} other tiles on top of each (EN p.14 step 5)."),
    N_("Each player takes a Life Token, {n} Lives side up; keep the Status Tokens ready."),
    N_("Countdown Token on its start space; the final chapter starts at {n} VP."),
    N_("Scenario 3: a Lava Phase runs first (at {n} VP, or after the first rounds in coop)."),
    N_("Scenario {n}: {name} (EN Appendix B)."),
    N_("Adventure Tokens: place them as the Player Aid says."),
    N_("{name} is the start player and takes the Tokugawa Start Player Marker."),
    N_("{name} is the start player."),
    # Why the game ended
    N_("the Countdown Token reached the end of the track"),
    N_("all objectives achieved: everyone wins"),
    N_("the Legendary Dragon was killed instead of tamed, so everyone loses"),
    N_("{name} lost a second Life, so everyone loses (EN p.15)"),
    N_("ended by the table: {reason}"),
    # What a command set off, and why a command is refused: the turn rules (games.fujikoro.rules)
    N_("{what} (with it: {consequences})"),
    N_("the Countdown Token moves to space {n}"),
    N_("lava erupts on {lava}"),
    N_("{dragon} is defeated"),
    N_("{what} comes in a player's own turn (EN p.4), and it is {name}'s turn"),
    N_("a fight is being played, so {what} waits until it is over (EN p.10)"),
    N_("{name} escaped the volcano and takes no more actions, only Shogun bonuses (EN p.13)"),
    N_("{reason}, so {what} is not possible; end the turn"),
    N_("{name} has taken the turn's {n} actions; each player performs 2 actions a turn (EN p.4)"),
    N_("{name} has taken {k} of the turn's 2 actions; each player performs 2 actions a turn (EN p.4)"),
    N_("{name} has no Action Disc on the Action Fields, and Rest needs at least one there, so there is no "
       "Rest twice in a row (EN p.4, p.7)"),
    N_("{name} has used all {n} Action Discs and must Rest to get them back (EN p.4)"),
    N_("{name} has no action this turn to score {what} with: {rule}"),
    N_("{name}'s weapon card is linked to {action} for the rest of the game (EN p.8)"),
    N_("the weapon card's 1 VP comes with the action it is linked to, once per action (EN p.8); {name}'s is "
       "linked to {action}"),
    N_("{name} was knocked out in their own turn, which ends it (EN p.11, p.12)"),
    N_("{name} surrendered the fight they started, which ends their turn (EN p.11, p.12)"),
    N_("{name}'s fight was not their first action, which ends their turn (EN p.11)"),
    N_("{name} is unconscious until the start of their next turn and cannot {role} (EN p.11, p.12)"),
    N_("{name} has escaped the volcano and fights no more (EN p.13)"),
    N_("a samurai escapes by ending the turn on a Rope, after the turn's 2 actions (EN p.4, p.13), and "
       "{name} has taken {n}"),
    N_("in the cooperative mode each player escapes with at least one completed Magical Gear item (EN "
       "p.14), and {name} has none"),
    N_("this fight comes with {name}'s {nth} action, not the {claimed} (EN p.11)"),
    N_("{dragon} carries {n} permanent Damage Tokens, and they stay when it heals (EN p.11)"),
    N_("{name} escaped the volcano and takes no more actions, so their gear no longer changes (EN p.13)"),
    N_("{name} perishes in the lava and comes back in a Temple"),
    N_("{name} stood on erupting lava: sandals take {n} damage"),
    N_("{name} escaped the volcano, so the lava cannot reach them (EN p.13)"),
    N_("{name} is already moved off this eruption's lava (EN p.13)"),
    N_("{name} lies unconscious, and an unconscious samurai on erupting lava perishes (EN p.13)"),
    N_("{what} is a rule of scenario {n} ({name}) only (EN Appendix B)"),
    N_("hostile Samurai {n} keeps the damage of earlier fights, which is not repaired (EN Appendix B "
       "scenario 7); leave out its gear"),
    N_("hostile Samurai {n} is defeated and removed from the game (EN Appendix B scenario 7)"),
    N_("hostile Samurai {n} needs its gear for the first fight (EN Appendix B scenario 7)"),
    N_("Hostile Samurai {n}"),
    # Commands as the log and the Undo button name them (games.fujikoro.rules)
    N_("Start the game"),
    N_("End the game ({reason})"),
    N_("End the game"),
    N_("End {name}'s turn (round {round})"),
    N_("{name} gathers a Sacred Scroll (+{vp} VP)"),
    N_("{name} uses the weapon card bonus (+{vp} VP)"),
    N_("{name}: explore a Level {level} tile"),
    N_("{name}: {action} a Level {level} tile"),
    N_("{name} escapes by the central Rope"),
    N_("{name} escapes by the Secret Exit"),
    N_("{name} claims the Shogun bonus for {track}"),
    N_("{name} completes magical {gear}"),
    N_("{name} loses magical {gear}"),
    N_("{name} loses a Life ({reason})"),
    N_("{name} loses a Life"),
    N_("{name} status tokens {delta}"),
    N_("A Monk defeats {name} ({vp} VP)"),
    N_("A hostile Samurai is defeated"),
    N_("The Legendary Dragon is tamed on the Central Tile"),
    N_("Dragon {dragon} revealed"),
    N_("{names} defends against {dragon} (health {health})"),
    N_("{names} defend against {dragon} (health {health})"),
    N_("{names} fights {dragon} (health {health})"),
    N_("{names} fight {dragon} (health {health})"),
    N_("{attacker} attacks {defender} (samurai combat)"),
    N_("{name} chooses the helmet removal: {removal}"),
    N_("{name} retreats from the fight"),
    N_("{name} surrenders"),
    N_("{winner} steals a {item} from {name}"),
    N_("Abandon the fight ({reason})"),
    N_("Abandon the fight"),
    N_("Dragon rolls {dice}"),
    N_("The Monk rolls {dice}"),
    N_("{name}'s heroic monk throws {kind}: {dice}"),
    N_("{name} rolls no dice"),
    # Parts of sentences: dice, cubes, dragons, hands
    N_("{n} dice: {faces} = {hits} hits"),
    N_("{n} die: {faces} = {hits} hits"),
    N_("remove {parts} ({waste} wasted); the magic is lost"),
    N_("remove {parts}; the magic is lost"),
    N_("remove {parts} ({waste} wasted)"),
    N_("remove {parts}"),
    N_("{first} and {rest}"),
    N_("{first}; {rest}"),
    N_("left weapon {dice}"),
    N_("right weapon {dice}"),
    N_("two-handed weapon {dice}"),
    N_("sandals {dice}"),
    N_("{n} helmet"),
    N_("{n} weapon"),
    N_("{n} sandals"),
    N_("{n} wood"),
    N_("{n} metal"),
    N_("{n} tooth"),
    N_("{n} empty cell"),
    N_("green dragon {n}"),
    N_("blue dragon {n}"),
    N_("red dragon {n}"),
    N_("green_{n}"),
    N_("blue_{n}"),
    N_("red_{n}"),
    # The most general shapes last: they would swallow the ones above.
    N_("{name} {points} VP ({reason})"),
    N_("{name} {points} VP"),
    N_("{name} is knocked out"),
    N_("{names} defeats {dragon}"),
    N_("{names} defeat {dragon}"),
    N_("{name} rolls {dice}"),
    N_("{name} rolls"),
    N_("{name}: {action}"),
    N_("{first}; {rest}"),
    N_("{first}, {rest}"),
)

#: Single words and fixed phrases the core puts into fields.
WORDS: tuple[str, ...] = (
    N_("the magical cube"), N_("nothing"), N_("wood"), N_("metal"), N_("tooth"), N_("magic"), N_("none"),
    N_("left weapon"), N_("right weapon"), N_("two-handed weapon"), N_("sandals"), N_("helmet"),
    N_("weapon"), N_("Legendary Dragon"), N_("legendary"), N_("The app"), N_("Hand"), N_("dragon"),
    N_("correction"), N_("move"), N_("gather"), N_("rest_craft"), N_("explore"), N_("fight"), N_("escape"),
    N_("see the picture in the rulebook"), N_("the left-grid weapon"), N_("the right-grid weapon"),
    N_("left"), N_("right"),
    N_("dragons"), N_("scrolls"), N_("tiles"), N_("gear"), N_("relics"), N_("shogun"), N_("other"),
    N_("no lava is erupting now; the table answers an eruption until the next turn ends (EN p.13)"),
    N_("Starting weapons: a player without a weapon card puts 2 wood and 2 metal cubes on the Weapon Grid; "
       "everyone builds the gear of their card exactly as pictured (EN p.14 step 12)."),
    N_("Scenario 1: deal the Magical Blueprints to the Temples at random and face down, hidden until "
       "someone gathers them, and leave the Secret Exit tile in the box (EN Appendix B scenario 1)."),
    N_("Scenario 7: at each Temple an unused symmetrical Player Board is a hostile Samurai; craft its "
       "Magical Helmet, Weapon and Sandals to random Blueprints, Blueprints beside the board and their "
       "tokens in its Backpack (EN Appendix B scenario 7)."),
    N_("Peaceful Variant: samurai fight only dragons, never each other (EN p.12)."),
    N_("Monk"),
    N_("Fighting a Monk"),
    N_("A hostile Samurai"),
    N_("a Monk Combat can't be joined by other Samurai (EN Appendix B scenario 4)"),
    N_("a Heroic Monk distracts a Dragon (EN p.10), not another Monk"),
    N_("the Lava Phase begins"),
    N_("the final chapter begins"),
    N_("the Rope appears"),
    N_("the Lava Phase ends"),
    N_("the fight ends the turn"),
    N_("the game ends with the final scoring"),
    N_("a Move"),
    N_("an Explore"),
    N_("a Gather"),
    N_("a Rest"),
    N_("starting a fight"),
    N_("a Sacred Scroll's VP"),
    N_("the weapon card's VP"),
    N_("a Sacred Scroll is picked up with a Gather action, one per Gather (EN p.6)"),
    N_("the weapon card's 1 VP comes with the action it is linked to, once per action (EN p.8)"),
    N_("join a fight"),
    N_("be attacked"),
    N_("first"),
    N_("second"),
    N_("a fight is being played; finish it before starting another (EN p.10)"),
    N_("players gain no VP in the cooperative mode (EN p.15)"),
    N_("the game has ended"),
    N_("in the cooperative mode every player must escape through the Secret Exit (EN p.14), not the Rope"),
    N_("dragons move onto samurai at the start of a round, before the start player's actions (EN p.15, "
       "Appendix B scenario 2)"),
    N_("in the Peaceful Variant samurai fight only dragons, never each other (EN p.12)"),
)

_FIELD = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    compiled = []
    for template in TEMPLATES:
        pattern, last = "", 0
        for match in _FIELD.finditer(template):
            pattern += re.escape(template[last:match.start()]) + f"(?P<{match.group(1)}>.+?)"
            last = match.end()
        pattern += re.escape(template[last:])
        compiled.append((template, re.compile(f"^{pattern}$", re.DOTALL)))
    return tuple(compiled)


_WORDS = frozenset(WORDS)


def match(text: str) -> tuple[str, dict[str, str]] | None:
    """The template a core sentence was made from and its fields, or None."""
    for template, pattern in _compiled():
        found = pattern.match(text)
        if found is not None:
            return template, found.groupdict()
    return None


def translate(text: str) -> str:
    """``text`` from the core in the app's current language (unchanged in English or if unknown).

    A :class:`~companion.text.Text` is translated by its message key (its fields in turn); plain English
    (a record from an older game file) is matched against the sentence shapes below."""
    if not text or tr.language == "en":
        return text
    if isinstance(text, Text):
        return _by_key(text, 0)
    return _translated(text, tr.language)


def _by_key(text: Text, depth: int) -> str:
    fields: dict[str, object] = {}
    for name, value in text.fields.items():
        if isinstance(value, Text) and depth < 40:
            fields[name] = _by_key(value, depth + 1)
        elif isinstance(value, str):
            fields[name] = _translated(value, tr.language)
        else:
            fields[name] = value
    return tr.f(text.key, **fields)


@lru_cache(maxsize=8192)
def _translated(text: str, language: str) -> str:
    # ``language`` is part of the cache key: the game log is shown again after every command, and each line
    # is matched once per language rather than on every redraw of the log (35 ms for 200 lines on this machine).
    return _translate(text, 0)


def _translate(text: str, depth: int) -> str:
    if text in _WORDS:
        return tr._(text)
    if depth > 40:  # fields are always shorter than their line, so this only guards the stack
        return text
    found = match(text)
    if found is None:
        return text
    template, fields = found
    return tr.f(template, **{name: _translate(value, depth + 1) for name, value in fields.items()})


def known(text: str) -> bool:
    """True if the core sentence (or word) is one this module translates (used by the tests)."""
    return text in _WORDS or match(text) is not None
