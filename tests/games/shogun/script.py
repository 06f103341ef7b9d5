"""A whole scripted 4-player game of Shogun (both years, both winters, 11 battles, 9 revolts), as a list of
commands, so the same game can be driven through the session engine (test_game.py), the command line and,
later, the app's screens.

``steps()`` gives ``(command, expectation)`` pairs; an expectation names what the table should see after
the command (the battle's winner, a cancelled action ...); ``CONFIG`` is the setup. Rows, events and bids are
entered as "done physically; here is the result", so nothing depends on a seed.

Every number here is chosen by hand; the comments give the reckoning the test then checks (spec sections
in brackets).
"""

from __future__ import annotations

from typing import Any

Command = dict[str, Any]
Step = tuple[Command, dict[str, Any]]

BLUE, RED, YELLOW, PURPLE = "blue", "red", "yellow", "purple"
PLAYERS = [{"name": "Ann", "colour": BLUE}, {"name": "Bo", "colour": RED},
           {"name": "Cy", "colour": YELLOW}, {"name": "Dee", "colour": PURPLE}]
ROW = ["castle", "temple", "theatre", "rice", "taxes", "deploy5", "deploy3", "deploy1", "battle_a", "battle_b"]
SPECIAL_ROW = ["chest_plus_1", "rice_plus_1", "six_armies", "attack_plus_1", "defence_plus_1"]


def _start(player: str, provinces: list[str]) -> list[dict[str, Any]]:
    sizes = [5, 5, 4, 4, 3, 3, 3, 2]  # the pack's first 8 seats (4 players, spec 2.2)
    return [{"player": player, "province": p, "armies": n} for p, n in zip(provinces, sizes, strict=True)]


# 4 players: 8 groups each, 32 provinces claimed, 13 neutral (spec 2.2); Hokuriku starts empty.
START = (
    _start(BLUE, ["kozuke", "musashi", "shimotsuke", "sagami", "kai", "hitachi", "shimosa", "kazusa"])
    + _start(RED, ["shinano", "mino", "mikawa", "owari", "suruga", "totomi", "hida", "ise"])
    + _start(YELLOW, ["yamashiro", "settsu", "omi", "yamato", "kawachi", "iga", "tamba", "kii"])
    + _start(PURPLE, ["harima", "bizen", "mimasaka", "inaba", "hoki", "bitchu", "bingo", "aki"])
)
CONFIG: dict[str, Any] = {"players": PLAYERS, "side": "sun", "map": True, "start": START}


def act(player: str, province: str | None = None, **details: Any) -> Command:
    return {"type": "act", "player": player, "province": province, **details}


def action_round(specials: list[tuple[str, str]], bids: dict[str, Any], event: str,
                 plans: dict[tuple[str, str], Command], *, events: list[str] | None = None,
                 expect: dict[tuple[str, str], dict[str, Any]] | None = None,
                 tie_orders: list[list[str]] | None = None) -> list[Step]:
    """One action round: lay out (the same rows every round, as if laid by hand), the event, bids, special
    cards in choosing order, then every action for every player in turn order (spec 4)."""
    lay_out: Command = {"type": "lay_out", "actions": ROW, "specials": SPECIAL_ROW}
    if events is not None:
        lay_out["events"] = events
    bid: Command = {"type": "bids", "bids": bids, **({"tie_orders": tie_orders} if tie_orders else {})}
    steps: list[Step] = [(lay_out, {}), ({"type": "draw_event", "event": event}, {}), (bid, {})]
    steps += [({"type": "take_special", "player": p, "card": c}, {}) for p, c in specials]
    order = sorted((p for p, _ in specials), key=lambda p: SPECIAL_ROW.index(dict(specials)[p]))
    for action in ROW:
        for player in order:
            command = plans.get((action, player), act(player))
            steps.append((command, (expect or {}).get((action, player), {})))
    return steps


