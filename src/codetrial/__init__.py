"""codetrial: evaluate code-writing language models with sandboxed grading and honest statistics."""

__version__ = "0.1.0"
