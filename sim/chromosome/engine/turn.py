"""A player's turn in Phase II (spec §4.1, T1-T3): at most one move (M1), at most one fate
restore (3 E for 1 fate, not above fate_max), black discards (G4), and exactly one action, in
any order the player picks step by step (Q2); an action is atomic."""

from sim.chromosome.engine import flags as FL
from sim.chromosome.engine.actions import PASSED, list_actions, take_action
from sim.chromosome.engine.costs import can_pay, fate_gene_free
from sim.chromosome.engine.decision_kinds import (
    ACTION,
    DISCARD_BLACK,
    STEP,
    STEP_ACTION,
    STEP_DISCARD,
    STEP_END,
    STEP_MOVE,
    STEP_RESTORE,
)
from sim.chromosome.engine.decisions import decide, fail, set_option
from sim.chromosome.engine.events import EV_DISCARD_BLACK, EV_RESTORE, log
from sim.chromosome.engine.moves import has_move, take_move
from sim.chromosome.engine.payments import pay_energy
from sim.chromosome.engine.specials import CHAIN
from sim.chromosome.engine.state import ERR_INVARIANT, N_BLACK_DISCARD, N_FATE_MAX, N_FATE_RESTORE
from sim.jit import kernel

B = 3  # the B gene colour


@kernel
def may_restore(cs, cr, g, p):
    """T1: 3 E for 1 fate, not above fate_max."""
    return cs.fate[g, p] < cr.numbers[N_FATE_MAX] and can_pay(
        cs, cr, g, p, 0, 0, 0, 0, 0, cr.numbers[N_FATE_RESTORE], False
    )


@kernel
def fate_as_black(cs, cr, g, p):
    """K2 (flag fate_gene_any_purpose, default true): may player p discard its fate as a B gene
    for G4 now (the token active, fate >= 1)?"""
    return cr.flag[FL.FATE_GENE_ANY_PURPOSE] == 0 and fate_gene_free(cs, g, p)


@kernel
def take_turn(cs, cr, cw, g, b, p):
    """T1-T2: player p's turn, step by step; returns when it ends (or the game stops). I13: a
    player who has passed takes no turn, and I11: a turn ends with exactly one action (debug mode:
    errors)."""
    if cw.check_invariants and cs.passed[g, p] != 0:
        fail(cw, g, ERR_INVARIANT, 13, 0, p)
        return
    moved = False
    restored = False
    acted = False
    passed = False
    cs.turn_energy[g] = 0
    while cw.error[g, 0] == 0 and cs.eliminated[g, p] == 0:
        n = 0
        if not moved:
            if has_move(cs, cr, g, p):
                set_option(cw, b, n, STEP_MOVE, 0, 0, 0, 0)
                n += 1
        if not restored and not passed and may_restore(cs, cr, g, p):
            set_option(cw, b, n, STEP_RESTORE, 0, 0, 0, 0)
            n += 1
        if not passed and (cs.active_genes[g, p, B] > 0 or fate_as_black(cs, cr, g, p)):
            set_option(cw, b, n, STEP_DISCARD, 0, 0, 0, 0)
            n += 1
        if not acted:
            set_option(cw, b, n, STEP_ACTION, 0, 0, 0, 0)
            n += 1
        else:
            set_option(cw, b, n, STEP_END, 0, 0, 0, 0)
            n += 1
        step = cw.options[b, decide(cs, cr, cw, g, b, p, STEP, n), 0]
        if step == STEP_END:
            break
        if step == STEP_MOVE:  # M1
            take_move(cs, cr, cw, g, b, p)
            moved = True
        elif step == STEP_RESTORE:  # T1: RAZ NA TURĘ
            pay_energy(cs, cr, cw, g, b, p, cr.numbers[N_FATE_RESTORE])
            cs.fate[g, p] += 1
            restored = True
            log(cs, cw, g, EV_RESTORE, p, cs.fate[g, p], 0, 0, 0, 0, 0, 0)
        elif step == STEP_DISCARD:  # G4b: -2 irradiation each, never below 0; K2: the fate as one
            n = 0
            fate = 1 if fate_as_black(cs, cr, g, p) else 0
            for f in range(fate + 1):
                for k in range(1 - f, cs.active_genes[g, p, B] + 1):
                    set_option(cw, b, n, k, f, 0, 0, 0)
                    n += 1
            i = decide(cs, cr, cw, g, b, p, DISCARD_BLACK, n)
            k = cw.options[b, i, 0]
            f = cw.options[b, i, 1]
            cs.active_genes[g, p, B] -= k
            cs.gene_supply[g, B] += k
            if f != 0:
                cs.fate[g, p] -= 1
                cs.fate_exhausted[g, p] = 1
            drop = (k + f) * cr.numbers[N_BLACK_DISCARD]
            cs.irradiation[g, p] = max(0, cs.irradiation[g, p] - drop)
            log(cs, cw, g, EV_DISCARD_BLACK, p, k, cs.irradiation[g, p], f, 0, 0, 0, 0)
        else:  # T1: exactly one action
            n = list_actions(cs, cr, cw, g, b, p, 0)
            result = take_action(cs, cr, cw, g, b, p, decide(cs, cr, cw, g, b, p, ACTION, n))
            while result == CHAIN and cw.error[g, 0] == 0 and cs.eliminated[g, p] == 0:  # AL1
                n = list_actions(cs, cr, cw, g, b, p, 1)
                result = take_action(cs, cr, cw, g, b, p, decide(cs, cr, cw, g, b, p, ACTION, n))
            passed = result == PASSED
            acted = True
        if cs.ending[g] != 0 and cs.eliminated[g, p] != 0:
            break
    cs.turn_energy[g] = 0
    # I11 (debug mode): the turn ended with exactly one action taken (the loop allows one move,
    # one restore and one action; only an elimination or an error ends a turn before its action)
    if cw.check_invariants and not acted and cs.eliminated[g, p] == 0 and cw.error[g, 0] == 0:
        fail(cw, g, ERR_INVARIANT, 11, 0, p)
