"""Every tensor snippet in the seed notes (/shared/seeds), run as written with ``torch``
bound to torchlike, printing what PyTorch prints.

Each snippet's source is executed twice, once with ``torch`` = torchlike and once with the
real PyTorch; the captured stdout must be identical after torchlike's ``torchlike.``
prefixes are written as ``torch.``. Snippets that draw random numbers only print
deterministic facts (sizes, dtypes), since the generators differ. Without PyTorch the
torchlike run still has to succeed and print the expected text where the seed shows it.
"""

from __future__ import annotations

import contextlib
import io
import textwrap

import numpy as np
import pytest

import torchlike

from ._parity import HAVE_TORCH, torch

SNIPPETS = {
    # seed 000: 2.2 Tensor construction
    "tensor_from_list": """
        print(torch.tensor([[1., -1.], [1., -1.]]))
        print(torch.tensor(np.array([[1, 2, 3], [4, 5, 6]])))
    """,
    # seed 000: 2.2.1 view
    "view_sizes": """
        grad_output = torch.randn(2, 3)
        grad_output = grad_output.view(-1)
        print(grad_output.shape)
        data = torch.randn(3, 4, 5)
        shape = data.shape
        data = data.view(data.shape[0], -1)
        print(shape, data.shape)
        x = torch.randn(4, 4)
        print(x.size())
        y = x.view(16)
        print(y.size())
        z = x.view(-1, 8)  # the size -1 is inferred from other dimensions
        print(z.size())
        input = (torch.randn(3, 5),)
        print(input[0].size(0), input[0].size(1))
    """,
    # seed 000: 2.2.2.2 nonzero
    "nonzero_as_tuple": """
        t = torch.Tensor([1, 2, 3])
        print ((t == 2).nonzero(as_tuple=True)[0])
    """,
    # seed 000: 2.2.2.3 sort, then .double()
    "sort_tuple": """
        grad_output = torch.tensor([0.5, -1.0, 2.0, 0.25, -3.0])
        grad_output_sorted, grad_output_indices = torch.sort(grad_output)
        grad_output_sorted = grad_output_sorted.double()
        print(grad_output_sorted)
        print(grad_output_indices)
    """,
    # seed 000: 2.2.2.5 where (with the seed's printed x)
    "where": """
        x = torch.tensor([[-0.4620,  0.3139],
                          [ 0.3898, -0.7197],
                          [ 0.0478, -0.1657]])
        y = torch.ones(3, 2)
        print(x)
        print(torch.where(x > 0, x, y))
        grad_output_sorted = torch.tensor([-3.0, -1.0, 0.25, 0.5, 2.0])
        max_75, min_75 = 1.0, -2.0
        grad_output_sorted = torch.where(grad_output_sorted > max_75, 0., grad_output_sorted)
        grad_output_sorted = torch.where(grad_output_sorted < min_75, 0., grad_output_sorted)
        print(grad_output_sorted)
    """,
    # seed 000: 2.2.2.6 cat to remove an element
    "cat_remove": """
        i = 2
        T = torch.tensor([1,2,3,4,5])
        T = torch.cat([T[0:i], T[i+1:-1]])
        print(T)
    """,
    # seed 000: 2.2.3.2 max/abs/unsqueeze/dim/shape
    "abs_max_unsqueeze": """
        tensor = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4) - 10
        x_max, _ = tensor.view(-1, tensor.shape[tensor.dim() - 1]).abs().max(1)
        x_max = x_max.unsqueeze(1)
        print(x_max.shape)
        print(x_max)
    """,
    # seed 000: 2.2.3.3 dot / mv / mm
    "dot_mv_mm": """
        a = torch.tensor([1., 2., 3.])
        m = torch.tensor([[1., 0., 2.], [0., 1., 0.]])
        print(torch.dot(a, a))
        print(torch.mv(m, a))
        print(torch.mm(m, m.t()))
    """,
    # seed 000: 2.8 topk and numel
    "topk_numel": """
        data = torch.arange(2 * 512, dtype=torch.float32).reshape(2, 512) - 300
        K = torch.numel(data) // data.shape[0] * 4 // 256
        _, index = torch.topk(data.abs(), K, dim = -1, largest = True, sorted = True)
        print(K, index)
    """,
    # seed 002: default dtype, devices
    "default_dtype_device": """
        print(torch.zeros(2).dtype, torch.get_default_dtype())
        torch.set_default_dtype(torch.float64)
        print(torch.zeros(2).dtype, torch.tensor([1.5]).dtype)
        torch.set_default_dtype(torch.float32)
        print(torch.device('cuda:0'), torch.device('cpu'), torch.device('cuda'))
        print(repr(torch.device('cuda:0')))
    """,
    # seed 002: strides and views
    "strides_views": """
        x = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
        print(x.stride())
        print(x.t().stride())
        t = torch.rand(4, 4)
        b = t.view(2, 8)
        print(t.storage().data_ptr() == b.storage().data_ptr())
        b[0][0] = 3.14
        print(t[0][0].item() == b[0][0].item(), round(t[0][0].item(), 2))
        base = torch.tensor([[0, 1],[2, 3]])
        print(base.is_contiguous())
        t = base.transpose(0, 1)
        print(t.is_contiguous())
        c = t.contiguous()
        print(c.is_contiguous(), c)
    """,
    # seed 002: scatter_ (with reduce) and gather
    "scatter_gather_002": """
        index = torch.tensor([[0, 1]])
        value = 2
        print(torch.zeros(3, 5).scatter_(0, index, value))
        src = torch.arange(1, 11).reshape((2, 5))
        print(src)
        index = torch.tensor([[0, 1, 2, 0]])
        print(torch.zeros(3, 5, dtype=src.dtype).scatter_(0, index, src))
        index = torch.tensor([[0, 1, 2], [0, 1, 4]])
        print(torch.zeros(3, 5, dtype=src.dtype).scatter_(1, index, src))
        print(torch.full((2, 4), 2.).scatter_(1, torch.tensor([[2], [3]]),
                   1.23, reduce='multiply'))
        print(torch.full((2, 4), 2.).scatter_(1, torch.tensor([[2], [3]]),
                   1.23, reduce='add'))
        t = torch.tensor([[1, 2], [3, 4]])
        print(torch.gather(t, 1, torch.tensor([[0, 0], [1, 0]])))
    """,
    # seed 002: split / tensor_split
    "split_tensor_split": """
        a = torch.arange(10).reshape(5, 2)
        print(torch.split(a, 2))
        print(torch.split(a, [1, 4]))
        x = torch.arange(8)
        print(torch.tensor_split(x, 3))
        x = torch.arange(7)
        print(torch.tensor_split(x, 3))
        print(torch.tensor_split(x, (1, 6)))
    """,
    # seed 002: repeat / repeat_interleave / expand
    "repeat_expand": """
        x = torch.tensor([1, 2, 3])
        print(x.repeat(4, 2))
        print(x.repeat(4, 2, 1).size())
        print(x.repeat_interleave(2))
        y = torch.tensor([[1, 2], [3, 4]])
        print(torch.repeat_interleave(y, 2))
        print(torch.repeat_interleave(y, 3, dim=1))
        print(torch.repeat_interleave(y, torch.tensor([1, 2]), dim=0))
        print(torch.repeat_interleave(y, torch.tensor([1, 2]), dim=0, output_size=3))
        x = torch.tensor([[1], [2], [3]])
        print(x.size())
        print(x.expand(3, 4))
        print(x.expand(-1, 4))
        x = torch.tensor([1, 2, 3])
        print(x.repeat(6, 1))
        print(x.expand(6, 3))
    """,
    # seed 004: gather
    "gather_004": """
        a = torch.arange(1., 10.).view(3,3)
        print(a)
        index = torch.LongTensor([
            [1, 1, 1, 1, 1],
            [2, 0, 1, 2, 0],
            [1, 2, 0, 0, 2],
        ])
        print(a.gather(dim=1, index=index))
    """,
    # seed 004: scatter_
    "scatter_004": """
        a = torch.zeros(3, 3)
        print(f'a:\\n{a}')
        src = torch.arange(1., 16.).view(3,5)
        print(f'src:\\n{src}')
        index = torch.LongTensor([
            [1, 1, 1, 1],
            [2, 0, 1, 2],
            [2, 0, 1, 2],
        ])
        a.scatter_(dim=1, index=index, src=src)
        print(f'a:\\n{a}')
    """,
    # seed 000: 1.2 dtypes named in the notes
    "dtypes": """
        for d in (torch.float16, torch.float32, torch.float64, torch.uint8, torch.int8,
                  torch.int16, torch.int32, torch.int64, torch.bool):
            print(d, d.is_floating_point, torch.zeros(1, dtype=d).dtype == d)
        print(torch.rand(2).dtype, torch.normal(torch.zeros(2), 1.0).shape)
        print(torch.chunk(torch.arange(6), 3))
        print(torch.add(torch.tensor([1, 2]), torch.tensor([3, 4])))
    """,
}


