"""Breadth-first program search over the DSL, verified on the train pairs.

A search state is the tuple of grids a program produces on every train and test input at
once, so the work is shared across test inputs and equal states (same grids everywhere) are
explored once. Level by level, every inferred step is applied to every stored state, but
for a step that leaves every train grid as it was: the train pairs do not show it, whatever
it does to a test grid (`_same_grids`). A program is accepted if it reproduces each train
output exactly, directly or after a cell-wise colour map fitted on the train pairs. It is
kept as an unverified guess, and does not end the search, if

- its test outputs have a size that the train pairs' pattern does not allow (a crop giving
  6×6 where every train output is 7×7);
- its colour map or learned last step does not hold out a train pair
  (`arcsolve.dsl.occam.holds_out`: fitted on the other pairs, it must predict each one;
  with two pairs it must be small, and with one nothing learned counts);
- its fill of hidden cells (from the grid's symmetries or periods) leaves some unfilled in a
  test output where it filled every one on the train pairs (`_leaves_hidden_cells`);
- it leaves a test input as it was, where every train pair changes its input;
- a test output has a colour its test input lacks, where every train output keeps to its
  input's colours;
- its colour map changes every colour it saw (two or more), and a test output holds a colour
  it never saw (kept as it is, where the pairs show no colour kept: `_changes_every_colour`);
- one of its steps acts on a colour that some train grids hold and others lack
  (`_patches_some_pairs`);
- or it is longer than the train outputs it rebuilds (`arcsolve.dsl.occam.significant`).

Answers rank by description length (`arcsolve.dsl.occam.description_length`: steps,
parameters and the entries a model learned), the verified ones first, one per distinct test
prediction.

The last step is evaluated lazily, pair by pair from the smallest input, and skips steps
whose shape effect cannot give the target sizes; this cheap pass also looks one step ahead
before each level is expanded in full, and a level's states are visited closest to the
targets first. Step results are remembered per task, since the full expansion asks again
what the lookahead asked. The clock is checked at every step.

Tables from a few features of each cell to its new colour (`arcsolve.dsl.learned.cell_tables`),
the stamps a task paints around its cells or objects (`arcsolve.dsl.learned.stamping`) and
the moves of its objects (`arcsolve.dsl.learned.object_moves`) are fitted on the train pairs
before the deeper search (at half the budget if the first passes still run then). A model
they learn does not end the search as a verified program does, since a shorter program may
remain to be found; but once none can (every step the search takes costs at least
`MIN_STEP_COST`, so a table of two keys, of length 2, is shorter than any program of three
steps), the deeper search is skipped. When the search is over, tables are fitted on the
states with the target sizes that it found since. States with the target sizes are also kept
as pieces (`arcsolve.dsl.compose`): if no program verified, a few pieces that are each right
where they draw are overlaid. Then, in the time left, tables are fitted on the few states
nearest the targets (a step that does most of the work, then a table that finishes it), and
the stamps and moves not yet fitted to the end. The last fifth of the budget is kept for
these (`END_SHARE`); they stop at 95 % of it.

A task may also be searched in other views (`arcsolve.colour_views`), each renumbering every
pair's colours by a permutation taken from its input: one whose inputs use different colours
in the same roles, with colours ranked by frequency; one whose inputs are drawn on a
background that is not 0, with that colour swapped with 0, since objects are what is not 0.
Each view takes one turn of at most a quarter of the budget, after the plain view's
programs of length 2 (`_run_views`). A task whose grids are all boards (lines of one colour
cutting them into blocks of one colour each) whose layout every train output keeps is also
searched one cell per block (`arcsolve.dsl.block_view`), first of all.
"""

from __future__ import annotations

import gc
import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from arcsolve.colour_views import VIEWS, views_for
from arcsolve.dsl.block_view import BlockGrid, block_task
from arcsolve.dsl.compose import Cover, base_grid, bases, overlay
from arcsolve.dsl.learned.cell_tables import apply_table, fit_tables
from arcsolve.dsl.learned.object_moves import apply_moves, fit_move_models
from arcsolve.dsl.learned.stamping import apply_stamps, fit_stamp_models
from arcsolve.dsl.memo import clear_memos
from arcsolve.dsl.occam import (
    MIN_HELD_OUT,
    UNSET,
    description_length,
    explained_bits,
    few_pairs_hold,
    fit_colours,
    full_map,
    holds_out,
    significant,
)
from arcsolve.dsl.params import PARAMS, Facts, task_facts
from arcsolve.dsl.program import (
    OVERLAY,
    Program,
    Step,
    StepCache,
    apply_step,
    format_program,
    grid_key_of,
)
from arcsolve.dsl.registry import PRIMITIVES
from arcsolve.solution import Candidate, Solution, SolveConfig
from arcsolve.tasks import Grid, Task

