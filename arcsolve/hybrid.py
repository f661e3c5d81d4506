"""The hybrid solver: DSL search and LatFormer, ranked by verification on the train pairs.

Every candidate's solver has checked it against the train pairs (`Candidate.verified`). The
hybrid keeps verified candidates first: an answer that both solvers verified (two different
models agreeing), then the two solvers alternating, so that both attempts are used when both
found something (the best DSL program, then the LatFormer whose discretised gates reproduce
the train pairs and whose learned table of readings holds out, then the rest); unverified
guesses come last, only to fill attempts that would otherwise be a copy of the input, and a
blank guess (every cell 0) after every other.
LatFormer is fitted on every task, also where the DSL has two verified answers of its own:
those disagree, and LatFormer's verified answer takes the second attempt.

`combine` is the ranking alone, so that `arcsolve eval --model dsl --model latformer --model
hybrid` can build the hybrid from its parts' recorded candidates instead of solving each
task a second time (see `arcsolve.evaluation.evaluate.evaluate_models`).
"""

from __future__ import annotations

import math
import time
from itertools import chain, zip_longest

from arcsolve.solution import Candidate, Solution, SolveConfig, get_solver
from arcsolve.tasks import Task

# The solvers the hybrid is made of; `arcsolve eval` reuses their results when it runs them too.
PARTS: tuple[str, str] = ("dsl", "latformer")
# Under a wall budget per task, the DSL search's part of it; LatFormer's fit gets the rest.
DSL_SHARE = 0.5


def _interleave(*groups: list[Candidate]) -> list[Candidate]:
    return [c for c in chain.from_iterable(zip_longest(*groups)) if c is not None]


def _verified(part: Solution) -> list[Candidate]:
    return sorted((c for c in part.candidates if c.verified), key=lambda c: -c.score)


def _blank(candidate: Candidate) -> bool:
    return all(not any(any(row) for row in grid.cells) for grid in candidate.grids)


def combine(dsl: Solution, neural: Solution | None) -> Solution:
    """The hybrid's ranking of its parts' candidates: verified ones first, those both solvers
    verified before the others, the two solvers alternating, best score first within each;
    unverified guesses last, the DSL's first (a program exact on every train pair whose test
    size breaks their pattern), then LatFormer's, blank guesses after all others. `neural`
    may be None (no LatFormer answer): the DSL's ranking then stands alone."""
    if neural is None:
        return Solution(dsl.task_id, list(dsl.candidates), dsl.seconds)
    by_dsl, by_neural = _verified(dsl), _verified(neural)
    agreed = {c.grids for c in by_dsl} & {c.grids for c in by_neural}
    alternating = _interleave(by_dsl, by_neural)
    verified = [c for c in alternating if c.grids in agreed] + [c for c in alternating if c.grids not in agreed]
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
    neural = get_solver(PARTS[1])(task, config)
    solution = combine(dsl, neural)
    solution.seconds = time.perf_counter() - start
    return solution
