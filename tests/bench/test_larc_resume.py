import orjson
import pytest

from tests.benchmark_scripts import load_script


@pytest.fixture(scope="module")
def larc_nl():
    return load_script("larc_nl")


def fit(model, task_id, text_from=None):
    return {"model": model, "id": task_id, "solved": True, "seconds": 1.0, "error": None, "text_from": text_from}


def test_a_run_resumes_from_the_fits_its_results_file_holds(larc_nl, tmp_path):
    out = tmp_path / "larc.json"
    earlier = [fit("latformer", "a"), fit("latformer-nl-shuffled", "a", "b"), fit("latformer", "gone")]
    out.write_bytes(orjson.dumps({"steps": 300, "results": earlier}))
    work = [("latformer", "a", None), ("latformer", "b", None), ("latformer-nl-shuffled", "a", "b")]
    assert larc_nl.finished(out, 300, False, work) == earlier[:2]  # "gone" is no longer asked for
    assert larc_nl.finished(out, 100, False, work) == []  # fits of another length are not reused
    assert larc_nl.finished(out, 300, True, work) == []  # nor fits from exact starts, for plain restarts
    assert larc_nl.finished(tmp_path / "none.json", 300, False, work) == []


def test_a_file_that_is_not_its_results_is_one_line_and_exit_2(larc_nl, tmp_path, capsys):
    out = tmp_path / "larc.json"
    out.write_bytes(b'{"steps": 300, "results": 7}')
    with pytest.raises(SystemExit) as stop:
        larc_nl.finished(out, 300, False, [("latformer", "a", None)])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == f"{out}: not a results file of this benchmark; pass --fresh to start over"
