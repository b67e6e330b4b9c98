"""Writing a file the user asked for (a report, an imported suite, a starter file) whole or
not at all: into a new file beside it, then renamed over it, so that a write that fails (a
full disk) leaves the previous file as it was, never a truncated one."""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, its missing folders made: the file there is
    replaced only once the new one is written in full (a symbolic link's file, the link
    kept). Raises OSError as writing would; no temporary file is left behind.

    What cannot be replaced is written as it is, as before: not a regular file (/dev/null,
    a pipe), a path under /dev or /proc (``/dev/stdout`` redirected to a file), the file
    this process's stdout or stderr writes to, or a file one may write in a folder one may
    not add a file to."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = Path(os.path.realpath(path))
    try:
        found = os.stat(target)
    except FileNotFoundError:
        mode, in_place = None, False
    else:
        mode, in_place = stat.S_IMODE(found.st_mode), _written_in_place(path, found)
    if in_place:
        target.write_text(text, encoding="utf-8")
        return
    # short, whatever the name's length; 0o666 less the umask, as a new file gets
    temp = target.with_name(f".assay-{uuid.uuid4().hex[:12]}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except PermissionError:
        target.write_text(text, encoding="utf-8")
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())  # on disk before it takes the old file's place
        if mode is not None:  # the replaced file's permissions, as writing into it kept them
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _written_in_place(path: Path, found: os.stat_result) -> bool:
    """Whether replacing the file would cut something off: not a regular file, a device
    path (``/dev/stdout`` resolves to the file the shell redirected it to), or the file
    this process's own output goes to (replaced, the rest of the output would be lost)."""
    if not stat.S_ISREG(found.st_mode) or path.absolute().parts[1:2] in (("dev",), ("proc",)):
        return True
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            stream = os.fstat(fd)
            if (stream.st_dev, stream.st_ino) == (found.st_dev, found.st_ino):
                return True
    return False
