"""What the two training scripts (`train_embedder`, `distill_embedder`) share: the learning
rate's warm-up then linear decay, and one optimiser step with the gradient clipped. Imports
nothing of RepoRift, so the GPU machine that distils runs it without the product installed."""

from __future__ import annotations


def warmup_then_linear(optimizer, *, steps: int, warmup: int):
    """The rate rises over `warmup` steps to its value, then falls linearly to 0 at `steps`."""
    import torch

    return torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: min((step + 1) / warmup, max(0.0, (steps - step) / (steps - warmup))),
    )


def clipped_step(loss, optimizer, schedule, parameters, *, max_norm: float = 1.0) -> None:
    import torch

    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    optimizer.step()
    schedule.step()
