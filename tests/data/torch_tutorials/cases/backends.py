import torch
c = torch.backends.cudnn
print(c.is_available(), c.enabled, c.benchmark, c.deterministic, c.version(), c.allow_tf32)
print(torch.backends.mkldnn.is_available(), torch.backends.cuda.is_built(), torch.backends.mps.is_available(), torch.backends.openmp.is_available())
torch.backends.cudnn.deterministic = True; print(torch.backends.cudnn.deterministic)
