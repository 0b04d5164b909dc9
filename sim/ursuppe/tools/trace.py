"""The game log for people and for JSON: events as dicts, one-line descriptions, a board picture."""

from typing import Any

import numpy as np

from sim.ursuppe.engine.attacks import ATTACK_RESULT_NAMES
from sim.ursuppe.engine.board import DIRECTION_NAMES
from sim.ursuppe.engine.deaths import DEATH_HOW
from sim.ursuppe.engine.decision_kinds import RESPONSE_NAMES, unpack_suction
from sim.ursuppe.engine.events import EVENT_FIELDS, EVENT_NAMES
from sim.ursuppe.engine.gene_sets import WORD_BITS, gene_names
from sim.ursuppe.engine.genes.aggression import DP_REASON
from sim.ursuppe.engine.movement import MOVE_HOW
from sim.ursuppe.engine.phases.phase4_division import PLACE_HOW
from sim.ursuppe.engine.state import END_FINISH_ZONE
from sim.ursuppe.rules.genes import GENE_NAMES, N_GENES

COLOUR_NAMES = ("red", "blue", "green", "yellow", "white", "black")
COLOUR_LETTERS = "RBGYWK"


def _unpack(packed: int, players: int) -> list[int]:
    return [(packed >> (4 * c)) & 15 for c in range(players)]


def _convert(etype: str, name: str, value: int, players: int) -> Any:
    if name == "cubes" and etype in ("eat", "carry"):  # a packed vector; a death's "cubes" is per colour
        return _unpack(value, players)
    if name in ("direction", "drift"):
        text = DIRECTION_NAMES[value]
        return "none" if (text == "stay" and name == "drift") else text
    if name in ("gene", "gave_up", "gave", "took"):
        return GENE_NAMES[value] if value >= 0 else None
    if name in ("genes_low", "genes_high"):
        return value
    if name == "response":
        return list(RESPONSE_NAMES[value])
    if name == "result":
        return ATTACK_RESULT_NAMES[value]
    if name == "suction":  # XG-12, XG-26: the cubes taken from neighbouring spaces
        return [{"space": space, "colour": colour} for space, colour in unpack_suction(value)]
    if name in ("die1", "die2", "parasite_victim"):
        return None if value < 0 else value
    if name == "how":
        table = {"place": PLACE_HOW, "active_move": MOVE_HOW, "death": DEATH_HOW}[etype]
        return table[value]
    if name == "reason":
        return (
            DP_REASON[value]
            if etype == "damage"
            else ("finish_zone" if value == END_FINISH_ZONE else "last_card")
        )
    if name in ("defender_wins", "persistence", "retry", "defence_allowed", "paid"):
        return bool(value)
    return value


def events_as_dicts(events: np.ndarray, players: int) -> list[dict[str, Any]]:
    """Event rows (events.py) as JSON-ready dicts with names instead of codes."""
    out = []
    for row in events:
        code = int(row[0])
        etype = EVENT_NAMES[code]
        d: dict[str, Any] = {"type": etype, "round": int(row[1]), "phase": int(row[2])}
        if row[3] >= 0:
            d["player"] = int(row[3])
        if row[4] >= 0:
            d["amoeba"] = int(row[4])
        for i, name in enumerate(EVENT_FIELDS[code]):
            d[name] = _convert(etype, name, int(row[5 + i]), players)
        if "genes_low" in d:  # a 64-bit gene set in two words (gene_sets.py): one list of names
            d["genes_mask"] = gene_names(d.pop("genes_low") | d.pop("genes_high") << WORD_BITS)
            d["bp"] = d.pop("bp")
        out.append(d)
    return out


def _who(e: dict[str, Any]) -> str:
    p = e.get("player")
    a = e.get("amoeba")
    if p is None:
        return ""
    return f"P{p}" + (f" amoeba {a}" if a is not None else "")


