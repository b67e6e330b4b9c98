"""Token usage as the model APIs report it, mapped onto assay's five counters, in one place
for judges, simulated users and every target.

- OpenAI chat completions: ``prompt_tokens``, ``completion_tokens``, ``total_tokens``;
  cached prompt tokens in ``prompt_tokens_details.cached_tokens``, which are part of
  ``prompt_tokens``. assay's own names (``cache_read_tokens``, ``cache_creation_tokens``)
  are read beside them, for agents that report usage in the http target's default shape.
- Anthropic messages: ``input_tokens`` counts only the tokens read fresh; tokens written to
  and read from the cache come separately (``cache_creation_input_tokens``,
  ``cache_read_input_tokens``). They are added into ``prompt_tokens``, so the prompt
  counts the same whichever API answered, and a cache hit shows as ``cache_read_tokens``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assay.net.reply_fields import expect_object, token_count
from assay.results.models import TokenUsage, prevalidated

# (usage, key, path of usage) -> the count; raises for a value that is not one; an absent
# key counts 0
Count = Callable[[Mapping[str, Any], str, str], int]

# TokenUsage(**fields), the same model, without the keyword-argument detour of __init__
_validated: Callable[[dict[str, int]], TokenUsage] = (
    TokenUsage.__pydantic_validator__.validate_python
)
USAGE_FIELDS = frozenset(TokenUsage.model_fields)  # assay's own names of the counters


def counted_usage(counts: dict[str, int], exact: bool = False) -> TokenUsage:
    """``TokenUsage(**counts)`` (``counts`` holds every field, in field order): made without
    validating when every count is an exact int, as a count function returns it. ``exact``:
    the caller made every count of exact ints already (no second pass over them)."""
    if not exact:
        for value in counts.values():
            if type(value) is not int:
                return _validated(counts)
    return prevalidated(TokenUsage, counts, set(USAGE_FIELDS))


def read_usage(
    raw: Mapping[str, Any], count: Count = token_count, path: str = "usage"
) -> TokenUsage:
    """``raw`` (a reply's ``usage`` object) as TokenUsage, whichever API's names it uses.
    ``count`` reads one counter: by default strictly (``MalformedReply`` for anything but a
    whole number from 0 to 2**53)."""
    if ("input_tokens" in raw or "output_tokens" in raw) and not (
        "prompt_tokens" in raw or "completion_tokens" in raw
    ):
        fresh = count(raw, "input_tokens", path)
        created = count(raw, "cache_creation_input_tokens", path)
        read = count(raw, "cache_read_input_tokens", path)
        output = count(raw, "output_tokens", path)
        prompt = fresh + created + read
        return counted_usage(
            {
                "prompt_tokens": prompt,
                "completion_tokens": output,
                "total_tokens": count(raw, "total_tokens", path) or prompt + output,
                "cache_creation_tokens": created,
                "cache_read_tokens": read,
            }
        )
    prompt = count(raw, "prompt_tokens", path)
    completion = count(raw, "completion_tokens", path)
    details = raw.get("prompt_tokens_details")
    if details is not None:
        details_path = f"{path}.prompt_tokens_details"
        details = expect_object(details, details_path)
    total = count(raw, "total_tokens", path) or prompt + completion
    created = count(raw, "cache_creation_tokens", path)
    cached = 0 if details is None else count(details, "cached_tokens", details_path)
    return counted_usage(
        {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": total,
            "cache_creation_tokens": created,
            "cache_read_tokens": cached or count(raw, "cache_read_tokens", path),
        }
    )
