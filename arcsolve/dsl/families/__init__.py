"""The primitive families that register themselves.

Each module listed here has `REGISTRY`, rows of (function, parameter kind, shape effect,
and optionally a cost other than 1) appended to `arcsolve.dsl.registry.PRIMITIVES` in
this order, and `PARAM_KINDS`, the parameter inference for its own kinds, merged into
`arcsolve.dsl.params.PARAMS`. A family module imports neither `params` nor the registry.
"""

from __future__ import annotations

from arcsolve.dsl.families import (
    assembling,
    completing,
    layout,
    measuring,
    patterns,
    picking,
    regions,
    relating,
    tallying,
)

FAMILIES = (picking, assembling, patterns, completing, regions, layout, measuring, relating, tallying)
