"""Batched fitting: a batch member follows the trajectory `fit` gives it alone; members join,
leave and are cancelled; `solve_many` predicts what `solve` predicts."""

import copy

import pytest
import torch

from arcsolve.latformer.batch import Batch, FitJob, unit_bucket
from arcsolve.latformer.batched import fit_many, signature, solve_many
from arcsolve.latformer.canvases import canvas
from arcsolve.latformer.fit import FitConfig, fit, restart_model, solve, task_examples
from arcsolve.latformer.model import LatFormer, LatFormerConfig
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from tests.conftest import ROOT

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def rotate():
    return load_tasks(ROOT / "tasks" / "rotate.json")[0]


@pytest.fixture(scope="module")
def reflect():
    return load_tasks(ROOT / "tasks" / "reflect.json")[0]


def fresh_model(seed: int = 0, restart: int = 0, dtype: torch.dtype = torch.float32) -> LatFormer:
    return restart_model(lambda: LatFormer(LatFormerConfig()).to(dtype), restart, seed)


def collect(results: dict):
    def on_done(job, model, result):
        results[job.key] = (model, result)
        return []

    return on_done


@pytest.mark.parametrize("graphs", [False, True])
def test_a_member_follows_the_trajectory_fit_gives_it_alone(rotate, graphs):
    # graphs: the layout a CUDA graph reads (every seat from the start, pairs padded to a
    # bucket of unit rows), run eagerly on the CPU
    examples = task_examples(rotate, CPU)
    config = FitConfig(steps=4, seed=3)
    # Adam's update is ±lr for any gradient far above eps, so a gradient that is zero up to
    # rounding (batched matmuls sum in another order) moves its weight by up to ±lr: the two
    # runs agree to rounding for two steps (float64), then drift apart chaotically (the
    # dihedral gates start at a saddle, a uniform mixture, where such gradients are the rule)
    alone, batched = fresh_model(3, dtype=torch.float64), fresh_model(3, dtype=torch.float64)
    other = fresh_model(4, restart=1, dtype=torch.float64)  # another member shares the batch
    expected = fit(alone, examples, config)
    results: dict = {}
    jobs = [FitJob("a", batched, examples, config), FitJob("b", other, examples, FitConfig(steps=4, seed=4))]
    fit_many(jobs, collect(results), capacity=2, graphs=graphs)
    model, got = results["a"]
    assert got.steps == expected.steps and got.solved_train == expected.solved_train
    assert got.losses[:2] == pytest.approx(expected.losses[:2], rel=1e-9)
    assert got.losses == pytest.approx(expected.losses, rel=1e-2)


def test_members_join_as_others_leave_and_follow_ups_are_fitted(rotate):
    examples = task_examples(rotate, CPU)
    order: list = []

    def on_done(job, model, result):
        order.append((job.key, result.steps))
        if job.key == "first":  # a follow-up job queued from the callback joins the same batch
            return [FitJob("follow-up", fresh_model(9), examples, FitConfig(steps=2, seed=9))]
        return []

    budgets = [("first", 2), ("long", 5), ("queued", 3)]
    jobs = [FitJob(k, fresh_model(i), examples, FitConfig(steps=s, seed=i)) for i, (k, s) in enumerate(budgets)]
    fit_many(jobs, on_done, capacity=2)
    # "queued" takes the seat "first" leaves after 2 steps; the follow-up waits for a seat
    assert order == [("first", 2), ("long", 5), ("queued", 3), ("follow-up", 2)]


def test_a_cancelled_job_is_never_reported(rotate):
    examples = task_examples(rotate, CPU)
    cancelled = FitJob("cancelled", fresh_model(1), examples, FitConfig(steps=50, seed=1))
    reported = []

    def on_done(job, model, result):
        reported.append((job.key, result.steps))
        cancelled.cancelled = True  # cancelled while it runs in the batch
        return []

    fit_many([FitJob("short", fresh_model(0), examples, FitConfig(steps=1)), cancelled], on_done, capacity=2)
    assert reported == [("short", 1)]  # the cancelled member left the batch unreported
    fit_many([cancelled], collect(results := {}), capacity=2)  # and never joins once cancelled
    assert results == {}


