"""``paddle.io``: datasets, samplers and the DataLoader (read in the calling process)."""
from .dataloader.batch_sampler import BatchSampler, DistributedBatchSampler
from .dataloader.collate import default_collate_fn, default_convert_fn  # noqa: F401
from .dataloader.dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset,
                                 IterableDataset, Subset, TensorDataset, random_split)
from .dataloader.sampler import (RandomSampler, Sampler, SequenceSampler, SubsetRandomSampler,
                                 WeightedRandomSampler)
from .reader import DataLoader, get_worker_info

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
    "BatchSampler", "DistributedBatchSampler", "DataLoader", "get_worker_info", "Sampler",
    "SequenceSampler", "RandomSampler", "WeightedRandomSampler", "random_split", "Subset",
    "SubsetRandomSampler", "ConcatDataset",
]


from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
