"""Name the systematic mistake behind a wrong validator, by discriminating probes.

For each relevant mutant (mutants.py) the probes are the labelled instances on which the mutant
and the reference disagree. A candidate is tagged with the mutant's mistake when it sides with
the mutant on at least one probe and on at least as many probes as it sides with the reference,
while it gets the control instances (where no mutant disagrees) nearly all right: an always-False
validator is not "asserting formats", it is simply wrong.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from codetrial.suites.jsonschema.checking import Answer
from codetrial.suites.jsonschema.mutants import Mutant, mutant_validator, relevant_mutants

CONTROL_ACCURACY = 0.9


@dataclass
class Finding:
    tag: str
    title: str
    hits: int  # probes on which the candidate answered like the mutant
    probes: int
    example: dict[str, Any] = field(default_factory=dict)
    hit_indices: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("hit_indices")
        return data


def answers_of(validate: Callable[[Any], bool], instances: list[Any]) -> list[bool | None]:
    out: list[bool | None] = []
    for instance in instances:
        try:
            out.append(bool(validate(instance)))
        except Exception:  # noqa: BLE001 - a mutant that cannot judge an instance abstains
            out.append(None)
    return out


def diagnose(reference: dict[str, Any], assert_format: bool, instances: list[Any],
             labels: list[bool], answers: list[Answer]) -> list[Finding]:
    """`reference`: namespace of the loaded jsonschema contender for this schema."""
    mutants = relevant_mutants(reference["SCHEMA"], assert_format)
    if not mutants or not answers:
        return []
    base = answers_of(reference["validate"], instances)
    verdicts = {}
    for mutant in mutants:
        try:
            validate = mutant_validator(mutant, reference, assert_format)
        except Exception:  # noqa: BLE001 - a rewrite jsonschema rejects cannot be probed
            continue
        verdicts[id(mutant)] = (mutant, answers_of(validate, instances))
    said = [a.says for a in answers]
    if not controls_right(base, labels, said, [m for _, m in verdicts.values()]):
        return []
    found = (finding(m, base, labels, said, instances, ms) for m, ms in verdicts.values())
    return merge([f for f in found if f is not None])


def controls_right(base: list[bool | None], labels: list[bool], said: list[bool | None],
                   mutated: list[list[bool | None]]) -> bool:
    controls = [i for i, b in enumerate(base)
                if b == labels[i] and all(m[i] == b for m in mutated)]
    if not controls:
        return True
    right = sum(said[i] == labels[i] for i in controls)
    return right >= CONTROL_ACCURACY * len(controls)


def finding(mutant: Mutant, base: list[bool | None], labels: list[bool],
            said: list[bool | None], instances: list[Any], mutated: list[bool | None]
            ) -> Finding | None:
    probes = [i for i, (b, m) in enumerate(zip(base, mutated, strict=True))
              if b is not None and m is not None and b != m and b == labels[i]]
    hits = [i for i in probes if said[i] == mutated[i]]
    misses = sum(said[i] == base[i] for i in probes)
    if not hits or len(hits) < misses:
        return None
    first = hits[0]
    example = {"instance": json.dumps(instances[first])[:200], "expected": labels[first],
               "got": said[first]}
    return Finding(mutant.tag, mutant.title, len(hits), len(probes), example, hits)


def merge(findings: list[Finding]) -> list[Finding]:
    """Two mutants of one mistake (UTF-8 and UTF-16 lengths) give one finding, the stronger;
    a finding whose hits another explains too, and more, is dropped (True rejected by a
    `minimum` that rejects every non-number is not bool/number confusion)."""
    best: dict[str, Finding] = {}
    for f in findings:
        if f.tag not in best or f.hits > best[f.tag].hits:
            best[f.tag] = f
    kept = list(best.values())
    return [f for f in kept if not any(set(f.hit_indices) < set(g.hit_indices) for g in kept)]


def unexplained(findings: list[Finding], wrong: list[int]) -> int:
    """Wrong suite answers that no finding's probes account for."""
    covered = {i for f in findings for i in f.hit_indices}
    return sum(i not in covered for i in wrong)