Array = np.ndarray
State = tuple[Array, ...]
Shape = tuple[int, int]

MAX_DEPTH = 3
MAX_STATES = 40_000  # stored states, the search's memory bound
MAX_CANDIDATES = 3
END_SHARE = 0.2  # of the time budget, kept for the learners and overlays of pieces
SLACK_SHARE = 0.05  # of the time budget, left for returning the answers once the learners stop
FITTED_ONCE = ("stamp_around", "move_objects")  # learners fitted on the raw grids, early if there is time
LEARNERS = ("cell_table", "near_table", *FITTED_ONCE)  # in this order (`_run_views`)
MAX_PIECES_KEPT = 5_000  # per base, so that the greedy cover stays fast
MAX_CACHED = 100_000  # step results remembered per task
MAX_TABLE_STATES = 8  # states with the target sizes that cell tables are fitted on, if the sizes change
MAX_NEAR_STATES = 4  # states nearest the targets that cell tables are fitted on
VIEW_COST = 0.5  # added to a program found in a view with renumbered colours
SHARED_PASSES = 2  # the plain view's passes before the other views' turns: depth 1, programs of length 2
VIEW_SHARE = 0.25  # of the time budget, at most, for each view with renumbered colours
EARLY_SHARE = 0.1  # of the time budget, at most, for each early learner (tables, stamps, moves)
EARLY_AT = 0.5  # of the time budget: the early learners go then if the first passes still run
_END = object()
BLOCKS = "blocks"  # the view of a board's blocks as cells (`arcsolve.dsl.block_view`)
VIEW_LABELS = {**{name: view.label for name, view in VIEWS.items()}, BLOCKS: "one cell per block"}
MIN_STEP_COST = min(p.cost for p in PRIMITIVES.values() if p.params != "learned")  # of a step the search takes


@dataclass(frozen=True)
class Found:
    """A program that reproduces every train pair, and its predictions for the test inputs.
    It is verified if its test sizes fit the train pairs' pattern (`sized`) and no other
    reason of the module's list makes it a guess (`doubt`, which names the first that does:
    what it learned does not hold out, it does something to a test input that the train
    pairs do not show, or it is no shorter than the train outputs it rebuilds)."""

    program: Program
    outputs: tuple[Array, ...]
    length: float  # its description length (`arcsolve.dsl.occam.description_length`)
    sized: bool = True  # its test outputs have a size the train pairs' size pattern allows
    view: str = ""  # the `VIEWS` entry it was found in; "" for the task as given
    doubt: str = ""  # why it is a guess although its test sizes fit: "" when it is not

    @property
    def verified(self) -> bool:
        return self.sized and not self.doubt


@dataclass
class SearchCounts:
    """What a search did, summed over its views: the distinct states it reached by applying
    a step to every grid of a state (`states`), and the steps it applied to a state, in full
    expansions and in last-step passes that stop at the first pair a step gets wrong
    (`steps`)."""

    states: int = 0
    steps: int = 0


def size_rule(inputs: Sequence[Array], targets: Sequence[Array]) -> Callable[[Shape, Shape], bool]:
    """Which output sizes the train pairs allow: same, fixed, transposed, or a multiple of input."""
    pairs = [(a.shape, b.shape) for a, b in zip(inputs, targets, strict=True)]
    rules: list[Callable[[Shape, Shape], bool]] = []
    if all(i == o for i, o in pairs):
        rules.append(lambda i, o: i == o)
    if len({o for _, o in pairs}) == 1:
        fixed = pairs[0][1]
        rules.append(lambda i, o: o == fixed)
    if all(i[::-1] == o for i, o in pairs):
        rules.append(lambda i, o: i[::-1] == o)
    factors = {(o[0] / i[0], o[1] / i[1]) for i, o in pairs}
    if len(factors) == 1:
        ky, kx = factors.pop()
        rules.append(lambda i, o: (i[0] * ky, i[1] * kx) == o)
    if not rules:
        return lambda i, o: True
    return lambda i, o: any(rule(i, o) for rule in rules)


def _map_is_general(mapping: tuple[tuple[int, int], ...], outputs: Sequence[Array]) -> bool:
    """Whether every colour the map changes occurs in every train output.

    A map fitted colour by colour on single pairs (2->4 in one, 3->6 in another) says
    nothing about a colour it never saw, so it may not be applied to a test output that
    has such a colour; a map seen whole on every pair (0->5 everywhere) may."""
    return all(all((out == a).any() for out in outputs) for a, _ in mapping)


def _changes_every_colour(table: Array) -> bool:
    """Whether a fitted colour map (`fit_colours`) changes every non-zero colour it saw, two
    at least: then the train pairs map colours one to another and show none kept, and a
    colour they never showed, kept as it is, is a guess (where one colour alone changes,
    "1 turns 2" leaves the others as they are)."""
    seen = [c for c in range(1, 10) if table[c] >= 0]
    return len(seen) >= 2 and all(table[c] != c for c in seen)


