"""``torch.einsum`` as ATen computes it (torch 2.13's ``at::native::einsum``), out of the
dialect's own ops, so the values carry the same bits and the graph the same nodes.

Every operand is aligned to one layout, the output's labels first, then the contracted ones
(a repeated label is a ``diagonal`` moved back into place, a missing one an ``unsqueeze``, then
one ``permute``). Operands are contracted left to right (torch's order when opt_einsum is not
installed, as on this machine: ``torch.backends.opt_einsum.is_available()`` is False), each pair
by ``sumproduct_pair``: dims only one side has are summed first, then permute, reshape, ``bmm``,
view and permute back (a plain ``mul`` when nothing is contracted). One operand alone is summed
over its contracted dims. So ``einsum('ik,kj->ij', a, b)`` is ViewBackward0 over
PermuteBackward0 over ViewBackward0 over BmmBackward0, as real torch names it.
"""
from __future__ import annotations

_LETTERS = 26
_TOTAL = 2 * _LETTERS
_ELLIPSIS = _TOTAL


def _subscript(c):
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + _LETTERS


def _label(s):
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _shape(t):
    from ._base import raw

    return raw(t).shape


def _parse_inputs(lhs, num_ops):
    op_labels = [[] for _ in range(num_ops)]
    curr, ell_in_input, i = 0, False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {curr} for which an "
                                   f"ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {curr} that is not part "
                                   f"of any ellipsis")
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            ell_in_input = False
        else:
            if not (c.isascii() and c.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                                   f"equation string, subscripts must be in [a-zA-Z]")
            op_labels[curr].append(_subscript(c))
        i += 1
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return op_labels


def _sumproduct_pair(left, right, sum_dims, keepdim):
    """``(left * right).sum(sum_dims)`` by permute, reshape, bmm (ATen's sumproduct_pair)."""
    from . import _ops as O

    if not sum_dims:
        return O.mul(left, right)
    dim = len(_shape(left))
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = _shape(left)[i] != 1, _shape(right)[i] != 1
        if i in summed:
            if sl and sr:
                if _shape(left)[i] != _shape(right)[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= _shape(left)[i]
            elif sl:
                left = O.sum(left, i, True)
            elif sr:
                right = O.sum(right, i, True)
        elif sl and sr:
            if _shape(left)[i] != _shape(right)[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= _shape(left)[i]
        elif sl:
            lo.append(i)
            lo_size *= _shape(left)[i]
        else:
            ro.append(i)
            ro_size *= _shape(right)[i]
    out_size = ([_shape(left)[d] for d in lro] + [_shape(left)[d] for d in lo]
                + [1] * len(sum_dims) + [_shape(right)[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for k, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = k
    left = O.reshape(O.permute(left, lperm), (lro_size, lo_size, sum_size))
    right = O.reshape(O.permute(right, rperm), (lro_size, sum_size, ro_size))
    result = O.permute(O.view(O.bmm(left, right), tuple(out_size)), operm)
    if not keepdim:
        sizes = [s for i, s in enumerate(_shape(result)) if i not in summed]
        result = O.view(result, tuple(sizes))
    return result


def einsum(equation, operands):
    from . import _ops as O

    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, num_ops)

    label_count = [0] * _TOTAL
    ell_num_dim = 0
    for i, labels in enumerate(op_labels):
        ndims = len(_shape(operands[i]))
        nlabels = len(labels)
        has_ell = False
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
                has_ell = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[s] += 1
        if (nlabels > ndims) if has_ell else (nlabels != ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than the number of dimensions (" if has_ell
                   else "does not match the number of dimensions (")
                + f"{ndims}) for operand {i}" + ("" if has_ell else " and no ellipsis was given"))

    perm_of = [-1] * _TOTAL
    perm_index = ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(_TOTAL):
            if label_count[s] == 1:
                perm_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) "
                                       "was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of "
                                       "any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not (c.isascii() and c.isalpha()):
                    raise RuntimeError(f"einsum(): invalid subscript given at index "
                                       f"{len(lhs) + 2 + i} in the equation string, "
                                       f"subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if not (label_count[s] > 0 and perm_of[s] == -1):
                    why = (" appears more than once in the output" if perm_of[s] > -1
                           else " does not appear in the equation for any input operand")
                    raise RuntimeError(f"einsum(): output subscript {c}{why}")
                perm_of[s] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_TOTAL):
        if label_count[s] > 0 and perm_of[s] == -1:
            perm_of[s] = perm_index
            perm_index += 1

    label_size = [1] * _TOTAL
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, labels in enumerate(op_labels):
        op = operands[i]
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = len(_shape(operands[i])) - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = _shape(op)[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}"
                                f"has size {size} which does not broadcast with previously "
                                f"seen ellipsis with size {ell_sizes[j]} for the respective "
                                f"dimension")
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of[s]] == -1:
                size = _shape(op)[dim]
                if size != 1:
                    if label_size[s] != 1 and label_size[s] != size:
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {size} for operand {i} "
                            f"which does not broadcast with previously seen size "
                            f"{label_size[s]}")
                    label_size[s] = size
                    dim_counts[perm_of[s]] += 1
                permutation[perm_of[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, moved back to the first one's place
                prev = permutation[perm_of[s]]
                if _shape(op)[dim] != _shape(op)[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {_shape(op)[dim]} != {_shape(op)[prev]}")
                op = O.movedim(O.diagonal(op, 0, prev, dim), -1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = O.unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(O.permute(op, permutation))

    while len(ops) > 1:  # left to right, each result put in front
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm_index):
            if _shape(a)[d] != 1 and _shape(b)[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if _shape(a)[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif _shape(b)[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = O.sum(a, a_sum, True)
        if b_sum:
            b = O.sum(b, b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims, True))

    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return O.view(ops[0], tuple(_shape(ops[0])[:out_num_dim]))
        return O.sum(ops[0], list(range(out_num_dim, perm_index)))
    return ops[0]