def steps() -> list[Step]:
    s: list[Step] = []
    # Seeding (spec 2.5): 7 of each colour + 10 green go in; what falls out goes back; the tray is empty.
    # Stuck inside afterwards: blue 2, red 2, yellow 3, purple 2, green 3.
    s.append(({"type": "seed_tower", "out": {BLUE: 5, RED: 5, YELLOW: 4, PURPLE: 5, "green": 7}}, {}))

    # ---- Round 1, spring. Bids: Ann 2, Bo 1, Cy a province card (Kii), Dee none -> choosing order Ann, Bo,
    # Cy, Dee (spec 4.5). Ann takes +1 army attacking (space 4), Bo +1 chest (1), Cy +1 rice (2), Dee +1 army
    # defending (5): turn order Bo, Cy, Ann, Dee (by space, not by choosing order).
    s += action_round(
        [(BLUE, "attack_plus_1"), (RED, "chest_plus_1"), (YELLOW, "rice_plus_1"), (PURPLE, "defence_plus_1")],
        {BLUE: {"war_chest_card": 2}, RED: {"war_chest_card": 1}, YELLOW: {"province_card": "kii"},
         PURPLE: {"none": True}},
        "e02", events=["e01", "e02", "e03", "e04"],
        plans={
            ("castle", RED): act(RED, "mino"),
            ("castle", YELLOW): act(YELLOW, "yamashiro"),
            ("temple", BLUE): act(BLUE, "shimotsuke"),
            ("temple", PURPLE): act(PURPLE, "harima"),
            ("rice", RED): act(RED, "mikawa"),  # +3 rice, a token on Mikawa
            ("rice", YELLOW): act(YELLOW, "settsu"),  # 4 + 1 (+1 rice) = 5
            ("rice", BLUE): act(BLUE, "kazusa"),  # +5
            ("rice", PURPLE): act(PURPLE, "mimasaka"),  # +5
            ("taxes", RED): act(RED, "owari"),  # 6 + 1 (+1 chest) = 7
            ("taxes", BLUE): act(BLUE, "kai"),  # +7, a token on Kai
            ("deploy5", PURPLE): act(PURPLE, "bizen"),
            # battle 1: Ann 3 (+1 privilege) from Kozuke into neutral Echigo; 1 green. In: blue 4, green 1.
            # Out: blue 3, green 1 -> 3 against 1, Ann wins; 1 blue back, 2 blue hold Echigo.
            ("battle_a", BLUE): act(BLUE, "kozuke", to="echigo", armies=3, out={BLUE: 3, "green": 1}),
            # battle 2: Bo 3 from Shinano into neutral Etchu. Out: red 2, green 2 -> 2 = 2, a draw.
            ("battle_a", RED): act(RED, "shinano", to="etchu", armies=3, out={RED: 2, "green": 2}),
            # battle 3: Cy 3 from Omi into neutral Echizen. Out: yellow 1, green 2 -> the peasants hold.
            ("battle_b", YELLOW): act(YELLOW, "omi", to="echizen", armies=3, out={YELLOW: 1, "green": 2}),
            # battle 4: Dee 3 from Inaba into neutral Tajima. Out: purple 3 -> Dee wins with 3.
            ("battle_b", PURPLE): act(PURPLE, "inaba", to="tajima", armies=3, out={PURPLE: 3}),
        },
        expect={("battle_a", BLUE): {"winner": "attacker"}, ("battle_a", RED): {"winner": "draw"},
                ("battle_b", YELLOW): {"winner": "defender"}, ("battle_b", PURPLE): {"winner": "attacker"}},
    )

    # ---- Round 2, summer. Event e01: taxes capped at 5 (spec 4.4). Bids: Bo 3, Dee 2, Ann 1, Cy 0.
    # Choosing Bo, Dee, Ann, Cy; Bo +1 chest (1), Dee +1 army attacking (4), Ann +1 rice (2), Cy 6 armies (3):
    # turn order Bo, Ann, Cy, Dee.
    s += action_round(
        [(RED, "chest_plus_1"), (PURPLE, "attack_plus_1"), (BLUE, "rice_plus_1"), (YELLOW, "six_armies")],
        {RED: {"war_chest_card": 3}, PURPLE: {"war_chest_card": 2}, BLUE: {"war_chest_card": 1},
         YELLOW: {"war_chest_card": 0}},
        "e01",
        plans={
            ("theatre", BLUE): act(BLUE, "musashi"),
            ("theatre", YELLOW): act(YELLOW, "settsu"),
            ("rice", BLUE): act(BLUE, "shimotsuke"),  # 4 + 1 = 5
            ("rice", PURPLE): act(PURPLE, "bingo"),  # +5
            ("rice", RED): act(RED, "totomi"),  # +5
            # Revolt 1 (spec 6.6): Ann collects taxes in Kai, which holds a token. In: blue 3 (all of Kai), green
            # 1 + the tray (empty). Out: blue 2, green 1 -> Ann puts it down: 1 blue back (as many as greens,
            # A3), 1 stays; income 5 (7 capped at 5 by e01) is paid (A2) and a second token goes on Kai.
            ("taxes", BLUE): act(BLUE, "kai", out={BLUE: 2, "green": 1}),
            # Revolt 2: Bo's Mikawa holds spring's token. In: red 4, green 1. Out: red 3, green 1 -> Bo puts it
            # down, 1 red back, 2 stay; 7 capped at 5 by e01, +1 chest = 6 paid; a second token.
            ("taxes", RED): act(RED, "mikawa", out={RED: 3, "green": 1}),
            ("deploy5", YELLOW): act(YELLOW, "omi"),  # 6 with the 6 armies card
            ("deploy3", RED): act(RED, "owari"),
            # battle 5: Bo 4 from Mino (5) into Cy's Omi (1 + 6 = 7, no token, so greens help Cy).
            # In: red 4, yellow 7. Out: red 3, yellow 2, green 2 (stuck greens fell out) -> 3 against 4: Cy holds;
            # greens absorb first (A4): Cy keeps 2 - max(0, 3 - 2) = 1 army in Omi.
            ("battle_a", RED): act(RED, "mino", to="omi", armies=4, out={RED: 3, YELLOW: 2, "green": 2}),
            # battle 6: Dee 2 (+1) from Tajima (3) into Cy's Tamba (3). In: purple 3, yellow 3.
            # Out: purple 3, yellow 1 -> 3 against 1: Dee wins, 1 purple back, 2 hold Tamba.
            ("battle_b", PURPLE): act(PURPLE, "tajima", to="tamba", armies=2, out={PURPLE: 3, YELLOW: 1}),
        },
        expect={("taxes", BLUE): {"winner": "defender"}, ("taxes", RED): {"winner": "defender"},
                ("battle_a", RED): {"winner": "defender"},
                ("battle_b", PURPLE): {"winner": "attacker"}},
    )

    # ---- Round 3, autumn. Bids: Cy 2, Ann 1, Bo a province card (Hida), Dee none -> Cy, Ann, Bo, Dee.
    # Cy +1 chest (1), Ann +1 army attacking (4), Bo +1 rice (2), Dee +1 army defending (5): turn order
    # Cy, Bo, Ann, Dee - also winter's order (spec 4.5 note).
    s += action_round(
        [(YELLOW, "chest_plus_1"), (BLUE, "attack_plus_1"), (RED, "rice_plus_1"), (PURPLE, "defence_plus_1")],
        {YELLOW: {"war_chest_card": 2}, BLUE: {"war_chest_card": 1}, RED: {"province_card": "hida"},
         PURPLE: {"none": True}},
        "e03",
        plans={
            ("castle", BLUE): act(BLUE, "kozuke"),
            # Revolt 3: Owari holds spring's token. In: red 7 (4 + 3 deployed), green 1 (no green is stuck inside
            # any more). Out: red 1, green 1 -> 1 against 1: the peasants win or draw, so Owari turns neutral and
            # its token goes (spec 6.6); no rice for Bo (A2).
            ("rice", RED): act(RED, "owari", out={RED: 1, "green": 1}),
            ("rice", BLUE): act(BLUE, "hitachi"),  # +4
            ("rice", YELLOW): act(YELLOW, "yamashiro"),  # +5
            ("taxes", YELLOW): act(YELLOW, "kawachi"),  # 7 + 1 (+1 chest) = 8
            ("deploy3", BLUE): act(BLUE, "musashi"),  # 5 + 3 = 8
            # battle 7: Ann 3 (+1) from Sagami into Bo's Suruga (3, no token: greens would help Bo).
            # In: blue 4, red 3. Out: blue 3, red 1 -> 3 against 1: Ann takes Suruga with 2.
            ("battle_a", BLUE): act(BLUE, "sagami", to="suruga", armies=3, out={BLUE: 3, RED: 1}),
            # Bo had laid the Suruga card on Battle/Move B: the province changed hands, so it is cancelled (4.6).
            ("battle_b", RED): act(RED, "suruga", to="izu", armies=2),
            # battle 8: Ann 1 (+1) from Echigo (2) into neutral Etchu. Out: blue 1, green 1 -> a draw.
            ("battle_b", BLUE): act(BLUE, "echigo", to="etchu", armies=1, out={BLUE: 1, "green": 1}),
            # battle 9: Dee 1 from Tamba into Cy's Settsu (5 armies, a theatre, spring's token: the greens stay
            # out). In: purple 1, yellow 5. Out: purple 1, yellow 1 -> a draw: Settsu loses its armies, its
            # theatre and its token and turns neutral (spec 6.5).
            ("battle_b", PURPLE): act(PURPLE, "tamba", to="settsu", armies=1, out={PURPLE: 1, YELLOW: 1}),
        },
        expect={("rice", RED): {"winner": "draw"}, ("battle_a", BLUE): {"winner": "attacker"},
                ("battle_b", RED): {"cancelled": True}, ("battle_b", BLUE): {"winner": "draw"},
                ("battle_b", PURPLE): {"winner": "draw"}},
    )
    # ---- Winter 1 (round 4). Rice loss 3, read from the last event card (unknown in the pack, spec 9).
    # Rice after the loss: Ann 14-3 = 11 for 10 provinces; Bo 8-3 = 5 for 6 -> 1 unsupplied, a row the pack
    # marks unknown, so the table enters its board's row (1 revolt, +1 peasant); Cy 10-3 = 7 for 6; Dee 10-3 = 7
    # for 10 -> 3 unsupplied -> 2 revolts, +2 peasants each (confirmed row, spec 7.2).
    # Revolts in the autumn turn order (Cy, Bo, Ann, Dee): Bo's first, then Dee's.
    s += winter_steps(
        rice_loss=3, supply={RED: {"revolts": 1, "extra_peasants": 1}},
        revolts={RED: ["hida"], PURPLE: ["bingo", "hoki"]},
        outs=[{RED: 2, "green": 1},  # Hida: red 3, green 0 + 1 in -> 2 against 1, Bo keeps Hida with 1
              {PURPLE: 1, "green": 2},  # Bingo: purple 3, green 1 (token) + 2 -> 1 against 2: lost, neutral
              {PURPLE: 3, "green": 1}],  # Hoki: purple 3, green 2 -> 3 against 1: Dee keeps 2
    )

    # ---- Year 2 -------------------------------------------------------------------------------------
    # Round 5, spring: 4 new events (spec 7.4). Bids: Dee 3, Bo 2, Ann 1, Cy 0 -> Dee, Bo, Ann, Cy; turn order
    # Bo, Ann, Cy, Dee.
    s += action_round(
        [(PURPLE, "attack_plus_1"), (RED, "chest_plus_1"), (BLUE, "rice_plus_1"), (YELLOW, "six_armies")],
        {PURPLE: {"war_chest_card": 3}, RED: {"war_chest_card": 2}, BLUE: {"war_chest_card": 1},
         YELLOW: {"war_chest_card": 0}},
        "e06", events=["e05", "e06", "e07", "e08"],
        plans={
            ("castle", YELLOW): act(YELLOW, "kawachi"),
            ("temple", RED): act(RED, "totomi"),
            ("temple", YELLOW): act(YELLOW, "yamato"),
            ("rice", BLUE): act(BLUE, "kozuke"),  # 5 + 1 (+1 rice); a token on Kozuke
            ("rice", RED): act(RED, "mikawa"),  # +3 (the tokens were removed after winter 1)
            ("rice", PURPLE): act(PURPLE, "mimasaka"),  # +5
            ("rice", YELLOW): act(YELLOW, "iga"),  # +2
            ("deploy5", YELLOW): act(YELLOW, "yamashiro"),  # 6 with the 6 armies card
            ("deploy5", RED): act(RED, "shinano"),  # 2 + 5 = 7
            # battle 10: Dee 4 (+1) from Harima (5) into Settsu, neutral since the draw. In: purple 5, green 1.
            # Out: purple 4, green 1 -> 4 against 1: Dee takes Settsu with 3.
            ("battle_a", PURPLE): act(PURPLE, "harima", to="settsu", armies=4, out={PURPLE: 4, "green": 1}),
        },
        expect={("battle_a", PURPLE): {"winner": "attacker"}},
    )
    # Round 6, summer. Bids: Ann 2, Cy 1, Bo 0, Dee none -> Ann, Cy, Bo, Dee; turn order Ann, Cy, Dee, Bo.
    s += action_round(
        [(BLUE, "chest_plus_1"), (YELLOW, "rice_plus_1"), (RED, "attack_plus_1"), (PURPLE, "six_armies")],
        {BLUE: {"war_chest_card": 2}, YELLOW: {"war_chest_card": 1}, RED: {"war_chest_card": 0},
         PURPLE: {"none": True}},
        "e05",
        plans={
            ("theatre", PURPLE): act(PURPLE, "bizen"),
            ("rice", YELLOW): act(YELLOW, "yamashiro"),  # 5 + 1
            ("rice", BLUE): act(BLUE, "kazusa"),  # +5
            ("rice", RED): act(RED, "ise"),  # +5
            ("rice", PURPLE): act(PURPLE, "bitchu"),  # +3
            ("taxes", BLUE): act(BLUE, "sagami"),  # 4 + 1 (+1 chest)
            ("taxes", PURPLE): act(PURPLE, "aki"),  # +6
            ("deploy5", PURPLE): act(PURPLE, "inaba"),  # 6 with the 6 armies card
            # battle 11: Bo 5 (+1) from Shinano (7) into Ann's Kozuke (2 armies, a castle, spring's token: the
            # greens stay out). In: red 6, blue 2. Out: red 4, blue 2 -> 4 against 2: Bo takes Kozuke and its
            # castle with 2 (spec 6.5: buildings and tokens stay).
            ("battle_a", RED): act(RED, "shinano", to="kozuke", armies=5, out={RED: 4, BLUE: 2}),
            # Ann had laid Kozuke's card on Battle/Move B: cancelled, the province changed hands (spec 4.6).
            ("battle_b", BLUE): act(BLUE, "kozuke", to="echigo", armies=1),
        },
        expect={("battle_a", RED): {"winner": "attacker"}, ("battle_b", BLUE): {"cancelled": True}},
    )
    # Round 7, autumn. Bids: Bo 1, Cy 1 (a tie: the shuffled daimyo cards put Cy first), Ann 0, Dee 0 (Ann
    # first). Cy +1 chest (1), Bo +1 rice (2), Ann +1 army defending (5), Dee +1 army attacking (4): turn order
    # Cy, Bo, Dee, Ann - winter 2's order.
    s += action_round(
        [(YELLOW, "chest_plus_1"), (RED, "rice_plus_1"), (BLUE, "defence_plus_1"), (PURPLE, "attack_plus_1")],
        {RED: {"war_chest_card": 1}, YELLOW: {"war_chest_card": 1}, BLUE: {"war_chest_card": 0},
         PURPLE: {"war_chest_card": 0}},
        "e07", tie_orders=[[YELLOW, RED], [BLUE, PURPLE]],
        plans={
            ("rice", RED): act(RED, "hida"),  # 4 + 1 (+1 rice)
            ("rice", YELLOW): act(YELLOW, "kawachi"),  # +3
            ("rice", BLUE): act(BLUE, "shimosa"),  # +4
            ("rice", PURPLE): act(PURPLE, "hoki"),  # +3
            # Revolt 4: Mimasaka holds spring's token. In: purple 4, green 1. Out: purple 1, green 2 (a stuck
            # green fell out) -> the peasants win; Mimasaka turns neutral and no chests are paid (A2).
            ("taxes", PURPLE): act(PURPLE, "mimasaka", out={PURPLE: 1, "green": 2}),
            ("castle", PURPLE): act(PURPLE, "bizen"),
            ("temple", BLUE): act(BLUE, "sagami"),
        },
        expect={("taxes", PURPLE): {"winner": "attacker"}},
    )
    # ---- Winter 2 (round 8). The last event is e08; the group entered its rice loss (5) in the data pack
    # (CORRECTIONS), so winter_supply needs no number. Rice after the loss: Ann 15-5 = 10 for 9, Bo 13-5 = 8
    # for 7, Cy 11-5 = 6 for 6, Dee 11-5 = 6 for 9 -> 3 unsupplied -> 2 revolts, +2 peasants each (7.2).
    s += winter_steps(
        rice_loss=None, revolts={PURPLE: ["tajima", "inaba"]},
        outs=[{"green": 1},  # Tajima: purple 1, green 2 -> only a green out: a draw, Tajima turns neutral
              {PURPLE: 5, "green": 2}],  # Inaba: purple 7, green 2 -> 5 against 2: Dee keeps 3
    )
    return s


