"""Chromosome's part of restricted play (issue 34.7; sim/experiments/restricted.py): an action a
seat may not take (T3, Q6), named as in scenario files (``growth``, ``evolution``, ``spark``,
``impulse``; a special action by its id, e.g. ``FE4``, with species_mode = "full", SP1).

The search is never offered an ACTION option of it, and the seat's rollout policy never takes it
either: the replay's rules carry the seat's bit in Rules.deny_action, which list_actions applies
(engine/actions.py), so the option is not legal for that seat at all. Pass is never denied (A13).
"""

from typing import Any

import numpy as np

from sim.chromosome.engine.decision_kinds import ACT_SPECIAL, ACTION, DENY_SPECIAL_BIT, MAIN_ACTIONS
from sim.errors import UserError


def action_names(rules: Any) -> list[str]:
    """The actions a seat can be denied under ``rules`` (a ChromosomeRules): the main actions,
    and the special actions' ids in the full species mode."""
    specials = [a["id"] for actions in rules.species_actions().values() for a in actions]
    return [*MAIN_ACTIONS, *dict.fromkeys(specials)]


def restriction(rules: Any, name: str) -> Any:
    """The Restriction of action ``name`` (a UserError names a bad one)."""
    from sim.experiments.restricted import Restriction

    names = action_names(rules)
    if name not in names:
        raise UserError(f"--action: expected one of {', '.join(names)}, got {name!r}")
    if name in MAIN_ACTIONS:
        codes = MAIN_ACTIONS[name]
        mask = sum(1 << c for c in codes)

        def taken(choice: Any) -> bool:
            return choice.kind == ACTION and choice.row[0] in codes

    else:
        index = _special_index(rules, name)
        mask = 1 << (DENY_SPECIAL_BIT + index)

        def taken(choice: Any) -> bool:
            return choice.kind == ACTION and choice.row[0] == ACT_SPECIAL and choice.row[1] == index

    def restrict(replay: Any, player: int) -> Any:
        deny = np.zeros(replay.rules.players, np.int64)
        deny[int(replay.seat[player])] = mask  # the engine's index of the run's player
        replay.rules = replay.rules._replace(deny_action=deny)
        return replay

    return Restriction(name, taken, restrict)


def _special_index(rules: Any, name: str) -> int:
    """A special action's index on its species' board (specials.py's option rows carry it)."""
    for actions in rules.species_actions().values():
        for k, a in enumerate(actions):
            if a["id"] == name:
                return k
    raise UserError(f"--action: {name} is not a special action of these rules")
