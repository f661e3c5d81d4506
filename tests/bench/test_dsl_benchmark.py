"""The DSL benchmark's options: tasks cut to their first train pairs, and a bad count refused."""

import sys

import pytest

from arcsolve.tasks import Task
from tests.benchmark_scripts import load_script


@pytest.fixture(scope="module")
def dsl_benchmark():
    return load_script("dsl")


def task(task_id: str, n_train: int) -> Task:
    pairs = [{"input": [[k]], "output": [[k + 1]]} for k in range(n_train)]
    return Task.model_validate({"id": task_id, "train": pairs, "test": [{"input": [[7]], "output": [[8]]}]})


def test_first_pairs_keeps_the_first_train_pairs_and_every_test(dsl_benchmark):
    three, two = task("three", 3), task("two", 2)
    cut = dsl_benchmark.first_pairs([three, two], 2)
    assert [t.id for t in cut] == ["three", "two"]
    assert [p.input.to_numpy().tolist() for p in cut[0].train] == [[[0]], [[1]]]
    assert cut[0].test == three.test and cut[1] is two
    assert len(three.train) == 3  # the task given is left whole


def test_a_negative_train_pair_count_is_refused_in_one_line(dsl_benchmark, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["dsl.py", "--train-pairs", "-1"])
    with pytest.raises(SystemExit) as exit_info:
        dsl_benchmark.main()
    assert exit_info.value.code == 2
    assert "--train-pairs must be 0 (all) or more, not -1" in capsys.readouterr().err
