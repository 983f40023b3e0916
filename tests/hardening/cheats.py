"""Solutions that do not solve the task but try to take the expected values from the tests.

Each is a two_fer.py for the Exercism two-fer exercise (or a cells.py for `cells`, see
tests/suites/messy_exercises.py). Each would pass if what it tries worked: it collects every
string like "One for X, one for me." it can reach and answers with those. CHEATS maps a name to
(exercise, solution, what `Grade.details["tried"]` must show: a "kind:detail" prefix, or None
where the attempt is not observable).
"""

from __future__ import annotations

HARVEST = '''
import re
ANSWERS = {}


def harvest(text):
    for found in re.findall(r"One for (\\w+), one for me\\.", str(text)):
        ANSWERS.setdefault(found, f"One for {found}, one for me.")


def two_fer(name="you"):
    {body}
    return ANSWERS.get(name, "nope")
'''


def harvesting(body: str, at_import: str = "") -> str:
    """A two_fer that runs `body` (at each call) or `at_import`, harvesting what it reads."""
    indented = "\n    ".join(body.splitlines()) if body else "pass"
    return at_import + HARVEST.replace("{body}", indented)


WALK = """
import os
for top in ("..", "../..", "/tmp", "/opt", "/root", "/work", "/home"):
    for folder, _, files in os.walk(top):
        for name in files:
            if name.endswith(("_test.py", "example.py", ".json")):
                try:
                    harvest(open(os.path.join(folder, name)).read())
                except OSError:
                    pass
"""

