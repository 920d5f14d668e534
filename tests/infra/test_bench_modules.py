"""Every benchmark module imports: a benchmark is run by hand, rarely, so a name moved elsewhere
(as `build_twin` once was) would otherwise surface only when someone next measures."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import bench

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(bench.__path__, prefix="bench.")
    # `python -m bench.x` entry points run their benchmark when imported.
    if not info.name.endswith(".__main__")
)


def test_there_are_benchmarks_to_import():
    assert {"bench.cold_start_packaged", "bench.memory_warm", "bench.sps_encounter"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_the_benchmark_module_imports(name):
    module = importlib.import_module(name)
    assert module.__name__ == name
