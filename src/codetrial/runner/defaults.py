"""Defaults that the command line, the run's settings and the early sandbox all need."""

DEFAULT_WORKERS = 2  # the sandbox's workers when the command line does not say
