"""Running solvers over many tasks and scoring them, one job per module:
`scoring` (the one scorer), `records` (a task's result, a model's report), `results` (the
resumable results file), `selection` (which tasks, with which priors), `runner` (in process,
worker processes or Ray), `evaluate` (the eval loop over models), `report` (report files),
`submission` (Kaggle formats, read and scored), `export` (a submission within a budget),
`solving` (the `solve` command's loop) and `progress` (the terminal display)."""
