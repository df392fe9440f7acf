"""``torchlike.layout`` and its values, as ``torch.layout``.

Every torchlike tensor is strided (dense, with strides over a storage): ``Tensor.layout``
is always ``torchlike.strided``. The sparse layouts exist so that code comparing against
them (``t.layout == torch.sparse_coo``) runs; no tensor has one.
"""

from __future__ import annotations

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
           "sparse_bsc", "jagged"]


class layout:
    """Mirrors ``torch.layout``: the memory layout of a tensor. Its instances are the
    module-level values (``torchlike.strided``...); like PyTorch's, the class cannot be
    instantiated by users."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torchlike.layout' instances")

    @classmethod
    def _make(cls, name: str) -> "layout":
        obj = object.__new__(cls)
        obj._name = name
        return obj

    def __repr__(self) -> str:
        return f"torchlike.{self._name}"

    def __reduce__(self):
        return self._name   # pickles as the module-level name, as PyTorch's does


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")
