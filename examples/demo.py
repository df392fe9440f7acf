"""A short tour of torchlike: PyTorch-style tensors, views and autograd on JAX.

    python examples/demo.py
"""

import torchlike as torch

# Tensors and dtypes, as in PyTorch
x = torch.tensor([[1., -1.], [1., -1.]])
print(x)
print(torch.tensor([[1, 2, 3], [4, 5, 6]]))

# Views share memory with their base: a write through one is seen by the other
t = torch.zeros(4, 4)
b = t.view(2, 8)
b[0][0] = 3.14
print("t[0][0] after writing through a view:", t[0][0])
print("strides:", t.stride(), t.t().stride(), "contiguous after t():", t.t().is_contiguous())

# Autograd: f(x) = a*x**2 + b*x + c and its first two derivatives
x = torch.tensor(0.0, requires_grad=True)
a, b, c = torch.tensor(1.0), torch.tensor(-2.0), torch.tensor(1.0)
y = a * torch.pow(x, 2) + b * x + c
dy_dx = torch.autograd.grad(y, x, create_graph=True)[0]
print("dy/dx:", dy_dx.data)
d2y_dx2 = torch.autograd.grad(dy_dx, x)[0]
print("d2y/dx2:", d2y_dx2.data)

# backward() accumulates into leaves
w = torch.tensor([[0.0, 0.0], [1.0, 2.0]], requires_grad=True)
y = torch.pow(w, 2) - 2 * w + 1
y.backward(gradient=torch.tensor([[1.0, 1.0], [1.0, 2.0]]))
print("w.grad:", w.grad)
