"""A script for ``python -m torchlike.distributed.run``: joins the run from the
launcher's environment, all-reduces its rank and prints what it saw; rank 1 then exits
with code 3 so that the launcher's failure path runs too."""

import argparse
import os
import sys

import torchlike as torch
import torchlike.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--local-rank", "--local_rank", type=int, default=-1)
p.add_argument("--tag", default="")
a = p.parse_args()
dist.init_process_group()
t = torch.tensor([float(dist.get_rank() + 1)])
dist.all_reduce(t)
print(f"rank={dist.get_rank()} world={dist.get_world_size()} "
      f"local={os.environ['LOCAL_RANK']} arg={a.local_rank} tag={a.tag} sum={t.item()} "
      f"elastic={dist.is_torchelastic_launched()}", flush=True)
dist.barrier()   # rank 1 fails only after every rank has printed
dist.destroy_process_group()
if os.environ["RANK"] == "1":
    sys.exit(3)
