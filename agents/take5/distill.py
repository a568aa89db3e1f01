"""The rollout network (``ismcts:...,rollout=net``): a per-card network distilled from a learned policy.

The compiled search (``agents/take5/compiled.py``) rolls a world out with every seat playing a heuristic;
``rollout=policy`` plays a learned policy there instead, but its network runs in Python (20-80 ms a
decision). The rollout network is small enough to run inside the compiled rollouts: each card of the acting
seat's hand gets a score ``relu(W1 f + b1) . w2`` from its ``NET_FEATURES`` inputs (``card_features``: the
card's row, take5-safest's expected cost and its parts, the unseen cards around it), the same weights for
every card, and the seat plays the best-scoring card (with the search's ``eps`` a random one).

It is made here from a policy (by default ``pretrained:take5-game-4p``):

1. **Samples** (``collect``): the policy plays itself in the batched engine, each card drawn from its own
   distribution; at each card choice the acting seat's card features (``compiled.batch_features``, the very
   function the rollouts call) and the policy's probabilities over its hand.
2. **Fit** (``fit``): the scores' softmax over the hand trained toward the policy's probabilities
   (cross-entropy, Adam), on 90% of the samples; ``agreement`` is how often the network's best card is the
   policy's most probable one on the other 10%.
3. **Save** (``save``): ``W1``, ``b1``, ``w2`` and a JSON ``meta`` string in an ``.npz`` (no pickles; ``compiled.
   load_net`` checks the shapes and values).

    python -m fiveplay_env.agents.take5.distill --policy pretrained:take5-game-4p --samples 200000 \\
        --out agents/take5/rollout-net.npz

Imports torch (the ``torch`` extra) and numba.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from fiveplay_env.agents.take5 import compiled as C
from fiveplay_env.take5 import kernel as K
from fiveplay_env.take5.state import HAND_SIZE

DEFAULT_POLICY = "pretrained:take5-game-4p"


def collect(policy: Any, config: Any, samples: int, batch: int = 256, seed: int = 0) -> dict[str, np.ndarray]:
    """``samples`` card choices of ``policy`` playing itself in ``batch`` games at once under ``config``:
    ``{"feats": float32 [N, 10, F], "sizes": int64 [N], "target": float32 [N, 10]}`` (the policy's
    probabilities over the hand's cards, ascending; rows past ``sizes`` are 0)."""
    from fiveplay_env.take5.batched import BatchedTake5

    eng = BatchedTake5(config, batch, seed)
    rng = np.random.default_rng(seed)
    P = K.params(config)
    games = np.arange(batch, dtype=np.int64)
    feats = np.zeros((batch, HAND_SIZE, C.NET_FEATURES), np.float64)
    cards = np.zeros((batch, HAND_SIZE), np.int64)
    sizes = np.zeros(batch, np.int64)
    out_f, out_s, out_t = [], [], []
    got = 0
    while got < samples:
        S = tuple(eng.field(name) for name in K.FIELDS)
        C.batch_features(S, P, games, feats, cards, sizes)
        mask = np.asarray(eng.legal_action_mask, bool)
        logits, _ = policy.evaluate(eng.observe(), mask)
        z = np.where(mask, logits, -np.inf)
        z = z - z.max(axis=1, keepdims=True)
        prob = np.exp(z)
        prob /= prob.sum(axis=1, keepdims=True)
        play = np.flatnonzero(sizes > 0)
        if len(play):
            target = np.zeros((len(play), HAND_SIZE), np.float32)
            for j, k in enumerate(play):
                m = sizes[k]
                target[j, :m] = prob[k, cards[k, :m]]
            target /= target.sum(axis=1, keepdims=True)
            out_f.append(feats[play].astype(np.float32))
            out_s.append(sizes[play].copy())
            out_t.append(target)
            got += len(play)
        u = rng.random((batch, 1))
        actions = (prob.cumsum(axis=1) < u).sum(axis=1)
        actions = np.where(mask[np.arange(batch), np.minimum(actions, mask.shape[1] - 1)],
                           np.minimum(actions, mask.shape[1] - 1), prob.argmax(axis=1))
        eng.step(actions)
    return {"feats": np.concatenate(out_f)[:samples], "sizes": np.concatenate(out_s)[:samples],
            "target": np.concatenate(out_t)[:samples]}


def fit(data: dict[str, np.ndarray], hidden: int = 24, epochs: int = 12, lr: float = 3e-3, batch: int = 1024,
        seed: int = 0) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[str, float]]:
    """Train the per-card network on ``collect``'s samples (90%; the rest held out): ``((W1, b1, w2), stats)``
    with ``stats``: ``loss`` and ``agreement`` (held out), ``samples``."""
    import torch

    torch.manual_seed(seed)
    n = len(data["sizes"])
    order = np.random.default_rng(seed).permutation(n)
    cut = max(1, n // 10)
    test, train = order[:cut], order[cut:]
    X = torch.from_numpy(data["feats"])
    valid = torch.from_numpy(np.arange(HAND_SIZE)[None, :] < data["sizes"][:, None])
    T = torch.from_numpy(data["target"])
    W1 = torch.nn.Linear(C.NET_FEATURES, hidden)
    w2 = torch.nn.Linear(hidden, 1, bias=False)
    params = list(W1.parameters()) + list(w2.parameters())
    opt = torch.optim.Adam(params, lr=lr)

    def scores(idx: torch.Tensor) -> torch.Tensor:
        s = w2(torch.relu(W1(X[idx]))).squeeze(-1)
        return s.masked_fill(~valid[idx], -1e9)

    def loss_of(idx: torch.Tensor) -> torch.Tensor:
        return -(T[idx] * torch.log_softmax(scores(idx), dim=1)).sum(dim=1).mean()

    steps = max(1, len(train) // batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs * steps)
    gen = np.random.default_rng(seed + 1)
    for _ in range(epochs):
        perm = train[gen.permutation(len(train))]
        for s in range(steps):
            idx = torch.from_numpy(perm[s * batch:(s + 1) * batch])
            opt.zero_grad()
            loss = loss_of(idx)
            loss.backward()
            opt.step()
            sched.step()
    with torch.no_grad():
        t = torch.from_numpy(test)
        held = float(loss_of(t))
        agree = float((scores(t).argmax(dim=1) == T[t].argmax(dim=1)).float().mean())
        ent = float(-(T[t] * torch.log(T[t].clamp_min(1e-12))).sum(dim=1).mean())
    net = (W1.weight.detach().numpy().astype(np.float64), W1.bias.detach().numpy().astype(np.float64),
           w2.weight.detach().numpy()[0].astype(np.float64))
    return net, {"loss": held, "target_entropy": ent, "agreement": agree, "samples": float(n)}


def save(path: str | Path, net: tuple[np.ndarray, np.ndarray, np.ndarray], meta: dict[str, Any]) -> Path:
    """Write the network and its ``meta`` (JSON) to ``path`` (``.npz``); read back by ``compiled.load_net``."""
    path = Path(path)
    W1, b1, w2 = net
    np.savez(path, W1=W1, b1=b1, w2=w2, meta=np.array(json.dumps(meta, sort_keys=True)))
    C.load_net(path)  # what it wrote loads
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fiveplay_env.agents.take5.distill", description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=DEFAULT_POLICY, help="the learned policy to distill (default %(default)s)")
    ap.add_argument("--players", type=int, default=4, help="the games' player count (default 4)")
    ap.add_argument("--samples", type=int, default=200_000, help="card choices to learn from (default 200000)")
    ap.add_argument("--hidden", type=int, default=24, help="hidden units (default 24)")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(C.NET_FILE), help="the .npz to write (default: the shipped one)")
    a = ap.parse_args(argv)
    if not 1 <= a.hidden <= C.MAX_HIDDEN:
        ap.error(f"--hidden: expected 1..{C.MAX_HIDDEN}, got {a.hidden}")
    if not 1000 <= a.samples <= 10_000_000:
        ap.error(f"--samples: expected 1000..10000000, got {a.samples}")
    from fiveplay_env.agents.learned.devices import one_thread
    from fiveplay_env.agents.registry import make_agent
    from fiveplay_env.take5.config import Take5Config

    config = Take5Config(num_players=a.players, mode="game")
    policy = make_agent(a.policy, "take5", seed=a.seed)
    t0 = time.perf_counter()
    with one_thread():
        data = collect(policy, config, a.samples, seed=a.seed)
        t1 = time.perf_counter()
        net, stats = fit(data, hidden=a.hidden, epochs=a.epochs, seed=a.seed)
    t2 = time.perf_counter()
    meta = {"policy": a.policy, "players": a.players, "hidden": a.hidden, "epochs": a.epochs, "seed": a.seed,
            "features": C.NET_FEATURES, "collect_seconds": round(t1 - t0, 1), "fit_seconds": round(t2 - t1, 1),
            **{k: round(v, 4) for k, v in stats.items()}}
    save(a.out, net, meta)
    print(json.dumps(meta, sort_keys=True))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


__all__ = ["DEFAULT_POLICY", "collect", "fit", "main", "save"]
