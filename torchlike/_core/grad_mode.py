"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Thread-local like PyTorch's, each usable as a context manager and as a decorator.
"""

from __future__ import annotations

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False
        self.multithreading = True
        self.view_replay = False


_state = _State()

# True once any thread has entered ``inference_mode``: until then the per-op code that
# marks results as inference tensors skips reading the thread-local ``_state``
# (Note [Inference tensors] in storage.py).
inference_used = [False]


def is_grad_enabled() -> bool:
    """Mirrors ``torch.is_grad_enabled``."""
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _DecoratorContextManager:
    """Lets a grad-mode context manager also decorate functions and generators."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as e:
                            with self.clone():
                                response = gen.throw(e)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as e:
                    return e.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Mirrors ``torch.no_grad``: results computed inside do not require grad."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Mirrors ``torch.enable_grad``."""

    def __enter__(self) -> None:
        self.prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Mirrors ``torch.set_grad_enabled(mode)``: takes effect at once, and as a context
    manager restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Mirrors ``torch.inference_mode(mode=True)``: grad mode off, and the tensors made
    inside are inference tensors (Note [Inference tensors] in storage.py).
    ``inference_mode(False)`` turns both off again (grad mode on)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as a bare decorator

    def __enter__(self) -> None:
        self.prev = (_state.enabled, _state.inference)
        # ``inference_mode(False)`` turns inference mode off and grad mode on, as
        # PyTorch's ``InferenceMode(false)`` guard does
        _state.enabled = not self.mode
        _state.inference = self.mode
        if self.mode:
            inference_used[0] = True

    def __exit__(self, *exc) -> None:
        _state.enabled, _state.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)


def is_multithreading_enabled() -> bool:
    """Mirrors ``torch.autograd.is_multithreading_enabled`` (see
    ``set_multithreading_enabled``)."""
    return _state.multithreading


def is_view_replay_enabled() -> bool:
    """Mirrors ``torch.autograd.is_view_replay_enabled`` (see
    ``_force_original_view_tracking``)."""
    return _state.view_replay


class _FlagMode(_DecoratorContextManager):
    """A thread-local flag set at construction and restored on exit, as PyTorch's
    ``set_multithreading_enabled`` and ``_force_original_view_tracking`` do."""

    _field = ""

    def __init__(self, mode: bool) -> None:
        self.prev = getattr(_state, self._field)
        self.mode = bool(mode)
        setattr(_state, self._field, self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        setattr(_state, self._field, self.prev)

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_FlagMode):
    """Mirrors ``torch.autograd.set_multithreading_enabled(mode)``: records whether
    backward may run on worker threads, thread-locally, as a context manager or a plain
    call. torchlike's engine runs every backward on the calling thread (what PyTorch
    does with ``mode=False``, and for CPU-only graphs), so the flag changes no result."""

    _field = "multithreading"


class _force_original_view_tracking(_FlagMode):
    """Mirrors ``torch.autograd._force_original_view_tracking(mode)``: records whether
    views are to be regenerated by replaying view ops. torchlike's views keep their
    view chain either way (Note [Views over immutable arrays]), so the flag changes no
    result. As PyTorch's, used as a decorator it puts the flag back when it decorates,
    and ``with`` sets it again on entry."""

    _field = "view_replay"

    def __call__(self, func):
        _state.view_replay = self.prev
        return super().__call__(func)

    def __enter__(self) -> None:
        _state.view_replay = self.mode
