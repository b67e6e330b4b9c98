"""Read the files a run's tests attach, once each, before anything runs: a missing file, an
unreadable PDF or a file over the size limit stops the run at load time (exit 2) with the
test, the turn and the path named."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from assay.cases.models import TestCase, Turn
from assay.errors import Problem
from assay.files.model import Attachment, FileRef
from assay.files.read import MB, FileReadError, read_attachment


def attach_files(
    cases: Sequence[TestCase], max_file_mb: float
) -> tuple[list[TestCase], list[Path], list[Problem]]:
    """The cases with each turn's files read into ``attachments``; the files read (in
    order, each once: a resume's fingerprint covers them); and every problem found."""
    reader = _Reader(round(max_file_mb * MB))
    attached = [
        replace(case, turns=tuple(reader.turn(case, i, t) for i, t in enumerate(case.turns)))
        if any(turn.files for turn in case.turns)
        else case
        for case in cases
    ]
    return attached, list(dict.fromkeys(key[0] for key in reader.read)), reader.problems


class _Reader:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.read: dict[
            tuple[Path, str | None, str | None], Attachment | str
        ] = {}  # a file attached twice is read once
        self.problems: list[Problem] = []

    def turn(self, case: TestCase, index: int, turn: Turn) -> Turn:
        if not turn.files:
            return turn
        attachments = []
        for ref in turn.files:
            found = self.attachment(ref)
            if isinstance(found, str):
                which = f"test {case.name!r}" + (
                    f", turn {index}" if case.type != "single_turn" else ""
                )
                self.problems.append(Problem(ref.source, ref.where, f"{which}: {found}"))
            else:
                attachments.append(replace(found, path=ref.written))
        return replace(turn, attachments=tuple(attachments))

    def attachment(self, ref: FileRef) -> Attachment | str:
        """The file read, or the message saying why it cannot be."""
        key = (ref.path.resolve(), ref.mime_type, ref.read_as)
        if key not in self.read:
            try:
                self.read[key] = read_attachment(ref, self.max_bytes)
            except FileReadError as exc:
                self.read[key] = str(exc)
        found = self.read[key]
        return found if isinstance(found, Attachment) else f"{ref.written}: {found}"
