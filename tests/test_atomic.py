"""``write_atomically``: a file replaced whole or not at all, what it replaces kept as it
was (its permissions, a symbolic link to it), and what cannot be replaced (a pipe) written
as it is."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from assay._atomic import write_atomically


def test_a_failed_write_leaves_the_previous_file_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.json"
    path.write_text("previous")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(path, "new")
    assert path.read_text() == "previous"
    assert os.listdir(tmp_path) == ["report.json"]


def test_missing_folders_are_made(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "report.md"
    write_atomically(path, "# report\n")
    assert path.read_text() == "# report\n"


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text("previous")
    path.chmod(0o640)
    write_atomically(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_link_stays_a_link_to_the_replaced_file(tmp_path: Path) -> None:
    real = tmp_path / "reports" / "latest.json"
    real.parent.mkdir()
    real.write_text("previous")
    link = tmp_path / "report.json"
    link.symlink_to(real)
    write_atomically(link, "new")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_text() == "new"
    assert sorted(os.listdir(real.parent)) == ["latest.json"]


def test_a_pipe_is_written_into_not_replaced(tmp_path: Path) -> None:
    pipe = tmp_path / "report.pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # so that opening it to write returns
    try:
        write_atomically(pipe, "hello")
        assert os.read(reader, 100) == b"hello"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


def test_the_file_the_process_output_goes_to_is_written_into(tmp_path: Path) -> None:
    """``--out /dev/stdout > out.log``: /dev/stdout resolves to out.log; replaced, the
    process's later output would go to the deleted file. Also out.log named directly."""
    import subprocess
    import sys

    script = (
        "import sys; from pathlib import Path; from assay._atomic import write_atomically; "
        "write_atomically(Path(sys.argv[1]), 'report\\n'); print('after', flush=True)"
    )
    for named in ("/dev/stdout", None):
        log = tmp_path / "out.log"
        log.write_text("")
        before = os.stat(log).st_ino
        with open(log, "a") as out:
            subprocess.run(
                [sys.executable, "-c", script, named or str(log)], stdout=out, check=True
            )
        assert os.stat(log).st_ino == before
        assert log.read_text() == "report\nafter\n"
