"""Ursuppe's own soup tune (the "tuning_plan" capability, sim.game): what it adds to the flow every
game's tuning runs on (sim.experiments.tuning, sim/cli/tune.py): its parameter rows (--params),
its fields (--against, --self-play, --pool), the 2-player variants, resume, and the gene-value
study (--gene-value). Every check raises a UserError (one line) before the engine loads."""

from collections.abc import Callable
from pathlib import Path

from analysis.tuning_report import p_text
from sim.experiments.tune_flow import GENE_VALUE_BUDGET, TUNE_BUDGET, TuneRequest, TuningJob
from sim.game import comma_list, strategy_list
from sim.ursuppe.experiments import gene_value as G
from sim.ursuppe.experiments import tuning as T
from sim.ursuppe.rules.book import RuleBook, count_label, load_rules
from strategies.ursuppe import DEFAULT_POOL
from strategies.ursuppe.params import load_strategy

GENE_VALUE_SIGMA = 0.08  # the arms start from a tuned strategy: a smaller first step
# What only --gene-value reads, with its default: given without it, never silently ignored.
GENE_VALUE_OPTIONS = (("--design", "design", "option"), ("--references", "references", "null,plain,bp"))


def tuning_plan(request: TuneRequest) -> TuningJob:
    """soup tune's job: a tuning (:class:`Tuning`) or a gene-value study (:class:`GeneValueStudy`)."""
    r = request
    if not r.gene_value:
        given = [flag for flag, key, default in GENE_VALUE_OPTIONS if getattr(r, key) != default]
        given += ["--genes"] if r.genes is not None else []
        if given:
            raise T.TuningError(f"{', '.join(given)}: only with --gene-value")
    book = load_rules(r.rules)
    from sim.ursuppe.simulation import check_players  # (pyarrow: not on every command's import)

    check_players(book, r.players, r.variant)
    start = load_strategy(r.strategy)
    cfg = T.TuneConfig(
        T.Setting(book, r.players, r.variant),
        start,
        field(r),
        tuple(T.resolve_keys(r.params, book, r.players, r.variant)),
        r.budget if r.budget is not None else (GENE_VALUE_BUDGET if r.gene_value else TUNE_BUDGET),
        seed=r.seed,
        games_per_candidate=r.games_per_candidate,
        population=r.population,
        sigma=r.sigma if r.sigma is not None else (GENE_VALUE_SIGMA if r.gene_value else T.DEFAULT_SIGMA),
        eval_games=r.eval_games,
    )
    kind = "gene-value" if r.gene_value else "tune"
    out = (
        r.out
        if r.out is not None
        else (Path("results") / f"{kind}-{start.name}-{count_label(r.players, r.variant)}-seed{r.seed}")
    )
    return GeneValueStudy(cfg, out, r) if r.gene_value else Tuning(cfg, out, r.resume)


def field(r: TuneRequest) -> T.Field:
    """Who the tuned strategy plays: --against (one strategy, or one per other player), --self-play
    or the mix of --pool (default: the default mix)."""
    # `is not None` throughout (issue 21.1): an empty value given is a mistake to name, never the default.
    if r.against is not None and r.self_play:
        raise T.TuningError("--against and --self-play: give one field, not both")
    if r.self_play:
        return T.Field("self")
    if r.against is None:
        pool = r.pool if r.pool is not None else ",".join(DEFAULT_POOL)
        return T.Field("mix", tuple(load_strategy(n) for n in dict.fromkeys(strategy_list(pool, "--pool"))))
    names = strategy_list(r.against, "--against")
    if len(names) == 1:
        names *= r.players - 1
    if len(names) != r.players - 1:
        raise T.TuningError(
            f"--against: expected 1 or {r.players - 1} strategies (one per other player), got {len(names)}"
        )
    return T.Field("against", tuple(load_strategy(n) for n in names))


