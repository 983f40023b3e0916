"""Model backends behind one async interface."""

from codetrial.models.base import Model, Reply, Request, ToolCall, Usage
from codetrial.models.registry import ModelOptions, backend_names, create_model

__all__ = [
    "Model", "ModelOptions", "Reply", "Request", "ToolCall", "Usage", "backend_names",
    "create_model",
]
