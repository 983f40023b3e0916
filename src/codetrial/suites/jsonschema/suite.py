"""The `jsonschema` suite: translate one schema of the official test suite into `validate`.

Options (`-o KEY=VALUE`): draft (2020-12, 2019-09, 7, 6, 4), include (optional, format),
omit (FILE,... or the preset `study`), suite_path (or --path: a suite checkout; default the
pinned sdist), contender (what `--model reference` answers with; default library:jsonschema-rs,
which passes the whole suite),
augment and diagnose (true/false, default true).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from codetrial.core import Sample, SchemaVerdict, Task, Verdict
from codetrial.core.errors import UsageError
from codetrial.sandbox import Sandbox
from codetrial.sandbox.judged import STDLIB
from codetrial.suites.base import Grade, Suite, suite
from codetrial.suites.jsonschema import augment, diagnosis, summary
from codetrial.suites.jsonschema.checking import Case, Checked, check
from codetrial.suites.jsonschema.contenders import (
    JSONSCHEMA,
    LIBRARY_MODULES,
    REFERENCE,
    SchemaSpec,
    check_contender,
    contender_code,
    contender_version,
)
from codetrial.suites.jsonschema.flags import flags
from codetrial.suites.jsonschema.prompt import build_prompt
from codetrial.suites.jsonschema.remotes import load_remotes, needed_remotes
from codetrial.suites.jsonschema.selection import (
    DRAFT_CODES,
    Group,
    Selection,
    draft_folder,
    select,
)
from codetrial.suites.jsonschema.source import SuiteSource, locate, suite_copies
from codetrial.suites.jsonschema.verdicts import results_of, sample_verdict, schema_verdict

OPTIONS = {"draft", "include", "omit", "suite_path", "path", "contender", "augment", "diagnose"}


def flag_option(options: dict[str, Any], name: str, default: bool = True) -> bool:
    value = str(options.get(name, default)).strip().lower()
    if value not in ("true", "false", "1", "0", "yes", "no"):
        raise UsageError(f"option {name}: expected true or false, not {value!r}")
    return value in ("true", "1", "yes")


def spec_of(task: Task) -> SchemaSpec:
    d = task.data
    return SchemaSpec(d["schema"], d["draft"], d["assert_format"], d["remotes"])


@suite("jsonschema")
class JsonSchemaSuite(Suite):
    name = "jsonschema"
    default_protocol = "chat"
    preload = (*LIBRARY_MODULES, *STDLIB)  # the library contenders' programs import them

    def __init__(self, options: dict[str, Any]) -> None:
        super().__init__(options)
        unknown = sorted(set(options) - OPTIONS)
        if unknown:
            raise UsageError(f"jsonschema: unknown option {unknown[0]!r}: use "
                             f"{', '.join(sorted(OPTIONS))}")
        self.draft = draft_folder(str(options.get("draft", "2020-12")))
        self.contender = check_contender(options.get("contender") or REFERENCE)
        self.augment = flag_option(options, "augment")
        self.diagnose = flag_option(options, "diagnose")
        self._loaded: tuple[SuiteSource, Selection] | None = None
        self._extras: dict[str, tuple[list[tuple[Any, bool]], dict[str, Any] | None]] = {}

    # tasks ---------------------------------------------------------------------------------
    def selection(self) -> tuple[SuiteSource, Selection]:
        if self._loaded is None:
            source = locate(self.options.get("suite_path") or self.options.get("path"))
            chosen = select(source.root, self.draft, self.options.get("include"),
                            self.options.get("omit"))
            self._loaded = (source, chosen)
        return self._loaded

    def load_tasks(self) -> list[Task]:
        source, chosen = self.selection()
        remotes = load_remotes(source.root)
        tasks = [self.task(group, remotes) for group in chosen.groups]
        print(f"jsonschema: {chosen.counts()} ({source.origin})", file=sys.stderr)
        return tasks

    def task(self, group: Group, remotes: dict[str, Any]) -> Task:
        needed = needed_remotes(group.schema, group.tests, DRAFT_CODES[self.draft], remotes)
        spec = SchemaSpec(group.schema, self.draft, group.assert_format, needed)
        data = {"file": group.file, "index": group.index, "description": group.description,
                "schema": group.schema, "tests": group.tests, "draft": self.draft,
                "assert_format": group.assert_format, "remotes": needed,
                "entry_point": "validate"}
        return Task(id=group.id, suite=self.name, prompt=build_prompt(spec), data=data)

    def hidden_paths(self) -> tuple[Path, ...]:
        """The suite's files say which instances are valid."""
        return tuple(suite_copies(self.options.get("suite_path") or self.options.get("path")))

    def version(self) -> str:
        source, chosen = self.selection()
        text = f"JSON-Schema-Test-Suite ({source.origin}), {chosen.counts()}, " \
               f"sha256 {chosen.digest}"
        if self.options.get("contender"):
            text += f"; contender {self.contender} ({contender_version(self.contender)})"
        return text

    # protocol hooks --------------------------------------------------------------------------
    def chat_messages(self, task: Task) -> list[dict[str, str]]:
        return [{"role": "user", "content": task.prompt}]

    def reference_code(self, task: Task) -> str:
        return contender_code(self.contender, spec_of(task))

    # grading -----------------------------------------------------------------------------------
    def extras(self, task: Task) -> tuple[list[tuple[Any, bool]], dict[str, Any] | None]:
        """Augmented (instance, label) pairs and the loaded reference, once per task."""
        if task.id not in self._extras:
            spec = spec_of(task)
            suite_instances = [t["data"] for t in task.data["tests"]]
            extra = augment.augmented(spec, suite_instances) if self.augment else []
            self._extras[task.id] = (extra, self.reference_namespace(spec))
        return self._extras[task.id]

    def reference_namespace(self, spec: SchemaSpec) -> dict[str, Any] | None:
        if not self.diagnose:
            return None
        try:
            return augment.load_namespace(contender_code(JSONSCHEMA, spec))
        except Exception:  # noqa: BLE001 - a schema jsonschema cannot load is not diagnosed
            return None

    async def grade(self, task: Task, code: str, sandbox: Sandbox) -> Grade:
        tests = task.data["tests"]
        extra, reference = self.extras(task)
        instances = [t["data"] for t in tests] + [i for i, _ in extra]
        (checked,), outcome = await check(sandbox, [Case(code, instances)])
        on_suite = Checked(checked.load, checked.answers[:len(tests)], checked.status)
        results = results_of(tests, on_suite)
        verdict = schema_verdict(on_suite, results)
        details = {"schema_verdict": verdict.value, "file": task.data["file"],
                   "description": task.data["description"],
                   "schema": summary.compact(task.data["schema"]),
                   "flags": flags(code, task.data["schema"]),
                   **summary.test_counts(results), **({"tried": checked.tried}
                                                      if checked.tried else {})}
        if checked.loaded and checked.answers:
            details.update(augmented_figures(extra, checked.answers[len(tests):]))
            if reference is not None:
                labels = [t["valid"] for t in tests] + [v for _, v in extra]
                details.update(diagnosed(reference, task, instances, labels, checked, results))
        output = checked.load if verdict == SchemaVerdict.COMPILE else summary.failures(results)
        return Grade(sample_verdict(checked, verdict), results, output, outcome.wall_seconds,
                     details)

    def summarize(self, samples: list[Sample]) -> dict[str, Any]:
        figures = summary.summarize(samples)
        if self.options.get("contender"):
            figures["contender"] = self.contender
            figures["contender_version"] = contender_version(self.contender)
        return figures


def augmented_figures(extra: list[tuple[Any, bool]], answers: list[Any]) -> dict[str, Any]:
    wrong = [(i, v, a) for (i, v), a in zip(extra, answers, strict=False) if not a.is_right(v)]
    return {"augmented_total": len(extra), "augmented_passed": len(extra) - len(wrong),
            "augmented_failed": [summary.example(i, v, a)
                                 for i, v, a in wrong[:summary.EXAMPLES]]}


def diagnosed(reference: dict[str, Any], task: Task, instances: list[Any], labels: list[bool],
              checked: Checked, results: list[Any]) -> dict[str, Any]:
    findings = diagnosis.diagnose(reference, task.data["assert_format"], instances, labels,
                                  checked.answers)
    wrong = [i for i, r in enumerate(results) if r.verdict != Verdict.PASSED]
    return {"mistakes": [f.to_json() for f in findings],
            "unexplained": diagnosis.unexplained(findings, wrong)}
