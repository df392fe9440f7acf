"""``DataParallel``; mirrors ``torch.nn.parallel.DataParallel``."""

from __future__ import annotations

from typing import Any

from ..._core.device import accelerator_devices, device as Device
from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Mirrors ``torch.nn.DataParallel``: ``forward`` runs the wrapped ``module``; the
    state dict's keys start with ``module.``. Without an accelerator it calls the module
    directly, as PyTorch does without CUDA.

    Difference from PyTorch: with accelerators it does not split the batch over
    ``device_ids`` in threads; the module runs on the whole batch on ``device_ids[0]``
    (XLA uses the whole device). Spread a batch over devices with
    ``torchlike.nn.parallel.DistributedDataParallel`` (one process per device)."""

    def __init__(self, module: Module, device_ids: list | None = None,
                 output_device: Any = None, dim: int = 0):
        super().__init__()
        self.module = module
        self.dim = dim
        accs = accelerator_devices()
        if not accs:
            self.device_ids: list = []
            self.output_device = None
            self.src_device_obj = Device("cpu")
            return
        ids = list(range(len(accs))) if device_ids is None else \
            [Device(d).index if not isinstance(d, int) else d for d in device_ids]
        self.device_ids = ids
        self.output_device = ids[0] if output_device is None else output_device
        self.src_device_obj = Device("cuda", ids[0])
        for t in list(module.parameters()) + list(module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    f"module must have its parameters and buffers on device "
                    f"{self.src_device_obj} (device_ids[0]) but found one of them on "
                    f"device: {t.device}")

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
