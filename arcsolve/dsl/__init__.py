"""DSL program search, the `--model dsl` solver.

Where things are: `geometry` (dihedral transforms, shifts, scaling, tiling), `objects`
(connected components, selection and codes by a property, splitting into parts),
`completion` (symmetry and periodic fill), `drawing` (halos, rays, boxes, insides),
`counting` (outputs made from counts), `painting` (recolouring by property, line or
majority), `rules` (neighbourhood rules learned from the train pairs), `memo` (per-grid
memoisation), `primitives` (the rest, and the `PRIMITIVES` registry), `families` (the
modules that register their own primitives: `picking`, `assembling`, `patterns`,
`completing`, `regions`, `layout`, `measuring`, `relating`, `tallying`), `pairs` (tests on the train
pairs that their inference shares), `params` (parameter inference from the train pairs),
`compose` (overlays of partial programs), `program` (programs as data: `Step`,
`format_program`, `run_program`) and `search` (`solve(task, config)`).
"""