def test_jobs_of_other_grid_shapes_share_a_batch_and_each_follows_its_own_trajectory(rotate, reflect, monkeypatch):
    # rotate's and reflect's pairs all differ in shape; padded to one canvas they step together
    config = FitConfig(steps=3, seed=2)
    jobs, expected = [], {}
    for task in (rotate, reflect):
        examples = task_examples(task, CPU)
        expected[task.id] = fit(fresh_model(2, dtype=torch.float64), examples, config)
        jobs.append(FitJob(task.id, fresh_model(2, dtype=torch.float64), examples, config))
    assert signature(jobs[0]) == signature(jobs[1])
    sizes: list[int] = []
    step = Batch.train_step
    monkeypatch.setattr(Batch, "train_step", lambda self, *a: (sizes.append(len(self.members)), step(self, *a)))
    results: dict = {}
    fit_many(jobs, collect(results), capacity=2)
    assert sizes == [2, 2, 2]
    for key, want in expected.items():
        got = results[key][1]
        assert got.losses[:2] == pytest.approx(want.losses[:2], rel=1e-9)


def test_jobs_of_other_canvases_get_their_own_batch(rotate):
    scale = load_tasks(ROOT / "tasks" / "scale.json")[0]  # 3x3 inputs, 6x6 outputs
    a = FitJob("rotate", fresh_model(), task_examples(rotate, CPU), FitConfig(steps=2))
    b = FitJob("scale", fresh_model(), task_examples(scale, CPU), FitConfig(steps=2))
    assert canvas(a.examples) == (6, 6) and canvas(b.examples) == (6, 4)
    assert signature(a) != signature(b)
    assert signature(a) == signature(FitJob("again", fresh_model(5), a.examples, FitConfig(steps=7, seed=5)))
    results: dict = {}
    fit_many([a, b], collect(results), capacity=4)
    assert set(results) == {"rotate", "scale"}


def solve_both_ways(tasks, **batching):
    """Each task solved by `solve_many` in one batch, and alone by `solve`."""
    got: dict = {}
    solve_many(tasks, lambda s: got.setdefault(s.task_id, s), batch=2, exact_restarts=0, **batching)
    return {task.id: (got[task.id], solve(task, config, exact_restarts=0)) for task, config in tasks}


@pytest.mark.parametrize(("side_by_side", "graphs"), [(True, False), (False, False), (True, True)])
def test_solve_many_predicts_what_solve_predicts(rotate, reflect, side_by_side, graphs):
    # enough steps that both fits reproduce the train pairs: an unconverged fit's answer has
    # cells near a tie, which a batch's other summation order (or another CPU's) can flip
    config = SolveConfig(steps=100, device="cpu")
    both = solve_both_ways([(rotate, config), (reflect, config)], side_by_side=side_by_side, graphs=graphs)
    for got, expected in both.values():
        assert expected.candidates[0].verified
        assert got.candidates[0].grids == expected.candidates[0].grids
        assert got.candidates[0].verified == expected.candidates[0].verified
        assert got.candidates[0].detail == expected.candidates[0].detail  # action and steps


@pytest.mark.parametrize("side_by_side", [True, False])
def test_solve_many_ranks_the_soft_gates_second_as_solve_does(rotate, reflect, side_by_side):
    # 30 steps reproduce no train pair, so the soft gates' answer comes second; it reads
    # unrounded gates, which a batch's other summation order moves slightly, so only its
    # place, source and sizes are compared
    config = SolveConfig(steps=30, device="cpu")
    both = solve_both_ways([(rotate, config), (reflect, config)], side_by_side=side_by_side, graphs=False)
    for got, expected in both.values():
        assert not expected.candidates[0].verified
        assert [c.source for c in got.candidates] == [c.source for c in expected.candidates]
        soft, expected_soft = got.candidates[1], expected.candidates[1]
        assert (soft.verified, expected_soft.verified) == (False, False)
        assert [g.shape for g in soft.grids] == [g.shape for g in expected_soft.grids]


