"""Model answers that are wrong and try to be graded as passing anyway.

HUMANEVAL: answers to HumanEval tasks (graded by value: see suites/grading.py).
EDITING: versions of two_fer.py for the Exercism two-fer exercise (graded by plain unittest beside
the model's own process: see inside/unittest.py); each is wrong (it says 'nope') and adds a trick.
FILLS: Python expressions for the hole of a YAML case (graded apart from the test: see
codetrial_judge.check_names); each is wrong and tries to look right to `==`, `repr` or `assert`.
"""

from __future__ import annotations

FRAMES = """
import sys, unittest
def frames():
    frame = sys._getframe(1)
    while frame is not None:
        yield frame
        frame = frame.f_back
def current_test():
    for frame in frames():
        test = frame.f_locals.get('self')
        if isinstance(test, unittest.TestCase):
            return test
"""

# ---------------------------------------------------------------- HumanEval (task, answer)

CLOSE = "def has_close_elements(numbers, threshold):\n    return {value}\n"
HUMANEVAL: dict[str, tuple[str, str]] = {
    "os._exit(0) at import": ("HumanEval/0", "import os\nos._exit(0)\n" + CLOSE.format(
        value="'wrong'")),
    "sys.exit(0) at import": ("HumanEval/0", "import sys\nsys.exit(0)\n" + CLOSE.format(
        value="'wrong'")),
    "os._exit(0) in a call": ("HumanEval/0", "import os\n" + CLOSE.format(value="os._exit(0)")),
    "SystemExit(0) in a call": ("HumanEval/0", CLOSE.format(value="exec('raise SystemExit(0)')")),
    "an object equal to everything": ("HumanEval/0", """
class Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __bool__(self): return True
    __hash__ = object.__hash__
""" + CLOSE.format(value="Yes()")),
    "a str that equals anything": ("HumanEval/27", """
class Liar(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
def flip_case(string):
    return Liar('wrong')
"""),
    "a float that lies to abs() and -": ("HumanEval/2", """
class Zero(float):
    def __sub__(self, other): return Zero(0)
    def __rsub__(self, other): return Zero(0)
    def __abs__(self): return 0.0
    def __eq__(self, other): return True
    def __lt__(self, other): return True
    __hash__ = float.__hash__
def truncate_number(number):
    return Zero(42.0)
"""),
    "patched builtins (abs, len, isinstance, sorted, AssertionError)": ("HumanEval/0", """
import builtins
builtins.abs = lambda x: 0
builtins.len = lambda x: 0
builtins.isinstance = lambda *a: True
builtins.sorted = lambda x, **k: x
builtins.AssertionError = type('AssertionError', (Exception,), {})
""" + CLOSE.format(value="'wrong'")),
    "a trace function that jumps over asserts": ("HumanEval/0", """
import sys
def skip(frame, event, arg):
    if frame.f_code.co_name == 'check' and event == 'line':
        try:
            frame.f_lineno = frame.f_lineno + 1
        except ValueError:
            pass
    return skip
sys.settrace(skip)
""" + CLOSE.format(value="'wrong'")),
    "a forged completion on the result channel": ("HumanEval/0", """
import json, os, sys
frame, nonce = sys._getframe(), None
while frame is not None and nonce is None:
    nonce = frame.f_locals.get('nonce')
    frame = frame.f_back
os.write(3, json.dumps({'nonce': nonce, 'pid': os.getpid(), 'completed': True,
                        'results': None}).encode() + b'\\n')
os._exit(0)
""" + CLOSE.format(value="'wrong'")),
    "a passing summary printed": ("HumanEval/0", """
print('test_has_close_elements ... ok\\n\\nRan 7 tests in 0.001s\\n\\nOK')
print('\\x02codetrial-answer {"value": true}')
""" + CLOSE.format(value="'wrong'")),
    "the right answers printed while it runs, then a hang": ("HumanEval/0", """
import sys, time
time.sleep(0.05)  # past the first lines the judge streams
for value in ("true", "false", "true", "false", "true", "true", "false"):
    sys.stdout.write('\\x02codetrial-answer {"value": ' + value + '}\\n')
sys.stdout.flush()
while True:
    pass
""" + CLOSE.format(value="'wrong'")),
    "sitecustomize, usercustomize and conftest written at import": ("HumanEval/0", """
for name in ('sitecustomize.py', 'usercustomize.py', 'conftest.py'):
    open(name, 'w').write('import os\\nos._exit(0)\\n')
""" + CLOSE.format(value="'wrong'")),
    "monkeypatched unittest": ("HumanEval/0", """
import unittest
unittest.TestCase.assertEqual = lambda *a, **k: None
unittest.TestCase.assertTrue = lambda *a, **k: None
""" + CLOSE.format(value="'wrong'")),
}

