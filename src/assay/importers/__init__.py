"""Other tools' tests → assay suites: ``assay import holodeck|rhesis|promptfoo FILE``."""

from collections.abc import Callable
from pathlib import Path

from assay.importers.base import Imported, Unmapped
from assay.importers.holodeck import import_holodeck
from assay.importers.promptfoo import import_promptfoo
from assay.importers.rhesis import import_rhesis
from assay.importers.writer import suite_yaml

IMPORTERS: dict[str, Callable[[Path], Imported]] = {
    "holodeck": import_holodeck,
    "rhesis": import_rhesis,
    "promptfoo": import_promptfoo,
}

__all__ = ["IMPORTERS", "Imported", "Unmapped", "suite_yaml"]
