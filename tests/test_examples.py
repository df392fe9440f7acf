"""The examples run and do what they say: ``examples/train_digits.py`` trains (compiled and
eager), its checkpoint reloads, and the same file runs on PyTorch with only the imports
changed; ``examples/demo.py`` prints what PyTorch prints; every Python block of
``examples/README.md`` runs.

The example runs use one epoch: enough for the digits CNN to be far above chance (10%).
"""

from __future__ import annotations

import contextlib
import io
import re
import types
from pathlib import Path

import numpy as np
import pytest

from tests._parity import HAVE_TORCH, torch

import torchlike

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _as_pytorch(source: str) -> str:
    """The same program with ``torchlike`` imports replaced by ``torch``."""
    return re.sub(r"\btorchlike\b", "torch", source)


def _load(path: Path, *, pytorch: bool = False) -> types.ModuleType:
    """Execute an example file as a module (its ``__main__`` block does not run)."""
    source = path.read_text()
    if pytorch:
        source = _as_pytorch(source)
    module = types.ModuleType(path.stem)
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def _run(module, tmp_path, *flags: str):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = module.main(["--epochs", "1", "--seed", "0",
                              "--save", str(tmp_path / "digits.pt"), *flags])
    return result, out.getvalue()


@contextlib.contextmanager
def _torch_one_thread():
    """PyTorch's intra-op threads only wait for each other on a busy 2-core CI machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def digits():
    return _load(EXAMPLES / "train_digits.py")


def _check_trained(result, printed: str, tmp_path) -> None:
    assert result["test_acc"] > 0.5, printed
    assert result["reloaded_acc"] == result["test_acc"], printed
    assert len(result["epoch_times"]) == 1
    assert re.search(r"^epoch 1: loss [\d.]+ +train acc [\d.]+ +test acc [\d.]+ +[\d.]+s",
                     printed, re.M), printed
    assert f"test accuracy of the model reloaded from {tmp_path / 'digits.pt'}" in printed
    checkpoint = torchlike.load(tmp_path / "digits.pt")
    assert sorted(checkpoint) == ["epoch", "model", "optimizer"]
    assert checkpoint["epoch"] == 1
    assert "features.1.running_mean" in checkpoint["model"]
    assert len(checkpoint["optimizer"]["state"]) == len(checkpoint["optimizer"]["param_groups"]
                                                        [0]["params"])


def test_train_digits_eager(digits, tmp_path):
    # one test batch: the eager ops compile for one eval shape only
    result, printed = _run(digits, tmp_path, "--eager", "--quiet", "--test-batch-size", "512")
    _check_trained(result, printed, tmp_path)
    assert "(includes compilation)" not in printed
    if HAVE_TORCH:
        # the checkpoint loads into PyTorch's model, which computes the same logits
        on_torch = _load(EXAMPLES / "train_digits.py", pytorch=True)
        theirs = on_torch.Net()
        theirs.load_state_dict(torch.load(tmp_path / "digits.pt")["model"])
        ours = digits.Net()
        ours.load_state_dict(torchlike.load(tmp_path / "digits.pt")["model"])
        images = np.random.default_rng(0).random((5, 1, 8, 8), dtype=np.float32)
        with torch.no_grad(), torchlike.no_grad():
            expected = theirs.eval()(torch.from_numpy(images)).numpy()
            got = ours.eval()(torchlike.from_numpy(images)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_train_digits_compiled(digits, tmp_path, capsys):
    result, printed = _run(digits, tmp_path)
    _check_trained(result, printed, tmp_path)
    # the progress bar (on stderr) shows the running loss and accuracy
    bar = capsys.readouterr().err
    assert re.search(r"epoch 1: .*acc=0\.\d{3}, loss=\d\.\d{3}", bar), bar
    assert "(includes compilation)" in printed
    train, test = result["train_step"], result["eval_step"]
    # drop_last=True: one batch shape, so the step does not retrace per batch (the first
    # call may trace twice: it creates AdamW's state)
    assert train.stats.calls == 1438 // 64    # 80% of the 1797 images, full batches only
    assert 1 <= train.stats.traces <= 2, train.stats
    # eval: the full batches, the smaller last one, for the model and the restored model
    assert test.stats.traces == 4, test.stats


def test_train_digits_runs_on_pytorch(tmp_path):
    """The same file with ``import torch`` trains on PyTorch."""
    source = _as_pytorch((EXAMPLES / "train_digits.py").read_text())
    compile(source, "train_digits.py", "exec")
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the run on PyTorch is skipped "
                    "(test_train_digits_* train the same file on torchlike)")
    on_torch = _load(EXAMPLES / "train_digits.py", pytorch=True)
    with _torch_one_thread():
        result, printed = _run(on_torch, tmp_path, "--eager", "--quiet")
    assert result["test_acc"] > 0.5, printed
    assert result["reloaded_acc"] == result["test_acc"], printed


def test_demo_prints_what_pytorch_prints():
    source = (EXAMPLES / "demo.py").read_text()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "demo.py", "exec"), {"__name__": "__main__"})
    printed = out.getvalue()
    assert "t[0][0] after writing through a view: tensor(3.1400)" in printed
    assert "d2y/dx2: tensor(2.)" in printed
    if HAVE_TORCH:
        expected = io.StringIO()
        with contextlib.redirect_stdout(expected):
            exec(compile(_as_pytorch(source), "demo.py", "exec"), {"__name__": "__main__"})
        assert printed == expected.getvalue()


# ---------------------------------------------------------------- the README walk-through

README = EXAMPLES / "README.md"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def test_readme_blocks_run():
    """Every Python block, in order, in one namespace (as a reader pastes them)."""
    blocks = _python_blocks(README.read_text())
    assert len(blocks) >= 5 and "@torch.compile" in blocks[1], blocks
    namespace: dict = {"__name__": "__readme__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i, block in enumerate(blocks):
            try:
                exec(compile(block, f"examples/README.md block {i}", "exec"), namespace)
            except Exception as e:
                raise AssertionError(f"README block {i} failed:\n{block}") from e
    printed = out.getvalue()
    # both training loops ran, eagerly and compiled
    assert len(re.findall(r"^epoch 2: loss \d+\.\d{3}$", printed, re.M)) == 2, printed
    # the `if` on a tensor and the .item() inside compiled code raised with the explanation
    assert printed.count("cannot run on traced values") == 2, printed
    # the branch written with torch.where selects per call
    assert "tensor([ 1., -1.])" in printed and "tensor([-3.,  1.])" in printed, printed


def test_readme_port_runs_on_pytorch():
    """The first block is PyTorch code with only the imports changed: it runs on PyTorch."""
    block = _python_blocks(README.read_text())[0]
    compile(_as_pytorch(block), "examples/README.md block 0", "exec")
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the run on PyTorch is skipped "
                    "(test_readme_blocks_run runs the block on torchlike)")
    out = io.StringIO()
    with _torch_one_thread(), contextlib.redirect_stdout(out):
        exec(compile(_as_pytorch(block), "examples/README.md block 0", "exec"),
             {"__name__": "__readme__"})
    assert len(re.findall(r"^epoch \d: loss \d+\.\d{3}$", out.getvalue(), re.M)) == 2
