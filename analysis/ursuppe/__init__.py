"""Ursuppe's report sections: gene effects, deck order, combos, figures."""
