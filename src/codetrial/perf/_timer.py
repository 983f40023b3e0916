"""Runs inside the sandbox: time `validate` functions against each other, interleaved.

Standalone on purpose (stdlib only, never imports codetrial). Reads `race.json`:
{"cases": [{"contenders": {name: source}, "points": [{"instance": JSON text, "group": key}]}],
 "settings": {...}}. Every contender is loaded into its own namespace, answers each point once
(the harness checks the answers), then all contenders are timed round after round in rotating
order until the spread of every contender's per-call times is small or the point's time budget
is spent. A contender that needs over `slow_seconds` for one call is dropped from the rest of
its group (larger sizes of the same case and scenario). Results go to `__results__`.
"""

import gc
import json
import signal
import time

_now = time.perf_counter_ns  # bound before any contender code runs


class Slow(BaseException):
    pass


def on_alarm(signum, frame):
    raise Slow()


def load(source):
    namespace = {"__name__": "contender"}
    try:
        exec(compile(source, "contender.py", "exec"), namespace)
    except BaseException as exc:
        return None, f"{type(exc).__name__}: {exc}"[:300]
    validate = namespace.get("validate")
    return (validate, "ok") if callable(validate) else (None, "no function named validate")


def answer(validate, instance, seconds):
    """One call under an alarm: [kind, value, nanoseconds]."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    start = _now()
    try:
        got = validate(instance)
    except Slow:
        return ["slow", f"over {seconds:g}s", _now() - start]
    except BaseException as exc:
        return ["error", f"{type(exc).__name__}: {exc}"[:200], _now() - start]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return ["bool", got, _now() - start] if got is True or got is False else \
        ["error", f"returned {type(got).__name__}", _now() - start]


def batch(validate, instance, calls):
    gc.disable()
    try:
        start = _now()
        for _ in range(calls):
            validate(instance)
        return _now() - start
    finally:
        gc.enable()


def calibrate(validate, instance, first_ns, min_batch_ns):
    """Calls per batch so that one batch lasts at least min_batch_ns."""
    calls = max(1, min(1 << 20, min_batch_ns // max(first_ns, 1)))
    while calls < (1 << 20) and batch(validate, instance, calls) < min_batch_ns:
        calls *= 2
    return calls


def spread(values):
    """Interquartile range over the median: how settled the timings are."""
    ordered = sorted(values)
    n = len(ordered)
    median = ordered[n // 2]
    return (ordered[(3 * n) // 4] - ordered[n // 4]) / median if median else 0.0


def time_point(validates, instance, calls, settings):
    per_call = {name: [] for name in validates}
    names = list(validates)
    deadline = time.perf_counter() + settings["point_seconds"]
    for round_index in range(settings["max_rounds"]):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            per_call[name].append(batch(validates[name], instance, calls[name]) / calls[name])
        done = round_index + 1 >= settings["min_rounds"]
        settled = all(spread(v) <= settings["target_spread"] for v in per_call.values())
        if done and (settled or time.perf_counter() > deadline):
            break
    return {name: summary(values, calls[name]) for name, values in per_call.items()}


def summary(values, calls):
    ordered = sorted(values)
    return {"median_ns": ordered[len(ordered) // 2], "best_ns": ordered[0],
            "spread": spread(values), "rounds": len(values), "calls": calls}


def run_point(point, loaded, dropped, settings):
    instance = json.loads(point["instance"])
    answers, validates, calls = {}, {}, {}
    for name, validate in loaded.items():
        if (point["group"], name) in dropped:
            continue
        answers[name] = answer(validate, instance, settings["slow_seconds"])
        if answers[name][0] == "slow":
            dropped.add((point["group"], name))
        else:
            validates[name] = validate
            calls[name] = calibrate(validate, instance, answers[name][2],
                                    settings["min_batch_ns"])
    timings = time_point(validates, instance, calls, settings) if validates else {}
    return {"answers": {n: a[:2] for n, a in answers.items()}, "timings": timings}


def run_case(case, settings):
    loaded, status = {}, {}
    for name, source in case["contenders"].items():
        validate, status[name] = load(source)
        if validate is not None:
            loaded[name] = validate
    dropped = set()
    points = [run_point(p, loaded, dropped, settings) for p in case["points"]]
    return {"loaded": status, "points": points}


def main():
    signal.signal(signal.SIGALRM, on_alarm)
    with open("race.json", encoding="utf-8") as f:
        race = json.load(f)
    return [run_case(case, race["settings"]) for case in race["cases"]]


if __name__ == "__main__":
    __results__ = main()
