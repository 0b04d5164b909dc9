"""Tallies of what happened in a batch: decisions by kind (§9) and attack outcomes (§8).

``Workspace.tally[b, i]`` counts event ``i`` over the games of block b (one writer per row, so
threads never share a counter); the batch total is the sum over blocks. The fuzz tests read them
to show that the random strategy reaches every decision and every outcome.
"""

from sim.ursuppe.decision_kinds import KIND_NAMES, N_KINDS

DECISION = 0  # DECISION + kind: a decision with at least two legal options
ATTACK_SUCCESS = N_KINDS
ATTACK_ESCAPED = N_KINDS + 1
ATTACK_DEFENDED = N_KINDS + 2
ATTACK_CLUNG = N_KINDS + 3
ESCAPE_STAYED = N_KINDS + 4  # an escape that did not leave the space: the attack went on (A3)
FIGHT_DEFENDER_WON = N_KINDS + 5
FIGHT_DEFENDER_LOST = N_KINDS + 6
PERSISTENCE_REFIGHT = N_KINDS + 7  # A5: a lost Defense fight fought again
PERSISTENCE_RETRY = N_KINDS + 8  # A5: the attacker's free second attempt
ARMOR_DP = N_KINDS + 9  # R3: an armored target took DP instead of dying
LOST_DEFENSE_DP = N_KINDS + 10  # R4
PARASITE_MEAL = N_KINDS + 11  # F4
CLUNG = N_KINDS + 12  # Holding
CARRIED = N_KINDS + 13  # Tentacle moved cubes
N_TALLIES = N_KINDS + 14

TALLY_NAMES: tuple[str, ...] = tuple(f"decision:{k}" for k in KIND_NAMES) + (
    "attack:success",
    "attack:escaped",
    "attack:defended",
    "attack:clung",
    "escape:stayed",
    "fight:defender_won",
    "fight:defender_lost",
    "persistence:refight",
    "persistence:retry",
    "armor:dp",
    "aggression:lost_defense_dp",
    "parasitism:meal",
    "holding:clung",
    "tentacle:carried",
)
