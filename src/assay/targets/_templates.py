"""Request templates for the http target: Jinja2, compiled once, ``StrictUndefined``.

Strings in ``url``, ``headers`` and ``body`` are templates over ``input``, ``session_id``,
``turn_id``, ``turn_index``, ``history`` (``[{role, content}, ...]``), ``files`` (the
turn's attached files, ``[{name, mime_type, text, base64}, ...]``) and ``vars``. In a
body, a value that is exactly ``"{{ expr }}"`` keeps the JSON type of ``expr`` (a list
for ``{{ history }}`` and ``{{ files }}``, a number for ``{{ turn_index }}``); any other
string renders to a string. In ``url``, each value rendered is percent-encoded
(``{{ input }}`` arrives as written, in a path segment or a query value); ``{{ x | safe }}``
inserts x as written. Unknown variables and syntax errors are found when the target is
built (exit 2), with the field path; render failures during a run fail the turn.

Strings may also carry ``${VAR}`` from the environment: the suite loader substitutes them
in ``url``, ``headers`` and ``body`` (and the target not again: ``HttpTarget.pieces``); a
target built in code gets the same here for its headers. A value substituted that way is
text, never template: a template is compiled with each such value as a name bound to it in
its place (``compile_text``'s ``pieces``), so a secret holding ``{{`` is sent as it is, and
Jinja never sees it, not even in an error. Values substituted that way, and the values of
credential headers
(``assay.secrets.is_secret_name``), are registered with ``REDACTOR``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from assay._env_vars import Expansion, Pieces, expand, given_pieces, missing_message
from assay.errors import ConfigError, Problem, TargetError
from assay.secrets import REDACTOR, is_secret_name

VARIABLES = ("input", "session_id", "turn_id", "turn_index", "history", "files", "vars")
Context = Mapping[str, Any]
Render = Callable[[Context], Any]

if TYPE_CHECKING:
    import jinja2


@cache
def _env() -> jinja2.Environment:
    """Jinja2, imported on first use: a body of plain ``{{ input }}`` lookups needs none."""
    import jinja2

    return jinja2.Environment(
        undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
    )


@cache
def _url_env() -> jinja2.Environment:
    """Jinja2 for a URL: each value rendered is percent-encoded, ``/``, ``?``, ``&``, ``#``
    and ``%`` included, so that it arrives as it was, whether in a path segment or a query
    value; ``| safe`` inserts one as written (a path of several segments, say), and so does
    ``| urlencode``, whose value is encoded already (before values were encoded by default,
    it was how a suite encoded one: encoding it again would send ``%2520`` for a space)."""
    import jinja2
    from markupsafe import Markup

    def encoded(value: Any) -> Any:
        return value if isinstance(value, Markup) else quote(str(value), safe="")

    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        finalize=encoded,
    )
    urlencode = env.filters["urlencode"]
    env.filters["urlencode"] = lambda value: Markup(urlencode(value))
    return env


# the name a value ``${VAR}`` gave is bound to in a template (``_bound_values``); not one
# of VARIABLES, so a suite cannot write it
_GIVEN = "_assay_given"
_WHOLE_EXPRESSION = re.compile(r"^\s*\{\{(?P<expr>(?:(?!\{\{|\}\}|\{%|\{#).)+)\}\}\s*$", re.S)
_TEMPLATE_MARKERS = ("{{", "{%", "{#")


def _problem(where: str, message: str) -> ConfigError:
    return ConfigError([Problem("suite", where, message)])


class Compiled:
    """A compiled template tree: ``render(context)`` and the variables it uses."""

    def __init__(self, render: Render, uses: frozenset[str], constant: bool) -> None:
        self.render = render
        self.uses = uses
        self.constant = constant


def _check_variables(source: str, where: str, given: bool = False) -> frozenset[str]:
    """The variables ``source`` uses; ``given``: it holds ``_GIVEN``, bound by the caller."""
    import jinja2
    from jinja2 import meta

    try:
        used = frozenset(meta.find_undeclared_variables(_env().parse(source)))
    except jinja2.TemplateSyntaxError as exc:
        raise _problem(where, f"template syntax error: {exc.message}") from None
    if given:
        used -= {_GIVEN}
    unknown = sorted(used - set(VARIABLES))
    if unknown:
        raise _problem(
            where,
            f"unknown template variable {', '.join(repr(u) for u in unknown)}; "
            f"the variables are {', '.join(VARIABLES)}",
        )
    return used


def _failed(where: str, exc: Exception) -> TargetError:
    return TargetError(REDACTOR(f"{where}: the template failed: {exc}"))


def compile_text(
    source: str, where: str, url: bool = False, pieces: Pieces | None = None
) -> Compiled:
    """A string template; a string without template markers is a constant. ``url``: the
    values it renders are percent-encoded (``_url_env``). ``pieces``: ``source`` as written
    and what each ``${VAR}`` in it gave (``Expansion.pieces``), which is text, never template:
    Jinja gets a name bound to each value in its place (``_bound_values``)."""
    given: list[str] = []
    if pieces is not None and any(value for _, value in pieces):
        bound = _bound_values(pieces)
        if bound is None:  # no template in the text as written: the whole text is constant
            return Compiled(lambda ctx: source, frozenset(), True)
        source, given = bound
    if not any(m in source for m in _TEMPLATE_MARKERS):
        return Compiled(lambda ctx: source, frozenset(), True)
    import jinja2

    uses = _check_variables(source, where, given=bool(given))
    environment = _url_env() if url else _env()
    if given:
        _given_in_place(source, where)
        from markupsafe import Markup

        # as written, in a URL too (a value from ${VAR} is not percent-encoded)
        values = {_GIVEN: [Markup(value) for value in given]}
        template = environment.from_string(source, globals=values)
    else:
        template = environment.from_string(source)

    def render(ctx: Context) -> str:
        try:
            return template.render(ctx)
        except jinja2.TemplateError as exc:
            raise _failed(where, exc) from None

    return Compiled(render, uses, False)


def _given_in_place(source: str, where: str) -> None:
    """Refuse a ``${VAR}`` written inside an expression (``{{ input ~ '${X}' }}``) or a raw
    block: its value is text in its place, and there the name bound to it would be sent as
    written, not the value."""
    for _, kind, text in _env().lex(source):
        if kind in ("data", "string") and _GIVEN in text:
            raise _problem(
                where,
                "a ${VAR} inside a {{ }} or {% %} expression or a raw block is not supported: "
                "its value is text, never template; write it outside the braces",
            )


def _bound_values(pieces: Pieces) -> tuple[str, list[str]] | None:
    """The template source of ``pieces`` with each value given by ``${VAR}`` replaced by
    ``{{ _assay_given[i] }}``, and the values; None when the text as written holds no
    template marker. A ``{`` just before a value is text: it cannot open a tag, what follows
    it never being template."""
    parts: list[tuple[str, bool]] = []
    for text, value in pieces:
        if value and parts and not parts[-1][1] and parts[-1][0].endswith("{"):
            written = parts[-1][0]
            kept = written.rstrip("{")
            parts[-1] = (kept, False)
            text = written[len(kept) :] + text
        parts.append((text, value))
    if not any(m in text for text, value in parts if not value for m in _TEMPLATE_MARKERS):
        return None
    values: list[str] = []
    source = []
    for text, value in parts:
        if value:
            source.append(f"{{{{ {_GIVEN}[{len(values)}] }}}}")
            values.append(text)
        else:
            source.append(text)
    return "".join(source), values


def whole_lookup(value: Any) -> str | None:
    """The variable a template string that is exactly ``{{ name }}`` looks up (what
    ``compile_value`` compiles to a plain lookup, no Jinja), else None."""
    whole = _WHOLE_EXPRESSION.match(value) if type(value) is str else None
    name = whole["expr"].strip() if whole else None
    return name if name in VARIABLES else None


def _compile_expression(expr: str, where: str) -> Compiled:
    name = expr.strip()
    if name in VARIABLES:  # "{{ input }}": a plain lookup, the hot path's usual case
        return Compiled(lambda ctx: ctx[name], frozenset({name}), False)
    import jinja2

    uses = _check_variables("{{" + expr + "}}", where)
    try:
        evaluate = _env().compile_expression(expr, undefined_to_none=False)
    except jinja2.TemplateSyntaxError as exc:
        raise _problem(where, f"template syntax error: {exc.message}") from None

    def render(ctx: Context) -> Any:
        try:
            value = evaluate(ctx)
            if isinstance(value, jinja2.Undefined):
                str(value)  # StrictUndefined raises, naming what is missing
        except jinja2.TemplateError as exc:
            raise _failed(where, exc) from None
        except Exception as exc:  # an expression that raises: 1/0, a bad index, ...
            raise _failed(where, exc) from None
        return value

    return Compiled(render, uses, False)


def compile_value(value: Any, where: str, pieces: Any = None) -> Compiled:
    """A JSON tree whose strings are templates (see the module docstring); ``pieces``: the
    tree's strings as written, apart from what their ``${VAR}``s gave (``pieces_of``),
    which is text, never template."""
    if isinstance(value, str):
        given = given_pieces(pieces, value)
        if given is not None:
            return compile_text(value, where, pieces=given)
        whole = _WHOLE_EXPRESSION.match(value)
        return _compile_expression(whole["expr"], where) if whole else compile_text(value, where)
    if isinstance(value, dict):
        within = pieces if isinstance(pieces, dict) else {}
        items = {k: compile_value(v, f"{where}.{k}", within.get(str(k))) for k, v in value.items()}
        if all(c.constant for c in items.values()):
            return Compiled(lambda ctx: value, frozenset(), True)
        pairs = [(k, c.render) for k, c in items.items()]
        uses = frozenset().union(*(c.uses for c in items.values()))
        return Compiled(lambda ctx: {k: r(ctx) for k, r in pairs}, uses, False)
    if isinstance(value, list):
        held = pieces if isinstance(pieces, list) and len(pieces) == len(value) else None
        elements = [
            compile_value(v, f"{where}[{i}]", held[i] if held else None)
            for i, v in enumerate(value)
        ]
        if all(c.constant for c in elements):
            return Compiled(lambda ctx: value, frozenset(), True)
        renders = [c.render for c in elements]
        uses = frozenset().union(*(c.uses for c in elements))
        return Compiled(lambda ctx: [r(ctx) for r in renders], uses, False)
    return Compiled(lambda ctx: value, frozenset(), True)


def substitute_env(value: str, where: str) -> Expansion:
    """Replace ``${VAR}`` / ``${VAR:-default}`` from the environment (``assay._env_vars``);
    register what was substituted as a secret."""
    expanded = expand(value)
    if expanded.missing:
        raise _problem(where, missing_message(expanded.missing[0]))
    REDACTOR.add(*expanded.values)
    return expanded


def register_header_secrets(name: str, value: str) -> None:
    """A credential header's value (and the token after its scheme) is a secret."""
    if is_secret_name(name):
        REDACTOR.add(value)
        scheme, _, token = value.partition(" ")
        if token and scheme.isalpha():
            REDACTOR.add(token.strip())
