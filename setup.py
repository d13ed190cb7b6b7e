"""Builds the ringbloom Python package with the project's CMake.

setuptools has no CMake support of its own, and Debian 12 ships no
scikit-build-core, so this build_ext runs CMake: it configures the project
with only the library and the bindings (no CLI, tests or install rules),
builds the target ringbloom_python and copies the extension into the wheel.
No network is needed: pybind11 comes from Debian's pybind11-dev.

RINGBLOOM_CMAKE_BUILD_DIR names an existing, configured build tree to build
in instead of a fresh one (the wheel test uses the release tree, so that
packaging is checked without compiling the library twice).
"""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("RINGBLOOM_CMAKE_BUILD_DIR")
        if not build_dir:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            subprocess.run(
                [
                    "cmake", "-S", ROOT, "-B", build_dir,
                    "-DCMAKE_BUILD_TYPE=Release",
                    "-DRINGBLOOM_BUILD_TESTS=OFF",
                    "-DRINGBLOOM_BUILD_CLI=OFF",
                    "-DRINGBLOOM_INSTALL=OFF",
                    "-DRINGBLOOM_BUILD_PYTHON=ON",
                    f"-DPython3_EXECUTABLE={sys.executable}",
                ],
                check=True,
            )
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(
            ["cmake", "--build", build_dir, "--target", "ringbloom_python", "-j", jobs],
            check=True,
        )
        package_dir = os.path.join(build_dir, "python", "ringbloom")
        built = [f for f in os.listdir(package_dir) if f.startswith("_ringbloom.")]
        if len(built) != 1:
            sys.exit(f"setup.py: expected one _ringbloom extension in {package_dir}, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package_dir, built[0]), target)


# setuptools' own scratch files go under build/ (or where the wheel test says),
# away from the sources: python/ stays clean.
BUILD_BASE = os.environ.get("RINGBLOOM_SETUPTOOLS_BUILD_BASE",
                            os.path.join("build", "python-setuptools"))
os.makedirs(BUILD_BASE, exist_ok=True)

setup(
    ext_modules=[CMakeExtension("ringbloom._ringbloom")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
