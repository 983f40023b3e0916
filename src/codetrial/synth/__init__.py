"""Doc-synthesized tests: seeds from a library's documentation, filtered, instructed, validated.

Stages: sources/ (where examples come from), filtering.py, instruct.py, validate.py, and
writer.py for the YAML cases (format in cases.py) that the `yaml` suite runs.
"""
