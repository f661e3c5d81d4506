"""Benchmarks run from the command line: `speed` (`bench solve`, `bench speed`),
`synthetic_tasks`, `baselines` and `sample_efficiency` (the paper's Figure 5 and Table 4)."""
