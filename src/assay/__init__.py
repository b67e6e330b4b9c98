"""assay: test LLM agents turn by turn."""
