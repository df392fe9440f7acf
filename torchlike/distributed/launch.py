"""``python -m torchlike.distributed.launch``: PyTorch's older launcher; mirrors
``torch.distributed.launch``. As there, it is ``torchlike.distributed.run`` that also
passes ``--local-rank=N`` to the script, unless ``--use-env`` is given (then the script
reads ``LOCAL_RANK``), and it warns that it is deprecated."""

from __future__ import annotations

import sys
import warnings
from typing import Sequence

from .run import get_args_parser, launch

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    warnings.warn(
        "The module torchlike.distributed.launch is deprecated and going to be removed in "
        "future.Migrate to torchlike.distributed.run (PyTorch's torchrun)", FutureWarning,
        stacklevel=2)
    parser = get_args_parser("torchlike.distributed.launch")
    parser.add_argument("--use-env", "--use_env", action="store_true",
                        help="do not pass --local-rank; the script reads LOCAL_RANK")
    args = parser.parse_args(argv)
    sys.exit(launch(args, pass_local_rank=not args.use_env))


if __name__ == "__main__":
    main()
