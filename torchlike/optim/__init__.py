"""torchlike.optim: optimizers and learning-rate schedulers, mirroring ``torch.optim``.

Bookkeeping (param groups, state, hooks, state_dict) lives in ``optimizer.py``; the update
rules are pure JAX/optax functions in ``_functional.py``; one file per optimizer.
"""

from . import lr_scheduler as lr_scheduler
from . import optimizer as optimizer
from . import swa_utils as swa_utils
from .adafactor import Adafactor as Adafactor
from .adadelta import Adadelta as Adadelta
from .adagrad import Adagrad as Adagrad
from .adam import Adam as Adam
from .adamax import Adamax as Adamax
from .adamw import AdamW as AdamW
from .asgd import ASGD as ASGD
from .lbfgs import LBFGS as LBFGS
from .muon import Muon as Muon
from .nadam import NAdam as NAdam
from .optimizer import Optimizer as Optimizer
from .radam import RAdam as RAdam
from .rmsprop import RMSprop as RMSprop
from .rprop import Rprop as Rprop
from .sgd import SGD as SGD

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler",
           "optimizer", "swa_utils"]
