"""codetrial sandbox worker: a fork server that runs one untrusted program at a time.

Standalone on purpose (stdlib only, never imports codetrial): the harness binds this file and
the modules of this folder into the sandbox and runs it with `python -I -S`. It reads
length-prefixed JSON requests on its stdin and answers on its stdout. Each program runs in a
forked child that drops privileges, sets rlimits and clears its environment before any program
code runs. After every program the worker kills every other process it can reach and removes
the working directory, so nothing a program started or wrote survives into the next one.
Anything it cannot clean up makes it ask the harness for a restart (a fresh namespace) instead
of carrying on dirty.

This file only makes the folder's modules importable by their `codetrial_` names (from the
files the harness names in the config: the sandbox's own paths, or the package's in the
process mode) and starts the loop, which is in `server.py`:

    system -> privileges -> child -> capture -> outcome -> cleanup -> server
"""

import importlib.util
import json
import sys


class OwnModules:
    """A finder for `import codetrial_<name>`: the file the config names, nothing else."""

    def __init__(self, files: dict) -> None:
        self.files = files

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        file = self.files.get(name)
        return importlib.util.spec_from_file_location(name, file) if file else None


def main() -> None:
    cfg = json.loads(sys.argv[1])
    sys.dont_write_bytecode = True  # no pycs of ours left where programs read them
    sys.meta_path.insert(0, OwnModules(cfg["modules"]))
    import codetrial_server

    codetrial_server.main(cfg)


if __name__ == "__main__":
    main()