def _colour_step(table: Array) -> tuple[Step, ...]:
    """No step for an identity table, else one recolor step with the changed colours."""
    mapping = tuple((a, int(b)) for a, b in enumerate(table) if b >= 0 and a != b)
    return (Step("recolor", (mapping,)),) if mapping else ()


class _Search:
    """The state of one task's search: inputs, targets, seen states and accepted programs.

    With a `view`, every pair is seen with its colours renumbered by the view's permutation of
    its input (the output gets the input's numbering), so that one program can serve pairs
    that play the same roles with different colours; `restore` maps test outputs back. In the
    block view (`BLOCKS`, given the task's `boards`), every grid is seen one cell per block,
    and `boards` paints test outputs back into the test inputs' blocks."""

    def __init__(self, task: Task, time_budget: float, max_depth: int, max_states: int,
                 view: str = "", boards: tuple[list[BlockGrid], ...] | None = None):
        start = time.monotonic()
        self.deadline = start + time_budget * (1 - END_SHARE)
        self.hard_deadline = start + time_budget * (1 - SLACK_SHARE)  # for the learners
        self.max_depth, self.max_states = max_depth, max_states
        self.train_in = [p.input.to_numpy().astype(np.int8) for p in task.train]
        self.test_in = [p.input.to_numpy().astype(np.int8) for p in task.test]
        self.targets = [p.output.to_numpy().astype(np.int8) for p in task.train]
        self.view = view
        self.restore: list[Array] | None = None
        self.boards: list[BlockGrid] | None = None  # the test inputs' boards, in the block view
        if view == BLOCKS and boards is not None:
            ins, outs, self.boards = boards
            self.train_in, self.targets = [b.cells for b in ins], [b.cells for b in outs]
            self.test_in = [b.cells for b in self.boards]
        elif view:
            renumber = VIEWS[view].perm
            perms = [renumber(g) for g in self.train_in]
            self.train_in = [m[g] for m, g in zip(perms, self.train_in, strict=True)]
            self.targets = [m[g] for m, g in zip(perms, self.targets, strict=True)]
            tests = [renumber(g) for g in self.test_in]
            self.test_in = [m[g] for m, g in zip(tests, self.test_in, strict=True)]
            self.restore = [np.argsort(m).astype(np.int8) for m in tests]
        self.n_train = len(self.train_in)
        self.order = sorted(range(self.n_train), key=lambda k: self.train_in[k].size)
        self.facts: Facts = task_facts(self.train_in, self.targets)
        self.fits = size_rule(self.train_in, self.targets)
        self.bits = explained_bits(self.targets)  # what a verified program must be shorter than
        self.found: list[Found] = []
        self.verified_found: list[Found] = []
        self.seen: set[int] = set()
        self.tried = 0  # steps applied to a state, in full expansions and last-step passes
        self.apply = StepCache(MAX_CACHED)
        self.resized = any(i.shape != t.shape for i, t in zip(self.train_in, self.targets, strict=True))
        self.resized_states: list[tuple[Program, State]] = []  # for cell tables, if resized
        self.flat_targets = np.concatenate([t.ravel() for t in self.targets])
        self.near: list[tuple[int, int, Program, State]] = []  # heap of (-wrong cells, order, program, state)
        self.input_wrong = self.flat_targets.size if self.resized else int(  # a state kept must beat it
            (np.concatenate([g.ravel() for g in self.train_in]) != self.flat_targets).sum())
        self.learned: set[str] = set()  # the learners that have been fitted to the end
        self.tabled: set[Program] = set()  # the states whose cell tables have been fitted to the end
        self.least_steps = 0  # the fewest steps of a program that the search has yet to try (`levels`)
        self.pause: tuple[float, Callable[[], None]] | None = None  # (when, what): run once, mid-pass
        self.every_pair_changes = all(  # then a test input left as it was is one the program missed
            i.shape != t.shape or not np.array_equal(i, t) for i, t in zip(self.train_in, self.targets, strict=True))
        self.keeps_colours = all(  # every train output draws only with its input's colours
            np.isin(t, i).all() for i, t in zip(self.train_in, self.targets, strict=True))
        covers = [Cover(base, self.train_in, self.targets) for base in bases(self.targets)]
        self.covers = [c for c in covers if c.ok]

    def out_of_time(self) -> bool:
        """Whether the search's deadline has passed; first runs the `pause` callback, once, if
        its time has come (the early learners, when the first passes run long)."""
        now = time.monotonic()
        if self.pause is not None and now > self.pause[0]:
            callback, self.pause = self.pause[1], None
            callback()
            now = time.monotonic()
        return now > self.deadline

    def steps(self, state: State, last: bool) -> Iterator[Step]:
        """Every step worth trying on a state, in the registry's order; on the last level only
        shape-compatible ones. A primitive's parameters are inferred when its turn comes, so a
        caller that stops at its deadline does not wait for the inference of the steps it
        would not try (a tenth of a second for one state of 30 x 30 grids)."""
        grids = state[: self.n_train]
        shapes = [g.shape for g in grids]
        wanted = [t.shape for t in self.targets]
        inferred: dict[str, list] = {}  # parameter kinds shared by several primitives are inferred once
        for prim in PRIMITIVES.values():
            if last and prim.shape == "same" and shapes != wanted:
                continue
            if last and prim.shape == "transpose" and [s[::-1] for s in shapes] != wanted:
                continue
            if last and prim.shape == "any" and shapes == wanted:
                continue
            if prim.params not in inferred:
                inferred[prim.params] = PARAMS[prim.params](grids, self.targets, self.facts)
            for params in inferred[prim.params]:
                yield Step(prim.name, tuple(params))

    def accept(self, program: Program, train_out: Sequence[Array], test_out: Sequence[Array], stops: bool = True,
               before: Sequence[Array] = (), general: bool | None = None):
        """Record the program if it reproduces the train outputs, after a colour map if needed.
        A learned model is recorded with `stops` False: it never ends the search (`verified`).
        Whether what it learned holds out is `general`, or else checked on `before`, the train
        grids its last step took (`holds_out`); only a program that holds out ends the search."""
        table = UNSET.copy()
        for out, target in zip(train_out, self.targets, strict=True):
            if out.shape != target.shape or not fit_colours(table, out, target):
                return
        sized = all(self.fits(i.shape, o.shape) for i, o in zip(self.test_in, test_out, strict=True))
        unfilled = _leaves_hidden_cells(program, train_out, test_out, self.train_in, self.test_in)
        tail = _colour_step(table)
        unseen = False  # a test output holds a colour that the map changes every colour it saw, but not this one
        if tail:
            if any((table[g] < 0).any() for g in test_out):
                if not _map_is_general(tail[0].params[0], train_out):
                    return
                unseen = _changes_every_colour(table)
            full = full_map(table)
            test_out = [full[g] for g in test_out]
        if general is None:
            general = holds_out(program, before, train_out, self.targets, tail, self.hard_deadline)
        program = program + tail
        length = description_length(program)
        doubt = "" if general else (
            "learned, does not hold out a train pair" if self.n_train > 1 else "learned from one train pair")
        if not doubt and unfilled:
            doubt = "leaves hidden cells in a test output"
        if not doubt and self.every_pair_changes and any(
                o.shape == i.shape and np.array_equal(o, i) for o, i in zip(test_out, self.test_in, strict=True)):
            doubt = "leaves a test input as it was, where every train pair changes its input"
        if not doubt and self.keeps_colours and not all(
                np.isin(o, i).all() for o, i in zip(test_out, self.test_in, strict=True)):
            doubt = "a test output has a colour its input lacks, where no train output does"
        if not doubt and unseen:
            doubt = "the colour map changes every colour it saw, and a test output holds one it did not see"
        if not doubt and _patches_some_pairs(program, self.train_in):
            doubt = "a step acts on a colour only some train grids hold"
        if not doubt and not significant(length + (VIEW_COST if self.view else 0.0), self.bits):
            doubt = "no shorter than the train outputs it rebuilds"
        found = Found(program, tuple(test_out), length, sized, doubt=doubt)
        self.found.append(found)
        if found.verified and stops:
            self.verified_found.append(found)

    def verified(self) -> list[Found]:
        """The verified programs of the search (not the learners): only these stop it."""
        return self.verified_found

    def expand(self, program: Program, state: State, frontier: list) -> bool:
        """Apply every step to a stored state, keeping new states; False when time is up."""
        keys = [grid_key_of(g) for g in state]
        for step in self.steps(state, last=False):
            if self.out_of_time():
                return False
            self.tried += 1
            new = self._apply(step, state, keys, 0, self.n_train)
            if new is None:
                continue
            shaped = [(g.shape, g.tobytes()) for g in new]  # for the check and the state's key
            if _same_grids(shaped, keys[: self.n_train]):
                continue  # the train pairs do not show the step, whatever it does to a test grid
            tests = self._apply(step, state, keys, self.n_train, len(state))
            if tests is None:
                continue
            new += tests
            key = hash((*shaped, *((g.shape, g.tobytes()) for g in tests)))
            if key in self.seen:
                continue
            self.seen.add(key)
            prog = program + (step,)
            self.accept(prog, new[: self.n_train], new[self.n_train :], before=state[: self.n_train])
            self.collect(prog, new)
            if len(self.seen) < self.max_states:
                frontier.append((prog, tuple(new)))
        return True

    def _apply(self, step: Step, state: State, keys: Sequence[tuple], start: int, stop: int) -> list[Array] | None:
        """The step applied to the state's grids start..stop-1; None if it fails on one."""
        out = []
        for g, key in zip(state[start:stop], keys[start:stop], strict=True):
            g = self.apply(step, g, key)
            if g is None:
                return None
            out.append(g)
        return out

    def collect(self, program: Program, state: State) -> None:
        """Offer a state with the target sizes to every base as a piece for overlays."""
        train, test = state[: self.n_train], state[self.n_train :]
        if any(g.shape != t.shape for g, t in zip(train, self.targets, strict=True)):
            return
        if not all(self.fits(i.shape, o.shape) for i, o in zip(self.test_in, test, strict=True)):
            return
        if program and self.resized and len(self.resized_states) < MAX_TABLE_STATES:
            self.resized_states.append((program, state))
        flat = np.concatenate([g.ravel() for g in train])
        if program:
            self.keep_near(program, state, int((flat != self.flat_targets).sum()))
        for cover in self.covers:
            if len(cover.rows) < MAX_PIECES_KEPT:
                cover.add((program, state), flat)

    def keep_near(self, program: Program, state: State, wrong: int) -> None:
        """Keep the MAX_NEAR_STATES states with the fewest wrong train cells, each nearer the
        targets than the inputs are (if the sizes change, with a right cell), for cell tables
        to finish."""
        if wrong == 0 or wrong >= self.input_wrong:
            return
        item = (-wrong, -len(self.seen), program, state)  # ties: the one found first stays
        if len(self.near) < MAX_NEAR_STATES:
            heapq.heappush(self.near, item)
        elif item[:2] > self.near[0][:2]:
            heapq.heapreplace(self.near, item)

    def learn(self, only: Sequence[str] = LEARNERS, deadline: float | None = None) -> None:
        """Accept what the learners fitted on the train pairs predict, in the order of
        LEARNERS: cell tables (`fit_tables`) on the raw grids and, where the outputs have other
        sizes than the inputs, on the first states that have the target sizes (an input
        scaled up or cropped, then redrawn cell by cell); "near_table", cell tables on the
        states nearest the targets (`keep_near`) but for those already fitted; stamps around
        the raw grids' cells and objects (`fit_stamp_models`); moves of their objects
        (`fit_move_models`). A model counts only if it answers every test input. A learner
        stops at `deadline` (by default the search's `hard_deadline`); the tables of a state,
        the stamps or the moves fitted to the end are not fitted again."""
        stop = self.hard_deadline if deadline is None else min(deadline, self.hard_deadline)
        grids = tuple(self.train_in + self.test_in)
        first = {program for program, _ in self.resized_states}  # their tables are fitted already
        near = [(program, state) for _, _, program, state in sorted(self.near, key=lambda item: item[:2], reverse=True)
                if program not in first]
        table = (partial(fit_tables, deadline=stop), apply_table, "cell_table")
        learners = [("cell_table", *table, program, state) for program, state in [((), grids), *self.resized_states]]
        learners += [("near_table", *table, program, state) for program, state in near]
        stamps = partial(fit_stamp_models, deadline=stop)
        moves = partial(fit_move_models, deadline=stop)
        learners += [("stamp_around", stamps, apply_stamps, "stamp_around", (), grids),
                     ("move_objects", moves, apply_moves, "move_objects", (), grids)]
        for learner, fit, apply, name, program, state in learners:
            if learner not in only or learner in self.learned or learner == "cell_table" and program in self.tabled:
                continue
            if time.monotonic() > stop:
                return
            for model in fit(list(state[: self.n_train]), list(self.targets)):
                outs = [apply(g, model) for g in state]
                if all(o is not None for o in outs):
                    self.accept(program + (Step(name, (model,)),), outs[: self.n_train], outs[self.n_train :],
                                stops=False, before=state[: self.n_train])
            if learner == "cell_table" and time.monotonic() <= stop:
                self.tabled.add(program)
        for learner in only:
            if learner in FITTED_ONCE and time.monotonic() <= stop:
                self.learned.add(learner)

    def compose(self) -> None:
        """Accept the greedy overlay of pieces for each base, if one covers every train output."""
        for cover in self.covers:
            chosen = cover.greedy()
            if chosen is None:
                continue
            pieces = tuple((program, colours) for (program, _), colours in chosen)
            outs = []
            for k, grid in enumerate(self.train_in + self.test_in):
                grids = [state[k] for (_, state), _ in chosen]
                start = base_grid(cover.base, grid, grids[0].shape)
                colours = [c for _, c in chosen]
                outs.append(None if start is None else overlay(start, grids, colours))
            if all(o is not None for o in outs):
                step = Step(OVERLAY, (cover.base, pieces))
                general = (cover.holds_out() if self.n_train >= MIN_HELD_OUT
                           else few_pairs_hold(self.n_train, [len(pieces)]))
                self.accept((step,), outs[: self.n_train], outs[self.n_train :], general=general)

    def finish(self, program: Program, state: State) -> bool:
        """Try every last step on a state, pair by pair from the smallest input, stopping at the
        first mismatch (most steps fail on the first pair, so the cheapest pair goes first)."""
        keys = [grid_key_of(g) for g in state]
        for step in self.steps(state, last=True):
            if self.out_of_time():
                return False
            self.tried += 1
            table = UNSET.copy()
            train_out = list(state[: self.n_train])
            for k in self.order:
                g, target = self.apply(step, state[k], keys[k]), self.targets[k]
                if g is None or g.shape != target.shape or not fit_colours(table, g, target):
                    break
                train_out[k] = g
            else:
                if _same_grids([(g.shape, g.tobytes()) for g in train_out], keys[: self.n_train]):
                    continue
                test_out = self._apply(step, state, keys, self.n_train, len(state))
                if test_out is not None:
                    self.accept(program + (step,), train_out, test_out, before=state[: self.n_train])
        return True

    def distance(self, state: State) -> float:
        """How far a state's train grids are from the targets: the share of wrong cells, summed
        over the pairs (a grid of another size counts as all wrong). Closer states go first."""
        return sum(
            float(np.mean(g != t)) if g.shape == t.shape else 1.0
            for g, t in zip(state[: self.n_train], self.targets, strict=True)
        )

    def levels(self) -> Iterator[None]:
        """Search level by level; stop after the first level that verifies a program.

        Before a level is expanded in full (every step on every grid, to store its states),
        the cheap last-step pass (`finish`) looks for programs one step longer, so that short
        programs late in the registry are found even when the full expansion runs out of time.
        Yields after each pass, so that another view of the task can take a turn in between
        (`_run_views`)."""
        start: State = tuple(self.train_in + self.test_in)
        self.seen.add(hash(tuple((g.shape, g.tobytes()) for g in start)))
        self.accept((), self.train_in, self.test_in)
        self.collect((), start)
        frontier = [((), start)]
        for depth in range(1, self.max_depth + 1):
            if self.verified():
                return
            last = depth == self.max_depth
            frontier.sort(key=lambda item: self.distance(item[1]))
            if last or depth > 1:
                for program, state in frontier:
                    if not self.finish(program, state) or (last and len(distinct(self.verified())) >= 2):
                        return
                if self.verified() or last:
                    return
                self.least_steps = depth + 1  # the full expansion only finds these programs again
                yield
            nxt: list = []
            for program, state in frontier:
                if not self.expand(program, state, nxt):
                    return
            frontier = nxt
            self.least_steps = depth + 1
            yield

    def least_length(self) -> float:
        """The least description length of a program that the search has yet to try."""
        return self.least_steps * MIN_STEP_COST + (VIEW_COST if self.view else 0.0)

    def results(self) -> list[Found]:
        """The programs found, with test outputs in the task's own colours (in the block
        view, painted into the test inputs' blocks: a program whose outputs do not fit them
        is dropped)."""
        if self.boards is not None:
            painted = [(f, [b.paint(g) for b, g in zip(self.boards, f.outputs, strict=True)]) for f in self.found]
            return [replace(f, outputs=tuple(outs), length=f.length + VIEW_COST, view=self.view)
                    for f, outs in painted if all(o is not None for o in outs)]
        if self.restore is None:
            return self.found
        return [
            replace(f, outputs=tuple(m[g] for m, g in zip(self.restore, f.outputs, strict=True)),
                    length=f.length + VIEW_COST, view=self.view)
            for f in self.found
        ]


