"""The one registry mechanism: names, did-you-mean, taken names, and every component kind
(metrics, targets, reporters, model providers) registered through it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.metrics import METRICS
from assay.models.factory import PROVIDERS
from assay.registry import RegistrationError, Registry, UnknownName
from assay.reporters import FORMATS
from assay.targets.factory import TARGETS


def shout(text: str) -> str:
    return text.upper()


def whisper(text: str) -> str:
    return text.lower()


def test_a_name_gets_what_was_registered_and_a_typo_a_did_you_mean() -> None:
    voices: Registry[object] = Registry("voice")
    voices.register("shout", shout)
    voices.register("whisper", whisper)
    assert voices.get("shout") is shout
    assert voices.names() == ["shout", "whisper"]
    with pytest.raises(UnknownName) as typo:
        voices.get("shuot")
    assert str(typo.value) == "unknown voice 'shuot'; did you mean 'shout'?"
    with pytest.raises(UnknownName) as unknown:
        voices.get("sing")
    assert str(unknown.value) == "unknown voice 'sing'; expected one of shout, whisper"


def test_a_taken_name_is_refused_but_the_same_definition_again_is_not() -> None:
    voices: Registry[object] = Registry("voice")
    voices.register("shout", shout)
    voices.register("shout", shout)  # its module imported a second time
    with pytest.raises(RegistrationError, match=r"voice 'shout' is already registered \(by "):
        voices.register("shout", whisper)
    assert voices.get("shout") is shout


def test_a_builtin_name_cannot_be_taken_over() -> None:
    with pytest.raises(RegistrationError) as taken:
        METRICS.register("equality", METRICS.get("numeric"))
    assert str(taken.value) == (
        "metric 'equality' is already registered (built into assay); choose another name"
    )


@pytest.mark.parametrize("bad", ["", "two words", "7up", "a/b", None])
def test_names_are_identifier_like(bad: object) -> None:
    voices: Registry[object] = Registry("voice")
    with pytest.raises(RegistrationError, match="voice names are letters"):
        voices.register(bad, shout)  # type: ignore[arg-type]


def test_every_component_kind_is_a_registry_with_its_builtins() -> None:
    assert {"equality", "numeric", "code", "correctness", "trajectory_recall"} <= set(
        METRICS.names()
    )
    assert TARGETS.names() == ["demo", "http", "openai", "python"]
    assert FORMATS.names() == ["html", "json", "junit", "markdown"]
    assert PROVIDERS.names() == ["anthropic", "openai"]
    with pytest.raises(UnknownName, match="unknown report format 'jsn'; did you mean 'json'"):
        FORMATS.get("jsn")


def test_the_table_of_builtin_metrics_names_each_one_where_it_is_defined() -> None:
    """The registry imports a built-in metric's module from this table when a suite names
    it: a metric missing from it, or placed in the wrong module, would not be found."""
    from assay.metrics._builtins import BUILTIN_METRICS

    registered = {e.name: e.module for e in METRICS.entries() if e.builtin}
    assert registered == BUILTIN_METRICS


def test_a_builtin_name_is_taken_before_its_module_is_imported() -> None:
    """A user's metric cannot take a built-in's name, loaded or not."""
    from assay.metrics import metric

    with pytest.raises(RegistrationError, match="'fluency' is already registered"):
        metric("fluency")(shout)


def test_every_builtin_metric_is_documented() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    guide = (docs / "metrics.md").read_text() + (docs / "judges.md").read_text()
    undocumented = [
        name
        for name in METRICS.names()
        if f"`{name}`" not in guide
        and f"[{name}]" not in guide
        and not re.search(rf"^#+ .*\b{name}\b", guide, re.M)
    ]
    assert undocumented == []