# The group's corrections to the shipped pack, from its own box (spec 9): the year-2 winter card's rice loss.
CORRECTIONS = {"events.e08.rice_loss": 5}

# Final scoring, reckoned by hand (spec 7.3), winter 1 + winter 2:
# Ann 19 + (9 provinces + 3 buildings + Kanto temples 2 + Kanto theatres 1) = 34
# Bo 10 + (7 + 3 + Tokai castles 3 + Tokai temples 2 + Kanto castles 3, Kozuke's) = 28
# Cy 10 + (6 + 3 + Kinai castles 3 + Kinai temples 2) = 24
# Dee 12 + (8 + 3 + Chugoku castles 3 + temples 2 + theatres 1) = 29
FINAL_VP = {BLUE: 34, RED: 28, YELLOW: 24, PURPLE: 29}
WINNER = BLUE
WINTER_1_VP = {BLUE: 19, RED: 10, YELLOW: 10, PURPLE: 12}


def winter_steps(*, rice_loss: int | None, revolts: dict[str, list[str]], outs: list[dict[str, int]],
                 supply: dict[str, Any] | None = None) -> list[Step]:
    """Winter (spec 7): the rice loss as read from the card, the neighbours' draws, the revolts, the scoring."""
    supply_command: Command = {"type": "winter_supply"}
    if rice_loss is not None:
        supply_command["rice_loss"] = rice_loss
    if supply:
        supply_command["supply"] = supply
    steps: list[Step] = [(supply_command, {})]
    throws = iter(outs)
    for player, provinces in revolts.items():
        steps.append(({"type": "winter_draw", "player": player, "provinces": provinces}, {}))
        for province in provinces:
            steps.append(({"type": "winter_revolt", "province": province, "out": next(throws)}, {}))
    steps.append(({"type": "score"}, {}))
    return steps
