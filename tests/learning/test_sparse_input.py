"""The sparse first layer (``TrainConfig.sparse_input``): the same network as the dense product."""
from __future__ import annotations

import numpy as np
import torch


def test_sparse_first_layer_equals_the_dense_network_and_its_gradients():
    from fiveplay_env.agents.learned.nets import build_model, sparse_linear
    from fiveplay_env import vector

    env = vector.make_vec("take5", 16, seed=4, num_players=4, mode="round")
    obs, mask, _ = env.reset(4)
    rng = np.random.default_rng(4)
    rows, masks = [], []
    for _ in range(30):
        rows.append(obs.copy())
        masks.append(np.asarray(mask).copy())
        obs, mask, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    x, m = torch.from_numpy(np.concatenate(rows)), torch.from_numpy(np.concatenate(masks))
    assert (x != 0).float().mean() < 0.15  # a mostly-zero observation
    torch.manual_seed(0)
    dense = build_model("take5", {"obs_dim": x.shape[1], "num_actions": 109, "hidden": [32, 32]})
    sparse = build_model("take5", dense.kwargs())
    sparse.load_state_dict(dense.state_dict())
    sparse.sparse_input = True
    outs = []
    for net in (dense, sparse):
        logits, value = net(x, m)
        (logits[m.bool()].sum() + value.sum()).backward()
        outs.append((logits.detach(), value.detach(), net.trunk[0].weight.grad.clone()))
    for a, b in zip(*outs):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    lin = torch.nn.Linear(5, 3)
    z = torch.tensor([[0.0, 2.5, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    torch.testing.assert_close(sparse_linear(z, lin), lin(z))  # values kept, an all-zero row gives the bias
