"""The synthetic studies' plan, resumable pieces, time bound, summary, verdicts and plot."""

from __future__ import annotations

import json

import pytest
import torch
from typer.testing import CliRunner

from arcsolve.bench.sample_efficiency import run_benchmark, run_noise, run_synthetic
from arcsolve.bench.study_fits import Minibatched, check_every, train_and_score
from arcsolve.bench.study_plan import (
    MODELS,
    PAPER,
    FitKey,
    choose_setting,
    figure5_plan,
    is_paper_scale,
    study_tasks,
    table4_plan,
)
from arcsolve.bench.study_runner import ResultsFile, run_piece
from arcsolve.bench.study_summary import examples_to_reach, summarise, verdict, verdicts
from arcsolve.bench.synthetic_tasks import CATEGORIES
from arcsolve.errors import ArcsolveError
from arcsolve.solution import SolveConfig

QUICK = choose_setting("quick")


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SpyTrain:
    """Stands in for a fit: records each key, advances a fake clock by `seconds`, and scores
    by a rule of the key (so summaries have known numbers)."""

    def __init__(self, clock: FakeClock | None = None, seconds: float = 0.0, score=lambda key: 0.5):
        self.calls: list[FitKey] = []
        self.clock, self.seconds, self.score = clock, seconds, score

    def __call__(self, key: FitKey) -> dict:
        self.calls.append(key)
        if self.clock is not None:
            self.clock.now += self.seconds
        return {
            **key.__dict__,
            "accuracy": self.score(key),
            "train_steps": 1,
            "solved_train": False,
            "seconds": self.seconds,
        }


def small_plan() -> list[FitKey]:
    return figure5_plan(QUICK, ("rotation", "reflection"), ("latformer", "attention-abs"))


# ---------------------------------------------------------------- the plan


def test_the_paper_setting_is_the_papers_protocol():
    assert PAPER.canvas == 30 and PAPER.examples == tuple(2**i for i in range(12)) and PAPER.examples[-1] == 2048
    assert PAPER.seeds == 3 and PAPER.steps == SolveConfig().steps and PAPER.augmentations == 10
    tasks = study_tasks(PAPER, CATEGORIES)
    assert {c: len(t) for c, t in tasks.items()} == {"translation": 10, "rotation": 3, "reflection": 4, "scaling": 10}
    plan = figure5_plan(PAPER, CATEGORIES, MODELS)
    assert len(plan) == len(set(plan)) == 27 * 12 * 6 * 3
    assert [k.seed for k in plan[:5]] == [0] * 5 and plan[-1].seed == 2, "seed first: early pieces hold whole curves"
    noise = table4_plan(PAPER, CATEGORIES)
    assert len(noise) == 27 * 3 * 3 and {k.examples for k in noise} == {32} and {k.w for k in noise} == {0.2, 0.4, 0.6}
    assert is_paper_scale(PAPER) and not is_paper_scale(QUICK)


def test_scaling_tasks_go_up_and_down_with_factors_up_to_5():
    scaling = study_tasks(PAPER, ("scaling",))["scaling"]
    kinds = [t.kind for t in scaling]
    assert kinds.count("up") == 5 and kinds.count("down") == 5
    for kind in ("up", "down"):
        row_factors = {t.params[0] for t in scaling if t.kind == kind}
        assert row_factors == {2, 3, 4, 5}
    assert all(2 <= f <= 5 for t in scaling for f in t.params)
    assert len({t.name for t in scaling}) == 10


def test_a_category_draws_the_same_tasks_whatever_else_is_studied():
    assert study_tasks(PAPER, ("scaling",))["scaling"] == study_tasks(PAPER, CATEGORIES)["scaling"]


def test_changing_a_protocol_field_makes_a_custom_setting():
    assert choose_setting("paper").name == "paper" and choose_setting("paper", seed=4).name == "paper"
    custom = choose_setting("paper", steps=50)
    assert custom.name == "custom" and not is_paper_scale(custom)
    with pytest.raises(ArcsolveError, match="unknown setting 'huge'"):
        choose_setting("huge")


# ---------------------------------------------------------------- pieces and resuming