def _run(source: str, lib) -> str:
    buf = io.StringIO()
    ns = {"torch": lib, "np": np}
    with contextlib.redirect_stdout(buf):
        exec(textwrap.dedent(source), ns)  # noqa: S102 - the seed's own snippet
    return buf.getvalue()


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_seed_snippet_prints_like_pytorch(name):
    src = SNIPPETS[name]
    try:
        out = _run(src, torchlike)
    finally:
        torchlike.set_default_dtype(torchlike.float32)
    assert out, "snippet printed nothing"
    if not HAVE_TORCH:
        return
    try:
        ref = _run(src, torch)
    finally:
        torch.set_default_dtype(torch.float32)
    assert out.replace("torchlike.", "torch.") == ref


def test_seed_printed_results_literal():
    """The printed results shown in the seeds, as literal text."""
    assert repr(torchlike.tensor([[1., -1.], [1., -1.]])) == (
        "tensor([[ 1., -1.],\n        [ 1., -1.]])")
    assert repr(torchlike.tensor(np.array([[1, 2, 3], [4, 5, 6]]))) == (
        "tensor([[1, 2, 3],\n        [4, 5, 6]])")
    a = torchlike.arange(1., 10.).view(3, 3)
    index = torchlike.LongTensor([[1, 1, 1, 1, 1], [2, 0, 1, 2, 0], [1, 2, 0, 0, 2]])
    assert str(a.gather(dim=1, index=index)) == (
        "tensor([[2., 2., 2., 2., 2.],\n"
        "        [6., 4., 5., 6., 4.],\n"
        "        [8., 9., 7., 7., 9.]])")
    b = torchlike.zeros(3, 3)
    src = torchlike.arange(1., 16.).view(3, 5)
    idx = torchlike.LongTensor([[1, 1, 1, 1], [2, 0, 1, 2], [2, 0, 1, 2]])
    b.scatter_(dim=1, index=idx, src=src)
    assert str(b) == ("tensor([[ 0.,  4.,  0.],\n"
                      "        [ 7.,  8.,  9.],\n"
                      "        [12., 13., 14.]])")
