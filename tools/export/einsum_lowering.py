"""torch.einsum of two operands that is one batched matrix product, written as the permutes,
transposes and matmul a transformer would write by hand: 'bhqd,bhkd->bhqk' is
q @ k.transpose(-2, -1), 'bhqk,bhkd->bhqd' is p @ v. PyTorch's own einsum reaches the ATen
capture as unsqueezes, 5-d permutes and a bmm of flattened batch dims, which neither keeps a
symbolic batch nor reads as attention. Other equations are left to PyTorch.
"""
import torch


def _letters(equation, count):
    """The operands' and the output's index letters, or None unless the equation has `count`
    operands, an explicit output, no ellipsis and no letter twice in one term."""
    if "->" not in equation or "." in equation:
        return None
    inputs, output = equation.replace(" ", "").split("->")
    terms = inputs.split(",")
    if len(terms) != count or any(len(set(t)) != len(t) for t in terms + [output]):
        return None
    return terms, output


def as_matmul(equation, a, b):
    """einsum(equation, a, b) as permute/transpose + matmul + permute, or None where it is not
    one matrix product per batch element (each of the row, column and summed index one letter,
    every other letter in both operands and the output)."""
    letters = _letters(equation, 2)
    if letters is None or a.dim() != len(letters[0][0]) or b.dim() != len(letters[0][1]):
        return None
    (ta, tb), out = letters
    summed = [c for c in ta if c in tb and c not in out]
    rows = [c for c in ta if c not in tb]
    cols = [c for c in tb if c not in ta]
    batch = [c for c in out if c in ta and c in tb]
    if (len(summed) != 1 or len(rows) != 1 or len(cols) != 1 or set(out) != set(
            batch + rows + cols) or len(batch) + 2 != len(ta) or len(batch) + 2 != len(tb)):
        return None
    # A right operand summed over its last dim as attention's keys are written: laid out
    # (batch, cols, summed), then k.transpose(-2, -1); any other (values) permuted directly.
    if tb[-1] == summed[0]:
        right = _permute(b, tb, batch + cols + summed).transpose(-2, -1)
    else:
        right = _permute(b, tb, batch + summed + cols)
    y = _arrange(a, ta, batch + rows + summed) @ right
    return _arrange(y, "".join(batch + rows + cols), list(out))


def _order(have, want):
    return [have.index(c) for c in want]


def _permute(x, have, want):
    """x with its dims (named by `have`) in the order `want`: x itself, or a permute."""
    order = _order(have, want)
    return x if order == list(range(len(order))) else x.permute(order)


def _arrange(x, have, want):
    """As _permute, with a swap of the last two dims written as a transpose."""
    order = _order(have, want)
    n = len(order)
    if n >= 2 and order == list(range(n - 2)) + [n - 1, n - 2]:
        return x.transpose(-2, -1)
    return _permute(x, have, want)


def lower(func, args, kwargs):
    """The value of an einsum call lowered by as_matmul, or None to call torch's."""
    if func is not torch.functional.einsum or kwargs or not args or not isinstance(args[0], str):
        return None
    operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    if len(operands) != 2 or not all(isinstance(t, torch.Tensor) for t in operands):
        return None
    return as_matmul(args[0], *operands)