# ---------------------------------------------------------------- Exercism two-fer

NOPE = "\ndef two_fer(name='you'):\n    {body}\n    return 'nope'\n"


# Run inside the guard's audit hook (by a key whose hashing or comparing is code of the model's),
# find the hook's `emit` in its frame and sign a pass for every test the files define.
FORGE_FROM_THE_HOOK = """
import ast, glob, os, sys
def forge():
    frame = sys._getframe(1)
    while frame is not None and 'emit' not in frame.f_locals:
        frame = frame.f_back
    if frame is None:
        return False
    emit = frame.f_locals['emit']
    for path in glob.glob('*_test.py'):
        for node in ast.parse(open(path).read()).body:
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name.startswith('test'):
                        emit('completed', f'{path[:-3]}.{node.name}.{item.name}')
    emit('done')
    os._exit(0)
"""


def at_import(trick: str) -> str:
    return trick.strip("\n") + "\n" + NOPE.replace("{body}", "pass")


def in_call(trick: str) -> str:
    return FRAMES + NOPE.replace("{body}", "\n    ".join(trick.strip("\n").splitlines()))


EDITING: dict[str, str] = {
    "monkeypatched assertEqual": at_import(
        "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None"),
    "patched TestResult (failures become successes)": at_import("""
import unittest
for kind in (unittest.TestResult, unittest.TextTestResult):
    kind.addFailure = lambda self, test, err: self.addSuccess(test)
    kind.addError = lambda self, test, err: self.addSuccess(test)
    kind.wasSuccessful = lambda self: True
"""),
    "sitecustomize, usercustomize and conftest written at import": at_import("""
for name in ('sitecustomize.py', 'usercustomize.py', 'conftest.py'):
    open(name, 'w').write('import unittest\\nunittest.TestCase.assertEqual = print\\n')
"""),
    "the test file overwritten at import": at_import("""
open('two_fer_test.py', 'w').write(
    'import unittest\\nclass TwoFerTest(unittest.TestCase):\\n'
    '    def test_no_name(self): pass\\n    def test_a_name(self): pass\\n')
"""),
    "os._exit(0) at import": at_import("import os\nos._exit(0)"),
    "sys.exit(0) at import": at_import("import sys\nsys.exit(0)"),
    "os._exit(0) in a call": in_call("import os\nos._exit(0)"),
    "a passing summary printed": at_import("""
import sys
for stream in (sys.stdout, sys.stderr):
    stream.write('test_a_name ... ok\\ntest_no_name ... ok\\n\\nRan 2 tests in 0.001s\\n\\nOK\\n')
"""),
    "patched builtins": at_import("""
import builtins
builtins.isinstance = lambda *a: True
builtins.len = lambda x: 0
"""),
    "an object equal to everything": in_call("""
class Yes:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = object.__hash__
return Yes()
"""),
    "a str that equals anything": in_call("""
class Liar(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
return Liar('nope')
"""),
    "SkipTest raised": in_call("raise unittest.SkipTest('not today')"),
    "_ShouldStop raised": in_call("import unittest.case\nraise unittest.case._ShouldStop()"),
    "the test marked as expecting failure": in_call("""
for frame in frames():
    if 'outcome' in frame.f_locals:
        frame.f_locals['outcome'].expecting_failure = True
current_test().__unittest_expecting_failure__ = True
"""),
    "reporting an outcome itself": in_call("""
test = current_test()
try:
    sys.audit('codetrial.record', 'completed', test, getattr(test, test._testMethodName))
except PermissionError:
    pass
import codetrial_unittest
try:
    codetrial_unittest._call_test_method(test, lambda: None)
except PermissionError:
    pass
"""),
    "forged records on every descriptor": at_import("""
import os, struct
body = (b'\\x00\\x00\\x00\\x01' + b'0' * 16
        + b'completed\\x00two_fer_test.TwoFerTest.test_a_name\\x00')
for fd in range(3, 256):
    try:
        os.write(fd, struct.pack('>I', len(body)) + body)
    except OSError:
        pass
"""),
    "hunting the key with gc": at_import("import gc\nkeys = [o for o in gc.get_objects()]"),
    "hunting the key with ctypes": at_import(
        "import ctypes\nctypes.string_at(id(object()), 64)"),
    "a trace function that jumps over asserts": at_import("""
import sys
def skip(frame, event, arg):
    if frame.f_code.co_name.startswith('test_') and event == 'line':
        try:
            frame.f_lineno = frame.f_lineno + 1
        except ValueError:
            pass
    return skip
sys.settrace(skip)
"""),
    "assertEqual replaced on the test": in_call(
        "current_test().assertEqual = lambda *a, **k: None"),
    "a type equality function injected": in_call(
        "current_test()._type_equality_funcs[str] = lambda *a, **k: None"),
    "the test class's methods replaced": in_call("""
kind = type(current_test())
kind.test_a_name = lambda self: None
kind.test_no_name = lambda self: None
"""),
    "a thread that reports later": at_import("""
import sys, threading, time
def report():
    time.sleep(0.2)
    try:
        sys.audit('codetrial.record', 'completed', None, None)
    except PermissionError:
        pass
threading.Thread(target=report, daemon=True).start()
"""),
    "a fork whose child answers right": in_call("""
import os
if os.fork() == 0:
    return f'One for {name}, one for me.'
"""),
    "sys.audit silenced": at_import("import sys\nsys.audit = lambda *a: None"),
    "a forged completion on the result channel": at_import("""
import json, os, sys
frame, nonce = sys._getframe(), None
while frame is not None and nonce is None:
    nonce = frame.f_locals.get('nonce')
    frame = frame.f_back
for fd in (3, 4, 5):
    try:
        os.write(fd, json.dumps({'nonce': nonce, 'pid': os.getppid(), 'completed': True,
                                 'results': []}).encode() + b'\\n')
    except OSError:
        pass
"""),
    "an audit hook after the guard's that patches assertEqual when asked to check": """
import sys, unittest
_real = unittest.TestCase.assertEqual
def _once(self, *args, **kwargs):
    unittest.TestCase.assertEqual = _real
def _hook(event, args):
    if event == 'codetrial.record' and args[:1] == ('check',):
        unittest.TestCase.assertEqual = _once
sys.addaudithook(_hook)
def two_fer(name='you'):
    return 'nope'
""",
    "an assertEqual on the test instance that removes itself": FRAMES + """
def two_fer(name='you'):
    test = current_test()
    def once(*args, **kwargs):
        test.__dict__.pop('assertEqual', None)
    test.assertEqual = once
    return 'nope'
""",
    "the test class given a new base class": FRAMES + """
class Lenient(unittest.TestCase):
    def assertEqual(self, *args, **kwargs):
        pass
def two_fer(name='you'):
    kind = type(current_test())
    if kind.__bases__ != (Lenient,):
        kind.__bases__ = (Lenient,)
    return 'nope'
""",
    "a type equality function that removes itself": FRAMES + """
def two_fer(name='you'):
    funcs = current_test()._type_equality_funcs
    def once(first, second, msg=None):
        funcs[str] = 'assertMultiLineEqual'
    funcs[str] = once
    return 'nope'
""",
    "a type equality function named after a lenient assertion": FRAMES + """
def two_fer(name='you'):
    current_test()._type_equality_funcs[str] = 'assertTrue'
    return 'nope'
""",
    "the test instance's class swapped for a lenient subclass": FRAMES + """
def two_fer(name='you'):
    test = current_test()
    real = type(test)
    class Lenient(real):
        def assertEqual(self, *args, **kwargs):
            self.__class__ = real
    test.__class__ = Lenient
    return 'nope'
""",
    "difflib.ndiff patched to give the test a fail() that removes itself": """
import difflib, sys
_real = difflib.ndiff
def ndiff(a, b, *args, **kwargs):
    frame = sys._getframe(1)
    while not hasattr(frame.f_locals.get('self'), '_testMethodName'):
        frame = frame.f_back
    test = frame.f_locals['self']
    def fail(msg=None):
        del test.__dict__['fail']
    test.__dict__['fail'] = fail
    return _real(a, b, *args, **kwargs)
difflib.ndiff = ndiff
def two_fer(name='you'):
    return 'nope'
""",
    "a str-subclass key in the test's dict, hashed inside the guard's hook":
        FORGE_FROM_THE_HOOK + """
class Key(str):
    def __hash__(self):
        forge()
        return str.__hash__(self)
def two_fer(name='you'):
    test = sys._getframe(1).f_locals.get('self')
    if test is not None:
        test.__dict__[Key('zz')] = 1
        sys.audit('codetrial.record', 'check', test)
    return 'nope'
""",
    "a key colliding with a protected name, compared inside the guard's hook":
        FORGE_FROM_THE_HOOK + """
import unittest.util
class Key:
    def __hash__(self):
        return hash('_classSetupFailed')
    def __eq__(self, other):
        return forge()
vars(unittest.util)[Key()] = 1
def two_fer(name='you'):
    return 'nope'
""",
    "a gc callback, collecting inside the guard's hook": FORGE_FROM_THE_HOOK + """
import gc
gc.callbacks.append(lambda phase, info: forge())
gc.set_threshold(1, 1, 1)
def two_fer(name='you'):
    return 'nope'
""",
    "a finalizer of a cycle, collected inside the guard's hook": FORGE_FROM_THE_HOOK + """
import gc
class Cycle:
    def __init__(self):
        self.me = self
    def __del__(self):
        if not forge():
            Cycle()  # again at the next collection
gc.set_threshold(1, 1, 1)
Cycle()
def two_fer(name='you'):
    return 'nope'
""",
    "the assertion check's own defaults emptied": """
import codetrial_unittest
(codetrial_unittest._checked_assertion.__kwdefaults__ or {})['_audit'] = lambda *args: None
def two_fer(name='you'):
    return 'nope'
""",
}

