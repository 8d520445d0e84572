"""``paddle.io.dataloader``: datasets, samplers, batch samplers and collating (in-process)."""
