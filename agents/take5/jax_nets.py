"""The ``take5`` network's forward pass in JAX (``fiveplay_env.agents.take5.nets.Take5ActorCritic``, forward only: the JAX
trainer's rollouts), found through the torch class's ``jax_forward``.

``forward(spec, params, obs, mask)`` computes what the torch network computes (the same formulas, in
float32: equal to about 1e-5, checked by ``tests/learning/test_jax_train.py``): ``mlp`` plus the
per-action features for the legal actions (fixed width: ``HAND_SIZE`` slots for the hand, ``HAND_SIZE``
for the legal actions, all 108 with ``draft=True``: ``spec.static``), pooled hand features into the
trunk, the action scorer.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from fiveplay_env.agents.learned.jax.nets import ILLEGAL_LOGIT, NetSpec, first_k, linear, scan_add, trunk
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5 import state as t5state


def forward(spec: NetSpec, p: dict[str, Any], obs: Any, mask: Any) -> tuple[Any, Any]:
    """``(masked logits float32 [B, A], value float32 [B])`` of the ``take5`` network ``spec`` with parameters
    ``p`` (``fiveplay_env.agents.learned.jax.nets.params_of``) for observations ``obs`` [B, D] and bool masks ``mask``."""
    C = t5state.NUM_CARDS
    n = spec.num_players
    B = obs.shape[0]
    hand = obs[:, t5obs.HAND:t5obs.HAND + C]
    seen = obs[:, t5obs.SEEN:t5obs.SEEN + C]
    unseen = jnp.maximum(1.0 - hand - seen, 0.0)
    stats = obs[:, t5obs.ROW_STATS:t5obs.ROW_STATS + 12].reshape(B, 4, 3)
    ends = jnp.round(stats[:, :, 0] * 104.0) - 1.0
    lens = jnp.round(stats[:, :, 1] * 5.0)
    bulls = jnp.round(stats[:, :, 2] * 10.0)
    cum_pad = jnp.concatenate([jnp.zeros((B, 1), obs.dtype), scan_add(unseen)], axis=1)
    own_cum = scan_add(hand)
    opp = float(n - 1)
    k = jnp.arange(n, dtype=jnp.float32)
    logc = (lax.lgamma(jnp.float32(opp + 1.0)) - lax.lgamma(k + 1.0) - lax.lgamma(opp - k + 1.0))
    card_bull = p["card_bull"]
    total = jnp.maximum(cum_pad[:, C:C + 1], 1.0)
    min_bull_row = bulls.min(axis=1)[:, None]

    def card_features(cards: Any) -> Any:                       # cards int32 [B, K] -> [B, K, 16]
        ids = cards.astype(jnp.float32)
        below = ends[:, None, :] < ids[:, :, None]
        cand = jnp.where(below, ends[:, None, :], -2.0)
        tend = cand.max(axis=2)
        trow = cand.argmax(axis=2)
        too_low = (~below.any(axis=2)).astype(jnp.float32)
        ok = 1.0 - too_low
        tlen = jnp.take_along_axis(lens, trow, axis=1) * ok
        tbull = jnp.take_along_axis(bulls, trow, axis=1) * ok
        gap = (ids - tend) * ok
        end_idx = jnp.maximum(tend + 1.0, 0.0).astype(jnp.int32)
        below_c = jnp.take_along_axis(cum_pad, cards, axis=1)
        in_gap = (below_c - jnp.take_along_axis(cum_pad, end_idx, axis=1)) * ok
        prob = in_gap / total
        need = (5.0 - tlen) * ok
        pc = jnp.clip(prob, 1e-6, 1 - 1e-6)[..., None]
        pmf = jnp.exp(logc + k * jnp.log(pc) + (opp - k) * jnp.log1p(-pc))
        eq = (k == need[..., None]).astype(jnp.float32)
        ge = (k >= need[..., None]).astype(jnp.float32)
        p_eq = (pmf * eq).sum(-1)
        p_ge = (pmf * ge).sum(-1)
        sixth = (tlen >= 5.0).astype(jnp.float32) * ok
        min_bull = jnp.broadcast_to(min_bull_row, ids.shape)
        p_under = 1.0 - (1.0 - below_c / total) ** opp
        exp_cost = ok * p_eq * (tbull + 1.5 * need) + too_low * min_bull * (1.0 - p_under)
        in_hand = jnp.take_along_axis(hand, cards, axis=1)
        own_below = jnp.take_along_axis(own_cum, cards, axis=1) - in_hand
        return jnp.stack([
            in_hand, too_low, gap / 104.0, in_gap / 10.0, tlen / 5.0, tbull / 10.0, sixth, card_bull[cards] / 7.0,
            ids / 104.0, need / 5.0, p_ge, exp_cost / 10.0, min_bull / 10.0 * too_low,
            below_c / 104.0, own_below / 10.0, p_under], axis=2)

    # the hand's pooled features (the trunk's extra inputs)
    H = t5state.HAND_SIZE
    hcards = first_k(hand > 0, H)
    hvalid = jnp.take_along_axis(hand > 0, hcards, axis=1)
    hf = card_features(hcards)
    w = hf[:, :, 0:1] * hvalid[..., None].astype(jnp.float32)
    nh = jnp.maximum(hand.sum(axis=1, keepdims=True), 1.0)
    pooled_mean = (hf * w).sum(axis=1) / nh
    pooled_max = jnp.maximum((hf * w - (1.0 - w)).max(axis=1), 0.0)
    # the legal actions' features
    n_act = C + 4
    legal = mask[:, :n_act]
    K = n_act if dict(spec.static)["draft"] else H
    order = first_k(legal, K)
    valid = jnp.take_along_axis(legal, order, axis=1)
    is_row = order >= C
    cf = card_features(jnp.minimum(order, C - 1))
    rowf_all = jnp.stack([bulls / 10.0, lens / 5.0, (bulls == bulls.min(axis=1, keepdims=True)).astype(jnp.float32),
                          (ends + 1.0) / 104.0], axis=2)                                   # [B, 4, 4]
    rf = jnp.take_along_axis(rowf_all, jnp.clip(order - C, 0, 3)[..., None], axis=1)
    rowf = is_row[..., None].astype(jnp.float32)
    sel = jnp.concatenate([cf * (1.0 - rowf), rf * rowf, rowf], axis=2) * valid[..., None].astype(jnp.float32)
    x = jnp.concatenate([obs * p["obs_scale"], pooled_mean, pooled_max], axis=1)
    h = trunk(spec, p, x)
    base = linear(p, "policy_head", h)
    z = jax.nn.relu(linear(p, "act_feat", sel) + linear(p, "act_ctx", h)[:, None, :])
    score = linear(p, "act_out.2", jax.nn.relu(linear(p, "act_out.0", z)))[..., 0]            # [B, K]
    extra = jnp.zeros_like(base).at[jnp.arange(B)[:, None], order].add(jnp.where(valid, score, 0.0))
    return jnp.where(mask, base + extra, ILLEGAL_LOGIT), linear(p, "value_head", h)[:, 0]


__all__ = ["forward"]
