"""``OptimizedModule``: what ``torchlike.compile(module)`` returns."""

from __future__ import annotations

from ..nn.modules.module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """Mirrors ``torch._dynamo.eval_frame.OptimizedModule``: calling it runs the wrapped
    module's ``__call__`` (hooks included) as a compiled program. The original module is
    ``_orig_mod``; attributes, ``parameters()``, ``train()``/``eval()`` and
    ``state_dict()`` (keys prefixed with ``_orig_mod.``, as in PyTorch) go through to it."""

    def __init__(self, mod: Module, compiled) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", compiled)

    @property
    def stats(self):
        """The ``CompileStats`` of the compiled forward."""
        return self._compiled.stats

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._modules["_orig_mod"], name)

    def __repr__(self) -> str:
        return "OptimizedModule(\n  (_orig_mod): " + \
            repr(self._orig_mod).replace("\n", "\n  ") + "\n)"