def test_a_rerun_never_repeats_a_finished_fit(tmp_path):
    plan = small_plan()
    path = tmp_path / "s.jsonl"
    first = SpyTrain()
    for key in plan[:3]:
        ResultsFile(path, {"canvas": 10}).append(first(key))
    spy = SpyTrain()
    piece = run_piece(plan, ResultsFile(path, {"canvas": 10}), spy)
    assert spy.calls == plan[3:] and piece.finished == len(plan) - 3 and piece.remaining == 0
    again = SpyTrain()
    piece = run_piece(plan, ResultsFile(path, {"canvas": 10}), again)
    assert again.calls == [] and piece.finished == 0 and piece.remaining == 0
    assert len((tmp_path / "s.pieces.jsonl").read_text().splitlines()) == 1, "a piece with nothing to do is not logged"
    rows = ResultsFile(path, {"canvas": 10}).rows
    assert len(rows) == len(plan) and len({json.dumps(r, sort_keys=True) for r in rows}) == len(plan)


def test_the_time_bound_stops_a_piece_and_a_rerun_completes_it(tmp_path):
    plan = small_plan()  # 2 categories × 1 task × 2 sizes × 2 models = 8 fits
    assert len(plan) == 8
    clock = FakeClock()
    spy = SpyTrain(clock, seconds=60.0)
    lines = []
    piece = run_piece(plan, ResultsFile(tmp_path / "s.jsonl", {}), spy, max_minutes=2.5, say=lines.append, clock=clock)
    # fit 1 starts at 0 s, fit 2 at 60 s (60 + 60 ≤ 150); a third would end at 180 s > 150 s
    assert spy.calls == plan[:2] and piece.finished == 2 and piece.remaining == 6 and piece.stopped_for_time
    assert piece.seconds == 120.0
    assert lines[-1].endswith("[6 left]")
    rest = SpyTrain(clock, seconds=60.0)
    piece = run_piece(plan, ResultsFile(tmp_path / "s.jsonl", {}), rest, clock=clock)
    assert rest.calls == plan[2:] and piece.remaining == 0 and not piece.stopped_for_time
    log = [json.loads(line) for line in (tmp_path / "s.pieces.jsonl").read_text().splitlines()]
    assert [(p["seconds"], p["finished"], p["remaining"]) for p in log] == [(120.0, 2, 6), (360.0, 6, 0)]


def fake_fit(key: FitKey) -> dict:
    """A fit run in a worker process (module level, so that it can be pickled)."""
    return {**key.__dict__, "accuracy": 0.25, "train_steps": 1, "solved_train": False, "seconds": 0.0}


def test_worker_processes_record_every_fit_once(tmp_path):
    plan = small_plan()
    piece = run_piece(plan, ResultsFile(tmp_path / "s.jsonl", {}), fake_fit, workers=2)
    rows = ResultsFile(tmp_path / "s.jsonl", {}).rows
    assert piece.finished == len(plan) and piece.remaining == 0
    assert sorted(
        FitKey(**{k: r[k] for k in ("seed", "examples", "category", "task", "model", "w")}) for r in rows
    ) == sorted(plan)
    again = run_piece(plan, ResultsFile(tmp_path / "s.jsonl", {}), fake_fit, workers=2)
    assert again.finished == 0 and len(ResultsFile(tmp_path / "s.jsonl", {}).rows) == len(plan)


def test_a_results_file_of_another_setting_is_refused_and_a_torn_line_ignored(tmp_path):
    path = tmp_path / "s.jsonl"
    results = ResultsFile(path, {"canvas": 10, "examples": (1, 2)})
    results.append(SpyTrain()(small_plan()[0]))
    with path.open("a") as f:
        f.write('{"seed": 0, "exam')  # a piece killed mid-write
    assert len(ResultsFile(path, {"canvas": 10, "examples": (1, 2)}).rows) == 1
    with pytest.raises(ArcsolveError, match=r"s.jsonl: made with another setting \(canvas 10 here 12\)"):
        ResultsFile(path, {"canvas": 12, "examples": (1, 2)})


def test_a_bounded_piece_writes_a_partial_summary_and_leaves_table4_for_later(tmp_path):
    clock = FakeClock()
    spy = SpyTrain(clock, seconds=60.0)
    figure, table = run_benchmark(
        QUICK, ("rotation",), ("latformer",), True, tmp_path, max_minutes=1.5, train=spy, clock=clock
    )
    assert table is None and len(spy.calls) == 1
    assert not figure["complete"] and figure["fits_done"] == 1 and figure["fits_planned"] == 2
    saved = json.loads((tmp_path / "synthetic.json").read_text())
    assert saved["summary"]["rotation"]["latformer"]["2"] == {"mean": None, "std": None, "fits": 0}
    assert saved["pieces"][0]["remaining"] == 1
    figure, table = run_benchmark(QUICK, ("rotation",), ("latformer",), True, tmp_path, train=spy, clock=clock)
    assert figure["complete"] and table is not None and table["complete"] and table["fits_done"] == 3
    assert len(spy.calls) == 2 + 3 and len(set(spy.calls)) == 5


