"""The prior annotations: the bundled file's schema, subsets, loading errors, rules, review."""

from __future__ import annotations

import io

import numpy as np
import orjson
import pytest
from rich.console import Console

from arcsolve.errors import ArcsolveError, TaskFormatError
from arcsolve.loaders import load_tasks
from arcsolve.priors.annotations import (
    GEOMETRIC,
    SUBSETS,
    VOCABULARY,
    Annotation,
    Annotations,
    default_annotations_path,
    load_annotations,
)
from arcsolve.priors.lattice_rule import explain
from arcsolve.priors.review import parse_priors, propose, review
from arcsolve.tasks import Task


def make_task(
    function, shapes=((3, 3), (4, 4), (3, 5), (5, 4), (4, 3)), seed=0, colours=10
) -> Task:
    """A task whose outputs are `function(input)` on random inputs; the last pair is the test."""
    rng = np.random.default_rng(seed)
    pairs = []
    for shape in shapes:
        x = rng.integers(0, colours, size=shape)
        pairs.append({"input": x.tolist(), "output": np.asarray(function(x)).tolist()})
    return Task.model_validate({"id": "0000abcd", "train": pairs[:-1], "test": pairs[-1:]})


# The bundled file


@pytest.fixture(scope="module")
def bundled() -> Annotations:
    return load_annotations()


def test_bundled_file_covers_every_arc1_task(bundled):
    ids = {t.id for split in ("arc1/training", "arc1/evaluation") for t in load_tasks(split)}
    assert len(ids) == 800
    assert set(bundled.entries) == ids


def test_bundled_labels_use_the_vocabulary_and_valid_sources(bundled):
    for task_id, entry in bundled.entries.items():
        assert entry.priors, task_id
        assert set(entry.priors) <= set(VOCABULARY), task_id
        assert entry.source == "manual" or entry.source.startswith("rule:"), task_id


def test_bundled_subsets_are_plausible(bundled):
    sizes = {name: len(bundled.subset(name)) for name in SUBSETS}
    assert sizes["all"] == 800
    assert sizes["geometric"] == len(set().union(*(bundled.subset(g) for g in GEOMETRIC)))
    for name in GEOMETRIC:
        assert 5 <= sizes[name] <= 120, (name, sizes[name])


def test_bundled_file_is_sorted_one_task_per_line():
    lines = default_annotations_path().read_text().splitlines()
    ids = [line.split('"')[1] for line in lines[1:-1]]
    assert ids == sorted(ids) and len(ids) == 800


def test_known_tasks_are_labelled_as_expected(bundled):
    assert bundled.priors_for("3c9b0459") == ("rotate",)  # rotate by 180 degrees
    assert bundled.priors_for("c59eb873") == ("scale",)  # upscale by 2
    assert bundled.is_geometric("67a3c6ac")  # mirror left-right
    assert not bundled.is_geometric("d4f3cd78")  # fill a box and leak: topology


# Subsets and priors_for


@pytest.fixture
def small() -> Annotations:
    return Annotations(
        entries={
            "00000001": Annotation(priors=["rotate"], source="manual"),
            "00000002": Annotation(priors=["translate", "reflect"], source="rule:lattice"),
            "00000003": Annotation(priors=["objects", "translate"], source="manual"),
            "00000004": Annotation(priors=["colour"], source="rule:colour-map"),
        }
    )


def test_subsets_hold_only_purely_geometric_tasks(small):
    assert small.subset("rotate") == {"00000001"}
    assert small.subset("translate") == {"00000002"}
    assert small.subset("reflect") == {"00000002"}
    assert small.subset("scale") == set()
    assert small.subset("geometric") == {"00000001", "00000002"}
    assert small.subset("all") == {"00000001", "00000002", "00000003", "00000004"}


def test_unknown_subset_is_an_arcsolve_error(small):
    with pytest.raises(ArcsolveError, match="unknown subset 'rotation'"):
        small.subset("rotation")


def test_priors_for(small):
    assert small.priors_for("00000002") == ("translate", "reflect")
    assert small.priors_for("00000003") == ("translate",)
    assert small.priors_for("00000004") == ()
    assert small.priors_for("ffffffff") is None
    assert small.is_geometric("00000001") and not small.is_geometric("00000003")
    assert not small.is_geometric("ffffffff")