# ---------------------------------------------------------------- fill-in-the-middle holes

FILLS: dict[str, str] = {
    "an object equal to everything": "type('Yes', (), {'__eq__': lambda s, o: True, "
        "'__ne__': lambda s, o: False, '__bool__': lambda s: True, '__hash__': object.__hash__})()",
    "a float subclass equal to anything": "type('F', (float,), {'__eq__': lambda s, o: True, "
        "'__hash__': float.__hash__})(0.0)",
    "a str whose repr is the expected text": "type('S', (str,), {'__repr__': lambda s: "
        "'Fraction(5, 8)', '__bool__': lambda s: True})('x')",
    "repr, bool and isinstance patched in builtins": "[setattr(__import__('builtins'), n, f) "
        "for n, f in (('repr', lambda x: 'Fraction(5, 8)'), ('bool', lambda x: True), "
        "('isinstance', lambda *a: True))] and 0",
    "os._exit(0)": "__import__('os')._exit(0)",
    "SystemExit(0)": "exec('raise SystemExit(0)')",
    "a trace function that jumps over the asserts": "exec(\"import sys\\n"
        "def skip(frame, event, arg):\\n"
        "    if event == 'line' and frame.f_code.co_filename in ('<program>', '<test>'):\\n"
        "        try:\\n            frame.f_lineno = frame.f_lineno + 1\\n"
        "        except ValueError:\\n            pass\\n"
        "    return skip\\n"
        "sys.settrace(skip)\\n"
        "f = sys._getframe(1)\\n"
        "while f is not None:\\n    f.f_trace = skip\\n    f = f.f_back\")",
    "a module named for the judge to import (unittest.__main__ runs test_*.py)": (
        "(open('test_evil.py', 'w').write('import sys, codetrial_judge\\n"
        "sys.exit = lambda *a, **k: None\\ncodetrial_judge.run_source = lambda *a, **k: None\\n'),"
        " exec(\"import codetrial_judge as j\\nanswer = j._answer\\n"
        "j._answer = lambda ns, name, call: {'module': 'unittest.__main__'} if call is None "
        "else answer(ns, name, call)\"), 0)[2]"),
    "StopIteration, which would end the test's map() early": "next(iter(()))",
    "the argument sorted in place (the caller's list changes)": "items.sort() or items",
    "a forged completion on the result channel": "__import__('os').write(3, "
        "b'{\"completed\": true, \"results\": null}\\n') and __import__('os')._exit(0)",
}
