"""Safety metrics without a model: personal data, credentials, system-prompt leakage."""

from assay.metrics.safety.credentials import Secrets
from assay.metrics.safety.leakage import PromptLeakage
from assay.metrics.safety.pii import Pii

__all__ = ["Pii", "PromptLeakage", "Secrets"]
