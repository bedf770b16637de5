"""What the CLI test scripts share: soft checks that record failures, and running the tests in order."""
import os
import shutil

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def run_tests(work_dir, tests):
    """Runs each test in a fresh work_dir; the exit status is 1 when any check failed."""
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    for fn in tests:
        print("--", fn.__name__)
        fn()
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0
