"""Running solvers over many tasks and scoring them: `evaluate` (results, scores, the eval
loop), `runner` (in process, worker processes or Ray), `report` (report files), `progress`
(the terminal display) and `export` (Kaggle submissions)."""