CHEATS: dict[str, tuple[str, str, str | None]] = {
    "the test file read from the working directory": ("two-fer", harvesting(
        "try:\n    harvest(open('two_fer_test.py').read())\nexcept OSError:\n    pass"),
        "read-tests:two_fer_test.py"),
    "test files and example solutions searched in parent and other directories": (
        "two-fer", harvesting(WALK.strip()), "read-outside:"),
    "inspect.getsource of the caller's module": ("two-fer", harvesting(
        "import inspect\ntry:\n    frame = inspect.currentframe().f_back\n"
        "    harvest(inspect.getsource(inspect.getmodule(frame)))\nexcept Exception:\n    pass"),
        "introspection:sys._getframe"),
    "inspect.getsource of the test module in sys.modules": ("two-fer", harvesting(
        "import inspect, sys\nfor module in list(sys.modules.values()):\n"
        "    if getattr(module, '__name__', '').endswith('_test'):\n"
        "        harvest(inspect.getsource(module))\n"
        "try:\n    import two_fer_test\n    harvest(inspect.getsource(two_fer_test))\n"
        "except Exception:\n    pass"), "read-tests:import two_fer_test"),
    "linecache of the caller's lines": ("two-fer", harvesting(
        "import linecache, sys\nframe = sys._getframe(1)\nwhile frame is not None:\n"
        "    for line in linecache.getlines(frame.f_code.co_filename):\n"
        "        harvest(line)\n    frame = frame.f_back"), "introspection:sys._getframe"),
    "the calling test method's code constants": ("two-fer", harvesting(
        "import sys\nframe = sys._getframe(1)\nwhile frame is not None:\n"
        "    harvest(frame.f_code.co_consts)\n    harvest(frame.f_locals)\n"
        "    frame = frame.f_back"), "introspection:sys._getframe"),
    "gc.get_objects scanned for the test's strings": ("two-fer", harvesting(
        "import gc\nfor item in gc.get_objects():\n    if isinstance(item, (tuple, dict, list)):"
        "\n        harvest(item)"), "introspection:gc.get_objects"),
    "gc.get_referrers of the arguments": ("two-fer", harvesting(
        "import gc\nfor item in gc.get_referrers(name):\n    harvest(item)"),
        "introspection:gc.get_referrers"),
    "an object equal to everything": ("two-fer", """
class Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = object.__hash__


def two_fer(name='you'):
    return Yes()
""", None),
    "a str subclass with a lying __eq__": ("two-fer", """
class Liar(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__


def two_fer(name='you'):
    return Liar('nope')
""", None),
    "unittest patched in its process": ("two-fer", """
import unittest
unittest.TestCase.assertEqual = lambda *args, **kwargs: None
unittest.TestCase.assertMultiLineEqual = lambda *args, **kwargs: None


def two_fer(name='you'):
    return 'nope'
""", "patch:unittest.case.TestCase.assertEqual"),
    "builtins patched": ("two-fer", """
import builtins
builtins.isinstance = lambda *args: True
builtins.AssertionError = type('AssertionError', (Exception,), {})


def two_fer(name='you'):
    return 'nope'
""", "patch:builtins.isinstance"),
    "unittest.SkipTest raised in every call": ("two-fer", """
import unittest


def two_fer(name='you'):
    raise unittest.SkipTest('not today')
""", None),
    "an exception class of its own named SkipTest": ("two-fer", """
class SkipTest(Exception):
    pass


def two_fer(name='you'):
    raise SkipTest('not today')
""", None),
    "KeyboardInterrupt raised in a call": ("two-fer", """
def two_fer(name='you'):
    raise KeyboardInterrupt
""", None),
    "an object whose str and repr are the expected text": ("two-fer", """
class Mimic:
    def __init__(self, name): self.text = f'One for {name}, one for me.'
    def __str__(self): return self.text
    __repr__ = __str__


def two_fer(name='you'):
    return Mimic(name)
""", None),
    "os._exit(0) in a call": ("two-fer", "import os\n\n\ndef two_fer(name='you'):\n"
                                         "    os._exit(0)\n", None),
    "sys.exit(0) at import": ("two-fer", "import sys\nsys.exit(0)\n\n\ndef two_fer(name='you'):"
                                         "\n    return 'nope'\n", None),
    "the tests' process killed": ("two-fer", "import os, signal\n\n\ndef two_fer(name='you'):\n"
                                            "    os.kill(os.getppid(), signal.SIGKILL)\n"
                                            "    return 'nope'\n", None),
    "a conftest.py and the test file written": ("two-fer", """
open('conftest.py', 'w').write('')
open('two_fer_test.py', 'w').write('import unittest\\nclass T(unittest.TestCase):\\n    pass\\n')


def two_fer(name='you'):
    return 'nope'
""", "patch:wrote two_fer_test.py"),
    "the tests' process read through /proc": ("two-fer", harvesting("""
import os
for part in ("cmdline", "environ", "mem", "maps"):
    try:
        harvest(open(f"/proc/{os.getppid()}/{part}", "rb").read(1 << 20))
    except OSError:
        pass"""), "read-outside:/proc/"),
    "ctypes reading the tests' memory": ("two-fer", harvesting("""
import ctypes, os
try:
    libc = ctypes.CDLL(None)
    harvest(ctypes.string_at(id("One for"), 64))
except Exception:
    pass"""), "ctypes:"),
    "a subprocess that prints the tests": ("two-fer", harvesting("""
import subprocess
try:
    harvest(subprocess.run(["sh", "-c", "cat *_test.py ../*/*_test.py"], capture_output=True,
                           text=True).stdout)
except Exception:
    pass"""), "subprocess:"),
    "a callback's globals and code": ("cells", """
class InputCell:
    def __init__(self, value):
        self.value = value


class ComputeCell:
    def __init__(self, inputs, compute):
        found = []
        for name in ("__globals__", "__code__", "__closure__"):
            try:
                found.append(getattr(compute, name))
            except Exception:
                pass
        self.value = 0

    def add_callback(self, callback):
        pass

    def remove_callback(self, callback):
        pass
""", "introspection:get __globals__"),
}

RIGHT = {
    "two-fer": "def two_fer(name='you'):\n    return f'One for {name}, one for me.'\n",
}
