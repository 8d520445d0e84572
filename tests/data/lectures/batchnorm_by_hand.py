# makemore part 3 style: kaiming-scaled init, batch norm by hand, running statistics
import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
vocab_size, block_size, n_embd, n_hidden = 27, 3, 10, 100
Xtr = torch.randint(0, vocab_size, (500, block_size), generator=g)
Ytr = (Xtr.sum(1) * 5) % vocab_size
Xdev = torch.randint(0, vocab_size, (100, block_size), generator=g)
Ydev = (Xdev.sum(1) * 5) % vocab_size

C = torch.randn((vocab_size, n_embd), generator=g)
W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
b2 = torch.randn(vocab_size, generator=g) * 0
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

print('expected initial loss', -torch.tensor(1 / 27.0).log().item())
print(W1.std().item(), (5 / 3) / (30 ** 0.5))

max_steps = 150
batch_size = 32
lossi = []
for i in range(max_steps):
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 100 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 15 == 0:
        print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
    lossi.append(loss.log10().item())

print('saturated', (h.abs() > 0.99).float().mean().item())
print(hpreact.mean().item(), hpreact.std().item())

with torch.no_grad():
    emb = C[Xtr]
    hpreact = emb.view(emb.shape[0], -1) @ W1
    bnmean = hpreact.mean(0, keepdim=True)
    bnstd = hpreact.std(0, keepdim=True)
print(bnmean[0, :5])
print(bnmean_running[0, :5])
print(bnstd[0, :5])
print(bnstd_running[0, :5])

@torch.no_grad()
def split_loss(split):
    x, y = {'train': (Xtr, Ytr), 'val': (Xdev, Ydev)}[split]
    emb = C[x]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, y)
    print(split, loss.item(), loss.requires_grad)

split_loss('train')
split_loss('val')
