"""The package under test is the portable wheel when scripts/test built one
(KS_EXPECT_MANYLINUX=1): a manylinux tag from auditwheel, the native
extension inside it, and nothing that needs the CUDA toolkit at run time
(the runtime is linked statically, so one wheel serves CPU-only and GPU
machines)."""

import importlib.metadata
import os
import re
import shutil
import subprocess

import pytest

import kuaisuo
from kuaisuo import _native

pytestmark = pytest.mark.skipif(os.environ.get("KS_EXPECT_MANYLINUX") != "1",
                                reason="no wheel built by scripts/test (KS_EXPECT_MANYLINUX)")


def test_installed_from_a_manylinux_wheel():
    wheel = importlib.metadata.distribution("kuaisuo").read_text("WHEEL") or ""
    tags = re.findall(r"^Tag: (\S+)$", wheel, re.M)
    assert tags and all(re.fullmatch(r"cp3\d+-cp3\d+-manylinux_2_\d+_x86_64", t) for t in tags), \
        wheel


def test_extension_needs_no_cuda_library():
    if shutil.which("readelf") is None:
        pytest.skip("readelf not on PATH")
    out = subprocess.run(["readelf", "-d", _native.__file__], capture_output=True,
                         text=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.+)\]", out)
    assert needed and not [n for n in needed if "cuda" in n or "cudart" in n], needed
    assert kuaisuo.sm3(b"abc").hex().startswith("66c7f0f4")


@pytest.mark.skipif(os.environ.get("KS_EXPECT_FRESH_VENV") != "1",
                    reason="not run by scripts/test in its fresh venv")
def test_runs_in_a_fresh_venv_that_holds_the_wheel():
    import sys
    cfg = open(os.path.join(sys.prefix, "pyvenv.cfg")).read()
    assert sys.prefix != sys.base_prefix
    assert re.search(r"include-system-site-packages\s*=\s*false", cfg), cfg
    assert kuaisuo.__file__.startswith(sys.prefix)
