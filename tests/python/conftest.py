import os
import shutil
import subprocess

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


@pytest.fixture
def tls_files(tmp_path):
    """A self-signed P-256 certificate for 127.0.0.1 and its key (paths),
    for the servers' TLS tests."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl CLI unavailable")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return str(cert), str(key)
