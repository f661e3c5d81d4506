"""Benchmarks run from the command line: `speed` (`bench solve`, `bench speed`), and the
synthetic studies of the paper's Figure 5 and Table 4 (`bench synthetic`): `synthetic_tasks`
and `baselines` (what is fitted), `study_plan` (settings and the list of fits), `study_fits`
(one fit), `study_runner` (resumable, time-bounded pieces), `study_summary` (examples to
0.9, ratios, verdicts), `study_plot` (the figure) and `sample_efficiency` (the two studies)."""
