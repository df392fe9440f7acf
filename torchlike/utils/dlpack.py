"""Mirrors ``torch.utils.dlpack``: exchange tensors with other libraries through DLPack.

See Note [What sharing means over immutable arrays] in ``torchlike/_core/interop.py``
for what zero-copy means over JAX's immutable buffers.
"""

from __future__ import annotations

import enum

from .._core.interop import from_dlpack as from_dlpack
from .._core.interop import to_dlpack as to_dlpack

__all__ = ["from_dlpack", "to_dlpack", "DLDeviceType"]


class DLDeviceType(enum.IntEnum):
    """Mirrors ``torch.utils.dlpack.DLDeviceType``: DLPack's device type codes."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
