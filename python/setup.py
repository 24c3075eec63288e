"""Builds libcured with the project's own build and puts it in the wheel.

`pip install ./python` (from a cured source tree) copies the tree beside
this folder to a scratch directory (a git checkout: its files that git
tracks or would, so autoreconf runs; a release tarball: all of it, with
its configure script), runs autoreconf where there is no configure
script, then configure and `make libcured.la` there, and installs
.libs/libcured.so* as cured/libcured.so.0 inside the package, which the
front end then loads before any system copy (cured/_lib.py). Building needs
what building cured needs (a C compiler, make, autotools and the CUDA
headers; no GPU, NVRTC or driver). CURED_WHEEL_LIBRARY=/path/libcured.so
puts that file in the wheel instead of building, and CURED_WHEEL_LIBRARY=none
leaves the library out (the front end then finds an installed libcured).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 keeps it in the wheel package
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
LIBNAME = "libcured.so.0"

# Not copied into the scratch tree: build outputs, caches and the front end itself.
SKIP = {".git", ".gpu", ".whl", "asan", "tsan", "autom4te.cache", ".libs", ".deps", "__pycache__",
        "build", "dist"}


def _source_root():
    root = os.path.dirname(HERE)
    return root if os.path.exists(os.path.join(root, "configure.ac")) else None


def _copy_tree(src, dst):
    """The source files of src, without a configured tree's outputs (so configure runs afresh):
    git's list of them in a checkout, else the tree less what a build leaves."""
    try:
        top = subprocess.run(["git", "-C", src, "rev-parse", "--show-toplevel"], capture_output=True,
                             check=True).stdout.decode().strip()
        listed = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                capture_output=True, check=True).stdout.split(b"\0")
        # Only cured's own checkout: a tarball unpacked inside another repository is copied whole.
        if os.path.realpath(top) != os.path.realpath(src) or b"configure.ac" not in listed:
            listed = None
    except (OSError, subprocess.CalledProcessError):
        listed = None
    if listed is not None:
        for rel in filter(None, (p.decode() for p in listed)):
            if not os.path.lexists(os.path.join(src, rel)):
                continue
            os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel), follow_symlinks=False)
        return

    def ignore(d, names):
        out = {n for n in names if n in SKIP or n.endswith((".o", ".lo", ".la", ".so", ".a"))}
        if os.path.exists(os.path.join(d, "config.status")):
            out |= {"config.status", "config.log", "config.h", "libtool", "stamp-h1", "Makefile", "cured.pc",
                    "cured-uninstalled.pc"}
        return out
    shutil.copytree(src, dst, ignore=ignore, symlinks=True)


def _run(cmd, cwd, log):
    log.write("$ %s\n" % " ".join(cmd))
    log.flush()
    r = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise RuntimeError("%s failed in %s (exit %d)" % (" ".join(cmd), cwd, r.returncode))


def build_library(dest):
    """libcured.so built from the source tree, copied to dest; None when there is no tree."""
    given = os.environ.get("CURED_WHEEL_LIBRARY")
    if given == "none":
        return None
    if given:
        shutil.copyfile(given, dest)
        return dest
    root = _source_root()
    if root is None:
        return None
    scratch = tempfile.mkdtemp(prefix="cured-wheel-")
    tree = os.path.join(scratch, "src")
    log_path = os.path.join(scratch, "build.log")
    try:
        _copy_tree(root, tree)
        with open(log_path, "w") as log:
            if not os.path.exists(os.path.join(tree, "configure")):
                _run(["autoreconf", "-fi"], tree, log)
            _run(["./configure", "--disable-static", "--quiet"], tree, log)
            _run(["make", "-j%d" % (os.cpu_count() or 2), "libcured.la"], tree, log)
        built = sorted(glob.glob(os.path.join(tree, ".libs", "libcured.so.*.*.*")) or
                       glob.glob(os.path.join(tree, ".libs", "libcured.so*")))
        if not built:
            raise RuntimeError("the build made no .libs/libcured.so")
        shutil.copyfile(built[0], dest)
        return dest
    except Exception:
        try:
            sys.stderr.write(open(log_path).read()[-6000:])
        except OSError:
            pass
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        dest_dir = os.path.join(self.build_lib, "cured")
        os.makedirs(dest_dir, exist_ok=True)
        if build_library(os.path.join(dest_dir, LIBNAME)) is not None:
            self.announce("bundled %s" % LIBNAME, level=2)


class PlatformWheel(bdist_wheel):
    """A wheel holding libcured is for this platform, not pure Python."""

    def finalize_options(self):
        super().finalize_options()
        if os.environ.get("CURED_WHEEL_LIBRARY") != "none":
            self.root_is_pure = False

    def get_tag(self):
        python, abi, plat = super().get_tag()
        if not self.root_is_pure:
            python, abi = "py3", "none"  # ctypes only: any CPython 3 on this platform
        return python, abi, plat


setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel})
