"""``AdamW``: mirrors ``torch.optim.AdamW`` (Adam with decoupled weight decay)."""

from __future__ import annotations

from typing import Any

from .adam import Adam
from .optimizer import ParamsT

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW, mirroring ``torch.optim.AdamW``: Adam whose weight decay multiplies the
    parameter by ``1 - lr * weight_decay`` before the update (default ``weight_decay``
    1e-2). ``foreach``, ``fused``, ``capturable`` and ``differentiable`` have no effect."""

    def __init__(self, params: ParamsT, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
