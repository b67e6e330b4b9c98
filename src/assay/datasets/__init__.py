"""Ground-truth datasets (SPEC §3): CSV, XLSX and JSONL files of questions, expected answers
and expected tool calls, grouped into conversations by ``session_id``."""

from assay.datasets.columns import ALIASES, LITERAL
from assay.datasets.loader import Dataset, load_dataset, validate_dataset
from assay.datasets.model import Conversation, DatasetRow
from assay.datasets.readers import SUPPORTED_EXTENSIONS
from assay.datasets.shape import ShapeReport

__all__ = [
    "ALIASES",
    "LITERAL",
    "SUPPORTED_EXTENSIONS",
    "Conversation",
    "Dataset",
    "DatasetRow",
    "ShapeReport",
    "load_dataset",
    "validate_dataset",
]
