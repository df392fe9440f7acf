import os

# Several CPU devices so multi-device code paths can be tested on one machine.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests are reproducible run to run, and not timed: the first call of an op
# compiles it, which can take longer than hypothesis's default deadline.
settings.register_profile("torchlike", derandomize=True, deadline=None)
settings.load_profile("torchlike")

import torchlike  # noqa: E402,F401


@pytest.fixture(autouse=True)
def _reset_default_dtype():
    yield
    torchlike.set_default_dtype(torchlike.float32)