def test_a_stream_of_tasks_fills_each_seat_as_soon_as_it_is_free(rotate, reflect, monkeypatch):
    # reflect fits for 3 x 10 steps; rotate is done after 3 one-step restarts. With two seats,
    # the third task is taken the moment rotate is reported, and joins reflect's running batch
    copy_of_reflect = reflect.model_copy(update={"id": "reflect-again"})
    stream = [
        (reflect, SolveConfig(steps=30, device="cpu")),
        (rotate, SolveConfig(steps=3, device="cpu")),
        (copy_of_reflect, SolveConfig(steps=3, device="cpu")),
    ]
    events: list[str] = []

    def tasks():
        for task, config in stream:
            events.append(f"take {task.id}")
            yield task, config

    sizes: list[int] = []
    step = Batch.train_step
    monkeypatch.setattr(Batch, "train_step", lambda self, *a: (sizes.append(len(self.members)), step(self, *a)))
    solve_many(tasks(), lambda s: events.append(f"done {s.task_id}"), batch=2, side_by_side=False, exact_restarts=0)
    assert events[:4] == ["take reflect", "take rotate", "done rotate", "take reflect-again"]
    assert events.index("done reflect") > events.index("take reflect-again")
    assert sorted(e for e in events if e.startswith("done")) == ["done reflect", "done reflect-again", "done rotate"]
    assert max(sizes) == 2  # never more members than seats: two tasks, one restart each at a time


def test_solve_many_reports_a_task_without_a_size_rule_at_once():
    from arcsolve.tasks import task_from_dict

    task = task_from_dict(
        {
            "train": [
                {"input": [[1]], "output": [[1, 1]]},
                {"input": [[1, 2]], "output": [[1]]},
            ],
            "test": [{"input": [[3]]}],
        },
        "no-rule",
        "inline",
    )
    got: list = []
    solve_many([(task, SolveConfig(steps=3, device="cpu"))], got.append)
    assert [s.candidates for s in got] == [[]]


