import pytest

from codetrial.metrics import bootstrap_mean, t_interval, wilson
from codetrial.metrics.intervals import t975


def test_wilson_known_value():
    # 8/10: textbook Wilson 95% interval (0.490, 0.943)
    e = wilson(8, 10)
    assert e.value == pytest.approx(0.8)
    assert e.low == pytest.approx(0.4902, abs=1e-3)
    assert e.high == pytest.approx(0.9433, abs=1e-3)


def test_wilson_edges_stay_in_unit_interval():
    assert wilson(0, 5).low == 0.0 and wilson(0, 5).high > 0.3
    assert wilson(5, 5).high == 1.0 and wilson(5, 5).low < 0.7


def test_a_rate_over_nothing_is_undefined_and_json_safe():
    import json

    from codetrial.report.terminal import format_estimate

    data = wilson(0, 0).as_dict()
    assert data["value"] is None and json.loads(json.dumps(data)) == data
    assert format_estimate(data) == "undefined (nothing graded)"
    assert format_estimate(wilson(1, 2).as_dict()).startswith("50.0%")


def test_bootstrap_brackets_the_mean():
    values = [0.0, 1.0] * 50
    e = bootstrap_mean(values)
    assert e.value == pytest.approx(0.5)
    assert 0.35 < e.low < 0.5 < e.high < 0.65


def test_t_interval_of_repeats():
    e = t_interval([54.7, 55.9, 57.3, 59.6])
    assert e.value == pytest.approx(56.875)
    assert e.low < 54.7 and e.high > 59.0
    assert t975(4) == pytest.approx(2.776)
    assert t975(200) == pytest.approx(1.972, abs=2e-3)


def test_few_or_equal_tasks_never_give_a_certain_interval():
    # four failed tasks resample only to 0: the interval is Wilson's for 0 of 4
    none_of_four = bootstrap_mean([0.0] * 4)
    assert none_of_four.value == 0.0 and none_of_four.low == 0.0
    assert none_of_four.high == wilson(0, 4).high > 0.4
    every_one = bootstrap_mean([1.0] * 164)
    assert every_one.high == 1.0 and 0.95 < every_one.low < 1.0
    few = bootstrap_mean([0.0, 0.0, 0.0, 1.0, 0.5])
    assert few.low <= wilson(1.5, 5).low and few.high >= wilson(1.5, 5).high
