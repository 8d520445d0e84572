# The tensor tutorials' calls (creation, attributes, indexing, cat, matmul/mul with out=,
# in-place ops, the NumPy bridge) and torch's out= rules: resize (with its warning), casting,
# refusal under autograd.
import os
import warnings

import numpy as np
import torch

torch.manual_seed(0)
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
x_np = torch.from_numpy(np.array(data))
print(f"Ones Tensor: \n {torch.ones_like(x_data)} \n")
print(f"Random Tensor: \n {torch.rand_like(x_data, dtype=torch.float)} \n")
shape = (2, 3,)
print(torch.rand(shape), torch.ones(shape), torch.zeros(shape), sep="\n")
tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
if torch.cuda.is_available() & (torch.device('cuda').index is not None):
    tensor = tensor.to('cuda')
tensor = torch.ones(4, 4)
print('First row: ', tensor[0])
print('First column: ', tensor[:, 0])
print('Last column:', tensor[..., -1])
tensor[:, 1] = 0
print(torch.cat([tensor, tensor, tensor], dim=1))
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(tensor)
r = torch.matmul(tensor, tensor.T, out=y3)
print(r is y3, torch.equal(y1, y3), y3._version)
z3 = torch.rand_like(tensor)
print(torch.mul(tensor, tensor, out=z3) is z3, z3)
agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
tensor.add_(5)
print(tensor)
t = torch.ones(5)
n = t.numpy()
t.add_(1)
print(f"t: {t}\nn: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}\nn: {n}")


def show(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            print(repr(f()))
        except Exception as e:  # noqa: BLE001
            print(type(e).__name__ + ":", e)
    for w in caught:
        print(w.category.__name__, os.path.basename(w.filename), w.lineno, str(w.message))


a = torch.arange(6.).reshape(2, 3)
show(lambda: torch.add(a, 1, out=torch.zeros(3)))
show(lambda: torch.add(a, 1, out=torch.empty(0)))
show(lambda: torch.sum(a, 0, out=torch.zeros(2)))
show(lambda: torch.mean(a, 1, out=torch.empty(2)))
show(lambda: torch.cat([a, a], out=torch.empty(1, dtype=torch.float64)))
show(lambda: torch.stack([a, a], dim=2, out=torch.empty(0)))
show(lambda: torch.exp(a, out=torch.empty(2, 3, dtype=torch.float64)))
show(lambda: torch.sub(a, 1, alpha=2, out=torch.empty(2, 3)))
show(lambda: torch.eq(a, 1, out=torch.empty(2, 3)))
show(lambda: torch.add(a, 1, out=torch.zeros(2, 3, dtype=torch.long)))
show(lambda: torch.add(a, 1, out=torch.zeros(2, 3, dtype=torch.bool)))
show(lambda: torch.mean(a, out=torch.zeros((), dtype=torch.long)))
show(lambda: torch.mm(a, a.T, out=torch.zeros(2, 2, dtype=torch.float64)))
show(lambda: torch.matmul(a, a.T, out=torch.zeros(2, 2, dtype=torch.float64)))
show(lambda: torch.add(torch.ones(2, dtype=torch.long), 1, out=torch.zeros(2, dtype=torch.int32)))
w = torch.ones(2, 3, requires_grad=True)
show(lambda: torch.mul(w, 2, out=torch.zeros(2, 3)))
show(lambda: torch.mul(a, 2, out=torch.zeros(2, 3, requires_grad=True)))
with torch.no_grad():
    show(lambda: torch.mul(w, 2, out=torch.zeros(2, 3)))
base = torch.zeros(2, 3)
view = base[1]
torch.add(torch.ones(3), 2, out=view)
print(base, view._version, base._version)
