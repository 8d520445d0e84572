# A general checkpoint (epoch, model and optimizer state_dicts, a 0-d loss) through torch.save /
# torch.load to a buffer; a strided view; one Parameter saved twice stays one object.
import torch, torch.nn as nn, torch.optim as optim, io, sys
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
x = torch.randn(5, 3); loss = net(x).pow(2).mean(); loss.backward(); opt.step()
buf = io.BytesIO()
torch.save({'epoch': 5, 'model_state_dict': net.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': loss}, buf)
buf.seek(0)
ck = torch.load(buf)
print(ck['epoch'], ck['loss'], ck['optimizer_state_dict'])
net2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)); opt2 = optim.SGD(net2.parameters(), lr=0.1)
print(net2.load_state_dict(ck['model_state_dict'])); opt2.load_state_dict(ck['optimizer_state_dict'])
print(opt2.state_dict()['param_groups'], net2.train())
print(torch.load(io.BytesIO(buf.getvalue()), weights_only=False)['loss'])
torch.save(torch.arange(6).reshape(2,3)[:, 1], buf2 := io.BytesIO()); buf2.seek(0); print(torch.load(buf2))
p = nn.Parameter(torch.ones(2)); b3 = io.BytesIO(); torch.save([p, p], b3); b3.seek(0); l = torch.load(b3); print(l, l[0] is l[1])
