"""Files attached to a test or a turn (``files:``, a dataset's ``files`` column): read once
when the run is planned (``assay.files.attach``), sent with the turn, recorded in
``processed_files``."""

from assay.files.model import Attachment, FileRef
from assay.files.read import FileReadError, read_attachment

__all__ = ["Attachment", "FileReadError", "FileRef", "read_attachment"]
