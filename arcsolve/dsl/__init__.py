"""DSL program search, the `--model dsl` solver.

Where things are: `geometry` (dihedral transforms, shifts, scaling, tiling), `objects`
(connected components, selection by a property, splitting by separators), `completion`
(symmetry and periodic fill), `primitives` (the rest, and the `PRIMITIVES` registry),
`params` (parameter inference from the train pairs), `compose` (overlays of partial
programs), `program` (programs as data: `Step`, `format_program`, `run_program`) and
`search` (`solve(task, config)`).
"""
