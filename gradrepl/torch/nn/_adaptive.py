"""``AdaptiveLogSoftmaxWithLoss``: torch's module, written with the dialect's tensor ops in
torch's order (the head and the tail projections initialised as torch does, in order)."""
from __future__ import annotations

from collections import namedtuple

from . import _more_common as C
from .modules import Linear, Module, ModuleList, Sequential

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _F():
    from . import functional as F

    return F


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // div_value ** (i + 1))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, dtype=dtype),
                                        Linear(hsz, osz, bias=False, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        F = _F()
        td = target_.dim()
        if td == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif td == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = td > 0
        input = input_ if batched else input_.unsqueeze(0)  # noqa: A001
        target = target_ if batched else target_.unsqueeze(0)
        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low, high = cutoff_values[i], cutoff_values[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, rows, target[mask])
            else:
                rel = target[mask] - low
                subset = input.index_select(0, rows)
                cluster_output = self.tail[i - 1](subset)
                gather_inds.index_fill_(0, rows, self.shortlist_size + i - 1)
                logprob = F.log_softmax(cluster_output, dim=1)
                local = logprob.gather(1, rel.unsqueeze(1))
                output.index_copy_(0, rows, local.squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):  # noqa: A002
        F = _F()
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i in range(len(self.cutoffs) - 1):
            start, stop = self.cutoffs[i], self.cutoffs[i + 1]
            logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):  # noqa: A002
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):  # noqa: A002
        from .. import _ops

        head_output = self.head(input)
        output = _ops.argmax(head_output, dim=1)
        not_in = output >= self.shortlist_size
        if not bool(not_in.any()):
            return output
        if bool(not_in.all()):
            return _ops.argmax(self._get_full_log_prob(input, head_output), dim=1)
        lp = self._get_full_log_prob(input[not_in], head_output[not_in])
        output[not_in] = _ops.argmax(lp, dim=1)
        return output


__all__ = ["AdaptiveLogSoftmaxWithLoss"]
C.name_classes("torch.nn.modules.adaptive", [AdaptiveLogSoftmaxWithLoss])
FUNCTIONAL: dict = {}
