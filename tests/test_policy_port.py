"""A game engine's policy port (issue 33, docs/decisions.md "The engine names no strategy; a port
does"): it hands the engine the strategy module's own objects, asks its providers in order and
only as far as it must, and says what is missing in one line."""

import sys
import types

import pytest

from sim.policy_port import Port, serve


def _module(name: str, **names: object) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(names)
    return module


def test_the_engine_calls_the_strategy_modules_own_kernel():
    import sim.pig.engine
    import strategies.pig.policy

    assert sim.pig.engine.rolls_again is strategies.pig.policy.rolls_again


def test_a_knob_never_loads_the_policy():
    asked = []
    knobs, policy = _module("knobs", RESERVE=3), _module("policy", choose=len)
    port = Port("game.engine.policy_port")
    port.plug(lambda: asked.append("knobs") or knobs, lambda: asked.append("policy") or policy)
    assert port.attribute("RESERVE") == 3
    assert asked == ["knobs"]
    assert port.attribute("choose") is len
    assert asked == ["knobs", "knobs", "policy"]


def test_an_unplugged_port_names_the_wiring():
    with pytest.raises(ImportError, match=r"game\.engine\.policy_port: no policy is plugged in .*wiring\.py"):
        Port("game.engine.policy_port").attribute("choose")


def test_a_name_no_provider_defines_names_them():
    port = Port("game.engine.policy_port")
    port.plug(lambda: _module("strategies.game.params"), lambda: _module("strategies.game.policy"))
    with pytest.raises(AttributeError, match="none of strategies.game.params, strategies.game.policy"):
        port.attribute("chose")
    with pytest.raises(AttributeError):
        port.attribute("__path__")  # the import system's probe: not a policy's name


def test_from_the_port_import_serves_a_name_and_fails_for_a_missing_one(monkeypatch):
    plug, attribute = serve("fake_policy_port")  # what a port module is: plug, __getattr__
    monkeypatch.setitem(sys.modules, "strategies.fake.policy", _module("strategies.fake.policy", choose=len))
    plug("strategies.fake.policy")
    module = _module("fake_policy_port", __getattr__=attribute)
    monkeypatch.setitem(sys.modules, "fake_policy_port", module)
    from fake_policy_port import choose

    assert choose is len
    with pytest.raises(ImportError, match="cannot import name 'chose'"):
        from fake_policy_port import chose  # noqa: F401