def _n(n: int, word: str) -> str:
    """``1 card``, ``2 cards`` (issue 21: a log that says "1 cards" reads as a bug)."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def _moved(e: dict[str, Any]) -> str:
    """``from -> to``, or ``stays on from`` when the move ends where it began (an obstacle, B1)."""
    return f"stays on {e['from']}" if e["from"] == e["to"] else f"{e['from']} -> {e['to']}"


def describe(e: dict[str, Any]) -> str:
    """One line a person can follow."""
    t = e["type"]
    w = _who(e)
    if t == "seating":
        return f"{w} starts on score space {e['start_space']}"
    if t == "card":
        return f"environment card: ozone {e['ozone']}, drift {e['drift']}"
    if t == "place":
        cost = f" for {e['cost']} BP" if e["cost"] else ""
        return f"{w} placed on space {e['space']} ({e['how']}{cost}, {e['dp']} DP)"
    if t == "drift":
        return f"{w} drifts {e['direction']}: {_moved(e)}"
    if t == "active_move":
        dice = [d for d in (e["die1"], e["die2"]) if d is not None]
        rolled = f"rolled {'/'.join(map(str, dice))}, " if dice else ""
        return f"{w} {e['how'].replace('_', ' ')} ({rolled}{e['direction']}, {e['cost']} BP): {_moved(e)}"
    if t == "stay":
        return f"{w} stays on {e['space']} (Holding)"
    if t == "carry":
        return f"{w} carries {e['cubes']} from {e['from']} to {e['to']} (Tentacle)"
    if t == "cling":
        leader = f"P{e['leader_player']} amoeba {e['leader_amoeba']}"
        return f"{w} clings to {leader}: {_moved(e)} (Holding)"
    if t == "eat":
        par = f", P{e['parasite_victim']} pays 1 BP (Parasitism)" if e["parasite_victim"] is not None else ""
        sucked = "".join(
            f", 1 of colour {c['colour']} from {c['space']} (Suction)" for c in e.get("suction", [])
        )
        return f"{w} eats {e['cubes']} on {e['space']}{sucked}{par}"
    if t == "excrete":
        return f"{w} excretes {e['count']} on {e['space']}"
    if t == "starve":
        return f"{w} starves on {e['space']} (now {e['dp']} DP)"
    if t == "attack":
        retry = " again (Persistence)" if e["retry"] else ""
        return f"{w} attacks P{e['target_player']} amoeba {e['target_amoeba']} on {e['space']}{retry}"
    if t == "respond":
        answer = " then ".join(e["response"]) or "no answer"
        return f"{w} answers: {answer}"
    if t == "fight":
        who = "defender" if e["defender_wins"] else "attacker"
        return f"  Defense fight: attacker {e['attacker_roll']} vs defender {e['defender_roll']}: {who} wins"
    if t == "attack_result":
        return f"{w} attack on P{e['target_player']} amoeba {e['target_amoeba']}: {e['result']}"
    if t == "death":
        return f"{w} dies on {e['space']} ({e['how']}, {_n(e['cubes'], 'cube')} of each colour placed)"
    if t == "damage":
        return f"{w} takes damage: now {e['dp']} DP ({e['reason'].replace('_', ' ')})"
    if t == "alarm":
        return f"{w} was eaten: P{e['player']}'s amoebas have Escape (Alarm)"
    if t == "camouflage":
        roll = f"rolls {e['roll']}" if e["roll"] else "Camouflage 2"
        return f"{w} {roll}: the target {'may' if e['defence_allowed'] else 'may not'} answer (Camouflage)"
    if t == "hard_crust":
        return f"{w} {'pays ' + str(e['bp']) + ' BP more' if e['paid'] else 'does not pay'} (Hard Crust)"
    if t == "mouthful":
        return f"{w} is not eaten: now {e['dp']} DP (More Than a Mouthful)"
    if t == "bang":
        return f"{w} goes out with a bang on {e['space']}: {_n(e['hit'], 'amoeba')} +1 DP"
    if t == "gene_defect":
        paid = ", ".join(e["genes_mask"] + ([f"{e['bp']} BP"] if e["bp"] else []))
        why = f"MP {e['mutation_points']} > ozone {e['ozone']}"
        return f"{w} gene defect: {why}: pays {e['deficit']} with {paid}"
    if t == "buy":
        gave = f", gives up {e['gave_up']}" if e["gave_up"] else ""
        return f"{w} buys {e['gene']} for {e['price']} BP{gave}"
    if t == "income":
        return f"{w} receives {e['bp']} BP"
    if t == "score":
        return (
            f"{w} scores {e['advance']} ({_n(e['amoebas'], 'amoeba')}, {_n(e['cards'], 'card')}): "
            f"{e['from']} -> {e['to']}"
        )
    if t == "end":
        return f"game over ({e['reason'].replace('_', ' ')}): P{e['winner']} wins"
    # The economy genes (XG-08, XG-10, XG-15/XG-25, XG-20)
    if t == "take":
        return f"{w} takes {e['gene']} from P{e['holder']} for {e['price']} BP"
    if t == "exchange":
        return f"{w} exchanges {e['gave']} for {e['took']} ({e['cost']} BP, Highly Adaptable)"
    if t == "heal":
        to = (
            f", the DP goes to P{e['receiver_player']} amoeba {e['receiver_amoeba']}"
            if e["receiver_player"] >= 0
            else ""
        )
        return f"{w} healed for {e['cost']} BP: now {e['dp']} DP{to}"
    if t == "explosion":
        placed = _n(e["placed"], "amoeba")
        return f"{w} Population Explosion: returns {e['bp_returned']} BP, places {placed} free"
    if t == "gene_income":
        return f"{w} receives {e['bp']} BP ({e['gene']})"
    return str(e)


def board_text(state, g: int, rules, coordinates: list[list[int]]) -> str:
    """The board (amoebas and food per space, laid out by the rules file's ``board.coordinates``),
    then BP, score, genes and DP per player."""
    P = rules.players
    grid: dict[tuple[int, int], int] = {}
    for s, (x, y) in enumerate(coordinates[: rules.n_spaces]):
        grid[(x, y)] = s
    width = 15
    letters = "/".join(COLOUR_LETTERS[:P])
    lines = [f"board: [space] amoebas (colour letter + number); below: food cubes {letters}"]
    for y in range(5):
        cells = []
        cells2 = []
        for x in range(5):
            s = grid.get((x, y))
            if s is None:
                label = "island" if (x, y) == (2, 2) else ""
                cells.append(label.center(width))
                cells2.append("".center(width))
                continue
            who = " ".join(
                f"{COLOUR_LETTERS[p]}{a + 1}"
                for p in range(P)
                for a in range(rules.amoebas_per_player)
                if state.space[g, p, a] == s
            )
            cells.append(f"[{s:2}] {who}".ljust(width)[:width])
            cells2.append(" " + "/".join(str(int(state.food[g, s, c])) for c in range(P)).ljust(width - 1))
        lines.append(" ".join(cells).rstrip())
        lines.append(" ".join(cells2).rstrip())
    lines.append(f"supply {letters}: " + "/".join(str(int(x)) for x in state.supply[g]))
    for p in range(P):
        genes = ", ".join(GENE_NAMES[i] for i in range(N_GENES) if state.genes[g, p, i])
        dps = " ".join(
            f"{a + 1}:{int(state.dp[g, p, a])}DP"
            for a in range(rules.amoebas_per_player)
            if state.space[g, p, a] >= 0 and state.dp[g, p, a] > 0
        )
        lines.append(
            f"P{p} {COLOUR_LETTERS[p]} ({COLOUR_NAMES[p]}{', dummy' if p == rules.dummy else ''}): "
            f"score {int(state.score[g, p]):2}  "
            f"BP {int(state.bp[g, p]):2}  genes [{genes}]" + (f"  damaged {dps}" if dps else "")
        )
    return "\n".join(lines)
