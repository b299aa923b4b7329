"""The block lab's bounds, shared by its state keys and its panels."""
from __future__ import annotations

SIZE_MAX = 8192
# Above this the shape check uses no arrays: the article's 512/8/2048 block
# (3.150.336 parameters) is the largest a phone runs without a pause worth
# the check.
REAL_PARAMS_MAX = 3_200_000
PE_POSITIONS_MAX = 128
PE_D_MAX = 128
# The PE heatmap travels as integers, each value times HEAT_SCALE: a
# thousandth is finer than its colours can show (215 shades from 0 to ±1),
# and integers are fewer bytes, and quicker to write as JSON, than floats.
HEAT_SCALE = 1000
DEPTH_MAX = 64
LN_LIMIT = 100.0  # x, γ and β: wide enough for γ and β to undo any x's normalisation