def _same_grids(shaped: Sequence[tuple[Shape, bytes]], keys: Sequence[tuple]) -> bool:
    """Whether every grid, given as its shape and bytes, is the one its key (`grid_key_of`) was
    taken from: a step that leaves every train grid as it was is one the train pairs do not
    show, so a program that takes it says nothing more about them than the program without
    it, and what it does to a test grid is a guess."""
    return all(shape == key[0] and blob == key[2] for (shape, blob), key in zip(shaped, keys, strict=True))


HIDDEN_COLOUR_KINDS = ("symmetry", "noise", "lost_colour")  # kinds whose last parameter is the hidden cells' colour
COLOUR_KINDS = ("colour", *HIDDEN_COLOUR_KINDS)  # kinds whose last parameter is the colour a step acts on


def _patches_some_pairs(program: Program, train_in: Sequence[Array]) -> bool:
    """Does a step, run in order from the train inputs, act on a non-zero colour that some of
    its train grids hold and others lack (erase colour 3, fill the cells of colour 9 by a
    symmetry)? On the grids that lack it the step does nothing, so it patches the pairs that
    hold the colour, and the train pairs do not show it as the task's rule."""
    grids = list(train_in)
    for step in program:
        primitive = PRIMITIVES.get(step.name)
        if primitive is None:
            return False  # a learned step or an overlay: its grids are not replayed here
        if primitive.params in COLOUR_KINDS and step.params[-1] != 0:
            holds = [bool((g == step.params[-1]).any()) for g in grids]
            if any(holds) and not all(holds):
                return True
        grids = [apply_step(step, g) for g in grids]
        if any(g is None for g in grids):
            return False
    return False


