import torch
c = torch.backends.cudnn
print(c.is_available(), c.enabled, c.benchmark, c.deterministic, c.version(), c.allow_tf32)
print(torch.backends.mkldnn.is_available(), torch.backends.cuda.is_built(), torch.backends.mps.is_available(), torch.backends.openmp.is_available())
with torch.backends.cudnn.flags(enabled=False, allow_tf32=False) as f:
    print(f, torch.backends.cudnn.enabled, torch.backends.cudnn.allow_tf32)
print(torch.backends.cudnn.enabled, torch.backends.cudnn.allow_tf32)
torch.backends.cudnn.deterministic = True; print(torch.backends.cudnn.deterministic)
torch.backends.cudnn.deterministic = False
