"""One module per part of the round (§5-§6): setup, Phases 1-6 and the end check."""
