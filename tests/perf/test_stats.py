"""Slopes, crossovers, ratios and the table, on measurements with known shapes."""

import pytest

from codetrial.perf.race import Measurement, RaceResult
from codetrial.perf.stats import crossover, crossovers, race_json, ratios, render, slope

SIZES = (1, 3, 10, 30, 100, 300, 1000)


def measured(name, times, correct=True, case="uniqueItems", scenario="worst"):
    return [Measurement(case, scenario, n, name, t * 1.1, t, 0.01, 5, 100, correct)
            for n, t in zip(SIZES, times, strict=True)]


@pytest.mark.parametrize("power", [0, 1, 2])
def test_slope_recovers_the_power(power):
    assert slope({n: 50.0 * n ** power for n in SIZES}) == pytest.approx(power, abs=0.01)


def test_slope_needs_two_sizes():
    assert slope({10: 5.0}) is None


def test_crossover_of_linear_and_quadratic_is_found_where_they_meet():
    linear = {n: 10.0 * n for n in SIZES}
    quadratic = {n: 1.0 * n * n for n in SIZES}
    ((at, winner),) = crossover(linear, quadratic)
    assert at == pytest.approx(10, rel=0.01)
    assert winner == "a"  # the linear one is faster above
    assert crossover(linear, {n: t * 1.05 for n, t in linear.items()}) == []


def test_ratios_table_and_json_leave_wrong_contenders_out():
    result = RaceResult(measured("fast", [10.0 * n for n in SIZES])
                        + measured("slow", [1.0 * n * n for n in SIZES])
                        + measured("broken", [1.0] * 7, correct=False),
                        problems=["uniqueItems worst size 1: broken answered bool True"])
    top = {(r["contender"], r["size"]): r["ratio"] for r in ratios(result.measurements)}
    assert top[("slow", 1000)] == 100.0 and top[("fast", 1000)] == 1.0
    assert ("broken", 1) not in top
    [cross] = crossovers(result.measurements)
    assert (cross["faster_below"], cross["faster_above"]) == ("slow", "fast")
    text = render(result)
    assert "uniqueItems (worst case)" in text and "wrong" in text and "problem:" in text
    assert "slow faster below size" in text
    data = race_json(result)
    assert {"measurements", "ratios", "slopes", "crossovers"} <= set(data)
    assert {s["contender"]: s["slope"] for s in data["slopes"]}["slow"] == 2.0
