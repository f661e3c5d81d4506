"""The hybrid solver: DSL search first, then LatFormer, ranked by verification on the train pairs.

Every candidate's solver has checked it against the train pairs (`Candidate.verified`). The
hybrid keeps verified candidates first, alternating between the two solvers so that both
attempts are used when both found something (the best DSL program, then the LatFormer whose
discretised gates reproduce the train pairs, then the rest); unverified guesses come last,
only to fill attempts that would otherwise be a copy of the input.

`combine` is the ranking alone, so that `arcsolve eval --model dsl --model latformer --model
hybrid` can build the hybrid from its parts' recorded candidates instead of solving each
task a second time (see `arcsolve.evaluation.evaluate.evaluate_models`).
"""

from __future__ import annotations

import time
from itertools import chain, zip_longest

from arcsolve.solution import N_ATTEMPTS, Candidate, Solution, SolveConfig, get_solver
from arcsolve.tasks import Task


def _interleave(*groups: list[Candidate]) -> list[Candidate]:
    return [c for c in chain.from_iterable(zip_longest(*groups)) if c is not None]


# The solvers the hybrid is made of; `arcsolve eval` reuses their results when it runs them too.
PARTS: tuple[str, str] = ("dsl", "latformer")


def needs_neural(dsl: Solution) -> bool:
    """Whether LatFormer could still add a verified attempt (the DSL has fewer than two)."""
    return sum(c.verified for c in dsl.candidates) < N_ATTEMPTS


def combine(dsl: Solution, neural: Solution | None) -> Solution:
    """The hybrid's ranking of its parts' candidates: verified ones first, the two solvers
    alternating, best score first within each; unverified guesses last, the DSL's first (a
    program exact on every train pair whose test size breaks their pattern), then LatFormer's.
    `neural` is ignored, and may be None, when the DSL alone fills both attempts."""
    if neural is None or not needs_neural(dsl):
        return Solution(dsl.task_id, list(dsl.candidates), dsl.seconds)
    verified = _interleave(
        sorted((c for c in dsl.candidates if c.verified), key=lambda c: -c.score),
        sorted((c for c in neural.candidates if c.verified), key=lambda c: -c.score),
    )
    rest = [c for c in dsl.candidates + neural.candidates if not c.verified]
    return Solution(dsl.task_id, verified + rest, dsl.seconds + neural.seconds)


def solve(task: Task, config: SolveConfig) -> Solution:
    start = time.perf_counter()
    dsl = get_solver(PARTS[0])(task, config)
    neural = get_solver(PARTS[1])(task, config) if needs_neural(dsl) else None
    solution = combine(dsl, neural)
    solution.seconds = time.perf_counter() - start
    return solution
