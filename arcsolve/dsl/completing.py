"""Completing objects and patterns: each object made whole by its own symmetry, and
patterns continued inside the region they partly fill.

A family module registers its own primitives: `REGISTRY` lists (function, parameter kind,
shape effect) rows, and `PARAM_KINDS` the parameter inference for kinds of its own (see
`arcsolve.dsl.families`). It imports neither `params` nor `primitives`.
"""

from __future__ import annotations

REGISTRY: tuple = ()
PARAM_KINDS: dict = {}
