"""Picking one part of a grid: objects and regions chosen by a wider set of criteria than
`arcsolve.dsl.objects.SELECTORS`, cropped or kept in place.

A family module registers its own primitives: `REGISTRY` lists (function, parameter kind,
shape effect) rows, and `PARAM_KINDS` the parameter inference for kinds of its own (see
`arcsolve.dsl.families`). It imports neither `params` nor `primitives`.
"""

from __future__ import annotations

REGISTRY: tuple = ()
PARAM_KINDS: dict = {}
