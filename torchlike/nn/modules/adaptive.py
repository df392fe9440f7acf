"""``torch.nn.AdaptiveLogSoftmaxWithLoss``: the adaptive softmax of Grave et al.
(https://arxiv.org/abs/1609.04309), with PyTorch's parameters (``head``, ``tail.i.0``,
``tail.i.1``), so state dicts load across.

# Note [Adaptive softmax without data-dependent shapes]
# PyTorch's forward gathers the rows of each cluster (``nonzero``, ``index_select``) and
# runs that cluster's projection on them alone. Those shapes depend on the targets, which
# a compiled (traced) function cannot know, so here every cluster's projection runs on
# all rows and each row keeps the log-probability of its own cluster (``where``): the
# same values and gradients, at the cost of projecting rows that another cluster owns.
# ``predict`` likewise takes the full distribution's argmax for every row whose head
# prediction is a cluster. Targets outside ``[0, n_classes)`` raise PyTorch's error in
# eager mode (a host read of the targets, skipped while tracing, as Note [Eager checks on
# values] in ``_ops/nn_loss.py`` does for the losses).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Sequence

from ..._core.tensor import Tensor
from ..._ops.nn_common import is_traced
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Mirrors ``torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs,
    div_value=4.0, head_bias=False, device=None, dtype=None)``.

    ``forward(input, target)`` returns the named tuple ``(output, loss)``: each row's
    log-probability of its target and their negated mean. ``log_prob(input)`` gives the
    full (N, n_classes) log-distribution, ``predict(input)`` its argmax. Differences
    from PyTorch: every cluster's projection runs on the whole batch (see Note [Adaptive
    softmax without data-dependent shapes]), so a compiled step has fixed shapes.

    >>> import torchlike as torch, torchlike.nn as nn
    >>> asm = nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs=[4, 8])
    >>> out = asm(torch.randn(3, 16), torch.tensor([0, 5, 9]))
    >>> out.output.shape, out.loss.shape
    (torchlike.Size([3]), torchlike.Size([]))
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if ((cutoffs != sorted(cutoffs)) or (min(cutoffs) <= 0)
                or (max(cutoffs) > (n_classes - 1)) or (len(set(cutoffs)) != len(cutoffs))
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers "
                             "sorted in an increasing order, where each value is between 1 "
                             "and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias,
                           **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(self.in_features, hsz, bias=False, **factory_kwargs),
                Linear(hsz, osz, bias=False, **factory_kwargs)))

    def reset_parameters(self) -> None:
        """Mirrors ``AdaptiveLogSoftmaxWithLoss.reset_parameters``."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check_targets(self, target: Tensor) -> None:
        if is_traced(target) or target.numel() == 0:
            return
        lo, hi = target.min().item(), target.max().item()
        if lo < 0 or hi >= self.n_classes:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{lo}, {hi}] were found. ")

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)
        self._check_targets(target)

        # Note [Adaptive softmax without data-dependent shapes]
        output = input.new_zeros(target.size(0))
        gather_inds = target
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            in_cluster = (target >= low) & (target < high)
            relative = (target - low).clamp(0, high - low - 1)
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            local = cluster_logprob.gather(1, relative.unsqueeze(1)).squeeze(1)
            output = output.where(~in_cluster, local)
            gather_inds = gather_inds.masked_fill(in_cluster, self.shortlist_size + i)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """The (N, n_classes) log-distribution from ``input`` and ``self.head(input)``."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start_idx, stop_idx) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start_idx:stop_idx] = cluster_logprob + head_logprob[
                :, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """Mirrors ``AdaptiveLogSoftmaxWithLoss.log_prob``: log-probabilities of every
        class, (N, in_features) -> (N, n_classes)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """Mirrors ``AdaptiveLogSoftmaxWithLoss.predict``: the most likely class of each
        row, (N, in_features) -> (N,) int64 (the head's argmax when it is in the
        shortlist, else the full distribution's)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        full = self._get_full_log_prob(input, head_output).argmax(dim=1)
        return full.where(output >= self.shortlist_size, output)
