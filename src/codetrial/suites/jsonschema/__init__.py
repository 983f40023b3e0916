"""Spec-to-code: models translate JSON Schemas into validators, graded by the official suite."""

from codetrial.suites.jsonschema.suite import JsonSchemaSuite

__all__ = ["JsonSchemaSuite"]
