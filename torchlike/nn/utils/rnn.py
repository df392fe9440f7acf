"""``torchlike.nn.utils.rnn``: packed and padded variable-length sequences, mirroring
``torch.nn.utils.rnn``.

A ``PackedSequence`` holds the steps of a batch of sequences sorted by decreasing length,
time-major: ``data`` (sum(batch_sizes), *), and ``batch_sizes[t]``, how many sequences
have a step ``t``. The index maps between packed and padded layouts depend only on
``batch_sizes``, which (as in PyTorch) are host values, so packing, unpacking and the
recurrent kernels are each one op with static gathers (see Note [Packed sequences inside
the kernel] in ``_ops/nn_seq.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from ... import _ops  # noqa: F401  (declares the table)
from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """Mirrors ``torch.nn.utils.rnn.PackedSequence``: ``(data, batch_sizes,
    sorted_indices, unsorted_indices)``. Build it with ``pack_padded_sequence`` or
    ``pack_sequence``, not by hand."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None,
                sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> "PackedSequence":
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self) -> "PackedSequence":
        return self

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """Mirrors ``PackedSequence.to``: moves/casts ``data``; the index tensors follow
        ``data``'s device; ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        kwargs.setdefault("device", "cuda")
        return self.to(*args, **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        kwargs.setdefault("device", "cpu")
        return self.to(*args, **kwargs)

    def double(self) -> "PackedSequence":
        return self.to(dtype=_dt.float64)

    def float(self) -> "PackedSequence":
        return self.to(dtype=_dt.float32)

    def half(self) -> "PackedSequence":
        return self.to(dtype=_dt.float16)

    def long(self) -> "PackedSequence":
        return self.to(dtype=_dt.int64)

    def int(self) -> "PackedSequence":
        return self.to(dtype=_dt.int32)

    def short(self) -> "PackedSequence":
        return self.to(dtype=_dt.int16)

    def char(self) -> "PackedSequence":
        return self.to(dtype=_dt.int8)

    def byte(self) -> "PackedSequence":
        return self.to(dtype=_dt.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


PackedSequence.__module__ = "torchlike.nn.utils.rnn"


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should "
                "never be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def batch_sizes_tuple(batch_sizes: Tensor) -> tuple:
    """The host values of ``batch_sizes`` (static for the kernels)."""
    return tuple(int(b) for b in batch_sizes.tolist())


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """Mirrors ``torch.nn.utils.rnn.invert_permutation``."""
    if permutation is None:
        return None
    from ... import argsort
    return argsort(permutation)


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Mirrors ``torch.nn.utils.rnn.pack_padded_sequence``: packs a padded batch (T, B, *)
    (``batch_first``: (B, T, *)) of sequences of the given ``lengths``. With
    ``enforce_sorted=False`` the batch is sorted by decreasing length first and the
    permutation is kept in ``sorted_indices``. Lengths must be known on the host."""
    from ... import as_tensor, int64, sort
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=int64, device="cpu")
    else:
        lengths = lengths.to(dtype=int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    lens = [int(v) for v in lengths.tolist()]
    if lens and min(lens) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability.")
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    if len(lens) != input.shape[batch_dim]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={input.shape[batch_dim]})")
    if lens and lens[0] > input.shape[time_dim]:
        raise RuntimeError(f"a sequence length ({lens[0]}) is larger than the padded input's "
                           f"time dimension ({input.shape[time_dim]})")
    bs = tuple(sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0))
    data = call_op("_pack_padded_sequence", input, bs, batch_first)
    batch_sizes = as_tensor(list(bs), dtype=int64, device="cpu")
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """Mirrors ``torch.nn.utils.rnn.pad_packed_sequence``: the inverse of
    ``pack_padded_sequence``; returns ``(padded, lengths)``, in the original batch order."""
    from ... import as_tensor, int64
    bs = batch_sizes_tuple(sequence.batch_sizes)
    max_seq_length = len(bs)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        max_seq_length = total_length
    padded = call_op("_pad_packed_sequence", sequence.data, bs, batch_first,
                     float(padding_value), max_seq_length)
    b_max = bs[0] if bs else 0
    lengths = as_tensor([sum(1 for b in bs if b > i) for i in range(b_max)], dtype=int64)
    if sequence.unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded.index_select(batch_dim, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices.cpu()])
    return padded, lengths


def pad_sequence(sequences: Tensor | list[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Mirrors ``torch.nn.utils.rnn.pad_sequence``: stacks sequences of different lengths
    (L_i, *) into (T, B, *) (``batch_first``: (B, T, *)), padding on ``padding_side``."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    return call_op("_pad_sequence", list(sequences), batch_first, float(padding_value),
                   padding_side)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor,
                   batch_first: bool = False) -> list[Tensor]:
    """Mirrors ``torch.nn.utils.rnn.unpad_sequence``: the list of unpadded sequences.

    Difference: PyTorch transposes ``padded_sequences`` in place when
    ``batch_first=False``; here the input is left unchanged."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lens = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    if len(lens) != padded_sequences.shape[0]:
        raise ValueError("zip() argument 2 is shorter than argument 1"
                         if len(lens) < padded_sequences.shape[0]
                         else "zip() argument 2 is longer than argument 1")
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lens)]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Mirrors ``torch.nn.utils.rnn.pack_sequence``: packs a list of sequences (L_i, *)."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Mirrors ``torch.nn.utils.rnn.unpack_sequence``: the list of sequences."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
