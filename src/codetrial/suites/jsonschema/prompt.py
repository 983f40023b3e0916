"""The request a model gets for one schema, in our own words, and its inverse for contenders.

`spec_from_prompt` reads the schema, draft, format mode and documents back out of the prompt,
so a non-model contender can answer the very request a model answers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from codetrial.suites.jsonschema.contenders import SchemaSpec, contender_code

INSTRUCTION = """\
Translate the JSON Schema below into a Python function `validate(instance) -> bool`.
It must return True when `instance` is valid against the schema and False otherwise.
`instance` is any value `json.loads` can return: dict, list, str, int, float, bool or None.

Rules:
- Write the checks as plain Python code. Do not store the schema (or parts of it) as data to
  interpret, and do not use a validation library such as jsonschema or fastjsonschema.
- Use only the Python standard library; nothing may be fetched over the network.
- Follow JSON Schema {draft} semantics exactly.
- {format_rule}

Reply with the complete code in one ```python block."""

FORMAT_ANNOTATION = '"format" is only an annotation here: do not check it.'
FORMAT_ASSERTION = '"format" is an assertion here: reject strings that do not match the format.'
DOCUMENTS = ("The schema refers to these documents; treat each as if it were served at its "
             "URL:")


def draft_name(folder: str) -> str:
    return folder.replace("draft", "draft ", 1)


def build_prompt(spec: SchemaSpec) -> str:
    parts = [INSTRUCTION.format(
        draft=draft_name(spec.draft),
        format_rule=FORMAT_ASSERTION if spec.assert_format else FORMAT_ANNOTATION)]
    parts.append(f"Schema:\n```json\n{json.dumps(spec.schema, indent=2)}\n```")
    if spec.remotes:
        parts.append(DOCUMENTS)
        parts += [f"{url}\n```json\n{json.dumps(doc, indent=2)}\n```"
                  for url, doc in spec.remotes.items()]
    return "\n\n".join(parts) + "\n"


_JSON_BLOCK = re.compile(r"(?:^|\n)(Schema:|http://\S+)\n```json\n(.*?)\n```", re.S)
_DRAFT = re.compile(r"JSON Schema draft (\S+) semantics")


def spec_from_prompt(text: str) -> SchemaSpec:
    """Inverse of build_prompt; raises ValueError on text it did not write."""
    blocks = _JSON_BLOCK.findall(text)
    draft = _DRAFT.search(text)
    if not blocks or blocks[0][0] != "Schema:" or draft is None:
        raise ValueError("not a jsonschema suite prompt")
    return SchemaSpec(
        schema=json.loads(blocks[0][1]), draft="draft" + draft.group(1),
        assert_format=FORMAT_ASSERTION in text,
        remotes={url: json.loads(body) for url, body in blocks[1:]},
    )


def contender_reply(name: str, messages: list[dict[str, Any]]) -> str:
    """What contender `name` replies to a chat request of this suite (for a model backend)."""
    prompt = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
    return f"```python\n{contender_code(name, spec_from_prompt(prompt))}```\n"
