"""What a user asked ``assay run`` for, stored with the run so ``--resume`` needs little else.

A resume takes the suite, datasets and options from the stored run, except the endpoint
options (``--target``, ``--judge``, ``--judge-base-url``): assay sends keys only to endpoints
that the suite and the command line name now, never to one read back from a store. The
endpoints a run used are stored with it (``endpoints``), and a resume whose endpoints
differ is refused, naming both.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from assay.cases import LoadedSuite
from assay.cases._problems import pydantic_problems
from assay.config import ExecutionConfig, ModelConfig
from assay.errors import ConfigError, Problem
from assay.run_options import RunOptions
from assay.runner.keywords import keyword_selection
from assay.secrets import REDACTOR
from assay.target_config import TargetConfig

ENDPOINT_OPTIONS = ("target", "judge", "judge_base_url")
# what decides which tests a run has and how they are counted: a resume must not change it
FIXED_ON_RESUME = ("datasets", "repeat", "limit", "keyword", "tags", "only_failed")
_FLAGS = {"keyword": "-k", "tags": "--tag", "only_failed": "--only-failed"}
# a suite given to assay.run as an object, not a file: a resume needs it given again
IN_MEMORY = "in_memory_suite"


def run_options(values: dict[str, Any], spell: Callable[[str], str] = str) -> RunOptions:
    """``RunOptions`` from the options given, or a ConfigError naming each bad one as
    ``spell`` writes it (``--concurrency`` on the command line, ``concurrency`` in Python)."""
    try:
        return RunOptions.model_validate(values)
    except ValidationError as exc:
        problems = pydantic_problems("options", exc)
        field_names = [str(err["loc"][0]) if err["loc"] else "" for err in exc.errors()]
        raise ConfigError(
            [
                Problem(p.source, spell(name) if name else p.path, p.message)
                for p, name in zip(problems, field_names, strict=True)
            ]
        ) from None


@dataclass
class RunRequest:
    """What a run was asked for: its suite (a file, a suite object, or none with datasets
    only) and its options."""

    suite: Path | LoadedSuite | None = None
    options: RunOptions = field(default_factory=RunOptions)

    @property
    def suite_path(self) -> Path | None:
        return self.suite.path if isinstance(self.suite, LoadedSuite) else self.suite

    @property
    def in_memory(self) -> bool:
        """The suite was given as an object with no file behind it."""
        return isinstance(self.suite, LoadedSuite) and self.suite.path is None

    def to_inputs(self) -> dict[str, Any]:
        """JSON-able, with absolute paths, so a resume works from any folder; secrets in
        URLs masked."""
        data = self.options.model_dump(mode="json")
        data["suite"] = str(self.suite_path.resolve()) if self.suite_path else None
        data["datasets"] = [str(p.resolve()) for p in self.options.datasets]
        for name in ("target", "judge_base_url"):
            data[name] = _shown_url(data[name]) if data[name] else None
        if self.in_memory:
            data[IN_MEMORY] = True
        return data

    @classmethod
    def from_inputs(cls, data: dict[str, Any]) -> RunRequest:
        """A stored request (also one stored by an older assay: unknown keys are ignored)."""
        known = {k: v for k, v in data.items() if k in RunOptions.model_fields and v is not None}
        suite = Path(data["suite"]) if data.get("suite") else None
        return cls(suite, run_options(known))

    def resumed_with(self, given: RunRequest, run_id: str, in_memory: bool = False) -> RunRequest:
        """This stored request, with the options given to the resume. A suite or dataset
        given again must be the one the run started with (a suite object is compared by
        content, with the run's fingerprint); the other ``FIXED_ON_RESUME`` options are kept
        (``check_kept`` compares those given with them, once the suite is read); the others
        may be given anew, and the endpoint options are the ones given now
        (``check_endpoints`` then compares them with the stored run's)."""
        suite = self._resumed_suite(given, run_id, in_memory)
        if given.options.datasets and {p.resolve() for p in given.options.datasets} != set(
            self.options.datasets
        ):
            started = ", ".join(map(str, self.options.datasets)) or "no --dataset"
            raise _refuse(run_id, "--dataset", f"it was started with {started}")
        stored = self.options.model_dump(exclude=set(ENDPOINT_OPTIONS))
        anew = given.options.model_dump(exclude_defaults=True, exclude=set(FIXED_ON_RESUME))
        endpoints_now = {name: getattr(given.options, name) for name in ENDPOINT_OPTIONS}
        return RunRequest(suite, RunOptions(**{**stored, **anew, **endpoints_now}))

    def check_kept(
        self, given: RunOptions, run_id: str, suite: ExecutionConfig, run_ids: Callable[[str], str]
    ) -> None:
        """Refuse a resume given a ``FIXED_ON_RESUME`` option (after ``--dataset``) whose
        value differs from the run's. Values are compared as they take effect, an option
        left out at the start being its default: ``--repeat 1`` resumes a run started
        without ``--repeat`` from a suite whose ``execution.repeat`` (``suite``) is 1; tags
        are compared as a set, without case, and ``-k`` words without case, as they select;
        ``--only-failed`` ids as the full id ``run_ids`` gives (a prefix names the run too)."""
        started = _in_effect(self.options, suite, run_ids)
        for name, value in _in_effect(given, suite, run_ids).items():
            if getattr(given, name) not in (None, []) and value != started[name]:
                flag = _FLAGS.get(name, f"--{name}")
                raise _refuse(run_id, flag, f"it was started {self._with(name, suite)}")

    def _with(self, name: str, suite: ExecutionConfig) -> str:
        """How the run was started as to the ``FIXED_ON_RESUME`` option ``name``, as typed:
        ``with --repeat 3``, ``with -k 'not slow'``, ``without --limit``."""
        flag = _FLAGS.get(name, f"--{name}")
        value = getattr(self.options, name)
        if name == "repeat" and value is None:
            return f"without {flag}, so with the suite's execution.repeat: {suite.repeat}"
        values = value if isinstance(value, list) else [] if value is None else [value]
        if not values:
            return f"without {flag}"
        return "with " + " ".join(f"{flag} {shlex.quote(str(v))}" for v in values)

    def _resumed_suite(
        self, given: RunRequest, run_id: str, in_memory: bool
    ) -> Path | LoadedSuite | None:
        if in_memory:  # nothing stored to read it back from: the caller gives it again
            if not given.in_memory:
                raise _refuse(
                    run_id,
                    "suite",
                    "it was started with a suite given to assay.run as an object, which is "
                    "not stored",
                    "Pass the same suite object again",
                )
            return given.suite
        if given.suite_path is not None and (
            self.suite is None or given.suite_path.resolve() != self.suite_path
        ):
            started = self.suite or "no suite"
            raise _refuse(run_id, "SUITE", f"it was started with {started}")
        if given.in_memory:
            raise _refuse(run_id, "suite", f"it was started with {self.suite or 'no suite'}")
        return given.suite if given.suite is not None else self.suite

    def endpoint_options(self) -> str:
        """The endpoint options as they would be typed: what a resume must be given again."""
        return " ".join(
            f"--{name.replace('_', '-')} {shlex.quote(_shown_url(value))}"  # pasted into a shell
            for name in ENDPOINT_OPTIONS
            if (value := getattr(self.options, name))
        )

    def resume_command(self, run_id: str, store_url: str | None = None) -> str:
        """The command that resumes the run, each value quoted for a shell: its endpoint
        options, and the store it is in when one was named (``--store``; its password
        masked), else the resume would look in the default store and not find it."""
        parts = [f"assay run --resume {run_id[:12]}", self.endpoint_options()]
        if store_url:  # the store is open by now: its module (SQLAlchemy) is loaded
            from assay.store._engine import mask_url

            parts.append(f"--store {shlex.quote(mask_url(store_url))}")
        return " ".join(part for part in parts if part)


def _in_effect(
    options: RunOptions, suite: ExecutionConfig, run_ids: Callable[[str], str]
) -> dict[str, object]:
    """The ``FIXED_ON_RESUME`` options after ``--dataset``, as they take effect with the
    suite's ``execution:``: what a resume compares."""
    values: dict[str, object] = {name: getattr(options, name) for name in FIXED_ON_RESUME[1:]}
    values["repeat"] = options.execution(suite).repeat
    values["tags"] = {tag.casefold() for tag in options.tags}
    if options.keyword is not None:
        values["keyword"] = keyword_selection(options.keyword)
    if options.only_failed is not None:
        values["only_failed"] = run_ids(options.only_failed)
    return values


def _refuse(
    run_id: str, where: str, why: str, fix: str = "Resume with no arguments"
) -> ConfigError:
    return ConfigError(
        [
            Problem(
                "options",
                where,
                f"cannot resume run {run_id[:12]} with a different {where}: {why}. "
                f"{fix}, or start a new run.",
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


def fingerprint(files: list[Path], suite: LoadedSuite | None = None) -> str:
    """A SHA-256 of the suite and dataset files' contents (and of a suite given as an object,
    as written): a resume must run the same tests."""
    digest = hashlib.sha256()
    if suite is not None and suite.path is None:
        written = json.dumps(suite.raw, sort_keys=True, default=str, ensure_ascii=False)
        digest.update(b"<suite>\0" + written.encode("utf-8", "surrogatepass"))
    for path in files:
        digest.update(path.name.encode() + b"\0")
        try:
            with path.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            digest.update(b"<missing>")
    return digest.hexdigest()
