#!/usr/bin/env python3
"""The model test of the marketplace (docs/ARCHITECTURE.md), run inside a suite started by model-test.sh:
the named regression tests first (deploy/local/model_regressions.py, each a sequence once found
failing), then Hypothesis's random exploration of every role's steps beside the reference model
(model_machine.py). A failure is shrunk to the shortest sequence, printed as Hypothesis's program
(paste it into a regression test) and as the HTTP requests it made.

MODEL_SEED repeats a run (a random one is chosen and printed otherwise); MODEL_EXAMPLES (30) is
how many examples the exploration tries, MODEL_STEPS (100) the most steps of one (about 5 s an
example on a debug build); MODEL_SETTLE_SECONDS (15) how long a check waits for the event
followers to catch up. The last line: `model-test: N examples, M steps, K invariant checks,
passed|FAILED` (examples and steps count those the regression tests and shrinking ran too)."""
import os
import random
import sys
import time
import traceback

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.errors import Flaky
from hypothesis.stateful import get_state_machine_test

import model_regressions
from model_machine import MarketplaceMachine, Tally


def show_failure(title, error):
    """What failed: the mismatch, and the requests of the sequence that made it."""
    print(f"\n{title} FAILED: {error}".rstrip(), flush=True)
    if not isinstance(error, AssertionError):
        traceback.print_exception(error)
    # Hypothesis notes the shortest failing program on the error: a regression test to paste.
    for note in getattr(error, "__notes__", []):
        print(note)
    if Tally.last_journal is not None:
        print("\nThe requests it made (method, path, body, answer; `(check)` marks the checks' reads):")
        print(Tally.last_journal.render(), flush=True)


def run_regressions():
    """Each named regression test, in turn; the names of those that failed."""
    failed = []
    for regression in model_regressions.ALL:
        started = time.monotonic()
        try:
            regression()
            print(f"{regression.__name__}: passed ({time.monotonic() - started:.0f} s)", flush=True)
        except Exception as error:  # a failing regression is reported, and the others still run
            show_failure(regression.__name__, error)
            failed.append(regression.__name__)
    return failed


def explore(chosen_seed, examples, steps):
    """Hypothesis's exploration; whether it passed."""
    test = get_state_machine_test(MarketplaceMachine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
        phases=[Phase.generate, Phase.shrink]))
    started = time.monotonic()
    try:
        seed(chosen_seed)(test)()
    except Flaky as error:
        show_failure("exploration (flaky: the failing sequence did not fail the same way when run again)", error)
        if Tally.first_failure is not None:
            failure, requests = Tally.first_failure
            print(f"\nThe first failure as it happened:\n{failure}\nThe requests that led to it:\n{requests}",
                  flush=True)
        return False
    except Exception as error:
        show_failure("exploration", error)
        return False
    finally:
        print(f"exploration: {time.monotonic() - started:.0f} s", flush=True)
    return True


def main():
    """Runs the regression tests and the exploration; exits 1 when any failed."""
    chosen_seed = int(os.environ.get("MODEL_SEED") or random.randrange(2 ** 32))
    examples = int(os.environ.get("MODEL_EXAMPLES", "30"))
    steps = int(os.environ.get("MODEL_STEPS", "100"))
    print(f"model-test: seed {chosen_seed} (MODEL_SEED={chosen_seed} runs it again); {len(model_regressions.ALL)} "
          f"regression tests, then {examples} examples of up to {steps} steps", flush=True)
    failed = run_regressions()
    passed = explore(chosen_seed, examples, steps) and not failed
    print(f"model-test: {Tally.examples} examples, {Tally.steps} steps, {Tally.checks} invariant checks, "
          f"{'passed' if passed else 'FAILED'}", flush=True)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
