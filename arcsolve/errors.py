"""Exception types raised by the arcsolve library. Only the CLI turns them into exit codes."""


class ArcsolveError(Exception):
    """Base class: every error the library raises on purpose is one of these."""


class TaskFormatError(ArcsolveError):
    """A task file is malformed. `str()` is one line: `source: location: problem`."""

    def __init__(self, source: str, location: str, problem: str):
        self.source, self.location, self.problem = source, location, problem
        where = f"{source}: {location}" if location else source
        super().__init__(f"{where}: {problem}")


class DatasetNotFoundError(ArcsolveError):
    """A task specification names no file, folder, dataset or task id that exists."""
