"""nn layers: recurrent networks, mirroring ``torch.nn.modules.rnn``.

``RNN``, ``LSTM`` and ``GRU`` keep PyTorch's parameters (``weight_ih_l0``,
``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0``, ``..._reverse``), their
shapes, order and initialisation, its argument checks and error texts, and accept
PyTorch's inputs: batched or unbatched tensors, ``batch_first``, ``PackedSequence``,
initial states. The computation of a whole stack is one table op (``_rnn``, a
``jax.lax.scan`` per layer and direction, see Note [One op per recurrent stack] in
``_ops/nn_seq.py``); the cells are one op each.

Differences from PyTorch: autograd node names (``LstmBackward0`` where PyTorch shows
``MkldnnRnnLayerBackward0``/``StackBackward0``...); the dropout masks between layers
are drawn from torchlike's generator (different values, same distribution);
``flatten_parameters()`` does nothing (there is no cuDNN weight buffer to compact).
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, batch_sizes_tuple
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _apply_permutation(tensor: Tensor, permutation: Tensor, dim: int = 1) -> Tensor:
    return tensor.index_select(dim, permutation)


def _empty(shape, device, dtype) -> Tensor:
    from ... import empty
    return empty(shape, device=device, dtype=dtype)


def _zeros(shape, like: Tensor) -> Tensor:
    from ... import zeros
    return zeros(shape, dtype=like.dtype, device=like.device)


def _uniform_init(params, hidden_size: int) -> None:
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    with no_grad():
        for weight in params:
            weight.uniform_(-stdv, stdv)


def _dropout_masks(n: int, shape: tuple, p: float, like: Tensor) -> list:
    """Pre-scaled keep masks (``bernoulli(1-p) / (1-p)``) for the layer outputs."""
    from ... import rand
    masks = []
    for _ in range(n):
        if p >= 1.0:
            masks.append(_zeros(shape, like))
        else:
            keep = rand(shape, dtype=like.dtype, device=like.device) >= p
            masks.append(keep.to(like.dtype) / (1.0 - p))
    return masks


class RNNBase(Module):
    """Mirrors ``torch.nn.RNNBase``: the parameters and checks shared by RNN, LSTM and
    GRU. ``mode`` is one of ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'``, ``'GRU'``."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    mode: str
    input_size: int
    hidden_size: int
    num_layers: int
    bias: bool
    batch_first: bool
    dropout: float
    bidirectional: bool
    proj_size: int

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or \
                not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size

        self._flat_weights_names: list = []
        self._all_weights: list = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                shapes = [(gate_size, layer_input_size), (gate_size, real_hidden_size)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes += [(proj_size, hidden_size)]
                    names += ["weight_hr_l{}{}"]
                suffix = "_reverse" if direction == 1 else ""
                names = [x.format(layer, suffix) for x in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(_empty(shape, device, dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, wn) if hasattr(self, wn) else None
                for wn in self._flat_weights_names]

    def flatten_parameters(self) -> None:
        """Mirrors ``RNNBase.flatten_parameters``; a no-op (no cuDNN weight buffer)."""

    def reset_parameters(self) -> None:
        """Every weight and bias ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _uniform_init(self.parameters(), self.hidden_size)

    @property
    def all_weights(self) -> list:
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    # -- checks (PyTorch's texts) ---------------------------------------------
    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        w0 = self._flat_weights[0]
        if input.dtype != w0.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w0.dtype}). Convert input: input.to({w0.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor,
                                 batch_sizes: Tensor | None) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        h = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, h)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor,
                           batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # -- the kernel call --------------------------------------------------------
    def _run(self, input: Tensor, hx: Tensor, cx: Tensor | None, batch_sizes: Tensor | None):
        """The whole stack as one op; returns ``(output, h_n)`` or ``(output, h_n, c_n)``."""
        nd = 2 if self.bidirectional else 1
        bs = batch_sizes_tuple(batch_sizes) if batch_sizes is not None else None
        masks = None
        if self.training and self.dropout > 0 and self.num_layers > 1:
            # the kernel runs time-major (padded for packed input): masks in that layout
            if bs is not None:
                t_len, b = len(bs), bs[0]
            elif self.batch_first:
                b, t_len = input.shape[0], input.shape[1]
            else:
                t_len, b = input.shape[0], input.shape[1]
            h = self.proj_size if self.proj_size > 0 else self.hidden_size
            masks = _dropout_masks(self.num_layers - 1, (t_len, b, h * nd), self.dropout,
                                   input)
        return call_op("_rnn", input, hx, cx, self._flat_weights, masks, self.mode,
                       self.bias, self.num_layers, self.bidirectional,
                       self.batch_first and bs is None, self.proj_size, bs)


class _SimpleRNNForward:
    """The forward shared by RNN and GRU (one hidden state)."""

    def _forward_single(self, input, hx=None):
        orig_input = input
        num_directions = 2 if self.bidirectional else 1
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = _zeros((self.num_layers * num_directions, max_batch_size,
                             self.hidden_size), input)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                name = "RNN" if self.mode.startswith("RNN") else self.mode
                tail = " tensor instead" if name == "RNN" else " instead"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                                 f"{tail}")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but "
                                           f"got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = _zeros((self.num_layers * num_directions, max_batch_size,
                             self.hidden_size), input)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, hx, None, batch_sizes)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(_SimpleRNNForward, RNNBase):
    """Mirrors ``torch.nn.RNN``: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``
    with ``nonlinearity`` ``'tanh'`` or ``'relu'``.

    Example::

        >>> rnn = nn.RNN(10, 20, num_layers=2)
        >>> out, h_n = rnn(torchlike.randn(5, 3, 10))
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.__dict__["nonlinearity"] = args[3]
            args = args[:3] + args[4:]
        else:
            self.__dict__["nonlinearity"] = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        nl = self.__dict__["nonlinearity"]
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nl

    def forward(self, input, hx: Tensor | None = None):
        """``input`` (L, N, H_in) / (N, L, H_in) / (L, H_in) or a PackedSequence; returns
        ``(output, h_n)``."""
        return self._forward_single(input, hx)


class GRU(_SimpleRNNForward, RNNBase):
    """Mirrors ``torch.nn.GRU`` (gates r, z, n in PyTorch's order and formulas).

    Example::

        >>> gru = nn.GRU(10, 20, bidirectional=True)
        >>> out, h_n = gru(torchlike.randn(5, 3, 10))
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx: Tensor | None = None):
        """As ``RNN.forward``."""
        return self._forward_single(input, hx)


class LSTM(RNNBase):
    """Mirrors ``torch.nn.LSTM`` (gates i, f, g, o; ``proj_size`` adds ``weight_hr_l*``).

    Example::

        >>> lstm = nn.LSTM(10, 20, num_layers=2, batch_first=True)
        >>> out, (h_n, c_n) = lstm(torchlike.randn(3, 5, 10))
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor,
                               batch_sizes: Tensor | None) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation: Tensor | None):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        """``input`` as for ``RNN``; ``hx`` an optional ``(h_0, c_0)``; returns
        ``(output, (h_n, c_n))``."""
        orig_input = input
        batch_sizes = None
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = (_zeros((self.num_layers * num_directions, max_batch_size,
                              real_hidden_size), input),
                      _zeros((self.num_layers * num_directions, max_batch_size,
                              self.hidden_size), input))
            else:
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D "
                                 "instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = unsorted_indices = None
            if hx is None:
                hx = (_zeros((self.num_layers * num_directions, max_batch_size,
                              real_hidden_size), input),
                      _zeros((self.num_layers * num_directions, max_batch_size,
                              self.hidden_size), input))
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be "
                                           f"3-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) "
                                           "tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be "
                                           f"2-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) "
                                           "tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        output, h_n, c_n = self._run(input, hx[0], hx[1], batch_sizes)
        hidden = (h_n, c_n)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNNCellBase(Module):
    """Mirrors ``torch.nn.RNNCellBase``: ``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh`` of ``num_chunks * hidden_size`` rows, U(±1/sqrt(hidden_size))."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty((num_chunks * hidden_size, input_size), device, dtype))
        self.weight_hh = Parameter(_empty((num_chunks * hidden_size, hidden_size), device,
                                          dtype))
        if bias:
            self.bias_ih = Parameter(_empty((num_chunks * hidden_size,), device, dtype))
            self.bias_hh = Parameter(_empty((num_chunks * hidden_size,), device, dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        _uniform_init(self.parameters(), self.hidden_size)

    def _check_cell_input(self, name: str, input: Tensor, hiddens: list) -> None:
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(-1)} "
                               f"expected {self.input_size}")
        for i, h in enumerate(hiddens):
            if h.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i}"
                                   f" batch size {h.size(0)}")
            if h.size(-1) != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got "
                                   f"{h.size(-1)}, expected {self.hidden_size}")

    def _cell(self, mode: str, input: Tensor, hx: Tensor, cx: Tensor | None):
        from ..._ops.torch_level import _cell
        return _cell(mode, input, hx, cx, self.weight_ih, self.weight_hh, self.bias_ih,
                     self.bias_hh)


class RNNCell(RNNCellBase):
    """Mirrors ``torch.nn.RNNCell``: one step ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros((input.size(0), self.hidden_size), input)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_cell_input("RNNCell", input, [hx])
        ret = self._cell(mode, input, hx, None)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    """Mirrors ``torch.nn.LSTMCell``: one step, returns ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _zeros((input.size(0), self.hidden_size), input)
            hx = (zeros, zeros)
        else:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if not is_batched else hx
        self._check_cell_input("LSTMCell", input, [hx[0], hx[1]])
        ret = self._cell("LSTM", input, hx[0], hx[1])
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """Mirrors ``torch.nn.GRUCell``: one step of PyTorch's GRU formulas."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D "
                             "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros((input.size(0), self.hidden_size), input)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        self._check_cell_input("GRUCell", input, [hx])
        ret = self._cell("GRU", input, hx, None)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


for _c in (RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell):
    _c.__module__ = "torchlike.nn.modules.rnn"
