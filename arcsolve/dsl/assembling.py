"""Assembling grids from transformed copies of the input: tilings with a pattern of
mirrors and turns, a grid stacked with a transformed copy of itself, borders, padding.

A family module registers its own primitives: `REGISTRY` lists (function, parameter kind,
shape effect) rows, and `PARAM_KINDS` the parameter inference for kinds of its own (see
`arcsolve.dsl.families`). It imports neither `params` nor `primitives`.
"""

from __future__ import annotations

REGISTRY: tuple = ()
PARAM_KINDS: dict = {}
