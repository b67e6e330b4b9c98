"""What a user asked ``assay run`` for, stored with the run so ``--resume`` needs little else.

A resume takes the suite, datasets and options from the stored run, except the endpoint
options (``--target``, ``--judge``, ``--judge-base-url``): assay sends keys only to endpoints
that the suite and the command line name now, never to one read back from a store. The
endpoints a run used are stored with it (``endpoints``), and a resume whose endpoints
differ is refused, naming both.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from assay.config import ModelConfig, TargetConfig
from assay.errors import ConfigError, Problem
from assay.secrets import REDACTOR

ENDPOINT_OPTIONS = ("target", "judge", "judge_base_url")


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
        data["target"] = _shown_url(self.target) if self.target else None
        data["judge_base_url"] = _shown_url(self.judge_base_url) if self.judge_base_url else None
        return data

    @classmethod
    def from_inputs(cls, data: dict[str, Any]) -> RunRequest:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["suite"] = Path(known["suite"]) if known.get("suite") else None
        known["datasets"] = [Path(p) for p in known.get("datasets") or []]
        return cls(**known)

    def resumed_with(self, given: RunRequest, run_id: str) -> RunRequest:
        """This stored request, with the options given to ``--resume``. A suite or dataset
        given again must be the one the run started with; the endpoint options are the
        ones given now (``check_endpoints`` then compares them with the stored run's)."""
        if given.suite is not None and (
            self.suite is None or given.suite.resolve() != self.suite.resolve()
        ):
            raise _refuse(run_id, "SUITE", f"it was started with {self.suite or 'no suite'}")
        if given.datasets and {p.resolve() for p in given.datasets} != set(self.datasets):
            started = ", ".join(map(str, self.datasets)) or "no --dataset"
            raise _refuse(run_id, "--dataset", f"it was started with {started}")
        for name in ("repeat", "limit"):
            value = getattr(given, name)
            if value is not None and value != getattr(self, name):
                raise _refuse(run_id, f"--{name}", f"it was started with {getattr(self, name)}")
        merged = RunRequest(**{**asdict(self)})
        merged.concurrency = given.concurrency or self.concurrency
        merged.no_cache = given.no_cache or self.no_cache
        for name in ENDPOINT_OPTIONS:
            setattr(merged, name, getattr(given, name))
        return merged

    def endpoint_options(self) -> str:
        """The endpoint options as they would be typed: what a resume must be given again."""
        return " ".join(
            f"--{name.replace('_', '-')} {_shown_url(value)}"
            for name in ENDPOINT_OPTIONS
            if (value := getattr(self, name))
        )

    def resume_command(self, run_id: str) -> str:
        return " ".join(f"assay run --resume {run_id[:12]} {self.endpoint_options()}".split())


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


def _shown_url(url: str) -> str:
    """A URL without its password and with known secrets masked: safe to store and show."""
    try:
        parts = urlsplit(url)
        if parts.password is not None:
            host = parts.netloc.rpartition("@")[2]
            parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
        url = urlunsplit(parts)
    except ValueError:
        pass
    return REDACTOR(url)


def _where(url: str) -> str:
    """What decides who receives a request: scheme, host, port and path (not the user,
    password, query or fragment)."""
    try:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.hostname}:{parts.port}{parts.path}"
    except ValueError:
        return url


def endpoints(target: TargetConfig, judge: ModelConfig | None) -> dict[str, str | None]:
    """Where a run sends requests (and so keys): its target and judge, as shown (secrets
    masked, so a URL from a ${VAR} may show as ***) and as a digest that tells them apart."""
    identity: list[str] = []
    if target.http is not None:
        shown, identity = _shown_url(target.http.url), [_where(target.http.url)]
    elif target.openai is not None:
        base = target.openai.base_url
        shown, identity = f"{_shown_url(base)} (openai)", [_where(base)]
    elif target.python is not None:
        shown = f"{target.python} (python)"
    else:
        shown = f"demo:{target.demo}"
    seen_by = None
    if judge is not None:
        base = _shown_url(judge.base_url) if judge.base_url else "its default URL"
        seen_by = f"{judge.provider}:{judge.model} at {base}"
        identity += [judge.provider, judge.model, _where(judge.base_url or "")]
    digest = hashlib.sha256("\0".join([shown, seen_by or "", *identity]).encode()).hexdigest()
    return {"target": shown, "judge": seen_by, "digest": digest}


def check_endpoints(
    run_id: str, stored: dict[str, Any] | None, now: dict[str, str | None], started: RunRequest
) -> None:
    """Refuse a resume that would send requests to other endpoints than the run did."""
    if stored is None or stored.get("digest") == now["digest"]:
        return
    names = [n for n in ("target", "judge") if stored.get(n) or now[n]]
    changed = [n for n in names if stored.get(n) != now[n]] or names
    was = "; ".join(f"{name} {stored.get(name) or 'none'}" for name in changed)
    would = "; ".join(f"{name} {now.get(name) or 'none'}" for name in changed)
    masked = " (*** is a masked ${VAR} value)" if "***" in was + would else ""
    why = f"it used {was}, and this resume would use {would}{masked}"
    raise endpoints_refused(run_id, why, started)


def endpoints_refused(run_id: str, why: str, started: RunRequest) -> ConfigError:
    again = started.endpoint_options()
    how = f"resume with {again} again" if again else "resume with the suite's own endpoints"
    return ConfigError(
        [
            Problem(
                "options",
                "--resume",
                f"cannot resume run {run_id[:12]}: {why}. assay sends keys only to the "
                f"endpoints the suite and command line name now: {how}, or start a new run",
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
