"""Augmented instances: what is generated, and how the two references label it."""

from codetrial.suites.jsonschema.augment import (
    TYPE_PROBES,
    augmented,
    key,
    label,
    multiples,
    pool,
    reference_validators,
)
from codetrial.suites.jsonschema.contenders import SchemaSpec


def labels_of(schema, suite_instances=()):
    return {key(i): v for i, v in augmented(SchemaSpec(schema), list(suite_instances))}


def test_every_json_type_is_probed_and_suite_instances_are_not_repeated():
    found = pool({"type": "integer"}, [1, "1"])
    assert {type(v).__name__ for v in found} >= {"NoneType", "bool", "int", "float", "str",
                                                "list", "dict"}
    assert key(1) not in map(key, found) and key("1") not in map(key, found)
    assert set(map(key, TYPE_PROBES)) - {key(1), key("1")} <= set(map(key, found))


def test_labels_keep_json_semantics_apart_from_python_equality():
    labels = labels_of({"type": "integer"})
    assert labels[key(True)] is False and labels[key(1.0)] is True and labels[key(2.5)] is False
    enum = labels_of({"enum": [1]}, [1])
    assert enum[key(True)] is False and enum[key(1.0)] is True


def test_boundaries_and_exact_multiples():
    labels = labels_of({"maxLength": 2}, ["ab"])
    assert labels[key("\U0001f600" * 2)] is True and labels[key("aaa")] is False
    assert 0.0075 in multiples(0.0001)
    assert labels_of({"multipleOf": 0.0001})[key(0.0075)] is True
    between = labels_of({"exclusiveMaximum": 3})
    assert between[key(3)] is False and between[key(2.5)] is True


def test_mutations_of_suite_instances():
    labels = labels_of({"uniqueItems": True}, [[1, 1]])
    assert labels[key([True, 1])] is True  # distinct in JSON
    anchored = labels_of({"pattern": "b+"}, ["abc"])
    assert labels[key([1, 1, 1])] is False and anchored[key("\u00a7abc")] is True


def test_instances_the_references_disagree_on_are_dropped():
    """Python's \\d matches Arabic-Indic digits, ECMA 262's (jsonschema-rs) does not."""
    validators = reference_validators(SchemaSpec({"pattern": "^\\d$"}))
    assert label("5", validators) is True and label("x", validators) is False
    assert label("\u0663", validators) is None
