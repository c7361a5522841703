import os

import pytest

import kuaisuo


def pytest_report_header(config):
    return (f"kuaisuo {kuaisuo.__version__}; cpu features: {kuaisuo.cpu_features()}; "
            f"cuda built: {kuaisuo.gpu_built()}, devices: {kuaisuo.gpu_device_count()}")


@pytest.fixture
def rand():
    """Fresh random bytes from the OS each run."""
    return os.urandom


requires_gpu = pytest.mark.skipif(kuaisuo.gpu_device_count() == 0, reason="no CUDA device")
