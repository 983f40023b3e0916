"""Agentic solving: the model works in an exercise's workspace through tools until it submits
(see protocols/agent.py for the loop, docs/agent.md for the whole picture)."""
