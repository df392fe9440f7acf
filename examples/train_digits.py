"""Train a small CNN on the handwritten digits that scikit-learn ships (8x8 images).

Written as a PyTorch example: spell ``torchlike`` as ``torch`` in the imports and it runs on
PyTorch unchanged. The train step and the eval forward are compiled with ``torch.compile``
into XLA programs; ``--eager`` runs them op by op instead, for comparison.

    pip install -e ".[examples]"
    python examples/train_digits.py                 # about 98% test accuracy
    python examples/train_digits.py --eager --epochs 2
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits
from tqdm import tqdm

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.utils.data import DataLoader, Dataset, random_split


class Digits(Dataset):
    """The 1797 8x8 grey images of ``sklearn.datasets.load_digits``, scaled to [0, 1].

    Samples are NumPy arrays: the DataLoader's default collate stacks a batch of them into
    one tensor, which is much cheaper than making a tensor per sample."""

    def __init__(self):
        digits = load_digits()
        self.images = (digits.images / 16.0).astype(np.float32)[:, None]   # N x 1 x 8 x 8
        self.labels = digits.target

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], int(self.labels[index])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.MaxPool2d(2),                                     # -> 64 x 4 x 4
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25),
            nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(128, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def train_step(model, optimizer, scheduler, x, y):
    optimizer.zero_grad()
    output = model(x)
    loss = F.cross_entropy(output, y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss.detach(), (output.argmax(1) == y).sum()


def eval_step(model, x, y):
    """How many of the batch ``model`` classifies right."""
    return (model(x).argmax(1) == y).sum()


def evaluate(step, model, loader, device):
    """Test accuracy: ``step`` is ``eval_step`` or its compiled version."""
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += step(model, x.to(device), y.to(device)).item()
    return correct / len(loader.dataset)


def main(argv=None):
    parser = argparse.ArgumentParser(description="torchlike digits CNN example")
    parser.add_argument("--epochs", type=int, default=10, help="number of epochs (default: 10)")
    parser.add_argument("--batch-size", type=int, default=64, help="training batch size")
    parser.add_argument("--test-batch-size", type=int, default=256, help="test batch size")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                        help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default: 1)")
    parser.add_argument("--save", default="digits_cnn.pt", help="checkpoint path")
    parser.add_argument("--eager", action="store_true", help="do not compile the steps")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    train_set, test_set = random_split(Digits(), [0.8, 0.2],
                                       generator=torch.Generator().manual_seed(args.seed))
    # drop_last: every training batch has the same shape, so the compiled step traces once.
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              drop_last=True, generator=torch.Generator().manual_seed(args.seed))
    # The last test batch is smaller: the compiled eval step traces a second time for it.
    test_loader = DataLoader(test_set, batch_size=args.test_batch_size)

    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader))

    # One XLA program for the whole train step (forward, backward, AdamW, scheduler,
    # BatchNorm statistics, dropout RNG), another for the eval step.
    train = train_step if args.eager else torch.compile(train_step)
    test = eval_step if args.eager else torch.compile(eval_step)

    epoch_times = []
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        model.train()
        seen = correct = total_loss = 0
        bar = tqdm(train_loader, desc=f"epoch {epoch}", leave=False, disable=args.quiet)
        for x, y in bar:
            x, y = x.to(device), y.to(device)
            loss, n_correct = train(model, optimizer, scheduler, x, y)
            # .item() copies a value to Python: it belongs outside the compiled step.
            seen += len(y)
            total_loss += loss.item() * len(y)
            correct += n_correct.item()
            bar.set_postfix(loss=f"{total_loss / seen:.3f}", acc=f"{correct / seen:.3f}")
        test_acc = evaluate(test, model, test_loader, device)
        epoch_times.append(time.perf_counter() - start)
        note = " (includes compilation)" if epoch == 1 and not args.eager else ""
        print(f"epoch {epoch}: loss {total_loss / seen:.4f}  train acc {correct / seen:.4f}  "
              f"test acc {test_acc:.4f}  {epoch_times[-1]:.2f}s{note}")

    torch.save({"epoch": args.epochs, "model": model.state_dict(),
                "optimizer": optimizer.state_dict()}, args.save)

    # Reload the checkpoint into a fresh model, as a later program would.
    checkpoint = torch.load(args.save)
    restored = Net().to(device)
    restored.load_state_dict(checkpoint["model"])
    reloaded_acc = evaluate(test, restored, test_loader, device)
    later = epoch_times[1:] or epoch_times
    print(f"first epoch {epoch_times[0]:.2f}s, later epochs {sum(later) / len(later):.2f}s each")
    print(f"test accuracy of the model reloaded from {args.save} "
          f"(epoch {checkpoint['epoch']}): {reloaded_acc:.4f}")
    return {"test_acc": test_acc, "reloaded_acc": reloaded_acc, "epoch_times": epoch_times,
            "train_step": train, "eval_step": test}


if __name__ == "__main__":
    main()
