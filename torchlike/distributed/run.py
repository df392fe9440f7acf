"""``python -m torchlike.distributed.run``: starts a script in several processes of one
run; mirrors ``torchrun`` (``torch.distributed.run``) with a static rendezvous.

    python -m torchlike.distributed.run --standalone --nproc-per-node=2 train.py --lr 0.1

Each process gets PyTorch's environment: ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``MASTER_ADDR``, ``MASTER_PORT`` and
``TORCHELASTIC_RUN_ID``, so ``torchlike.distributed.init_process_group()`` needs no
arguments. Several nodes meet at ``--master-addr``/``--master-port`` with ``--nnodes``
and ``--node-rank``. When a process fails the others are stopped and the launcher exits
with its exit code, after naming it.

Differences from torchrun: no elastic membership or restarts (``--max-restarts`` must be
0), and ``--nproc-per-node`` takes a number (or 'cpu', one process).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from typing import Sequence

__all__ = ["main", "get_args_parser", "launch"]


def _flag(p: argparse.ArgumentParser, name: str, **kw) -> None:
    """``--a-b`` with torchrun's older ``--a_b`` spelling."""
    p.add_argument(f"--{name}", f"--{name.replace('-', '_')}", **kw)


def get_args_parser(prog: str = "torchlike.distributed.run") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"python -m {prog}",
                                description="Start a script in several processes of one "
                                            "torchlike.distributed run.")
    _flag(p, "nnodes", default="1", help="number of nodes (N or N:N)")
    _flag(p, "nproc-per-node", default="1", help="processes per node (a number, or 'cpu')")
    _flag(p, "node-rank", type=int, default=0, help="this node's rank")
    _flag(p, "master-addr", default="127.0.0.1", help="address of the node of rank 0")
    _flag(p, "master-port", type=int, default=29500, help="port on the master node")
    p.add_argument("--standalone", action="store_true",
                   help="one node, on 127.0.0.1 at a free port")
    _flag(p, "max-restarts", type=int, default=0, help="must be 0 (no restarts)")
    _flag(p, "rdzv-backend", default="static", help="accepted; the rendezvous is static")
    _flag(p, "rdzv-endpoint", default="", help="HOST:PORT, in place of the master flags")
    _flag(p, "rdzv-id", default="none", help="the run id (TORCHELASTIC_RUN_ID)")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the script as a module (python -m)")
    _flag(p, "no-python", action="store_true",
          help="run the script as a program, not with python")
    p.add_argument("training_script", help="the script (or module, or program) to run")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _nnodes(text: str) -> int:
    lo, _, hi = text.partition(":")
    if hi and hi != lo:
        raise SystemExit(f"--nnodes {text}: elastic ranges are not supported; give one number")
    return int(lo)


def _command(args: argparse.Namespace, extra: Sequence[str]) -> list:
    if args.no_python:
        return [args.training_script, *extra, *args.training_script_args]
    if args.module:
        return [sys.executable, "-u", "-m", args.training_script, *extra,
                *args.training_script_args]
    return [sys.executable, "-u", args.training_script, *extra, *args.training_script_args]


def launch(args: argparse.Namespace, pass_local_rank: bool = False) -> int:
    """Start the processes of this node, wait for them; the first failing exit code (0
    when all succeed)."""
    if args.max_restarts:
        raise SystemExit("--max-restarts: restarts are not supported; use 0")
    nproc = 1 if args.nproc_per_node in ("cpu", "auto") else int(args.nproc_per_node)
    nnodes = _nnodes(args.nnodes)
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        addr, _, p = args.rdzv_endpoint.rpartition(":")
        port = int(p)
    if args.standalone:
        nnodes, addr, port = 1, "127.0.0.1", _free_port()
    run_id = args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex
    procs = []
    for local in range(nproc):
        env = dict(os.environ, RANK=str(args.node_rank * nproc + local), LOCAL_RANK=str(local),
                   WORLD_SIZE=str(nnodes * nproc), LOCAL_WORLD_SIZE=str(nproc),
                   GROUP_RANK=str(args.node_rank), MASTER_ADDR=addr, MASTER_PORT=str(port),
                   TORCHELASTIC_RUN_ID=run_id)
        extra = [f"--local-rank={local}"] if pass_local_rank else []
        procs.append(subprocess.Popen(_command(args, extra), env=env))
    failed = None
    try:
        while failed is None and any(p.poll() is None for p in procs):
            failed = next((i for i, p in enumerate(procs) if p.poll() not in (None, 0)), None)
            time.sleep(0.05)
        if failed is None:
            failed = next((i for i, p in enumerate(procs) if p.returncode != 0), None)
    except KeyboardInterrupt:
        for p in procs:
            p.send_signal(signal.SIGINT)
        raise
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            p.wait()
    if failed is None:
        return 0
    code = procs[failed].returncode
    print(f"{args.training_script} FAILED: local rank {failed} (rank "
          f"{args.node_rank * nproc + failed}) exited with code {code}", file=sys.stderr)
    return code if code > 0 else 1


def main(argv: Sequence[str] | None = None) -> None:
    args = get_args_parser().parse_args(argv)
    sys.exit(launch(args))


if __name__ == "__main__":
    main()
