"""``torch.nn.utils.prune`` (the Pruning tutorial): a pruned parameter ``name`` becomes the
parameter ``name + '_orig'`` and the buffer ``name + '_mask'``; a forward pre-hook (the pruning
method object itself) sets the plain attribute ``name = orig * mask`` before every forward.
Pruning again combines the masks through a ``PruningContainer``; ``remove`` makes the pruned
tensor the parameter again. The masks are computed as torch 2.13 computes them (the random
method draws ``rand_like``, the L1/Ln methods take ``topk`` of the magnitudes or norms), so the
same seed prunes the same entries."""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod

from ... import _creation, _ops
from ..._base import raw
from ...linalg import vector_norm

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _count(amount, tensor_size):
    """How many entries (or channels) ``amount`` prunes: a fraction of them, or a number."""
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0
                                                          or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_against(amount, tensor_size):
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_dim(t, dim):
    if dim >= raw(t).ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {list(raw(t).shape)}")


class BasePruningMethod(ABC):
    """A pruning method; an instance is also the module's forward pre-hook."""

    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t`` given the mask so far."""

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return orig * mask.to(dtype=orig.dtype)

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        def combined_method():
            old = None
            found = 0
            hooks_to_remove = []
            for k, hook in module._forward_pre_hooks.items():
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                    old = hook
                    hooks_to_remove.append(k)
                    found += 1
            if found > 1:
                raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor "
                                     f"{name} of module {module}. Use a PruningContainer.")
            for k in hooks_to_remove:
                del module._forward_pre_hooks[k]
            method = cls(*args, **kwargs)
            method._tensor_name = name
            if old is not None:
                if isinstance(old, PruningContainer):
                    old.add_pruning_method(method)
                    method = old
                else:
                    container = PruningContainer(old)
                    container.add_pruning_method(method)
                    method = container
            return method

        method = combined_method()
        orig = getattr(module, name)
        if importance_scores is not None and raw(importance_scores).shape != raw(orig).shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter "
                                 f"{name} of {module}")
        if not isinstance(method, PruningContainer):
            module.register_parameter(name + "_orig", orig)
            module._parameters[name] = None
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(
                memory_format=_contiguous())
        scores = importance_scores if importance_scores is not None else orig
        try:
            mask = method.compute_mask(scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        scores = importance_scores if importance_scores is not None else t
        default_mask = default_mask if default_mask is not None else _creation.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        raw(orig)[...] = raw(weight)
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _contiguous():
    from ... import contiguous_format

    return contiguous_format


class PruningContainer(BasePruningMethod):
    """Successive pruning of one tensor: each method prunes what the previous ones left."""

    def __init__(self, *args):
        self._pruning_methods = tuple()
        if not isinstance(args, (list, tuple)):
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            keep = default_mask == 1
            partial = method.compute_mask(t[keep], default_mask=default_mask[keep])
            new_mask = default_mask.clone(memory_format=_contiguous())
            new_mask[keep] = partial.to(dtype=new_mask.dtype)
            return new_mask
        if kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to "
                                     "have the attribute `dim` defined.")
            n_dims = raw(t).ndim
            dim = method.dim if method.dim >= 0 else n_dims + method.dim
            keep_channel = _ops.sum(default_mask, [d for d in range(n_dims) if d != dim]) != 0
            index = [slice(None)] * n_dims
            index[dim] = keep_channel
            index = tuple(index)
            partial = method.compute_mask(t[index], default_mask=default_mask[index])
            new_mask = default_mask.clone(memory_format=_contiguous())
            new_mask[index] = partial.to(dtype=new_mask.dtype)
            return new_mask
        if kind == "global":
            return method.compute_mask(t, default_mask=default_mask)
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")


class Identity(BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _unstructured_mask(amount, t, default_mask, pick):
    """The default mask with the ``k`` entries ``pick(k)``'s indices name set to 0 (torch's
    RandomUnstructured / L1Unstructured: ``k`` from ``amount``, checked against t's size)."""
    size = raw(t).size
    _validate_against(amount, size)
    k = _count(amount, size)
    mask = default_mask.clone(memory_format=_contiguous())
    if k != 0:
        mask.view(-1)[pick(k).indices] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(self.amount, t, default_mask,
                                  lambda k: _ops.topk(_creation.rand_like(t).view(-1), k))

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(self.amount, t, default_mask,
                                  lambda k: _ops.topk(_ops.abs(t).view(-1), k, largest=False))

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t, dim, channels, default_mask):
    mask = _creation.zeros_like(t)
    index = [slice(None)] * raw(t).ndim
    index[dim] = channels
    mask[tuple(index)] = 1
    return mask * default_mask


class RandomStructured(BasePruningMethod):
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_dim(t, self.dim)
        size = raw(t).shape[self.dim]
        _validate_against(self.amount, size)
        k = _count(self.amount, size)
        keep = size - k
        if k == 0:
            return default_mask
        prob = _creation.rand(size)
        threshold = _ops.kthvalue(prob, k=k).values
        return _channel_mask(t, self.dim, prob > threshold, default_mask) if keep else \
            _channel_mask(t, self.dim, prob > 2, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_dim(t, self.dim)
        size = raw(t).shape[self.dim]
        _validate_against(self.amount, size)
        k = _count(self.amount, size)
        keep = size - k
        nd = raw(t).ndim
        dim = self.dim if self.dim >= 0 else nd + self.dim
        norm = vector_norm(t, ord=self.n, dim=[d for d in range(nd) if d != dim])
        top = _ops.topk(norm, k=keep, largest=True)
        if k == 0:
            return default_mask
        return _channel_mask(t, dim, top.indices, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if raw(default_mask).shape != raw(self.mask).shape:
            raise AssertionError("default_mask and the custom mask differ in shape")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """One method over all the listed tensors at once (their entries ranked together)."""
    if not isinstance(parameters, (list, tuple)) and not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = _ops.cat([
        _ops.reshape(importance_scores.get((module, name), getattr(module, name)), (-1,))
        for module, name in parameters])
    masks = _ops.cat([
        _ops.reshape(getattr(module, name + "_mask", _creation.ones_like(getattr(module, name))),
                     (-1,))
        for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final = container.compute_mask(scores, masks)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = raw(param).size
        custom_from_mask(module, name, mask=final[pointer:pointer + n].view_as(param))
        pointer += n


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


for _cls in (BasePruningMethod, PruningContainer, Identity, RandomUnstructured, L1Unstructured,
             RandomStructured, LnStructured, CustomFromMask):
    _cls.__module__ = "torch.nn.utils.prune"
del _cls
