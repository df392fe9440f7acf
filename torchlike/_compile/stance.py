"""What ``torchlike.compiler.set_stance`` and ``reset`` act on: the stance every compiled
function consults before it traces, and the live compiled functions.

# Note [Stances]
# ``torch.compiler.set_stance`` changes what every ``torch.compile``d function does from
# its next call on: ``"force_eager"`` runs the original function, ``"eager_on_recompile"``
# runs it where a new program would be needed and ``"fail_on_recompile"`` raises there;
# programs already compiled still run under the last two. ``CompiledFunction.__call__``
# reads ``STANCE[0]`` on its general path only: setting a stance other than
# ``"default"`` drops every compiled function's steady call (Note [Steady-state calls]),
# so the call after it takes the general path, and under ``"force_eager"`` that path
# returns before a steady call is armed again. A recompile is a trace after the
# function's first (``stats.traces`` > 0), as PyTorch counts recompiles per function. An
# unknown stance raises PyTorch's RuntimeError on the next compiled call, not when it is
# set, as PyTorch does.
"""

from __future__ import annotations

import weakref

__all__ = ["STANCE", "STANCES", "LIVE", "set_stance_value", "check_stance", "recompile_error"]

STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile")
STANCE = ["default"]
LIVE: weakref.WeakSet = weakref.WeakSet()   # every CompiledFunction made


def set_stance_value(stance: str) -> None:
    STANCE[0] = stance
    if stance != "default":
        for cf in list(LIVE):
            cf._steady = None


def check_stance() -> str:
    s = STANCE[0]
    if s not in STANCES:
        raise RuntimeError(f"invalid torchlike.compile stance {s!r} (expected one of "
                           f"{', '.join(map(repr, STANCES))})")
    return s


def recompile_error(fn, reason: str) -> RuntimeError:
    # a compiled module's function is its bound ``__call__``: name its ``forward``
    code = getattr(getattr(getattr(fn, "__self__", None), "forward", fn), "__code__", None)
    where = (f"filename: '{code.co_filename}', function name: '{code.co_name}', line number: "
             f"{code.co_firstlineno}" if code is not None else
             f"function: {getattr(fn, '__qualname__', fn)!r}")
    return RuntimeError(f"Detected recompile when torchlike.compile stance is "
                        f"'fail_on_recompile'. {where}\n    triggered by: {reason}")
