"""Devices: no CPU tensor hides in the model (checked on PyTorch's meta device, which any
machine has), and on a CUDA machine fitting gives the answers it gives on the CPU.

The CUDA tests need a GPU and are skipped without one (CI has none); they were run on the
device machine, as `benchmarks/gpu.sh` runs them."""

import pytest
import torch

from arcsolve.latformer.batched import GPU_CANVAS_SIDES, FitJob, canvas, fit_many, solve_many
from arcsolve.latformer.experts import EXPERTS
from arcsolve.latformer.fit import FitConfig, fit, restart_model, solve, task_examples
from arcsolve.latformer.model import LatFormer, LatFormerConfig, lattices
from arcsolve.loaders import load_tasks
from arcsolve.solution import SolveConfig
from tests.conftest import ROOT

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

SHAPES = [((3, 3), (3, 3)), ((3, 4), (6, 8)), ((2, 3), (3, 2)), ((6, 4), (2, 2))]


@pytest.mark.parametrize("beta", [None, 0.5])
@pytest.mark.parametrize(("in_shape", "out_shape"), SHAPES)
def test_the_model_runs_wholly_on_the_device_it_is_moved_to(beta, in_shape, out_shape):
    # the meta device keeps shapes and no data; a CPU constant meeting a meta tensor raises,
    # exactly as it would meeting a CUDA tensor
    meta = torch.device("meta")
    model = LatFormer(LatFormerConfig(experts=EXPERTS, beta=beta)).to(meta)
    x = torch.zeros(4, *in_shape, dtype=torch.long, device=meta)
    y = torch.zeros(4, *out_shape, dtype=torch.long, device=meta)
    for options in ({}, {"smooth": True}, {"discrete": True}):
        logits, loss = model(x, out_shape, y, **options)
        assert logits.device == meta and logits.shape == (4, *out_shape, 10)
    loss.backward()
    assert all(p.grad is None or p.grad.device == meta for p in model.parameters())
    padded = lattices(in_shape, out_shape, 31, (8, 8), meta)
    assert padded.first.rows.up.device == meta and padded.skip_on is not None


@pytest.fixture(scope="module")
def bundled():
    return [load_tasks(ROOT / "tasks" / f"{name}.json")[0] for name in ("rotate", "reflect", "scale")]


@needs_cuda
def test_a_cuda_forward_matches_the_cpu_one():
    torch.manual_seed(0)
    model = LatFormer(LatFormerConfig(experts=EXPERTS))
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)  # away from the identity initialisation
    x = torch.randint(0, 10, (3, 5, 4))
    on_cpu, _ = model(x, (10, 8), smooth=True)
    on_gpu, _ = model.to("cuda")(x.to("cuda"), (10, 8), smooth=True)
    error = (on_gpu.cpu().double() - on_cpu.double()).norm() / on_cpu.double().norm()
    assert error < 1e-3  # float32 (or TF32 matmuls) on both sides


@needs_cuda
def test_solve_on_cuda_gives_the_cpu_answers(bundled):
    for task in bundled:
        on_gpu = solve(task, SolveConfig(device="cuda", steps=150))
        on_cpu = solve(task, SolveConfig(device="cpu", steps=150))
        assert on_gpu.candidates[0].verified and on_gpu.candidates[0].grids == on_cpu.candidates[0].grids
        assert on_gpu.candidates[0].grids == tuple(p.output for p in task.test)


@needs_cuda
def test_batched_fitting_on_cuda_solves_what_single_fits_solve(bundled):
    config = SolveConfig(device="cuda", steps=150)
    got: dict = {}
    solve_many([(task, config) for task in bundled], lambda s: got.setdefault(s.task_id, s), batch=3)
    assert set(got) == {task.id for task in bundled}
    for task in bundled:
        assert got[task.id].candidates[0].verified
        assert got[task.id].candidates[0].grids == tuple(p.output for p in task.test)


@needs_cuda
def test_on_a_gpu_inputs_and_outputs_share_one_of_a_few_large_canvases(bundled):
    for task in bundled:
        on_gpu = canvas(task_examples(task, torch.device("cuda")))
        on_cpu = canvas(task_examples(task, torch.device("cpu")))
        assert on_gpu[0] == on_gpu[1] in GPU_CANVAS_SIDES and on_gpu[0] >= max(on_cpu)


@needs_cuda
def test_a_member_of_a_batch_replayed_as_a_cuda_graph_follows_the_trajectory_fit_gives_it_alone(bundled, monkeypatch):
    cuda = torch.device("cuda")
    examples = task_examples(bundled[0], cuda)

    def model(seed, restart=0):
        return restart_model(lambda: LatFormer(LatFormerConfig()).to(cuda, torch.float64), restart, seed)

    config = FitConfig(steps=12, seed=3)
    expected = fit(model(3), examples, config)
    replays = []
    replay = torch.cuda.CUDAGraph.replay
    monkeypatch.setattr(torch.cuda.CUDAGraph, "replay", lambda self: (replays.append(1), replay(self)))
    results = {}

    def on_done(job, fitted, result):
        results[job.key] = result
        return []

    jobs = [FitJob("a", model(3), examples, config), FitJob("b", model(4, 1), examples, FitConfig(steps=12, seed=4))]
    fit_many(jobs, on_done, capacity=2)  # graphs by default on a GPU
    assert len(replays) >= 9  # the first step runs eagerly, every later one replays the graph
    got = results["a"]
    assert got.steps == expected.steps and got.solved_train == expected.solved_train
    pairs = zip(got.losses, expected.losses, strict=True)
    print("losses, graph and alone:", [(f"{a:.6g}", f"{b:.6g}") for a, b in pairs])
    assert got.losses[:2] == pytest.approx(expected.losses[:2], rel=1e-9)
    assert got.losses[:4] == pytest.approx(expected.losses[:4], rel=1e-3)  # then they drift, as on the CPU
