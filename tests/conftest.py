import os
import sys

if os.environ.get("TORCHLIKE_TESTS_WITHOUT_TORCH"):
    # run the suite as on a machine without PyTorch (the test oracle): ``import torch``
    # fails, so every parity comparison must skip and torchlike's behaviour still run
    class _NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError(f"No module named {name!r} (TORCHLIKE_TESTS_WITHOUT_TORCH)")
            return None

    sys.meta_path.insert(0, _NoTorch())

# Several CPU devices so multi-device code paths can be tested on one machine.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

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


# Every op, shape and dtype a test runs compiles an XLA executable, and JAX keeps them
# all: a worker that had run half the suite held ~6 GB and over 30k memory maps, and
# workers crashed inside XLA's compiler late in the run (vm.max_map_count is 65530). So
# each worker drops JAX's caches every ``TORCHLIKE_TESTS_CLEAR_EVERY`` tests (0: never),
# between tests only, so that a test that counts its own traces is not disturbed.
# Measured on tests/test_op_table.py, 1500 tests in one process: 785 maps and 0.7 GB
# with a clear every 100 tests, 7805 maps and 2.6 GB without, and no slower. (A clear
# triggered by the growth of the resident size came too rarely: that size hardly falls
# after a clear, the allocator keeping the pages, and the maps still passed 30k.)
_CLEAR_EVERY = int(os.environ.get("TORCHLIKE_TESTS_CLEAR_EVERY", "200"))
_tests_run = [0]


def pytest_runtest_teardown(item, nextitem):
    _tests_run[0] += 1
    if _CLEAR_EVERY and _tests_run[0] % _CLEAR_EVERY == 0:
        import jax

        jax.clear_caches()


@pytest.fixture(autouse=True)
def _restore_torch_distribution_validation():
    """PyTorch's Dynamo (which ``torch.cond``, ``torch.while_loop`` and some optimizers'
    first step start) turns off ``torch.distributions``' argument validation for the whole
    process; put PyTorch's default back so that later parity tests see PyTorch's errors."""
    yield
    dist = sys.modules.get("torch.distributions")
    if dist is not None:
        dist.Distribution.set_default_validate_args(__debug__)
