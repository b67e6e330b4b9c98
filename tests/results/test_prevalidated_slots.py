"""``prevalidated`` and ``one_step_init`` set an instance's slots and ``__dict__`` through the
descriptors they looked up once; these are the ones ``object.__setattr__`` finds for those
names, and the instances are the ones validation (or the dataclass's own ``__init__``) makes."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest
from pydantic import BaseModel

from assay.cases.models import TestCase, Turn
from assay.metrics.base import MetricContext, Score
from assay.results import models
from assay.results.models import (
    MetricResult,
    TestResult,
    TokenUsage,
    ToolInvocation,
    one_step_init,
    prevalidated,
)
from assay.targets.base import TurnRequest

SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
RECORDS = [
    c for c in vars(models).values() if isinstance(c, type) and issubclass(c, models._Record)
]


def _found(cls: type, name: str) -> Any:
    """The descriptor ``object.__setattr__(instance, name, ...)`` uses: the first in the MRO."""
    return next(vars(c)[name] for c in cls.__mro__ if name in vars(c))


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_every_record_sets_its_slots_by_the_descriptors_prevalidated_holds(cls: type) -> None:
    held = {
        "__dict__": models._set_dict,
        "__pydantic_fields_set__": models._set_fields_set,
        "__pydantic_extra__": models._set_extra,
        "__pydantic_private__": models._set_private,
    }
    for name in SLOTS:
        assert held[name].__self__ is _found(cls, name) is vars(BaseModel)[name]


def _values(cls: type[BaseModel], given: dict[str, Any]) -> dict[str, Any]:
    return dict(cls.model_validate(given).__dict__)


SAMPLES: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (TokenUsage, {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 2**63 - 1}),
    (ToolInvocation, {"name": "lookup", "args": {"q": "\x00\ud800é"}, "result": 42, "bytes": 2}),
    (
        MetricResult,
        {"metric_name": "eq", "score": 1.0, "passed": True, "details": {"a": [float("nan")]}},
    ),
    (
        TestResult,
        {
            "test_name": "t",
            "test_type": "single_turn",
            "test_input": "q",
            "passed": True,
            "execution_time_ms": 3,
            "timestamp": "2026",
            "metric_results": [MetricResult(metric_name="eq", score=0.0, passed=False)],
            "tool_invocations": [ToolInvocation(name="x")],
            "token_usage": TokenUsage(prompt_tokens=1),
        },
    ),
]


@pytest.mark.parametrize(("cls", "given"), SAMPLES, ids=lambda v: getattr(v, "__name__", ""))
def test_a_prevalidated_model_is_the_validated_one(
    cls: type[BaseModel], given: dict[str, Any]
) -> None:
    validated = cls.model_validate(given)
    made = prevalidated(cls, _values(cls, given), set(given))
    assert type(made) is cls
    assert list(made.__dict__) == list(validated.__dict__)
    assert repr(made.model_dump()) == repr(validated.model_dump())  # NaN, a lone surrogate
    assert made.model_fields_set == validated.model_fields_set == set(given)
    assert made.__pydantic_extra__ is None and made.__pydantic_private__ is None
    assert repr(made) == repr(validated)
    for again in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made), made.model_copy()):
        assert repr(again.model_dump()) == repr(validated.model_dump())
        assert again.model_fields_set == validated.model_fields_set
    first = next(iter(cls.model_fields))
    changed = made.model_copy(update={first: validated.__dict__[first]})
    assert repr(changed.model_dump()) == repr(validated.model_dump())


def test_a_prevalidated_model_keeps_the_dict_and_set_it_was_given() -> None:
    values = _values(TokenUsage, {})
    given: set[str] = set()
    made = prevalidated(TokenUsage, values, given)
    assert made.__dict__ is values and made.__pydantic_fields_set__ is given
    made.prompt_tokens = 5  # the model's own __setattr__, as on a validated one
    assert values["prompt_tokens"] == 5 and given == {"prompt_tokens"}


@pytest.mark.parametrize("cls", [MetricContext, Score, TurnRequest, Turn, TestCase])
def test_one_step_init_sets_the_dict_by_the_descriptor_setattr_finds(cls: type) -> None:
    setter = cls.__init__.__globals__["_set_dict"]  # type: ignore[misc]
    assert setter.__self__ is _found(cls, "__dict__")


@one_step_init
@dataclasses.dataclass(frozen=True)
class _Base:
    name: str
    count: int = 0


@one_step_init
@dataclasses.dataclass(frozen=True)
class _Derived(_Base):
    extra: tuple[int, ...] = ()


def test_a_one_step_subclass_fills_its_own_dict() -> None:
    made = _Derived("a", 2, (1,))
    assert vars(made) == {"name": "a", "count": 2, "extra": (1,)}
    assert made == _Derived("a", 2, (1,)) and hash(made) == hash(_Derived("a", 2, (1,)))
    assert _Base("a").__dict__ == {"name": "a", "count": 0}
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "b"  # type: ignore[misc]