# ---------------------------------------------------------------- summary and verdicts


def rows_for(accuracy: dict[tuple[str, str, int], list[float]]) -> list[dict]:
    return [
        {"category": c, "model": m, "examples": n, "accuracy": a, "seed": i, "task": "t", "w": None}
        for (c, m, n), accs in accuracy.items()
        for i, a in enumerate(accs)
    ]


def test_summary_pools_tasks_and_seeds_and_finds_the_examples_to_reach_0_9():
    rows = rows_for(
        {
            ("rotation", "latformer", 1): [0.8, 1.0],
            ("rotation", "latformer", 2): [1.0, 1.0],
            ("rotation", "attention-abs", 1): [0.0, 0.2],
            ("rotation", "attention-abs", 2): [0.9, 0.9],
        }
    )
    summary = summarise(rows, ["rotation"], ["latformer", "attention-abs"], [1, 2, 4])
    assert summary["rotation"]["latformer"]["1"] == {"mean": 0.9, "std": 0.1, "fits": 2}
    assert summary["rotation"]["attention-abs"]["1"] == {"mean": 0.1, "std": 0.1, "fits": 2}
    assert summary["rotation"]["latformer"]["4"] == {"mean": None, "std": None, "fits": 0}
    assert examples_to_reach(summary) == {"rotation": {"latformer": 1, "attention-abs": 2}}
    assert examples_to_reach(summary, 0.95) == {"rotation": {"latformer": 2, "attention-abs": None}}


@pytest.mark.parametrize(
    ("latformer", "baselines", "largest", "expected"),
    [
        (2, {"a": 256, "b": 512}, 2048, ("confirmed", 128.0, "=", 256)),
        (2, {"a": 64, "b": None}, 2048, ("refuted", 32.0, "=", 64)),
        (4, {"a": None, "b": None}, 2048, ("confirmed", 512.0, ">", None)),
        (1, {"a": None, "b": None}, 8, ("not decidable at this scale", 8.0, ">", None)),
        (None, {"a": 4, "b": None}, 8, ("refuted", 0.5, "<", 4)),
        (None, {"a": None}, 8, ("not decidable at this scale", None, None, None)),
    ],
)
def test_verdict_on_the_two_orders_of_magnitude_claim(latformer, baselines, largest, expected):
    v = verdict(latformer, baselines, largest)
    assert (v["verdict"], v["ratio"], v["bound"], v["best_baseline_n"]) == expected


