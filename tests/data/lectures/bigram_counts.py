# makemore part 1 style: bigram counts, normalisation and sampling with a Generator
import torch

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia",
         "harper", "evelyn", "abigail", "emily", "elizabeth", "mila", "ella", "avery",
         "sofia", "camila", "aria", "scarlett", "victoria", "madison", "luna", "grace",
         "chloe", "penelope", "layla", "riley", "zoey", "nora", "lily", "eleanor",
         "hannah", "lillian", "addison", "aubrey", "ellie", "stella", "natalie", "zoe",
         "leah", "hazel", "violet", "aurora", "savannah", "audrey", "brooklyn", "bella",
         "claire", "skylar", "lucy", "paisley", "everly", "anna", "caroline", "nova",
         "genesis", "emilia", "kennedy", "samantha", "maya", "willow", "kinsley", "naomi"]
print(len(words), min(len(w) for w in words), max(len(w) for w in words))

chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)
print(V, ''.join(chars))

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1
print(N[0])
print(N.sum(), N.max(), N.dtype)
print(N[stoi['a']].argmax().item(), itos[N[stoi['a']].argmax().item()])

p = N[0].float()
p = p / p.sum()
print(p)
g = torch.Generator().manual_seed(2147483647)
ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
print(ix, itos[ix])

g = torch.Generator().manual_seed(2147483647)
pr = torch.rand(3, generator=g)
pr = pr / pr.sum()
print(pr)
print(torch.multinomial(pr, num_samples=20, replacement=True, generator=g))

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P.shape, P[0].sum().item())
print(P.sum(1)[:5])

g = torch.Generator().manual_seed(2147483647)
for i in range(8):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print(''.join(out))

log_likelihood = 0.0
n = 0
for w in words[:3]:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        prob = P[stoi[ch1], stoi[ch2]]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
        print(f'{ch1}{ch2}: {prob:.4f} {logprob:.4f}')
print(f'{log_likelihood=}')
nll = -log_likelihood
print(f'{nll=}')
print(f'{nll/n}')
