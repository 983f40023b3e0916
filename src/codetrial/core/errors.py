"""Errors the command line turns into one clear line and an exit code."""


class UsageError(Exception):
    """Bad input from the user (unknown suite, missing key, bad file): exit code 2."""


class InfraError(Exception):
    """The harness or a provider failed, not the model: stored as infra-error, retried on resume."""
