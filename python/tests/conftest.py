"""Shared fixtures of the Python module's tests: where the CLI, the bundled logs and shared/data are."""
import os
import subprocess

import pytest

SOURCE = os.environ.get("SERVESTAT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
LOGS = os.path.join(SOURCE, "examples", "logs")
SHARED = os.path.join(SOURCE, "..", "shared", "data")


@pytest.fixture(scope="session")
def cli():
    """Runs the servestat executable (SERVESTAT_CLI, else the one built beside the module) and returns stdout."""
    path = os.environ.get("SERVESTAT_CLI") or os.environ.get("SERVESTAT_BUILT_CLI")
    assert path and os.path.exists(path), f"no servestat executable at {path!r}: set SERVESTAT_CLI"

    def run(*args):
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout
    return run


@pytest.fixture(scope="session")
def logs():
    return sorted(os.path.join(LOGS, f) for f in os.listdir(LOGS) if f.endswith(".jsonl"))
