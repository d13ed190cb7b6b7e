"""Shared fixtures of the Python tests.

The tests must exercise the build tree's extension, never an installed
ringbloom: CTest sets RINGBLOOM_PYTHON_PACKAGE to the package directory it
built, and this file refuses to run against any other.
"""

import os
import pathlib
import shutil
import subprocess

import pytest
from hypothesis import settings

import ringbloom

# Reproducible property tests: a fixed seed, no example database on disk, no
# per-example deadline (the machine is shared and its timing noisy).
settings.register_profile("ringbloom", derandomize=True, database=None, deadline=None,
                          max_examples=100)
settings.load_profile("ringbloom")

_expected = os.environ.get("RINGBLOOM_PYTHON_PACKAGE")
if _expected:
    _loaded = pathlib.Path(ringbloom.__file__).resolve().parent
    if _loaded != pathlib.Path(_expected).resolve():
        raise RuntimeError(f"the tests imported ringbloom from {_loaded}, not from the build "
                           f"tree's {_expected}; check PYTHONPATH")


@pytest.fixture
def cli():
    """The ringbloom command line of the build tree, run with arguments;
    returns the CompletedProcess (text mode)."""
    path = os.environ.get("RINGBLOOM_CLI") or shutil.which("ringbloom")
    if not path:
        pytest.fail("the ringbloom CLI is needed (RINGBLOOM_CLI, set by CTest); build ringbloom_cli")

    def run(*args, input=None):
        return subprocess.run([path, *map(str, args)], input=input, capture_output=True,
                              text=True, timeout=60, check=False)

    return run
