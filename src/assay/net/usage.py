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
from assay.results.models import TokenUsage

# (usage, key, path of usage) -> the count; raises for a value that is not one
Count = Callable[[Mapping[str, Any], str, str], int]

_ANTHROPIC = ("input_tokens", "output_tokens")
_OPENAI = ("prompt_tokens", "completion_tokens")


def read_usage(
    raw: Mapping[str, Any], count: Count = token_count, path: str = "usage"
) -> TokenUsage:
    """``raw`` (a reply's ``usage`` object) as TokenUsage, whichever API's names it uses.
    ``count`` reads one counter: by default strictly (``MalformedReply`` for anything but a
    whole number from 0 to 2**53)."""
    if any(k in raw for k in _ANTHROPIC) and not any(k in raw for k in _OPENAI):
        fresh = count(raw, "input_tokens", path)
        created = count(raw, "cache_creation_input_tokens", path)
        read = count(raw, "cache_read_input_tokens", path)
        output = count(raw, "output_tokens", path)
        prompt = fresh + created + read
        return TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=output,
            total_tokens=count(raw, "total_tokens", path) or prompt + output,
            cache_creation_tokens=created,
            cache_read_tokens=read,
        )
    prompt = count(raw, "prompt_tokens", path)
    completion = count(raw, "completion_tokens", path)
    details_path = f"{path}.prompt_tokens_details"
    details = expect_object(raw.get("prompt_tokens_details"), details_path, optional=True)
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=count(raw, "total_tokens", path) or prompt + completion,
        cache_creation_tokens=count(raw, "cache_creation_tokens", path),
        cache_read_tokens=(
            count(details, "cached_tokens", details_path) or count(raw, "cache_read_tokens", path)
        ),
    )
