"""The primitive families that register themselves.

Each module listed here has `REGISTRY`, rows of (function, parameter kind, shape effect)
appended to `arcsolve.dsl.primitives.PRIMITIVES` in this order, and `PARAM_KINDS`, the
parameter inference for its own kinds, merged into `arcsolve.dsl.params.PARAMS`.
"""

from __future__ import annotations

from arcsolve.dsl import assembling, completing, layout, measuring, patterns, picking, regions, relating

FAMILIES = (picking, assembling, patterns, completing, regions, layout, measuring, relating)
