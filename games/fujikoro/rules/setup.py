"""Setting up a game (EN p.2, p.14, Appendix B): the setup a game is played by and the table's checklist.

Owns :func:`parse_setup` (who plays, which boards, the mode, the scenario, the rules version; every refusal
is a :class:`SetupError` naming the rule), :func:`setup_checklist` (what to put on the table), the coop
tile decks of EN p.14 step 5 that the data pack does not carry, and what a setup implies for the rest of
the game: whether it scores VP (:func:`scores_vp`), runs the coop round track and where that starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.engine import CommandError
from games.fujikoro.pack import DataPack, DataPackError
from games.fujikoro.rules.scenarios import scenario_numbered, scenario_of
from games.fujikoro.rules.state import GEAR, MAX_PLAYERS, RULES_VERSION, Mode, PlayerSetup, Setup


class SetupError(CommandError):
    """A setup the rules do not allow (player count, boards, scenario and mode)."""



# EN p.14 setup step 5: how the coop Level II / III draw piles are built (not in the data pack).
COOP_DECKS = {
    (1, 2): (4, 4),
    (3, 4): (2, 6),
    (5, 6): (0, 8),
}


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
    if scenario_numbered(scenario).solo and n != 1:
        raise SetupError(f"scenario {scenario} ({spec.name}) is a solo game (EN Appendix B)")
    boards = [p.board for p in players]
    if "symmetric" in boards and any(b != "symmetric" for b in boards):
        raise SetupError(
            "use the symmetrical Player Boards for all players or characters for all players (EN p.2 step 1)"
        )
    characters = [b for b in boards if b != "symmetric"]
    if len(set(characters)) != len(characters):
        raise SetupError("each character board is in the box once, so two players cannot play the same character")
    if scenario_numbered(scenario).symmetric_boards_only and characters:
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
    items.append(
        scenario_of(setup).blueprints_line(
            f"Magical Blueprints: draw {n * per} helmet, {n * per} weapon and {n * per} sandals cards "
            f"and deal them in that order one at a time over the temples ({deal})."
        )
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
    if any(p.board == "mitsuhide" for p in setup.players) and scores_vp(setup):
        items.append("Mitsuhide starts with 1 Sacred Scroll of his choice and 3 VP (already counted).")
    if coop and not scenario_of(setup).vp_in_coop:
        start = coop_start(setup, pack)
        items.append(
            f"Countdown Token on {start} of the round track "
            f"({'solo ' if n == 1 else ''}{'with' if setup.adventure_tokens else 'without'} Adventure Tokens)."
        )
        under, over = next(v for k, v in COOP_DECKS.items() if k[0] <= max(n, 1) <= k[1])
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
    items += scenario_of(setup).checklist(pack)
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


def scores_vp(setup: Setup) -> bool:
    """Competitive games score VP, and so does the Ronin solo scenario (EN Appendix B scenario 8)."""
    return setup.mode is Mode.COMPETITIVE or scenario_of(setup).vp_in_coop


def uses_round_track(setup: Setup, pack: DataPack) -> bool:
    """Coop runs the round track (EN p.14); a scenario may say otherwise (Ronin: the group's rule option)."""
    return setup.mode is Mode.COOP and scenario_of(setup).round_track(pack)


def coop_start(setup: Setup, pack: DataPack) -> int:
    """Where the Countdown Token starts on the round track (EN p.14 step 6, Appendix B scenario 3)."""
    return scenario_of(setup).coop_start(setup, pack)