def test_the_fitted_weights_come_back_in_the_jobs_own_module(rotate):
    model = fresh_model()
    before = copy.deepcopy(model.state_dict())
    kept: dict = {}
    fit_many([FitJob("x", model, task_examples(rotate, CPU), FitConfig(steps=3))], collect(kept))
    assert kept["x"][0] is model  # the job's own module gets the fitted weights back
    assert any(not torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_tasks_with_other_priors_share_a_batch_when_members_carry_every_expert(rotate, reflect, monkeypatch):
    # each member is built with all four experts, those its priors rule out switched off
    # (`allow_experts`): one batch holds both tasks, and each gets the answer `solve` gives it
    works = [
        (rotate, SolveConfig(steps=100, device="cpu", priors=("rotate",))),
        (reflect, SolveConfig(steps=100, device="cpu", priors=("reflect",))),
    ]
    sizes: list[int] = []
    step = Batch.train_step
    monkeypatch.setattr(Batch, "train_step", lambda self, *a: (sizes.append(len(self.members)), step(self, *a)))
    got: dict = {}
    solve_many(
        works, lambda s: got.setdefault(s.task_id, s), batch=2, side_by_side=True, all_experts=True, exact_restarts=0
    )
    assert sizes[0] == 6  # two tasks, three restarts each, in one batch
    for task, config in works:
        expected = solve(task, config, exact_restarts=0)
        assert expected.candidates[0].verified
        assert got[task.id].candidates[0].grids == expected.candidates[0].grids
        assert got[task.id].candidates[0].verified == expected.candidates[0].verified
        assert got[task.id].candidates[0].detail == expected.candidates[0].detail


def test_a_switched_off_expert_leaves_the_model_as_if_it_had_never_been_built():
    x = torch.randint(0, 10, (2, 3, 4))
    for experts in (("rotate",), ("translate", "scale"), ("scale",)):

        def restricted(experts=experts):
            return LatFormer(LatFormerConfig(experts=experts))

        def switched_off(experts=experts):
            return LatFormer(LatFormerConfig()).allow_experts(experts)

        for restart in range(3):
            alone, full = restart_model(restricted, restart, 7), restart_model(switched_off, restart, 7)
            for a, b in zip(alone.layers, full.layers, strict=True):  # the same live gates, jitter included
                live = [m.experts.gate_bias[m.experts.gate_on.bool()] for m in (a, b)]  # strides off in both
                assert torch.equal(*live)
            for options in ({}, {"smooth": True}, {"discrete": True}):
                expected, _ = alone(x, (3, 4), **options)
                got, _ = full(x, (3, 4), **options)
                assert torch.allclose(got, expected, atol=1e-5)  # autograd picks other matmul paths
            _, loss = full(x, (3, 4), torch.randint(0, 10, (2, 3, 4)))
            loss.backward()
            for layer in full.layers:
                off = ~layer.experts.gate_on.bool()
                assert off.any() and (layer.experts.gate_bias.grad[off] == 0).all()


def test_with_graphs_a_member_takes_a_freed_seat_in_place_at_the_next_check(rotate, monkeypatch):
    # "first" leaves after 3 steps; with graphs its seat (row 0) waits for step 10, when every
    # member is due a check, and "queued" starts there from fresh Adam state, exactly as alone
    examples = task_examples(rotate, CPU)
    queued = FitConfig(steps=4, seed=5)
    expected = fit(fresh_model(5, dtype=torch.float64), examples, queued)
    joins: list = []
    join = Batch.join  # records (job, step of the batch, row, rows) at each join

    def logged(self, job):
        join(self, job)
        joins.append(
            (job.key, self.ticks, [None if m is None else m.job for m in self.seated].index(job), len(self.seated))
        )

    monkeypatch.setattr(Batch, "join", logged)
    results: dict = {}
    jobs = [
        FitJob("first", fresh_model(1, dtype=torch.float64), examples, FitConfig(steps=3, seed=1)),
        FitJob("long", fresh_model(2, restart=1, dtype=torch.float64), examples, FitConfig(steps=14, seed=2)),
        FitJob("queued", fresh_model(5, dtype=torch.float64), examples, queued),
    ]
    fit_many(jobs, collect(results), capacity=2, graphs=True)
    assert joins[-1] == ("queued", 10, 0, 2)  # at step 10, in the row "first" had, of two
    got = results["queued"][1]
    assert got.steps == expected.steps
    assert got.losses[:2] == pytest.approx(expected.losses[:2], rel=1e-9)


def test_unit_buckets_hold_their_units_waste_at_most_a_third_and_keep_a_capture_while_it_fits():
    sizes = [unit_bucket(n) for n in range(1, 400)]
    assert all(size >= n for n, size in zip(range(1, 400), sizes, strict=True))
    assert all(3 * (size - n) <= size for n, size in zip(range(9, 400), sizes[8:], strict=True))
    assert sorted(set(sizes))[:7] == [8, 12, 16, 24, 32, 48, 64]
    assert unit_bucket(40, 64) == 64  # still more than half full: the captured graph stays
    assert unit_bucket(32, 64) == 32 and unit_bucket(65, 64) == 96


def test_a_strided_exact_start_follows_in_a_batch_the_trajectory_fit_gives_it_alone():
    """Columns tripled, then every second one, on pairs of other sizes: the batch pads them
    to one canvas, and its kernels' strides read as the model's own do."""
    from arcsolve.latformer.exact_starts.action_sets import ActionSet
    from arcsolve.latformer.exact_starts.actions import ExactAction
    from arcsolve.latformer.restarts import exact_model

    draws = torch.Generator().manual_seed(3)
    xs = [torch.randint(0, 5, size, generator=draws) for size in [(3, 4), (2, 6), (4, 2)]]
    examples = [(x, x.repeat_interleave(3, dim=1)[:, ::2].contiguous()) for x in xs]
    start = ActionSet((ExactAction(0, scale=(1, 3), stride=(1, 2)),), 0, 0)

    def model():
        return exact_model(lambda c: LatFormer(c).to(torch.float64), LatFormerConfig(), start, 0)

    config = FitConfig(steps=4, seed=1, check_every=100)  # soft gates: the strides' mixtures train too
    expected = fit(model(), examples, config)
    results: dict = {}
    fit_many([FitJob("strided", model(), examples, config)], collect(results), capacity=2)
    got = results["strided"][1]
    assert got.steps == expected.steps == 4
    assert got.losses[:2] == pytest.approx(expected.losses[:2], rel=1e-9)
    assert got.losses == pytest.approx(expected.losses, rel=1e-2)
    rounded = fit(model(), examples, FitConfig(steps=60, seed=1, rounded_gates=True))
    assert rounded.solved_train  # the start's own action, kept rounded, reproduces the pairs
