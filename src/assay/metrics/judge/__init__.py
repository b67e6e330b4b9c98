"""Judge metrics (``kind: judge``) and conversation metrics scored by a judge model.

Importing this package registers them: ``rubric`` (G-Eval style, written in the suite);
``correctness``, ``relevance``, ``coherence``, ``fluency``, ``completeness``,
``groundedness``, ``intent_resolution``, ``task_adherence``; ``refusal``,
``harmful_content``, ``jailbreak_success``; and, over a whole multi-turn test,
``context_retention``, ``conversation_completeness``, ``role_adherence``, ``turn_relevancy``.
"""

from assay.metrics.judge import conversation, quality, rubric, safety  # noqa: F401
from assay.metrics.judge._verdict import MAX_REASKS, Judgement, Verdict
from assay.metrics.judge.base import (
    SYSTEM_PROMPT,
    ConversationJudgeMetric,
    JudgeMetric,
    JudgeOptions,
)

__all__ = [
    "MAX_REASKS",
    "SYSTEM_PROMPT",
    "ConversationJudgeMetric",
    "JudgeMetric",
    "JudgeOptions",
    "Judgement",
    "Verdict",
]
