"""assay's one exception tree.

- ``AssayError``: the base; ``exit_code`` is what the CLI exits with when it escapes a command.
  - ``ConfigError`` (exit 2): an invalid suite, option or CLI argument. Carries every problem
    found, each as a ``Problem`` naming the file, the field path and what was expected.
    - ``DatasetError`` (exit 2): an invalid dataset file; the path names row and column.
  - ``TargetError`` (exit 3 at start): talking to the agent under test failed. During a run a
    ``TargetError`` fails only the turn it happened on.
    - ``SessionLost``: the agent lost the conversation's session; the remaining turns of
      that conversation are skipped. Python targets raise ``assay.SessionLost`` themselves.
  - ``JudgeError``: a judge or simulated-user model failed; fails that metric only.
  - ``StoreError`` (exit 3): the result store cannot be opened or written.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One user error: where it is and what to do about it."""

    source: str  # a file name, or "options" for the command line
    path: str  # field path ("tests[1].turns[0].input") or location ("row 7, column Answer")
    message: str

    def __str__(self) -> str:
        where = f"{self.source}: {self.path}" if self.path else self.source
        return f"{where}: {self.message}"


class AssayError(Exception):
    exit_code = 1


class ConfigError(AssayError):
    exit_code = 2

    def __init__(self, problems: list[Problem] | str) -> None:
        if isinstance(problems, str):
            problems = [Problem("options", "", problems)]
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class DatasetError(ConfigError):
    pass


class TargetError(AssayError):
    exit_code = 3


class SessionLost(TargetError):
    """Raised by a target (or a Python agent) when the agent no longer has the session."""


class JudgeError(AssayError):
    pass


class StoreError(AssayError):
    exit_code = 3


class StoreURLError(StoreError):
    """A store URL assay cannot use (not a URL, a database it does not support): an invalid
    option, exit 2 (SPEC §1), where a store that fails to open is exit 3."""

    exit_code = 2


def first_line(error: object) -> str:
    """The first line of an error's message ("" when it has none): what a one-line report
    of a database's, Ray's or the writer's failure shows."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else ""