def _leaves_hidden_cells(
    program: Program,
    train_out: Sequence[Array],
    test_out: Sequence[Array],
    train_in: Sequence[Array] = (),
    test_in: Sequence[Array] = (),
) -> bool:
    """Does a step that fills hidden cells (from symmetries or periods) leave some unfilled
    on a test input, where it filled them all on the train pairs? Then the program does not
    do on the test input what it did on the train pairs. Unfilled cells are those of the
    hidden colour in an output: where no train output holds that colour, any in a test
    output; else, where inputs and outputs share their sizes, those an earlier step made
    the hidden colour (a cell of another colour in the input), so that a colour that is
    also drawn, as 0 is where a view renumbers a colour to it, still tells hidden cells."""
    for step in program:
        primitive = PRIMITIVES.get(step.name)
        if primitive is None or primitive.params not in HIDDEN_COLOUR_KINDS:
            continue
        hidden = step.params[-1]
        if not any((g == hidden).any() for g in train_out) and any((g == hidden).any() for g in test_out):
            return True
        if _made_hidden(hidden, train_in, train_out) == 0 and _made_hidden(hidden, test_in, test_out):
            return True
    return False


def _made_hidden(hidden: int, inputs: Sequence[Array], outputs: Sequence[Array]) -> int | None:
    """The output cells of the hidden colour whose input cell holds another colour, over
    every pair; None where some output's size is not its input's (or no inputs are given)."""
    if not inputs or any(x.shape != y.shape for x, y in zip(inputs, outputs, strict=True)):
        return None
    return sum(int(((y == hidden) & (x != hidden)).sum()) for x, y in zip(inputs, outputs, strict=True))


