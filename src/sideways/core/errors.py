"""The errors sideways raises on bad input: each message names the file, key, field or row."""


_BREAKS = str.maketrans({"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\x85"})


def one_line(text: str) -> str:
    """``text`` on one line: line breaks shown escaped (``\\n``), as every message of sideways is."""
    return text.translate(_BREAKS)


class SidewaysError(Exception):
    """Base class: a problem with the user's input or configuration, reported without a traceback.

    The message is always one line: line breaks that came from the input (a key, a value quoted
    in the message) are shown escaped, so a hostile file cannot forge lines in a log or a terminal.
    """

    def __str__(self) -> str:
        return one_line(super().__str__())


class SchemaError(SidewaysError, ValueError):
    """A table does not match its artifact schema."""


class ParamsError(SidewaysError, ValueError):
    """params.yaml is invalid."""


class RiddleError(SidewaysError, ValueError):
    """A riddle source file is invalid."""


class CalibrationError(SidewaysError, ValueError):
    """Calibration cannot be computed (e.g. a jury-score bin has no human labels)."""


class SecretsError(SidewaysError, ValueError):
    """An API key is missing, or was written where keys must never be (params.yaml)."""


class RequestError(SidewaysError, RuntimeError):
    """Requests to a model failed for more items than allowed, or a backend cannot run."""


class ReplayError(SidewaysError, ValueError):
    """A replay file is unreadable or lacks riddles the stage needs."""


class ReportError(SidewaysError, ValueError):
    """The report cannot be written where it was asked to be (a folder that is not a report's)."""


class AnswersError(SidewaysError, RuntimeError):
    """An answered request has no readable record in the request cache (its write failed)."""
