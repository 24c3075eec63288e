"""Shared fixtures: where libcured is, and whether a GPU can be used (asked
in a child process, so that a broken driver cannot take pytest down)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _probe():
    code = ("import cured._lib as L\n"
            "try:\n    L.handle(0)\nexcept L.CuredError as e:\n    print(e.status); raise SystemExit(3)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return r.returncode == 0, (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]


_gpu = None


def gpu_status():
    global _gpu
    if _gpu is None:
        _gpu = _probe()
    return _gpu


LIBRARY_NOT_FOUND = ("libcured not found: make install (and ldconfig), or set CURED_LIBRARY to the "
                     "path of libcured.so (.libs/libcured.so in a build tree)")


@pytest.fixture
def gpu():
    ok, why = gpu_status()
    if not ok:
        if why[0] == "LIBRARY_NOT_FOUND":
            pytest.skip(LIBRARY_NOT_FOUND)
        pytest.skip("no usable GPU: %s" % why[0])


_loads = None


def library_loads():
    global _loads
    if _loads is None:
        code = "import cured._lib as L\nL.lib()\n"
        _loads = subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
    return _loads


def need_library():
    """Skip the rest of a test that needs libcured, where it is not found (the front end's
    operators, types and result rules are read from it)."""
    if not library_loads():
        pytest.skip(LIBRARY_NOT_FOUND)