def _run_views(plain: _Search, others: Sequence[_Search], time_budget: float) -> list[Found]:
    """Search a task as given and in its other views (`VIEWS`), if it has any.

    The plain view goes first up to its complete programs of length 2. Then, unless a program
    verified, the cell tables, the stamps and the object moves its train pairs teach are
    fitted, each in at most `EARLY_SHARE` of the budget: cheap on most tasks, and starved of
    time when they came last. Tables fitted to the end here are not fitted again in the time
    kept for the learners at the end, so the plain view's deadline moves later by the time
    they took. On large grids those first passes can take the whole budget, so if they still
    run at `EARLY_AT` of it, the learners go then, in the middle of the pass
    (`_Search.pause`). Then each other view searches the programs of length 1 and 2 in at most
    `VIEW_SHARE` of the budget; then the plain view goes on to depth 3 in the time left,
    unless a verified answer is already no longer than any program of that depth can be (a
    view likewise stops after its first pass).
    Every view stops once one has a verified program. Then each view's cell tables on its
    inputs (and on the states with the target sizes) not yet fitted are tried (`learn`); if
    no program of the search verifies, overlays of pieces are tried, whether a table did or
    not. Last, in the time left: each view's tables on the states nearest its targets, then
    the stamps and the moves not yet fitted to the end (those of the other views). All of
    them rank with the programs by description length. The block view, where the task has
    one, goes before all the others, in at most `VIEW_SHARE` of the budget: its grids are
    small, and a task drawn as boards is likely played on their blocks."""
    views = [plain, *others]

    def done() -> bool:
        return any(view.verified() for view in views)

    def beaten(view: _Search) -> bool:  # no program it has yet to try is shorter than a verified answer
        return _shortest(views) <= view.least_length()

    def fit_early() -> None:  # cheap on most tasks (`benchmarks/learners.py` times them)
        if done():
            return
        start = time.monotonic()
        stop = start + EARLY_SHARE * time_budget
        plain.learn(("cell_table",), deadline=stop)
        if time.monotonic() <= stop:  # fitted to the end, so not again at the end: their time goes back
            plain.deadline = min(plain.deadline + time.monotonic() - start, plain.hard_deadline)
        for learner in FITTED_ONCE:  # the task as given only: the other views' are rarely needed
            plain.learn((learner,), deadline=time.monotonic() + EARLY_SHARE * time_budget)

    def search_view(view: _Search) -> None:
        view.deadline = min(view.deadline, time.monotonic() + VIEW_SHARE * time_budget)
        for _ in view.levels():
            if beaten(view):
                break

    boards = [view for view in others if view.boards is not None]
    for view in boards:  # small grids, and a layout that tells: first
        search_view(view)
    others = [view for view in others if view.boards is None]
    plain.pause = (time.monotonic() + EARLY_AT * time_budget, fit_early)
    run = plain.levels()
    for _ in range(SHARED_PASSES):
        if done() or next(run, _END) is _END:
            break
    if plain.pause is not None:  # the first passes ended before EARLY_AT
        plain.pause = None
        fit_early()
    for other in others:
        if done():
            break
        search_view(other)
    if not beaten(plain):  # of two answers as long, the one found first ranks first
        for _ in run:
            if done() or beaten(plain):
                break
    searched = done()
    for view in views:
        view.learn(("cell_table",))
    if not searched:
        for view in views:
            view.compose()
    for learner in LEARNERS[1:]:  # in the time left: tables on the nearest states, stamps, moves
        for view in views:
            view.learn((learner,))
    return [f for view in views for f in view.results()]


