"""Tests marked `gpu` need a usable CUDA device; where there is none they are skipped with the reason.
Tests needing torch or cupy skip their module through pytest.importorskip."""
import pytest

from rowwise import _native


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped, with the reason, where none is usable)")


def pytest_collection_modifyitems(config, items):
    reason = _native.no_device_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"GPU test: {reason}")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
