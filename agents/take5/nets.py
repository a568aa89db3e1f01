"""The ``take5`` network: the generic ``mlp`` (``fiveplay_env.agents.learned.nets.MaskedActorCritic``) plus per-action
features computed from the observation (public information only), declared in the kit
(``fiveplay_env.agents.take5.KIT.networks``); a checkpoint records its name, ``take5``.

For each card: the row it would go on, its gap, that row's length and bull heads, the unseen cards in the
gap and the chance they fill the row first (the quantities the ``take5-safest`` heuristic uses), too-low
and cheapest-row facts; for each row choice: the row's bull heads and length. A small MLP scores each
*legal* action from its features and the trunk's context; the trunk also sees pooled features of the hand.

The features are computed inside ``forward`` from the observation's documented layout
(``fiveplay_env.take5.observation``), so a saved network is self-contained: feed it what the env hands an
agent and nothing else. Its JAX forward (the JAX trainer's rollouts) is ``fiveplay_env.agents.take5.jax_nets``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from fiveplay_env.agents.learned.nets import MaskedActorCritic, init_layers, mask_logits, mlp
from fiveplay_env.take5 import observation as t5obs
from fiveplay_env.take5 import state as t5state


class Take5ActorCritic(MaskedActorCritic):
    """The ``take5`` architecture (see the module docstring). ``num_players`` is read off ``obs_dim``."""

    arch = "take5"
    jax_forward = "fiveplay_env.agents.take5.jax_nets:forward"
    FEATURES_VERSION = 1  # bump when ``features`` changes: saved networks then refuse to load
    CARD_FEATURES = 16
    ROW_FEATURES = 4
    NUM_FEATURES = CARD_FEATURES + ROW_FEATURES + 1  # + the action's kind flag (card or row)

    def __init__(self, obs_dim: int, num_actions: int, hidden: tuple[int, ...] = (256, 256),
                 action_hidden: int = 64, obs_scale: list[float] | None = None, features_version: int = 1) -> None:
        try:
            n, _ = t5obs.players_of_size(int(obs_dim))
        except ValueError:
            n = 0
        if not n or int(num_actions) != t5state.NUM_ACTIONS:
            raise ValueError(f"take5 network: expected a Take 5 observation (848 + 3n floats, n = 2..10, plus "
                             f"104 (n - 1) with draft=True) and {t5state.NUM_ACTIONS} actions, got "
                             f"obs_dim={obs_dim}, num_actions={num_actions}")
        if features_version != self.FEATURES_VERSION:
            raise ValueError(f"take5 network: made with features version {features_version}, this code computes "
                             f"version {self.FEATURES_VERSION}")
        self.num_players = n
        self.action_hidden = int(action_hidden)
        super().__init__(obs_dim, num_actions, hidden, obs_scale)
        F = self.NUM_FEATURES
        self.act_feat = nn.Linear(F, self.action_hidden)
        self.act_ctx = nn.Linear(self.hidden[-1], self.action_hidden, bias=False)
        self.act_out = mlp([self.action_hidden, self.action_hidden, 1], act_last=False)
        init_layers(self.act_feat, math.sqrt(2))
        init_layers(self.act_ctx, math.sqrt(2))
        init_layers(self.act_out, math.sqrt(2))
        nn.init.orthogonal_(self.act_out[-1].weight, gain=0.01)
        self.register_buffer("card_bull", torch.tensor(np.array(t5state.BULLHEADS[:t5state.NUM_CARDS]), dtype=torch.float32))
        self.register_buffer("card_ids", torch.arange(t5state.NUM_CARDS, dtype=torch.float32))
        # the binomial terms of the card features: k = 0..n-1 opponents' cards and log C(n-1, k), computed once
        # (not saved: derived from the player count)
        k = torch.arange(0, n, dtype=torch.float32)
        opp = torch.tensor(float(n - 1))
        self.register_buffer("binom_k", k, persistent=False)
        self.register_buffer("binom_logc", torch.lgamma(opp + 1.0) - torch.lgamma(k + 1.0) - torch.lgamma(opp - k + 1.0),
                             persistent=False)
        self._L = dict(hand=t5obs.HAND, seen=t5obs.SEEN, rows=t5obs.ROWS, stats=t5obs.ROW_STATS,
                       phase=t5obs.SCORES + 3 * n, cards=t5state.NUM_CARDS, row0=t5state.ACTION_ROW0)

    def trunk_input_dim(self) -> int:
        return self.obs_dim + 2 * self.CARD_FEATURES

    def kwargs(self) -> dict[str, Any]:
        return {**super().kwargs(), "action_hidden": self.action_hidden, "features_version": self.FEATURES_VERSION}

    def jax_static(self) -> dict[str, Any]:
        """The JAX forward's static facts: ``draft`` (the observation has a draft's pieces: the legal actions
        may number more than a hand)."""
        return {"draft": bool(t5obs.players_of_size(self.obs_dim)[1])}

    def _public(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """The per-row quantities every card's features read: hand, rows, unseen-card counts."""
        L = self._L
        C = L["cards"]
        B = obs.shape[0]
        hand = obs[:, L["hand"]:L["hand"] + C]
        seen = obs[:, L["seen"]:L["seen"] + C]
        unseen = (1.0 - hand - seen).clamp(min=0.0)
        stats = obs[:, L["stats"]:L["stats"] + 12].reshape(B, 4, 3)
        cum = torch.cumsum(unseen, dim=1)
        return {
            "hand": hand,
            "ends": torch.round(stats[:, :, 0] * 104.0) - 1.0,          # last card id of each row (-1: none)
            "lens": torch.round(stats[:, :, 1] * 5.0),
            "bulls": torch.round(stats[:, :, 2] * 10.0),
            "cum_pad": torch.cat([obs.new_zeros(B, 1), cum], dim=1),  # [k]: unseen ids < k
            "own_cum": torch.cumsum(hand, dim=1),
        }

    def _card_features(self, pub: dict[str, torch.Tensor], cards: torch.Tensor) -> torch.Tensor:
        """The ``CARD_FEATURES`` features ``[B, K, 16]`` of the cards ``cards`` (int64 ``[B, K]`` card ids;
        ``[1, K]`` broadcasts over the batch): the one definition ``features`` (every card) and ``prepare``
        (the hand and the legal cards only) both use."""
        hand, ends, lens, bulls, cum_pad = pub["hand"], pub["ends"], pub["lens"], pub["bulls"], pub["cum_pad"]
        B = hand.shape[0]
        C = self._L["cards"]
        cards = cards.expand(B, -1)
        ids = cards.to(hand.dtype)                                   # [B, K]
        below = ends[:, None, :] < ids[:, :, None]                   # [B, K, 4] row r ends below card c
        cand = torch.where(below, ends[:, None, :], torch.full_like(below, -2.0, dtype=hand.dtype))
        tend, trow = cand.max(dim=2)                                 # target row's end, index
        too_low = (~below.any(dim=2)).to(hand.dtype)
        ok = 1.0 - too_low
        tlen = torch.gather(lens, 1, trow) * ok
        tbull = torch.gather(bulls, 1, trow) * ok
        gap = (ids - tend) * ok
        # unseen cards strictly between the target row's end and c: cum[c-1] - cum[end]
        end_idx = (tend + 1.0).clamp(min=0.0).long()                # unseen ids <= end  = cum_pad[end + 1]
        below_c = torch.gather(cum_pad, 1, cards)                    # unseen ids < c
        in_gap = (below_c - torch.gather(cum_pad, 1, end_idx)) * ok
        total = cum_pad[:, C:C + 1].clamp(min=1.0)
        opp = float(self.num_players - 1)
        p = in_gap / total
        need = (5.0 - tlen) * ok
        # P(Binomial(opp, p) >= need) and == need (need = 0 means this card is the 6th: certain)
        k, logc = self.binom_k, self.binom_logc                      # 0..opp and log C(opp, k)
        pc = p.clamp(1e-6, 1 - 1e-6)[..., None]
        pmf = torch.exp(logc + k * torch.log(pc) + (opp - k) * torch.log1p(-pc))   # [B, K, opp+1]
        eq = (k[None, None, :] == need[..., None]).to(hand.dtype)
        ge = (k[None, None, :] >= need[..., None]).to(hand.dtype)
        p_eq = (pmf * eq).sum(-1)
        p_ge = (pmf * ge).sum(-1)
        sixth = ((tlen >= 5.0).to(hand.dtype)) * ok
        min_bull = bulls.min(dim=1).values[:, None].expand_as(ids)
        p_under = 1.0 - (1.0 - below_c / total) ** opp              # someone plays below c
        # take5-safest's estimate: the row fills exactly when `need` opponent cards land in the gap first
        # (a full row: when none does), and a too-low card takes the cheapest row unless someone undercuts
        exp_cost = ok * p_eq * (tbull + 1.5 * need) + too_low * min_bull * (1.0 - p_under)
        in_hand = torch.gather(hand, 1, cards)
        own_below = torch.gather(pub["own_cum"], 1, cards) - in_hand
        return torch.stack([
            in_hand, too_low, gap / 104.0, in_gap / 10.0, tlen / 5.0, tbull / 10.0, sixth, self.card_bull[cards] / 7.0,
            ids / 104.0, need / 5.0, p_ge, exp_cost / 10.0, min_bull / 10.0 * too_low,
            below_c / 104.0, own_below / 10.0, p_under,
        ], dim=2)                                                     # [B, K, 16]

    def _row_features(self, pub: dict[str, torch.Tensor]) -> torch.Tensor:
        """``[B, 4, ROW_FEATURES]``: each row's bull heads, length, cheapest-row flag and last card."""
        bulls, lens, ends = pub["bulls"], pub["lens"], pub["ends"]
        return torch.stack([bulls / 10.0, lens / 5.0, (bulls == bulls.min(dim=1, keepdim=True).values).to(bulls.dtype),
                            (ends + 1.0) / 104.0], dim=2)

    def features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-action features ``[B, 108, NUM_FEATURES]`` (cards 0..103, then rows 0..3) and the hand
        mask ``[B, 104]``. Everything is read off the observation (public information only).
        ``prepare`` computes the same features for the hand and the legal actions only."""
        C = self._L["cards"]
        pub = self._public(obs)
        B = obs.shape[0]
        cardf = self._card_features(pub, torch.arange(C, device=obs.device)[None, :])
        feats = obs.new_zeros(B, C + 4, self.NUM_FEATURES)
        feats[:, :C, :self.CARD_FEATURES] = cardf
        feats[:, C:, self.CARD_FEATURES:self.CARD_FEATURES + self.ROW_FEATURES] = self._row_features(pub)
        feats[:, C:, -1] = 1.0
        return feats, pub["hand"]

    def prepare(self, obs: torch.Tensor, mask: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """``x`` (the trunk's input: scaled observation and pooled hand features) and, for the legal
        actions only, their features ``sel`` [B, k, F], action ids ``order`` [B, k] and ``valid`` [B, k]
        (k: the most legal actions of a row of the batch; rows with fewer are padded, valid False).

        The card features are computed for the cards that matter only (the hand, pooled into ``x``, and
        the legal cards, e.g. a draft's pool: at most ~10 of the 104), not the whole grid ``features``
        returns: the same numbers at a tenth of the work (a test holds the two equal)."""
        if mask is None:
            raise ValueError("take5 network: prepare needs the legal-action mask (it scores legal actions only)")
        C = self._L["cards"]
        B = obs.shape[0]
        pub = self._public(obs)
        hand = pub["hand"]
        n_act = C + 4
        legal = mask.bool()[:, :n_act]
        # the cards to featurise: the hand and the legal cards, in id order, padded to the longest row
        wanted = (hand > 0) | legal[:, :C]
        kc = max(int(wanted.sum(dim=1).max().item()) if wanted.numel() else 1, 1)
        cards = torch.argsort(wanted.to(torch.int8), dim=1, descending=True, stable=True)[:, :kc]    # [B, kc]
        cvalid = torch.gather(wanted, 1, cards)
        cardf = self._card_features(pub, cards)                                                     # [B, kc, 16]
        in_hand = cardf[:, :, 0:1] * cvalid[..., None]           # feature 0 is "in hand"
        nh = hand.sum(dim=1, keepdim=True).clamp(min=1.0)
        pooled_mean = (cardf * in_hand).sum(dim=1) / nh
        pooled_max = (cardf * in_hand - (1.0 - in_hand)).max(dim=1).values.clamp(min=0.0)
        # the legal actions (at most ~10 per row in play): their features, cards from ``cardf``
        kmax = max(int(legal.sum(dim=1).max().item()) if legal.numel() else 1, 1)
        order = torch.argsort(legal.to(torch.int8), dim=1, descending=True, stable=True)[:, :kmax]   # [B, k]
        valid = torch.gather(legal, 1, order)
        is_row = order >= C
        slot = torch.zeros(B, C, dtype=torch.long, device=obs.device).scatter_(1, cards, torch.arange(kc, device=obs.device).expand(B, -1))
        pos = torch.gather(slot, 1, order.clamp(max=C - 1))
        cf = torch.gather(cardf, 1, pos[..., None].expand(-1, -1, self.CARD_FEATURES))
        rf = torch.gather(self._row_features(pub), 1, (order - C).clamp(0, 3)[..., None].expand(-1, -1, self.ROW_FEATURES))
        rowf = is_row[..., None].to(obs.dtype)
        sel = torch.cat([cf * (1.0 - rowf), rf * rowf, rowf], dim=2) * valid[..., None].to(obs.dtype)
        return {"x": torch.cat([obs * self.obs_scale, pooled_mean, pooled_max], dim=1), "sel": sel,
                "order": order, "valid": valid}

    def head(self, prep: dict[str, torch.Tensor], mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask_b = mask.bool()
        h = self.run_trunk(prep["x"])
        base = self.policy_head(h)
        # score only the legal actions (gathered by ``prepare``), scatter the scores back
        order, valid = prep["order"], prep["valid"]
        z = torch.relu(self.act_feat(prep["sel"]) + self.act_ctx(h)[:, None, :])
        score = self.act_out(z).squeeze(-1)                                                          # [B, k]
        extra = torch.zeros_like(base).scatter(1, order, torch.where(valid, score, torch.zeros_like(score)))
        return mask_logits(base + extra, mask_b), self.value_head(h).squeeze(-1)


__all__ = ["Take5ActorCritic"]
