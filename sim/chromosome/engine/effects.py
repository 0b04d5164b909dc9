"""SP1: the special actions' effects, in rules.book.EFFECT_KINDS order: specials.py plays them and the
policy (strategies/chromosome/policy.py) values them, both as ``effects.SUPERGEN``..."""

from sim.chromosome.rules.book import EFFECT_KINDS

SPECIAL_EFFECTS: tuple[str, ...] = tuple(EFFECT_KINDS)
(
    SUPERGEN,
    EXCHANGE,
    TAKEOVER,
    GAIN_PASSIVE_GENE,
    BOND_ATTACK,
    DOMINATION_ATTACK,
    FUSION,
    DESTROY,
    CONCENTRATION,
    IRRADIATE_ALL,
    CHARGE_ADJACENT,
    WAVE,
    TELEPORT,
    HOTBED,
    GIANT,
    EXTRA_MOVE,
) = range(len(SPECIAL_EFFECTS))
assert all(globals()[k.upper()] == i for i, k in enumerate(SPECIAL_EFFECTS))
