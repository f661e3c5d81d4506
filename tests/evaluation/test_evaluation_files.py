"""Output files (`arcsolve.files`): atomic writes through symlinks, special files refused,
temporary files cleaned up, output paths checked before the work, one run per output."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from arcsolve import files
from arcsolve.errors import ArcsolveError
from arcsolve.files import (
    check_output_file,
    check_output_folder,
    exclusive,
    remove_stale_temporaries,
    write_atomically,
)


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".probe")))


def test_a_write_goes_through_a_symlink_to_its_target(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomically(link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    chained = tmp_path / "chained.json"
    chained.symlink_to(link)
    write_atomically(chained, b"newer")
    assert chained.is_symlink() and target.read_text() == "newer"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "sub" / "made.json")
    write_atomically(dangling, b"made")
    assert (tmp_path / "sub" / "made.json").read_text() == "made" and dangling.is_symlink()
    assert leftovers(tmp_path) == []


def test_special_files_are_refused_never_replaced(tmp_path):
    with pytest.raises(ArcsolveError, match=r"^/dev/null: is a character device, not a regular file"):
        write_atomically(Path("/dev/null"), b"x")
    assert Path("/dev/null").is_char_device()
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(ArcsolveError, match="pipe.json: is a named pipe"):
        write_atomically(fifo, b"x")
    link = tmp_path / "null.json"
    link.symlink_to("/dev/null")
    with pytest.raises(ArcsolveError, match="null.json: is a character device"):
        write_atomically(link, b"x")
    with pytest.raises(ArcsolveError, match="is a folder, not a regular file"):
        write_atomically(tmp_path, b"x")
    assert link.is_symlink() and fifo.is_fifo()
    assert leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text('{"old": true}')

    def full_disk(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full_disk)
    with pytest.raises(ArcsolveError, match=r"report.json: cannot write \(No space left on device\)$"):
        write_atomically(target, b'{"new": true}')
    assert target.read_text() == '{"old": true}'
    assert leftovers(tmp_path) == []


def test_a_write_keeps_the_file_mode(tmp_path):
    target = tmp_path / "sub.json"
    target.write_text("x")
    target.chmod(0o640)
    write_atomically(target, b"y")
    assert (target.stat().st_mode & 0o777, target.read_text()) == (0o640, "y")


@pytest.mark.parametrize(
    ("check", "path", "message"),
    [
        (check_output_folder, "/proc/arcsolve-report", "--report /proc/arcsolve-report: cannot make the folder"),
        (check_output_file, "/proc/sub.json", "--out /proc/sub.json: cannot write there"),
        (check_output_file, "/sys/sub.json", "--out /sys/sub.json: cannot write there"),
        (check_output_file, "/dev/null", "--out /dev/null: is a character device"),
    ],
)
def test_output_paths_that_cannot_be_written_are_refused(check, path, message):
    option = "--report" if check is check_output_folder else "--out"
    with pytest.raises(ArcsolveError) as error:
        check(Path(path), option)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_a_file_where_a_folder_goes_and_a_folder_where_a_file_goes(tmp_path):
    existing = tmp_path / "report"
    existing.write_text("a file")
    with pytest.raises(ArcsolveError, match=r"--report .*report: is a file, not a folder"):
        check_output_folder(existing, "--report")
    with pytest.raises(ArcsolveError, match=r"--out .*: is a folder, not a regular file"):
        check_output_file(tmp_path, "--out")
    check_output_file(tmp_path / "new" / "sub.json", "--out")  # the folder is made
    assert (tmp_path / "new").is_dir() and leftovers(tmp_path / "new") == []


def test_a_full_disk_is_found_before_the_work(tmp_path, monkeypatch):
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fd, mode):
            self.file = real_fdopen(fd, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fdopen", Full)
    with pytest.raises(ArcsolveError, match=r"cannot write there \(No space left on device\)"):
        check_output_file(tmp_path / "sub.json", "--out")
    monkeypatch.undo()
    assert leftovers(tmp_path) == []


def test_the_lock_is_exclusive_and_released(tmp_path):
    lock = tmp_path / ".arcsolve.lock"
    with exclusive(lock, "--report r"):
        with pytest.raises(ArcsolveError, match="^--report r is in use by another arcsolve run"):
            with exclusive(lock, "--report r"):
                pass
    with exclusive(lock, "--report r"):  # released at the end of the block
        pass


def test_stale_temporaries_of_a_killed_write_are_removed_and_nothing_else(tmp_path):
    names = [".report.json.ab12_x9z.tmp", ".report.md.qwertyui.tmp", ".notes.txt.tmp", "report.json.abcdefgh.tmp",
             ".report.json.short.tmp", "report.json", ".arcsolve.lock"]
    for name in names:
        (tmp_path / name).write_text("x")
    (tmp_path / ".folder.abcdefgh.tmp").mkdir()
    remove_stale_temporaries(tmp_path, "report.md")
    assert not (tmp_path / ".report.md.qwertyui.tmp").exists()
    assert (tmp_path / ".report.json.ab12_x9z.tmp").exists()  # another file's temporary stays
    remove_stale_temporaries(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([".notes.txt.tmp", "report.json.abcdefgh.tmp", ".report.json.short.tmp", "report.json",
                           ".arcsolve.lock", ".folder.abcdefgh.tmp"])
    remove_stale_temporaries(tmp_path / "missing")  # a folder that is not there: nothing to do
