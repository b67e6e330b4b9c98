"""The models a run builds take their empty lists and dicts from ``assay._factories``: a
builtin type as a pydantic default factory makes pydantic parse its text signature while it
builds the model (bench/README.md, the eighth sitting's start-up). The defaults stay what
``list`` and ``dict`` gave: a new empty container for each instance."""

from __future__ import annotations

import inspect

from pydantic import BaseModel

import assay.config
import assay.results.models
import assay.run_options
import assay.target_config
from assay._factories import empty_dict, empty_list
from assay.results.models import ToolInvocation, TurnResult

BUILTIN_FACTORIES = (list, dict, tuple, set, frozenset)


def _models() -> list[type[BaseModel]]:
    modules = (assay.results.models, assay.config, assay.target_config, assay.run_options)
    return [
        value
        for module in modules
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    ]


def test_no_model_a_run_builds_has_a_builtin_type_as_a_default_factory() -> None:
    models = _models()
    assert len(models) > 25  # the check sees the models
    builtin = [
        f"{model.__name__}.{name}"
        for model in models
        for name, field in model.model_fields.items()
        if field.default_factory in BUILTIN_FACTORIES
    ]
    assert builtin == []
    factories = {
        field.default_factory
        for model in models
        for field in model.model_fields.values()
        if field.default_factory is not None
    }
    assert {empty_list, empty_dict} <= factories


def test_each_instance_gets_a_new_empty_container() -> None:
    assert empty_list() == [] and empty_list() is not empty_list()
    assert empty_dict() == {} and empty_dict() is not empty_dict()
    one, two = ToolInvocation(name="a"), ToolInvocation(name="b")
    assert one.args == {} and one.args is not two.args
    first = TurnResult(turn_index=0, input="q", passed=True, execution_time_ms=1.0)
    second = TurnResult(turn_index=1, input="q", passed=True, execution_time_ms=1.0)
    assert first.tool_calls == [] and first.tool_calls is not second.tool_calls
    assert first.metrics_not_run == {} and first.metrics_not_run is not second.metrics_not_run
    first.tool_calls.append("x")
    assert second.tool_calls == []
