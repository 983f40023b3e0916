"""Where seeds come from: one module per documentation source (duckdb, spark, python:MODULE)."""