def _shortest(views: Sequence[_Search]) -> float:
    """The description length of the shortest verified answer the views have found so far."""
    return min((f.length for view in views for f in view.results() if f.verified), default=float("inf"))


def distinct(found: Sequence[Found]) -> list[Found]:
    """The shortest program for each distinct test prediction: the verified ones first,
    shortest first, then the guesses. So the second answer always comes from another program
    than the first, and never repeats its prediction."""
    best: dict[tuple, Found] = {}
    for f in sorted(found, key=lambda f: (not f.verified, f.length)):
        best.setdefault(tuple((g.shape, g.tobytes()) for g in f.outputs), f)
    return list(best.values())


def search(
    task: Task, time_budget: float = 5.0, max_depth: int = MAX_DEPTH, max_states: int = MAX_STATES,
    counts: SearchCounts | None = None,
) -> list[Found]:
    """Programs that reproduce every train pair, each with distinct test predictions: the
    verified ones first, shortest first (`distinct`), then the guesses.

    The task is searched as given, in each view of `views_for` (colours renumbered per
    pair) and, if its grids are boards, in the block view (`block_task`), to depth 2, within
    one time budget (`_run_views`). The views share one cache of
    step results. The per-grid memos are cleared when the search ends, so a worker's memory
    does not grow task after task. The garbage collector leaves the objects older than the
    search alone while it runs (`_older_objects_frozen`). What the search did is added to
    `counts`, if given."""
    with _older_objects_frozen():
        plain = _Search(task, time_budget, max_depth, max_states)
        others = [
            _Search(task, time_budget, min(max_depth, 2), max_states, view=name)
            for name in views_for(plain.train_in + plain.test_in)
        ]
        boards = block_task(plain.train_in, plain.targets, plain.test_in)
        if boards is not None:
            others.append(_Search(task, time_budget, min(max_depth, 2), max_states, view=BLOCKS, boards=boards))
        for other in others:
            other.apply = plain.apply  # a step's result depends on the grid alone, whichever view asks
        try:
            return distinct(_run_views(plain, others, time_budget))
        finally:
            clear_memos()  # the per-grid answers are about this task's grids alone
            if counts is not None:
                counts.states += sum(len(view.seen) for view in (plain, *others))
                counts.steps += sum(view.tried for view in (plain, *others))


