"""The hybrid solver: DSL search first, then LatFormer, ranked by verification on the train pairs.

Every candidate's solver has checked it against the train pairs (`Candidate.verified`). The
hybrid keeps verified candidates first, alternating between the two solvers so that both
attempts are used when both found something (the best DSL program, then the LatFormer whose
discretised gates reproduce the train pairs, then the rest); unverified guesses come last,
only to fill attempts that would otherwise be a copy of the input, and a blank guess (every
cell 0) after every other. Where the DSL already has two distinct verified answers for every
test input, LatFormer is not fitted.

`combine` is the ranking alone, so that `arcsolve eval --model dsl --model latformer --model
hybrid` can build the hybrid from its parts' recorded candidates instead of solving each
task a second time (see `arcsolve.evaluation.evaluate.evaluate_models`).
"""

from __future__ import annotations

import math
import time
from itertools import chain, zip_longest

from arcsolve.solution import N_ATTEMPTS, Candidate, Solution, SolveConfig, get_solver
from arcsolve.tasks import Task

# The solvers the hybrid is made of; `arcsolve eval` reuses their results when it runs them too.
PARTS: tuple[str, str] = ("dsl", "latformer")
# Under a wall budget per task, the DSL search's part of it; LatFormer's fit gets the rest.
DSL_SHARE = 0.5


def _interleave(*groups: list[Candidate]) -> list[Candidate]:
    return [c for c in chain.from_iterable(zip_longest(*groups)) if c is not None]


def needs_neural(dsl: Solution, n_tests: int) -> bool:
    """Whether LatFormer could still add a verified attempt: the DSL's verified candidates give
    fewer than two distinct grids for some test input."""
    verified = Solution(dsl.task_id, [c for c in dsl.candidates if c.verified])
    return any(len(verified.distinct_grids(i)) < N_ATTEMPTS for i in range(n_tests))


def _blank(candidate: Candidate) -> bool:
    return all(not any(any(row) for row in grid.cells) for grid in candidate.grids)


def combine(dsl: Solution, neural: Solution | None, n_tests: int = 1) -> Solution:
    """The hybrid's ranking of its parts' candidates: verified ones first, the two solvers
    alternating, best score first within each; unverified guesses last, the DSL's first (a
    program exact on every train pair whose test size breaks their pattern), then LatFormer's,
    blank guesses after all others. `neural` is ignored, and may be None, when the DSL alone
    fills both attempts of every test input."""
    if neural is None or not needs_neural(dsl, n_tests):
        return Solution(dsl.task_id, list(dsl.candidates), dsl.seconds)
    verified = _interleave(
        sorted((c for c in dsl.candidates if c.verified), key=lambda c: -c.score),
        sorted((c for c in neural.candidates if c.verified), key=lambda c: -c.score),
    )
    guesses = [c for c in dsl.candidates + neural.candidates if not c.verified]
    rest = [c for c in guesses if not _blank(c)] + [c for c in guesses if _blank(c)]
    return Solution(dsl.task_id, verified + rest, dsl.seconds + neural.seconds)


def budgeted(model: str, config: SolveConfig, seconds: float) -> SolveConfig:
    """`config` for one task of `model` that is given `seconds` of wall time: the DSL search
    and the LatFormer fit capped to fit in it (the hybrid's DSL search to DSL_SHARE of it,
    its fit to the rest); a tighter `fit_seconds` already set is kept."""
    dsl_seconds = seconds * DSL_SHARE if model == "hybrid" else seconds
    fit_seconds = seconds - dsl_seconds if model == "hybrid" else seconds
    fit_cap = min(config.fit_seconds if config.fit_seconds is not None else math.inf, fit_seconds)
    return config.model_copy(update={"time_budget": dsl_seconds, "fit_seconds": fit_cap})


def solve(task: Task, config: SolveConfig) -> Solution:
    start = time.perf_counter()
    dsl = get_solver(PARTS[0])(task, config)
    neural = get_solver(PARTS[1])(task, config) if needs_neural(dsl, len(task.test)) else None
    solution = combine(dsl, neural, len(task.test))
    solution.seconds = time.perf_counter() - start
    return solution
