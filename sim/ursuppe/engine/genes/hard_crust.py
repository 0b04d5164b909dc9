"""Hard Crust (XG-05): an attack on its owner's amoeba that gets past the answers (or, with the flag
hard_crust_after_failed_defence, also after a failed Defense) goes on only if the attacker's owner
pays ``hard_crust_extra_bp`` (1) BP more; else it fails (ATTACK_CRUSHED), and with the flag
hard_crust_refusal = attacker_dies the attacker dies (cubes: flag hard_crust_death_cubes, a
PLACEHOLDER), with attacker_starves it fails like any attack (A6's starvation, R4's DP).

The choice is the decision kind ``hard_crust`` (scenario choice ``{"crust": true | "pay" |
"let_fail"}``), valued by :func:`value`, logged as the event ``hard_crust`` and counted in the
tallies ``hard_crust:paid`` / ``hard_crust:refused``. Its hooks: :func:`hard_crust_stops`
(attacks.py ``_succeeds``, shared by Phases 1 and 5) and :func:`hard_crust_death_cubes` (attacks.py
``hard_crust_refused``, which kills through attacks.die: this module is below attacks.py). The
policy's valuation of an attack target (a shared decision) reads the gene and its extra BP by
GENE_INDEX and XFLAG_INDEX: this module calls decide, so the policy cannot import it.
"""

from sim.jit import kernel
from sim.ursuppe.engine.decisions import decide, set_option
from sim.ursuppe.engine.events import log
from sim.ursuppe.engine.genes import indices
from sim.ursuppe.engine.players import add_bp, has
from sim.ursuppe.engine.policy_port import HARD_CRUST_MAX_BP
from sim.ursuppe.rules.gene_rows import Decision, ExtraFlag, Gene, two_way

REFUSALS = ("attacker_dies", "attacker_starves")  # flag hard_crust_refusal
CRUST_ATTACKER_DIES, CRUST_ATTACKER_STARVES = range(len(REFUSALS))
DEATH_CUBES = ("2_each", "1_each", "none")  # flag hard_crust_death_cubes
CRUST_CUBES_2_EACH, CRUST_CUBES_1_EACH, CRUST_CUBES_NONE = range(len(DEATH_CUBES))

GENE = Gene(
    "Hard Crust",
    "XG-05",
    flags=(
        ExtraFlag("hard_crust_refusal", "XG-05", "attacker_dies", REFUSALS),
        ExtraFlag("hard_crust_death_cubes", "XG-05", "2_each", DEATH_CUBES, placeholder=True),
        ExtraFlag("hard_crust_after_failed_defence", "XG-05", False),
        ExtraFlag("hard_crust_extra_bp", "XG-05", 1, lo=0, hi=100),
    ),
    decisions=(
        Decision(
            "hard_crust",
            "XG-05",
            1,
            "crust",
            "0 let the attack fail / 1 pay the extra BP",
            *two_way("crust", ("let_fail", "pay")),
        ),
    ),
    events=(("hard_crust", ("paid", "bp")),),  # XG-05
    tallies=(
        ("hard_crust:paid", "XG-05"),
        ("hard_crust:refused", "XG-05: the attack failed for want of the extra BP"),
    ),
)

# The kernels' constants (numba globals): the gene, its flags, decision kind, event and tallies.
(
    HARD_CRUST,
    XF_HARD_CRUST_REFUSAL,
    XF_HARD_CRUST_DEATH_CUBES,
    XF_HARD_CRUST_AFTER_FAILED_DEFENCE,
    XF_HARD_CRUST_EXTRA_BP,
    HARD_CRUST_PAY,
    EV_HARD_CRUST,
    HARD_CRUST_PAID,
    HARD_CRUST_REFUSED,
) = indices(GENE)


@kernel
def value(st, ru, wk, g, b, p, a, n, prm):
    """XG-05, the policy's valuation (strategies/ursuppe/policy.py) of the options (0 let the
    attack fail / 1 pay the extra BP); ``a``: the attacking amoeba. Pays up to
    ``hard_crust_max_bp``: the target was chosen as worth the attack, and letting it fail costs
    the attacker its life (or a starvation DP)."""
    extra = ru.xflag[XF_HARD_CRUST_EXTRA_BP]
    for i in range(n):
        pay = wk.options[b, i, 0] == 1
        wk.scores[b, i] = (1.0 if extra <= prm[HARD_CRUST_MAX_BP] else -1.0) if pay else 0.0


@kernel
def _pays(st, ru, wk, g, b, p, a, phase):
    """XG-05: the attacker's owner pays the extra BP to go on (its choice, if it has them);
    True if it paid."""
    cost = ru.xflag[XF_HARD_CRUST_EXTRA_BP]
    set_option(wk.options, b, 0, 0, 0, 0)
    n = 1
    if st.bp[g, p] >= cost:
        set_option(wk.options, b, 1, 1, 0, 0)
        n = 2
    # The policy cannot call value (its module would import this one, which calls decide): the
    # scores are set here, and policy.choose leaves a gene module's kinds' scores as they are.
    if p != ru.dummy and n > 1:
        value(st, ru, wk, g, b, p, a, n, wk.params[st.strategy[g, p]])
    paid = wk.options[b, decide(st, ru, wk, g, b, p, a, HARD_CRUST_PAY, n), 0] == 1
    if paid:
        add_bp(st, ru, g, p, -cost)
        wk.tally[b, HARD_CRUST_PAID] += 1
        log(st, wk, g, EV_HARD_CRUST, phase, p, a + 1, 1, cost, 0, 0, 0, 0, 0)
    else:
        wk.tally[b, HARD_CRUST_REFUSED] += 1
        log(st, wk, g, EV_HARD_CRUST, phase, p, a + 1, 0, 0, 0, 0, 0, 0, 0)
    return paid


@kernel
def hard_crust_stops(st, ru, wk, g, b, p, a, q, phase, answered):
    """XG-05, the attack's hook (attacks._succeeds): amoeba (p, a)'s attack on player q's amoeba
    got past the answers (``answered``: one was given and failed); True if q's Hard Crust stops
    it (the extra BP not paid: _pays)."""
    if ru.extra_genes and has(st, g, q, HARD_CRUST):
        if not answered or ru.xflag[XF_HARD_CRUST_AFTER_FAILED_DEFENCE] != 0:
            if not _pays(st, ru, wk, g, b, p, a, phase):
                return True
    return False


@kernel
def hard_crust_death_cubes(ru):
    """XG-05, the refused attack's hook (attacks.hard_crust_refused): the cubes of each colour the
    attacker's death places (flag hard_crust_death_cubes), or -1 when it does not die (flag
    hard_crust_refusal = attacker_starves)."""
    if ru.xflag[XF_HARD_CRUST_REFUSAL] != CRUST_ATTACKER_DIES:
        return -1
    mode = ru.xflag[XF_HARD_CRUST_DEATH_CUBES]
    return 2 if mode == CRUST_CUBES_2_EACH else (1 if mode == CRUST_CUBES_1_EACH else 0)
