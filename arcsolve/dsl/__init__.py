"""DSL program search, the `--model dsl` solver.

Where things are:
- the engine, here: `search` (`solve(task, config)`, breadth-first search verified on the
  train pairs), `program` (programs as data: `Step`, `format_program`, `run_program`),
  `registry` (the `PRIMITIVES` registry, and the primitives that belong to no family),
  `params` (parameter inference from the train pairs), `occam` (description lengths, and
  leave-one-pair-out for what a program learns from the train outputs), `compose` (overlays
  of partial programs), `pairs` (tests on the train pairs that inference shares) and `memo` (per-grid
  memoisation);
- `primitives/`: pure grid functions by kind: `geometry` (dihedral maps, shifts, scaling,
  tiling), `objects` (connected components, selection by a property, splitting into parts),
  `completion` (symmetry and periodic fill), `drawing` (halos, rays, boxes, insides),
  `counting` (outputs made from counts), `painting` (recolouring by property, line or
  majority), `blocks` and `moving`;
- `families/`: modules that register their own primitives with their own parameter
  inference: `picking`, `assembling`, `patterns`, `completing`, `regions`, `layout`,
  `measuring`, `relating`, `tallying`;
- `learned/`: models fitted on the train pairs: `rules` (neighbourhood rules), `cell_tables`,
  `stamping` and `object_moves`.
"""
