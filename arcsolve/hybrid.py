"""The hybrid solver: DSL search first, then LatFormer, ranked by verification on the train pairs.

Every candidate's solver has checked it against the train pairs (`Candidate.verified`). The
hybrid keeps verified candidates first, alternating between the two solvers so that both
attempts are used when both found something (the best DSL program, then the LatFormer whose
discretised gates reproduce the train pairs, then the rest); unverified guesses come last,
only to fill attempts that would otherwise be a copy of the input.
"""

from __future__ import annotations

import time
from itertools import chain, zip_longest

from arcsolve.solution import N_ATTEMPTS, Candidate, Solution, SolveConfig, get_solver
from arcsolve.tasks import Task


def _interleave(*groups: list[Candidate]) -> list[Candidate]:
    return [c for c in chain.from_iterable(zip_longest(*groups)) if c is not None]


def solve(task: Task, config: SolveConfig) -> Solution:
    start = time.perf_counter()
    dsl = get_solver("dsl")(task, config)
    if sum(c.verified for c in dsl.candidates) >= N_ATTEMPTS:
        # both attempts already hold verified programs: a LatFormer could only come third
        return Solution(task.id, dsl.candidates, time.perf_counter() - start)
    neural = get_solver("latformer")(task, config)
    verified = _interleave(
        sorted((c for c in dsl.candidates if c.verified), key=lambda c: -c.score),
        sorted((c for c in neural.candidates if c.verified), key=lambda c: -c.score),
    )
    rest = [c for c in neural.candidates + dsl.candidates if not c.verified]
    return Solution(task.id, verified + rest, time.perf_counter() - start)
