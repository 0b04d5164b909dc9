"""Tools over the engine: scenarios, traces, play logs, the bench, the rule index."""
