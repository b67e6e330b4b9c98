"""What metrics need of a judge model: a name and one async ``complete``. Every
``ChatModel`` is one; so is any object of a user's with the same two members."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from assay.models.base import ModelReply


class JudgeModel(Protocol):
    @property
    def name(self) -> str:
        """``provider:model``, as it is recorded in a result's ``model_used``."""
        ...

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        schema: dict[str, Any] | None = None,
        schema_name: str = "verdict",
        temperature: float | None = None,
        max_tokens: int | None = None,
        sample: int = 0,
        cache_as: Sequence[Mapping[str, str]] | None = None,
    ) -> ModelReply:
        """One chat completion; raises JudgeError when the call fails."""
        ...
