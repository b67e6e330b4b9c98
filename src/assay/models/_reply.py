"""What a model's reply means for a structured answer, beyond its wire format."""

from __future__ import annotations

# a reply that stopped at max_tokens: asked again with a higher limit, never parsed as is
CUT_OFF = "the reply was cut off at max_tokens (raise max_tokens)"
