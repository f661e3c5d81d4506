"""Writing output files safely: checked before the work, written whole or not at all, through
symlinks to their targets, never over a special file, and one run at a time per output.

Every failure is an ArcsolveError of one line that names the path, so that the CLI can
report it and exit with status 2.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from arcsolve.errors import ArcsolveError


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def file_target(path: Path, what: str = "") -> Path:
    """The file a write to `path` lands in: a symlink's target (followed all the way), or
    `path` itself. ArcsolveError when that is a folder or any other non-regular file."""
    label = f"{what} {path}".strip()
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise ArcsolveError(f"{label}: cannot write there ({_reason(exc)})") from None
    if not stat.S_ISREG(mode):
        raise ArcsolveError(f"{label}: is {_kind(mode)}, not a regular file; give a file path")
    return target


def _probe(folder: Path, label: str) -> None:
    """Create, write and remove a small file in `folder`: proof that the run's writes can land."""
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".arcsolve-", suffix=".probe")
    except OSError as exc:
        raise ArcsolveError(f"{label}: cannot write there ({_reason(exc)})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(b"\n" * 4096)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise ArcsolveError(f"{label}: cannot write there ({_reason(exc)})") from None
    finally:
        with suppress(OSError):
            os.unlink(name)


def check_output_file(path: Path, what: str = "") -> None:
    """Before any work: ArcsolveError unless a file can be written at `path` (its folder is
    made if missing)."""
    label = f"{what} {path}".strip()
    target = file_target(path, what)
    ensure_folder(target.parent, label)
    _probe(target.parent, label)


def check_output_folder(path: Path, what: str = "") -> None:
    """Before any work: ArcsolveError unless `path` is (or can be made) a folder that takes files."""
    label = f"{what} {path}".strip()
    ensure_folder(path, label)
    _probe(path, label)


def ensure_folder(path: Path, label: str = "") -> None:
    """Make the folder `path` if missing; ArcsolveError when that fails or a file is in the way."""
    label = label or str(path)
    if path.exists() and not path.is_dir():
        raise ArcsolveError(f"{label}: is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArcsolveError(f"{label}: cannot make the folder ({_reason(exc)})") from None


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside the target, then rename it over the target, so
    that a reader sees the old file or the new one, never a part. A symlink is followed (its
    target gets the data and the link stays); a special file is refused, never replaced; the
    temporary file is removed whatever happens."""
    target = file_target(path)
    ensure_folder(target.parent)
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise ArcsolveError(f"{path}: cannot write ({_reason(exc)})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _new_file_mode()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as exc:
        with suppress(OSError):
            os.unlink(temporary)
        raise ArcsolveError(f"{path}: cannot write ({_reason(exc)})") from None
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


_TEMPORARY = re.compile(r"\.(.+)\.[A-Za-z0-9_]{8}\.tmp")  # the names `write_atomically` gives


def remove_stale_temporaries(folder: Path, name: str | None = None) -> None:
    """Remove the temporary files that `write_atomically` left in `folder` when its process was
    killed before it could clean up: those for the file `name`, or for any file. Call it only
    while holding the lock (`exclusive`) of the run that owns those files, so that no live
    write loses its temporary file."""
    with suppress(OSError):
        for entry in os.scandir(folder):
            match = _TEMPORARY.fullmatch(entry.name)
            if match and (name is None or match.group(1) == name) and entry.is_file(follow_symlinks=False):
                with suppress(OSError):
                    os.unlink(entry.path)


def write_in_place(path: Path, data: bytes) -> None:
    """Replace the contents of the file at `path` (through a symlink) without replacing the
    file itself; ArcsolveError (one line) when the write fails."""
    file_target(path)
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise ArcsolveError(f"{path}: cannot write ({_reason(exc)})") from None


def truncate(path: Path, size: int) -> None:
    """Cut the file at `path` to `size` bytes; ArcsolveError (one line) when that fails."""
    try:
        os.truncate(path, size)
    except OSError as exc:
        raise ArcsolveError(f"{path}: cannot write ({_reason(exc)})") from None


def append_bytes(path: Path, data: bytes) -> None:
    """Append `data` to the file at `path`; ArcsolveError (one line) when the write fails."""
    try:
        with open(path, "ab") as f:
            f.write(data)
    except OSError as exc:
        raise ArcsolveError(f"{path}: cannot write ({_reason(exc)})") from None


@contextmanager
def exclusive(lock_path: Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path` (created if missing) for the block; ArcsolveError
    at once when another process holds it. The lock goes with the process, even on kill -9."""
    ensure_folder(lock_path.parent)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ArcsolveError(f"{what}: cannot take the lock {lock_path} ({_reason(exc)})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ArcsolveError(
                f"{what} is in use by another arcsolve run; wait for it to finish or choose another"
            ) from None
        yield
    finally:
        os.close(fd)