class Tuning:
    """A tuning (sim.ursuppe.experiments.tuning): checkpointed every generation, so Ctrl-C keeps the
    last one and the same command continues."""

    command = "tune"
    label = "tuning"

    def __init__(self, cfg: T.TuneConfig, out: Path, resume: bool) -> None:
        self.cfg, self.out, self.resume = cfg, out, resume
        self.generation = 0

    def check(self) -> None:
        self.cfg.validate()
        if self.resume and not (self.out / T.CHECKPOINT).exists():
            raise T.TuningError(f"--resume: {self.out} holds no tuning to continue")
        kept = T.load_checkpoint(self.out, self.cfg)  # another tuning's checkpoint: one line, before the bar
        self.generation = kept.generation if kept else 0
        self.total = self.cfg.generations() * self.cfg.games_per_generation()

    def kept(self) -> str:
        return f"{self.generation} of {self.cfg.generations()} generations are kept in {self.out}"

    def play(self, threads: int, progress: Callable[[int, int], None]) -> None:
        def after(state: T.TuneState) -> None:
            self.generation = state.generation

        self.state = T.tune(self.cfg, self.out, threads, progress, after)

    def finish(self, threads: int, say: Callable[[str], None], warn: Callable[[str], None]) -> None:
        doc = T.finish(self.cfg, self.state, self.out, threads)
        fr = doc["fresh"]
        g = fr["gain"]
        say(
            f"{self.cfg.start.name} tuned: {doc['generations']} generations, {doc['games']:,} games, "
            f"{len(self.cfg.keys)} parameters, against {doc['field']}"
        )
        say(
            f"fresh games ({fr['games']:,}, seed {fr['seed']}): start {fr['start']['win_rate']:.3f} "
            f"[{fr['start']['ci'][0]:.3f}, {fr['start']['ci'][1]:.3f}]  tuned {fr['tuned']['win_rate']:.3f} "
            f"[{fr['tuned']['ci'][0]:.3f}, {fr['tuned']['ci'][1]:.3f}]  gain {g['estimate']:+.3f} "
            f"[{g['ci_low']:+.3f}, {g['ci_high']:+.3f}]"
        )
        for r in doc["changes"][:5]:
            say(f"  {r['parameter']}: {r['start']:g} -> {r['tuned']:g}")
        if doc["validation"]["kept"] == "start":
            warn(
                "the tuned mean did not beat the start on the final check, so tuned.toml is the start: try "
                "a larger --budget or --games-per-candidate, or fewer --params"
            )
        elif g["ci_high"] < 0:
            warn(
                "the tuned strategy is worse than its start on fresh games: try a larger --budget or "
                "--games-per-candidate"
            )
        say(f"Wrote {self.out / T.TUNED} (use it as a strategy) and {self.out / 'report.md'}")


class GeneValueStudy:
    """soup tune --gene-value (sim.ursuppe.experiments.gene_value): every finished arm and unit is
    kept, so Ctrl-C loses at most one generation or one unit and the same command continues."""

    command = "tune --gene-value"

    def __init__(self, cfg: T.TuneConfig, out: Path, r: TuneRequest) -> None:
        self.cfg, self.out, self.request = cfg, out, r
        self.design = r.design
        self.refs = tuple(x for x in comma_list(r.references) if x != "none")
        self.label = G.DESIGNS[r.design].label if r.design in G.DESIGNS else ""

    def check(self) -> None:
        self.genes = chosen_genes(self.cfg.setting.book, self.request)
        if self.request.resume and not (self.out / "units").exists() and not (self.out / "arms").exists():
            raise T.TuningError(f"--resume: {self.out} holds no gene-value study to continue")
        G.check_study(self.cfg, self.genes, self.design, self.refs)  # every arm valid before any play
        if self.request.decks < 1:
            raise T.TuningError(f"--decks: expected at least 1, got {self.request.decks}")
        self.total = G.study_games(self.cfg, self.genes, self.design, self.refs, self.request.decks)

    def kept(self) -> str:
        return f"finished arms and units are kept in {self.out}"

    def play(self, threads: int, progress: Callable[[int, int], None]) -> None:
        self.doc = G.gene_value_study(
            self.cfg, self.genes, self.out, threads, progress, self.design, self.refs, self.request.decks
        )

    def finish(self, threads: int, say: Callable[[str], None], warn: Callable[[str], None]) -> None:
        doc, d = self.doc, G.DESIGNS[self.design]
        how = f"{doc['arm_games']:,} tuning games an arm, " if d.tuned else ""
        say(
            f"{d.label} of {len(self.genes)} genes ({how}{doc['eval_games']:,} fresh games a gene), "
            f"against {doc['field']}:"
        )
        if doc["null"]:
            n = doc["null"]
            say(
                f"  {'null gene (reference)':<22} {100 * n['estimate']:+5.1f} points "
                f"[{100 * n['ci_low']:+.1f}, {100 * n['ci_high']:+.1f}]"
            )
        for r in doc["genes"]:
            plain = r.get("plain")
            extra = f"  plain card {100 * plain['estimate']:+.1f}" if plain else ""
            say(
                f"  {r['gene']:<22} {d.arms[0]} - {d.arms[1]} {100 * r['estimate']:+5.1f} points "
                f"[{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}]  p(Holm) {p_text(r['p_holm'])}{extra}"
            )
        say(f"Wrote {self.out / G.REPORT}")


def chosen_genes(book: RuleBook, r: TuneRequest) -> list[str]:
    """--genes (default: every gene in play), each one in play at this player count."""
    in_play = T.genes_in_play(book, r.players, r.variant)
    if r.genes is None:
        return in_play
    if not r.genes.strip(", "):
        raise T.TuningError("--genes: expected comma-separated gene names (default: every gene in play)")
    chosen = [
        T.GENE_NAMES[T.parameter_key_index(T.GENE_PREFIX + g) - T.GENE_VALUE_BASE]
        for g in comma_list(r.genes)
    ]
    for g in chosen:
        if g not in in_play:
            raise T.TuningError(f"--genes: {book.not_in_play(g, r.players, r.variant)}")
    return chosen
