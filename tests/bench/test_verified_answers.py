"""The precision of verified answers from a report's results files, and the ARC-AGI-2 tasks
that ARC-AGI-1 lacks."""

import orjson
import pytest

from tests.benchmark_scripts import load_script


@pytest.fixture(scope="module")
def verified():
    return load_script("verified")


def row(task_id: str, solved: bool, *candidates: tuple[bool, str]) -> bytes:
    return orjson.dumps({"id": task_id, "solved": solved,
                         "candidates": [{"verified": v, "detail": d} for v, d in candidates]})


def test_first_answers_are_counted_by_whether_they_are_verified_and_solved(verified, tmp_path):
    path = tmp_path / "results-latformer.jsonl"
    held_back = f"latformer (a table; {verified.NOT_HELD_OUT}, the table of readings asks otherwise at 3 cells)"
    path.write_bytes(b"\n".join([
        orjson.dumps({"header": {"model": "latformer"}}),
        row("a", True, (True, "latformer (flip)")),
        row("b", False, (True, "latformer (a table)")),
        row("c", True, (False, held_back), (True, "latformer (another)")),  # only the first answer counts
        row("d", False, (False, held_back)),
        row("e", False, (False, "latformer (soft gates)")),
        row("f", False),  # no answer at all
    ]))
    assert verified.count(path) == {
        "verified": 2, "verified_right": 1, "precision": 0.5, "verified_wrong_ids": ["b"],
        "not_held": ["c", "d"], "not_held_right": ["c"],
    }


def test_a_folder_without_results_files_is_one_line_and_status_2(verified, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["verified.py", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        verified.main()
    assert stop.value.code == 2
    assert f"{tmp_path}: no results-*.jsonl files" in capsys.readouterr().err


def test_the_new_arc2_tasks_are_those_no_arc1_set_has():
    new = load_script("arc2_new_tasks").new_tasks("arc2/training")
    assert len(new) == 233 and all(name.startswith("arc2/training/") for name in new)
    from arcsolve.loaders import load_dataset

    arc1 = {t.id for name in ("arc1/training", "arc1/evaluation") for t in load_dataset(name)}
    assert not {name.rsplit("/", 1)[1] for name in new} & arc1
    assert len(load_dataset("arc2/training")) - len(new) == 767  # the rest are ARC-AGI-1's
