"""Where a command writes a file (``--out``, ``-o``, ``assay init``'s folder): checked
before the work, so that a typo costs nothing, and refused as bad input (exit 2) naming the
option, never as a bug of assay. Missing folders on the way are made when writing; the check
tries the writing itself (and removes what it made), as only the system knows what it allows."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from assay.errors import ConfigError, Problem


def unwritable(path: Path) -> str | None:
    """Why no file can be written at ``path``, its missing folders made first, or None:
    ``path`` is a folder, the nearest existing path above it is a file, the system refuses
    to look (a name too long), or refuses the write itself (``_try_writing``)."""
    try:
        if path.is_dir():
            return f"{str(path)!r} is a folder"
        parent = next((p for p in path.absolute().parents if p.exists()), None)
        if parent is not None and not parent.is_dir():
            return f"{str(parent)!r} is a file"
    except OSError as exc:
        return exc.strerror or str(exc)
    return _try_writing(path, parent)


def _try_writing(path: Path, folder: Path | None) -> str | None:
    """Whether the system lets a file be written at ``path`` (a folder it cannot write to,
    a read-only file system, /proc), found by doing it, with nothing left behind: an
    existing file is opened for appending and closed, never truncated (the report written
    after a run replaces it); a new one is created and removed; when folders are missing,
    one is made in ``folder``, the nearest existing one, and removed. Not a regular file
    (``/dev/null``, a pipe): left to the writing, as opening a pipe would wait."""
    where = path
    try:
        if os.path.lexists(path):
            if not path.is_file():
                return None
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        elif folder is None or path.absolute().parent == folder:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            os.unlink(path)
        else:
            where = folder
            os.rmdir(tempfile.mkdtemp(prefix=".assay-check-", dir=folder))
    except FileExistsError:  # made meanwhile by someone else: the writing will tell
        return None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if where is path:
            return f"{reason}: give a path you can write to"
        return f"{reason} (making a folder in {str(where)!r}): give a path you can write to"
    return None


def cannot_write(
    path: Path, why: str, what: str = "a report", option: str = "--out"
) -> ConfigError:
    """The error for ``path`` given to ``option``, that ``what`` cannot be written to."""
    message = f"cannot write {what} to {str(path)!r}: {why}"
    return ConfigError([Problem("options", option, message)])


def check_out(path: Path, what: str = "a report", option: str = "--out") -> None:
    """Refuse ``path`` (given to ``option``) when ``what`` could not be written there."""
    why = unwritable(path)
    if why is not None:
        raise cannot_write(path, why, what, option)
