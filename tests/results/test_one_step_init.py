"""``one_step_init``: a frozen dataclass's ``__init__`` made to fill the instance's dict in one
step, with exactly the parameters, defaults and default factories the dataclass's own has."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from assay.cases.models import TestCase, Turn
from assay.metrics.base import MetricContext, Score
from assay.results.models import one_step_init
from assay.targets.base import TurnRequest


@dataclass(frozen=True)
class Plain:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@one_step_init
@dataclass(frozen=True)
class Quick:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a",), {}),
    (("a", 3), {}),
    (("a",), {"tags": ("x",), "extra": {"k": 1}}),
    ((), {"name": "a", "extra": {}}),
    (("a", 1, ("t",), {"v": None}), {}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_the_same_instance_as_the_dataclass_init_makes(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    plain, quick = Plain(*args, **kwargs), Quick(*args, **kwargs)
    assert dataclasses.asdict(quick) == dataclasses.asdict(plain)
    assert repr(quick) == repr(plain).replace("Plain", "Quick")
    assert quick == Quick(*args, **kwargs)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), (("a", 1, (), {}, 5), {}), (("a",), {"name": "b"}), (("a",), {"other": 1})],
)
def test_the_same_errors_for_wrong_arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        Plain(*args, **kwargs)
    with pytest.raises(TypeError):
        Quick(*args, **kwargs)


def test_a_default_factory_makes_a_new_value_for_each_instance() -> None:
    assert Quick("a").extra is not Quick("a").extra


def test_still_frozen_replaceable_and_picklable() -> None:
    quick = Quick("a", 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.name = "b"  # type: ignore[misc]
    assert dataclasses.replace(quick, count=5) == Quick("a", 5)
    assert pickle.loads(pickle.dumps(quick)) == quick


@pytest.mark.parametrize("cls", [Quick, TurnRequest, MetricContext, Score, Turn, TestCase])
def test_the_signature_is_the_dataclass_one(cls: type) -> None:
    params = inspect.signature(cls).parameters
    fields = dataclasses.fields(cls)
    assert list(params) == [f.name for f in fields]
    for f in fields:
        default = params[f.name].default
        if f.default is not dataclasses.MISSING:
            assert default is f.default
        elif f.default_factory is not dataclasses.MISSING:
            assert repr(default) == "<factory>"
        else:
            assert default is inspect.Parameter.empty


def test_a_class_it_cannot_serve_is_refused() -> None:
    @dataclass(frozen=True)
    class Later:
        name: str

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True)
    class KeywordOnly:
        name: str = field(kw_only=True)

    for cls in (Later, KeywordOnly):
        with pytest.raises(TypeError):
            one_step_init(cls)
