"""Ursuppe's own commands (issue 35.1): ``soup combos``, ``soup verdict`` and ``soup calibrate``, a
typer app that the kit's ``soup`` mounts at its top level (pyproject's entry point group
``soup.commands``, sim.game.command_apps). The unit sits above the game's experiments and may
import the kit's CLI (sim.cli.support); nothing below it imports it. Importing it loads no engine
code: ``soup --help`` mounts it."""

import typer

from sim.ursuppe.cli import combos, verdict  # the modules: their names stay theirs in this package

app = typer.Typer()
app.command("combos")(combos.combos)
app.command("verdict")(verdict.verdict)
app.command("calibrate")(verdict.calibrate)