def test_saved_file_round_trips(small, tmp_path):
    from arcsolve.priors.annotations import save_annotations

    save_annotations(small, tmp_path / "a.json")
    assert load_annotations(tmp_path / "a.json") == small


# Loading errors name the file and the place


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"3c9b0459": {"priors": ["rotate", "rotat"], "source": "manual"}},
            "3c9b0459.priors[1]: 'rotat' is not in the vocabulary",
        ),
        (
            {"3c9b0459": {"priors": "rotate", "source": "manual"}},
            "3c9b0459.priors: expected a list, got str",
        ),
        ({"3c9b0459": {"priors": []}}, "3c9b0459: missing key 'source'"),
        ({"3c9b0459": {"priors": [], "source": "guess"}}, "3c9b0459.source: 'guess' is neither"),
        (
            {"3c9b0459": {"priors": [], "source": "manual", "extra": 1}},
            "3c9b0459: unknown key 'extra'",
        ),
        (
            {"": {"priors": [], "source": "manual"}},
            "'': a task id is a non-empty printable string",
        ),
        ([1, 2], "expected an object of {task_id: annotation}, got list"),
    ],
)
def test_bad_files_name_file_and_location(tmp_path, monkeypatch, data, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ann.json").write_bytes(orjson.dumps(data))
    with pytest.raises(TaskFormatError) as error:
        load_annotations("ann.json")
    assert str(error.value).startswith("ann.json: ")
    assert message in str(error.value)


def test_any_task_id_a_loader_gives_round_trips(tmp_path, examples):
    from arcsolve.priors.annotations import Annotation, Annotations, save_annotations

    task = load_tasks(examples / "rotate.json")[0]
    ids = [task.id, "3C9B0459", "[/x]", "86_[red]bracket_name"]
    entry = Annotation(priors=["rotate"], source="manual")
    save_annotations(Annotations(entries={i: entry for i in ids}), tmp_path / "a.json")
    assert sorted(load_annotations(tmp_path / "a.json").entries) == sorted(ids)


def test_unreadable_and_invalid_json_files(tmp_path):
    with pytest.raises(TaskFormatError, match="missing.json"):
        load_annotations(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(TaskFormatError, match="not valid JSON"):
        load_annotations(tmp_path / "bad.json")


# The rules, on constructed tasks


def recolour(y):
    return np.array([3, 1, 2, 0, 4, 5, 6, 7, 8, 9])[y]


@pytest.mark.parametrize(
    ("function", "priors"),
    [
        (lambda x: np.rot90(x), ["rotate"]),
        (lambda x: recolour(np.rot90(x, 2)), ["rotate"]),
        (lambda x: x[:, ::-1], ["reflect"]),
        (lambda x: np.kron(x, np.ones((2, 3), dtype=int)), ["scale"]),
        (lambda x: np.tile(x, (2, 2)), ["translate"]),
        (lambda x: np.hstack([x, x[:, ::-1]]), ["translate", "reflect"]),
        (lambda x: np.kron(np.rot90(x), np.ones((2, 2), dtype=int)), ["rotate", "scale"]),
    ],
)
def test_lattice_rule_finds_the_transformation(function, priors):
    proposal = propose(make_task(function))
    assert proposal.source == "rule:lattice"
    assert sorted(proposal.priors) == sorted(priors)


def test_downscaling_is_scale():
    task = make_task(lambda x: x[::2, ::3], shapes=((4, 6), (6, 6), (8, 3), (4, 9)), colours=4)
    assert propose(task).priors == ["scale"]


def test_symmetry_completion_is_reflect():
    def complete(x):
        x = np.where(x == 4, 0, x)
        x = np.hstack([x, x[:, ::-1]])  # a symmetric picture ...
        holes = np.zeros_like(x, dtype=bool)
        holes[0, 0] = holes[-1, 1] = True
        return x, np.where(holes, 4, x)  # ... with cells to fill in yellow

    rng = np.random.default_rng(1)
    pairs = []
    palettes = rng.permutation([1, 2, 3, 5, 6, 7, 8, 9]).reshape(4, 2)  # each pair its own colours
    for shape, palette in zip(((4, 3), (5, 4), (4, 4), (6, 3)), palettes, strict=True):
        full, holed = complete(palette[rng.integers(0, 2, size=shape)])
        pairs.append({"input": holed.tolist(), "output": full.tolist()})
    task = Task.model_validate({"id": "0000abcd", "train": pairs[:-1], "test": pairs[-1:]})
    assert propose(task).priors == ["reflect"]


def test_colour_map_alone_is_not_geometric():
    proposal = propose(make_task(recolour))
    assert proposal.priors == ["colour"] and proposal.source == "rule:colour-map"


def test_gravity_is_physics_not_geometry():
    def fall(x):
        x = np.where(x < 6, 0, x)
        out = np.zeros_like(x)
        for c in range(x.shape[1]):
            cells = x[:, c][x[:, c] != 0]
            out[x.shape[0] - len(cells) :, c] = cells
        return out

    task = make_task(lambda x: fall(x), shapes=((5, 5), (6, 4), (4, 6), (6, 6)))
    task = Task.model_validate(
        {
            "id": "0000abcd",
            "train": [
                {
                    "input": np.where(p.input.to_numpy() < 6, 0, p.input.to_numpy()).tolist(),
                    "output": p.output.to_list(),
                }
                for p in task.train
            ],
            "test": [
                {
                    "input": np.where(p.input.to_numpy() < 6, 0, p.input.to_numpy()).tolist(),
                    "output": p.output.to_list(),
                }
                for p in task.test
            ],
        }
    )
    proposal = propose(task)
    assert "physics" in proposal.priors and proposal.source == "rule:heuristics"


def test_lookup_fitted_on_train_must_predict_test():
    # Outputs unrelated to inputs: no lattice explanation may pass by memorising the train pairs.
    rng = np.random.default_rng(5)
    assert explain(make_task(lambda x: rng.integers(0, 10, size=x.shape))) is None


def test_parse_priors():
    assert parse_priors(" rotate, translate ,rotate") == ["rotate", "translate"]
    with pytest.raises(ValueError, match="'rotat' is not a prior"):
        parse_priors("rotat")


# The review loop


def answers(*replies):
    queue = list(replies)

    def ask(prompt: str) -> str:
        if not queue:
            raise EOFError
        return queue.pop(0)

    return ask


def three_tasks() -> list[Task]:
    return [
        make_task(np.rot90).model_copy(update={"id": "0000000a"}),
        make_task(lambda x: x[::-1]).model_copy(update={"id": "0000000b"}),
        make_task(np.transpose).model_copy(update={"id": "0000000c"}),
    ]


def quiet() -> Console:
    return Console(file=io.StringIO(), width=100)


def test_review_saves_after_each_answer_and_resumes(tmp_path):
    out = tmp_path / "review.json"
    tasks = three_tasks()
    seen = []

    def ask_then_check(prompt: str) -> str:
        seen.append(set(load_annotations(out).entries) if out.exists() else set())
        return ["", "bogus", "reflect, translate"][len(seen) - 1] if len(seen) <= 3 else "q"

    result = review(tasks, out, ask=ask_then_check, console=quiet())
    assert seen[:3] == [set(), {"0000000a"}, {"0000000a"}]  # saved right after the first answer
    assert set(result.entries) == {"0000000a", "0000000b"}
    saved = load_annotations(out)
    assert saved.entries["0000000a"].priors == ["rotate"]
    assert saved.entries["0000000b"].priors == ["reflect", "translate"]
    assert {e.source for e in saved.entries.values()} == {"manual"}

    asked = []
    resumed = review(tasks, out, ask=lambda p: asked.append(p) or "s", console=quiet())
    assert len(asked) == 1  # only the unfinished task is shown again; skipping records nothing
    assert set(resumed.entries) == {"0000000a", "0000000b"}


def test_review_uses_given_proposals_and_stops_at_end_of_input(tmp_path):
    out = tmp_path / "review.json"
    proposals = Annotations(
        entries={"0000000a": Annotation(priors=["goal"], source="manual", note="x")}
    )
    console = quiet()
    review(three_tasks(), out, proposals=proposals, ask=answers(""), console=console)
    assert load_annotations(out).entries["0000000a"].priors == ["goal"]
    assert "proposed: goal" in console.file.getvalue()
