# makemore part 2 style: learning-rate sweep with torch.linspace and 10**lre
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
X = torch.randint(0, 27, (400, 3), generator=g)
Y = (X[:, 0] * 7 + X[:, 1] * 3 + X[:, 2]) % 27
print(X[:3], Y[:3])

lre = torch.linspace(-3, 0, 100)
lrs = 10 ** lre
print(lre[:5])
print(lrs[:5])
print(lrs[-3:])
print(lre.dtype, lrs.shape)

C = torch.randn((27, 2), generator=g)
W1 = torch.randn((6, 100), generator=g)
b1 = torch.randn(100, generator=g)
W2 = torch.randn((100, 27), generator=g)
b2 = torch.randn(27, generator=g)
parameters = [C, W1, b1, W2, b2]
for p in parameters:
    p.requires_grad = True

lri = []
lossi = []
for i in range(100):
    ix = torch.randint(0, X.shape[0], (32,), generator=g)
    emb = C[X[ix]]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = lrs[i]
    for p in parameters:
        p.data += -lr * p.grad
    lri.append(lre[i])
    lossi.append(loss.item())
    if i % 10 == 0:
        print(i, f'{lr.item():.5f}', f'{loss.item():.4f}')

best = min(range(len(lossi)), key=lambda k: lossi[k])
print('best step', best, lri[best])
t = torch.tensor(lossi)
print(t.argmin(), t.min(), t.mean())
print(torch.stack(lri).view(10, 10).mean(1))

# the equivalent explicit cross entropy
emb = C[X]
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
logits = h @ W2 + b2
counts = logits.exp()
prob = counts / counts.sum(1, keepdim=True)
manual = -prob[torch.arange(X.shape[0]), Y].log().mean()
print(manual.item(), F.cross_entropy(logits, Y).item())
print(torch.isclose(manual, F.cross_entropy(logits, Y)))