@contextmanager
def _older_objects_frozen() -> Iterator[None]:
    """Keep the cyclic garbage collector off the objects that lived before the search (the
    modules, the caller's data) while it runs. A full collection would scan them all, tens of
    milliseconds each time in a process that holds a dataset, although the garbage is the
    search's own. They are handed back afterwards (`gc.unfreeze`). A caller that froze
    objects itself (`gc.freeze`, as a worker may after its imports) keeps its own
    arrangement."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def solve(task: Task, config: SolveConfig, max_depth: int = MAX_DEPTH, max_states: int = MAX_STATES,
          counts: SearchCounts | None = None) -> Solution:
    """Search DSL programs for the task; candidates are the verified programs, shortest first,
    then as unverified guesses those whose test sizes break the train pairs' pattern or whose
    learned part does not hold out a train pair. With an
    infinite `config.time_budget` the search is bounded by `max_depth` and `max_states` alone,
    and its answers do not depend on the machine's speed. What it did is added to `counts`, if
    given (`SearchCounts`)."""
    start = time.monotonic()
    candidates = [
        Candidate(
            grids=tuple(Grid.from_numpy(g) for g in f.outputs),
            source="dsl",
            verified=f.verified,  # a guess, however exact on the train pairs, if not
            score=1.0 / (1.0 + f.length),
            detail=(f"{VIEW_LABELS[f.view]}: " if f.view else "") + format_program(f.program)
            + ("" if f.sized else " (test size unlike the train outputs')")
            + (f" ({f.doubt})" if f.doubt else ""),
        )
        for f in search(task, config.time_budget, max_depth, max_states, counts)[:MAX_CANDIDATES]
    ]
    return Solution(task.id, candidates, time.monotonic() - start)
