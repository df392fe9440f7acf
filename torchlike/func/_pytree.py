"""Pytrees as ``torch.func`` sees them, and the argument checks its transforms share.

# Note [Pytrees of tensors]
# ``torch.func`` walks inputs and outputs with PyTorch's pytree rules: tuples, lists,
# dicts (in insertion order), OrderedDicts and namedtuples are containers, everything
# else (tensors, numbers, None) is a leaf. JAX's rules differ (dicts come back sorted,
# None is an empty container, and tensors are themselves pytree nodes, Note [Tensors are
# pytrees]), so the transforms flatten with the small implementation below and hand JAX
# only flat lists of arrays.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .._core.tensor import Tensor

__all__ = ["Spec", "tree_flatten", "tree_unflatten", "broadcast_prefix", "tree_map_tensors",
           "slice_argnums", "replace_args", "normalize_argnums"]


class Spec:
    """The structure of a flattened pytree: a leaf (``kind is None``) or a container
    kind, its context (dict keys, namedtuple type) and its children's specs."""

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind, context=None, children=()):
        self.kind = kind
        self.context = context
        self.children = tuple(children)
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Spec) and self.kind == other.kind and
                self.context == other.context and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, self.children))

    def __repr__(self, indent: int = 0) -> str:
        """As PyTorch's ``TreeSpec`` repr (used in error messages)."""
        if self.kind is None:
            return "*"
        name = self.kind if isinstance(self.kind, str) else self.kind.__name__
        context = list(self.context) if self.kind in ("dict", "OrderedDict") else \
            (None if isinstance(self.kind, str) else self.kind)
        inner = ""
        if self.children:
            indent += 2
            inner = self.children[0].__repr__(indent)
            inner += "," if len(self.children) > 1 else ""
            inner += ",".join("\n" + " " * indent + c.__repr__(indent)
                              for c in self.children[1:])
        return f"TreeSpec({name}, {context}, [{inner}])"

    def pprint(self) -> str:
        """As PyTorch's ``treespec_pprint``: the structure with ``*`` for each leaf."""
        return repr(tree_unflatten([_STAR] * self.num_leaves, self))


class _Star:
    def __repr__(self) -> str:
        return "*"


_STAR = _Star()


def _kind(x):
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)
    if type(x) is tuple or type(x) is list:
        return type(x).__name__
    if type(x) is OrderedDict:
        return "OrderedDict"
    if type(x) is dict:
        return "dict"
    return None


def tree_flatten(tree: Any) -> tuple[list, Spec]:
    """Leaves (left to right) and structure of ``tree`` under PyTorch's rules."""
    leaves: list = []

    def go(x) -> Spec:
        k = _kind(x)
        if k is None:
            leaves.append(x)
            return Spec(None)
        if k in ("dict", "OrderedDict"):
            keys = list(x.keys())
            return Spec(k, tuple(keys), [go(x[key]) for key in keys])
        return Spec(k, None, [go(v) for v in x])

    return leaves, go(tree)


def tree_unflatten(leaves, spec: Spec) -> Any:
    """The inverse of ``tree_flatten``."""
    it = iter(leaves)

    def go(s: Spec):
        if s.kind is None:
            return next(it)
        vals = [go(c) for c in s.children]
        if s.kind == "dict":
            return dict(zip(s.context, vals))
        if s.kind == "OrderedDict":
            return OrderedDict(zip(s.context, vals))
        if s.kind == "tuple":
            return tuple(vals)
        if s.kind == "list":
            return vals
        return s.kind(*vals)

    return go(spec)


def broadcast_prefix(prefix: Any, spec: Spec) -> list | None:
    """PyTorch's ``_broadcast_to_and_flatten``: ``prefix`` (e.g. ``in_dims``) expanded to
    one entry per leaf of ``spec``, or None when it is not a prefix of that structure."""
    out: list = []

    def go(p, s: Spec) -> bool:
        k = _kind(p)
        if k is None:
            out.extend([p] * s.num_leaves)
            return True
        if k != s.kind:
            return False
        if k in ("dict", "OrderedDict"):
            if set(p.keys()) != set(s.context):
                return False
            return all(go(p[key], c) for key, c in zip(s.context, s.children))
        if len(p) != len(s.children):
            return False
        return all(go(pc, c) for pc, c in zip(p, s.children))

    return out if go(prefix, spec) else None


def tree_map_tensors(fn, tree: Any) -> Any:
    """``tree`` with ``fn`` applied to each tensor leaf (other leaves kept)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) if isinstance(x, Tensor) else x for x in leaves], spec)


# ---------------------------------------------------------------------------- argnums
def normalize_argnums(argnums, num_args: int):
    """PyTorch's ``_validate_and_wrap_argnums`` with its errors."""
    if isinstance(argnums, bool) or not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")

    def one(a):
        if isinstance(a, bool) or not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if 0 <= a < num_args:
            return a
        if -num_args <= a < 0:
            return a + num_args
        raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")

    if isinstance(argnums, int):
        return one(argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(one(a) for a in argnums)


def slice_argnums(args: tuple, argnums) -> Any:
    """The differentiated arguments: ``args[i]`` for an int, a tuple for a tuple."""
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[i] for i in argnums)


def replace_args(args: tuple, new, argnums) -> tuple:
    """``args`` with the differentiated positions replaced by ``new``."""
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    pos = {a: k for k, a in enumerate(argnums)}
    return tuple(new[pos[i]] if i in pos else a for i, a in enumerate(args))
