"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``, mirroring ``torch.nn``'s (indexing, slicing, insertion, printing)."""

from __future__ import annotations

import operator
from collections import OrderedDict, abc as container_abcs
from itertools import chain, islice
from typing import Any, Iterable, Iterator

from ..._core.tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx: int, n: int, what: str) -> int:
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n if n else idx


class Sequential(Module):
    """Mirrors ``torch.nn.Sequential``: modules applied in order; from positional
    modules or an ``OrderedDict``; indexing, slicing (a new Sequential), ``len``,
    ``append``/``insert``/``extend``/``pop``, ``+`` and ``*``."""

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = _index(idx, size, "Sequential")
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(iter(self._modules.values()), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(iter(self._modules.keys()), idx)
        return setattr(self, key, module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            key = self._get_item_by_idx(iter(self._modules.keys()), idx)
            delattr(self, key)
        str_indices = [str(i) for i in range(len(self._modules))]
        self._modules = OrderedDict(list(zip(str_indices, self._modules.values())))

    def __len__(self) -> int:
        return len(self._modules)

    def __add__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for layer in self:
            ret.append(layer)
        for layer in other:
            ret.append(layer)
        return ret

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: int) -> "Sequential":
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and "
                            f"{type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    __rmul__ = __mul__

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> "Sequential":
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key) -> Module:
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """Mirrors ``torch.nn.ModuleList``: a list of registered submodules."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx):
        idx = _index(idx, len(self), "ModuleList")
        return str(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        idx = self._get_abs_string_index(idx)
        return setattr(self, str(idx), module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        str_indices = [str(i) for i in range(len(self._modules))]
        self._modules = OrderedDict(list(zip(str_indices, self._modules.values())))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        """Repeated identical blocks are folded as PyTorch 2.x does."""
        list_of_reprs = [repr(item) for item in self]
        if len(list_of_reprs) == 0:
            return self._get_name() + "()"
        start_end_indices = [[0, 0]]
        repeated_blocks = [list_of_reprs[0]]
        for i, r in enumerate(list_of_reprs[1:], 1):
            if r == repeated_blocks[-1]:
                start_end_indices[-1][1] += 1
                continue
            start_end_indices.append([i, i])
            repeated_blocks.append(r)
        lines = []
        main_str = self._get_name() + "("
        for (start_id, end_id), b in zip(start_end_indices, repeated_blocks):
            local_repr = f"({start_id}): {b}"
            if start_id != end_id:
                n = end_id - start_id + 1
                local_repr = f"({start_id}-{end_id}): {n} x {b}"
            local_repr = _addindent(local_repr, 2)
            lines.append(local_repr)
        main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key) -> Module:
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " +
                            type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """Mirrors ``torch.nn.ModuleDict``: an ordered dict of registered submodules."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, container_abcs.Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if not isinstance(m, container_abcs.Iterable):
                    raise TypeError("ModuleDict update sequence element #" + str(j) +
                                    " should be Iterable; is" + type(m).__name__)
                if not len(m) == 2:
                    raise ValueError("ModuleDict update sequence element #" + str(j) +
                                     " has length " + str(len(m)) + "; 2 is required")
                self[m[0]] = m[1]


class ParameterList(Module):
    """Mirrors ``torch.nn.ParameterList``: tensors appended become Parameters."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx):
        return str(_index(idx, len(self), "ParameterList"))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        idx = self._get_abs_string_index(idx)
        return getattr(self, str(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        return setattr(self, str(idx), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> "ParameterList":
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " +
                            type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return _entries_repr(enumerate(self), lambda p: p.dtype)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Mirrors ``torch.nn.ParameterDict``: an ordered dict of Parameters (tensors set
    into it are wrapped as Parameters)."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: str) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        attr = self._key_to_attr(key)
        return getattr(self, attr)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        attr = self._key_to_attr(key)
        delattr(self, attr)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def setdefault(self, key: str, default: Any | None = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in self._keys.copy():
            del self[k]

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any | None = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None) -> "ParameterDict":
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, container_abcs.Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, container_abcs.Iterable):
                    raise TypeError("ParameterDict update sequence element #" + str(j) +
                                    " should be Iterable; is" + type(p).__name__)
                if not len(p) == 2:
                    raise ValueError("ParameterDict update sequence element #" + str(j) +
                                     " has length " + str(len(p)) + "; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self) -> str:
        from ..._core.tensor import _LEGACY_NAMES  # PyTorch's dict prints torch.typename
        return _entries_repr(self.items(), lambda p: _LEGACY_NAMES[p.dtype])

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        copy = self.copy()
        copy.update(other)
        return copy


def _entries_repr(items, type_text) -> str:
    """PyTorch's one-line-per-entry text of ParameterList/ParameterDict."""
    child_lines = []
    for k, p in items:
        if isinstance(p, Tensor):
            size_str = "x".join(str(size) for size in p.size())
            device_str = "" if p.device.type == "cpu" else f" ({p.device})"
            parastr = "{} containing: [{} of size {}{}]".format(
                "Parameter" if isinstance(p, Parameter) else "Tensor",
                type_text(p), size_str, device_str)
            child_lines.append("  (" + str(k) + "): " + parastr)
        else:
            child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
    return "\n".join(child_lines)
