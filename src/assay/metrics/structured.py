"""Structured-output metrics: is the response JSON, and does it follow a JSON Schema?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field, field_validator

from assay._json import NotJson, load_reply
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric

if TYPE_CHECKING:
    from jsonschema.protocols import Validator
    from referencing import Registry, Resource

MAX_REPORTED_ERRORS = 5


class JsonOptions(MetricOptions):
    allow_code_fence: bool = False  # accept a reply that is one ```json fenced block


@metric("json_valid")
class JsonValid(Metric[JsonOptions]):
    """1.0 when the whole response parses as JSON."""

    requires = frozenset({"response"})

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None
        try:
            load_reply(ctx.response, allow_code_fence=self.options.allow_code_fence)
        except NotJson as exc:
            return Score(0.0, reasoning=str(exc))
        return Score(1.0)


def _where(path: Any) -> str:
    """A jsonschema error path as ``$.items[2].name``."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


class JsonSchemaOptions(JsonOptions):
    model_config = ConfigDict(populate_by_name=True)  # "schema" is a BaseModel attribute

    json_schema: dict[str, Any] = Field(alias="schema")

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        import jsonschema  # a slow import, needed only when a schema is given

        checker = jsonschema.validators.validator_for(value)
        try:
            checker.check_schema(value)
        except jsonschema.SchemaError as exc:
            raise ValueError(
                f"not a valid JSON Schema: {exc.message} (at {_where(exc.absolute_path)})"
            ) from None
        try:
            problem = _unresolvable_ref(value, checker)
        except ValueError as exc:  # an $id or $ref urllib cannot parse ("http://[::1")
            raise ValueError(
                f"not a valid JSON Schema: an $id or $ref is not a URI: {exc}"
            ) from None
        if problem is not None:
            raise ValueError(problem)
        return value


def _offline_registry() -> Registry[Any]:
    """What a json_schema validator resolves ``$ref`` with: the schema itself (its
    ``$defs``, anchors and embedded ``$id`` resources; jsonschema adds the drafts' own
    metaschemas, which it bundles). An empty ``Registry``'s retrieve refuses every other
    URI, so no schema is ever fetched, from the network or a file: without it, jsonschema
    fetches a remote ``$ref`` while the turn is scored, with no time limit, on the event
    loop's thread, and a server that never answers stops the run."""
    from referencing import Registry

    return Registry()


def _unresolvable_ref(schema: dict[str, Any], checker: type[Validator]) -> str | None:
    """Why the first ``$ref`` (or ``$dynamicRef``) of ``schema`` that does not resolve
    within it would fail, with its place, or None: a URI outside the schema (``http://``,
    a relative file path) or a pointer or anchor to nothing in it. Walks the subschemas
    as the draft of ``checker`` defines them, so data (``const``, ``enum``, ``default``)
    that looks like a ``$ref`` is left alone."""
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import specification_with

    meta = checker.META_SCHEMA  # the draft's metaschema, named by its $id (id up to draft 4)
    spec = specification_with(meta.get("$id") or meta.get("id") or "urn:unknown-dialect")
    root = spec.create_resource(schema)
    uri = root.id() or ""
    # the drafts' metaschemas as the validator has them (jsonschema bundles them): a $ref
    # to one resolves offline there, so it is not refused here
    from jsonschema_specifications import REGISTRY as METASCHEMAS  # type: ignore[import-untyped]

    resolver = METASCHEMAS.with_resource(uri, root).crawl().resolver(uri)
    todo: list[tuple[Resource[Any], Any, tuple[str, ...]]] = [(root, resolver, ("$",))]
    while todo:
        resource, resolver, where = todo.pop()
        node = resource.contents
        if not isinstance(node, dict):  # true or false
            continue
        for keyword in ("$ref", "$dynamicRef"):
            ref = node.get(keyword)
            if not isinstance(ref, str):
                continue
            try:
                resolver.lookup(ref)
            except Unresolvable as exc:
                at = "".join((*where, f".{keyword}"))
                if type(exc) is Unresolvable:  # not in the registry, and not fetched
                    return (
                        f"{keyword} {ref!r} (at {at}) points outside the schema, and assay "
                        "fetches no schema: put what it refers to under $defs and refer to "
                        "it as '#/$defs/<name>'"
                    )
                return f"{keyword} {ref!r} (at {at}) points to nothing in the schema"
        places = _places(node)
        found = [
            (sub, resolver.in_subresource(sub), (*where, places.get(id(sub.contents), "")))
            for sub in resource.subresources()
        ]
        todo.extend(reversed(found))  # popped in the schema's order: the first is reported
    return None


def _places(node: dict[str, Any]) -> dict[int, str]:
    """Where each value one or two levels down sits in ``node`` (``.items``,
    ``.properties.name``, ``.allOf[1]``), by identity: the subschemas among them are
    found in their place."""
    places: dict[int, str] = {}
    for key, value in node.items():
        places.setdefault(id(value), f".{key}")
        if isinstance(value, list):
            for i, item in enumerate(value):
                places.setdefault(id(item), f".{key}[{i}]")
        elif isinstance(value, dict):
            for name, item in value.items():
                places.setdefault(id(item), f".{key}.{name}")
    return places


@metric("json_schema")
class JsonSchema(Metric[JsonSchemaOptions]):
    """1.0 when the response is JSON valid against ``schema`` (any JSON Schema draft; the
    ``$schema`` key picks it, else the latest). The first errors are in the details."""

    requires = frozenset({"response"})

    def __init__(self, options: JsonSchemaOptions) -> None:
        super().__init__(options)
        self.allow_code_fence = options.allow_code_fence
        from jsonschema.validators import validator_for

        schema = options.json_schema
        self.validator = validator_for(schema)(schema, registry=_offline_registry())

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None
        try:
            document = load_reply(ctx.response, allow_code_fence=self.allow_code_fence)
        except NotJson as exc:
            return Score(0.0, reasoning=str(exc))
        from referencing.exceptions import Unresolvable

        try:
            errors = list(self.validator.iter_errors(document))
        except Unresolvable as exc:  # refused by the registry: never fetched
            raise ValueError(
                f"the schema's $ref {exc.ref!r} does not resolve within the schema, and assay "
                "fetches no schema (put what it refers to under $defs)"
            ) from None
        if not errors:
            return Score(1.0)
        shown = [f"{_where(e.absolute_path)}: {e.message}" for e in errors[:MAX_REPORTED_ERRORS]]
        return Score(
            0.0,
            reasoning=f"{len(errors)} schema violation(s); first: {shown[0]}",
            details={"errors": shown, "error_count": len(errors)},
        )