def test_verdicts_compare_latformer_with_the_best_baseline():
    reach = {
        "rotation": {"latformer": 2, "latformer-nosmooth": 1, "attention-abs": 512, "transformer-rel": 128},
        "scaling": {"latformer": None, "attention-rel": None},
    }
    out = verdicts(reach, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
    assert out["rotation"]["verdict"] == "confirmed" and out["rotation"]["ratio"] == 64.0
    assert out["rotation"]["baseline_n"] == {"attention-abs": 512, "transformer-rel": 128}
    assert out["scaling"]["verdict"] == "not decidable at this scale" and out["scaling"]["claimed_ratio"] == 100


# ---------------------------------------------------------------- outputs


def test_the_study_writes_its_summary_verdicts_and_plot(tmp_path):
    def score(key: FitKey) -> float:  # LatFormer perfect from 2 examples, baselines never
        return (1.0 if key.examples >= 2 else 0.5) if key.model.startswith("latformer") else 0.0

    lines = []
    setting = choose_setting("quick", examples=(1, 2, 4))
    result = run_synthetic(
        setting, ("rotation", "scaling"), MODELS, tmp_path, progress=lines.append, train=SpyTrain(score=score)
    )
    assert result["complete"] and result["fits_done"] == 2 * 3 * 6
    assert result["examples_to_reach"]["rotation"]["latformer"] == 2
    assert result["examples_to_reach"]["rotation"]["transformer-rel"] is None
    assert result["latformer_examples_to_095"] == {"rotation": 2, "scaling": 2}
    v = result["verdicts"]["rotation"]
    assert (v["verdict"], v["ratio"], v["bound"]) == ("not decidable at this scale", 2.0, ">")
    assert result["setting"]["paper_scale"] is False and result["device"].startswith("cpu")
    assert "rotation: not decidable at this scale — baseline/LatFormer examples >2× (claim: about 100×)" in lines
    assert "scaling: LatFormer reaches 0.95 from 2 examples (paper's figure: by 16)" in lines
    assert (tmp_path / "synthetic.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((tmp_path / "synthetic.json").read_text())["verdicts"] == result["verdicts"]


def test_the_noise_study_tabulates_each_level_and_category(tmp_path):
    result = run_noise(QUICK, ("rotation", "scaling"), (0.2, 0.6), tmp_path, train=SpyTrain(score=lambda k: 1 - k.w))
    assert result["accuracy"]["0.2"]["rotation"] == {"mean": 0.8, "std": 0.0, "fits": 1}
    assert result["accuracy"]["0.6"]["scaling"]["mean"] == 0.4
    assert json.loads((tmp_path / "noise.json").read_text())["accuracy"] == result["accuracy"]


# ---------------------------------------------------------------- minibatches


def test_minibatched_trains_on_a_subset_and_evaluates_every_grid():
    seen = []

    class Probe(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(10))

        def forward(self, grids, out_shape, targets=None, cond=None, discrete=False, smooth=False):
            seen.append(grids.shape[0])
            logits = self.w.expand(*grids.shape, 10) + torch.nn.functional.one_hot(grids, 10)
            loss = None if targets is None else logits.sum()
            return logits, loss

    model = Minibatched(Probe(), batch=4, seed=0)
    grids = torch.randint(0, 10, (10, 3, 3))
    _, loss = model(grids, (3, 3), grids)
    assert seen == [4] and loss is not None
    with torch.no_grad():
        logits, _ = model(grids, (3, 3))
    assert seen == [4, 4, 4, 2]
    assert torch.equal(logits.argmax(-1), grids)


def test_checks_grow_rarer_with_large_training_sets():
    assert [check_every(n, 64) for n in (1, 32, 240, 2048)] == [10, 10, 10, 86]


def test_a_real_fit_on_more_pairs_than_a_batch(tmp_path):
    setting = choose_setting("quick", canvas=6, steps=2, augmentations=1, batch=3)
    task = study_tasks(setting, ("rotation",))["rotation"][0].name
    row = train_and_score(FitKey(0, 4, "rotation", task, "transformer-rel"), setting)
    assert row["train_steps"] == 2 and 0.0 <= row["accuracy"] <= 1.0 and row["model"] == "transformer-rel"


# ---------------------------------------------------------------- the command


def test_the_command_hands_its_options_to_the_benchmark(monkeypatch, tmp_path):
    import arcsolve.bench.sample_efficiency as bench
    from arcsolve.cli import app

    seen = {}

    def fake(setting, categories, models, noise, out, device, workers, max_minutes, progress, command):
        seen.update(setting=setting, noise=noise, out=out, device=device, workers=workers, max_minutes=max_minutes)
        return {}, None

    monkeypatch.setattr(bench, "run_benchmark", fake)
    runner = CliRunner(env={"COLUMNS": "200"})
    args = ["bench", "synthetic", "--paper", "--max-minutes", "9", "--workers", "3", "--device", "cpu", "--noise"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert seen["setting"] == PAPER and seen["max_minutes"] == 9 and seen["workers"] == 3 and seen["noise"]
    assert str(seen["out"]) == "benchmarks/results/synthetic_paper" and seen["device"] == "cpu"
    assert "Table 4 not run in this piece" in result.output
    result = runner.invoke(app, ["bench", "synthetic", "--examples", "1,2", "--steps", "7", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen["setting"].name == "custom" and seen["setting"].steps == 7 and seen["setting"].examples == (1, 2)
    assert seen["setting"].canvas == 10 and seen["out"] == tmp_path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--paper", "--quick"], "--paper and --quick: choose one"),
        (["--workers", "0"], "Invalid value for '--workers'"),
        (["--max-minutes", "0"], "--max-minutes: must be above 0, got 0.0"),
        (["--examples", "1,x"], "--examples: expected a comma list of whole numbers like 1,2, got '1,x'"),
    ],
)
def test_bad_options_get_one_line_and_status_2(args, message):
    from arcsolve.cli import app

    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["bench", "synthetic", *args])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
