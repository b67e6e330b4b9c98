"""What a user asked ``assay run`` for, stored with the run so ``--resume`` needs nothing else."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import ConfigError, Problem


@dataclass
class RunRequest:
    suite: Path | None = None
    datasets: list[Path] = field(default_factory=list)
    target: str | None = None
    judge: str | None = None
    judge_base_url: str | None = None
    concurrency: int | None = None
    repeat: int | None = None
    limit: int | None = None
    no_cache: bool = False

    def to_inputs(self) -> dict[str, Any]:
        """JSON-able, with absolute paths, so a resume works from any folder."""
        data = asdict(self)
        data["suite"] = str(self.suite.resolve()) if self.suite else None
        data["datasets"] = [str(p.resolve()) for p in self.datasets]
        return data

    @classmethod
    def from_inputs(cls, data: dict[str, Any]) -> RunRequest:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["suite"] = Path(known["suite"]) if known.get("suite") else None
        known["datasets"] = [Path(p) for p in known.get("datasets") or []]
        return cls(**known)

    def resumed_with(self, given: RunRequest, run_id: str) -> RunRequest:
        """This stored request, with the options given to ``--resume``. A suite or dataset
        given again must be the one the run started with."""
        if given.suite is not None and (
            self.suite is None or given.suite.resolve() != self.suite.resolve()
        ):
            raise _refuse(run_id, "SUITE", f"it was started with {self.suite or 'no suite'}")
        if given.datasets and {p.resolve() for p in given.datasets} != set(self.datasets):
            started = ", ".join(map(str, self.datasets)) or "no --dataset"
            raise _refuse(run_id, "--dataset", f"it was started with {started}")
        for name in ("target", "judge", "repeat", "limit"):
            value = getattr(given, name)
            if value is not None and value != getattr(self, name):
                raise _refuse(run_id, f"--{name}", f"it was started with {getattr(self, name)}")
        merged = RunRequest(**{**asdict(self)})
        merged.concurrency = given.concurrency or self.concurrency
        merged.no_cache = given.no_cache or self.no_cache
        return merged


def _refuse(run_id: str, where: str, why: str) -> ConfigError:
    return ConfigError(
        [
            Problem(
                "options",
                where,
                f"cannot resume run {run_id[:12]} with a different {where}: {why}. "
                "Resume with no arguments, or start a new run.",
            )
        ]
    )


def fingerprint(files: list[Path]) -> str:
    """A SHA-256 of the suite and dataset files' contents: a resume must run the same tests."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0")
        try:
            with path.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            digest.update(b"<missing>")
    return digest.hexdigest()
