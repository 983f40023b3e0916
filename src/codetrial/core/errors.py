"""Errors the command line turns into one clear line and an exit code."""


class UsageError(Exception):
    """Bad input from the user (unknown suite, missing key, bad file): exit code 2."""


class InfraError(Exception):
    """The harness or a provider failed, not the model: stored as infra-error, retried on resume."""


def root_cause(exc: BaseException) -> str:
    """The innermost cause's text: SDKs wrap "connection refused" as "Connection error."."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return str(exc) or type(exc).__name__
