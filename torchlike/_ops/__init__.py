"""The op table and its families. Importing this package declares every op and binds
functions, methods, in-place variants and operators onto ``torchlike`` and ``Tensor``."""

from . import (creation, elementwise, indexing, linalg, random, reduction,  # noqa: F401
               shape, views)
from .bind import FUNCTIONS, bind_all

bind_all()

__all__ = ["FUNCTIONS"]
