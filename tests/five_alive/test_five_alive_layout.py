"""The 5 Alive observation layout is declared once (``observation.LAYOUT``); the documented tables, the
sizes, ``pieces()``, the gather from the engine's table and the batched encoder follow it."""
from __future__ import annotations

import re

import numpy as np
import pytest

from fiveplay_env import five_alive_v0
from fiveplay_env.five_alive import engine
from fiveplay_env.five_alive import observation as obs
from fiveplay_env.five_alive.config import FiveAliveConfig
from fiveplay_env.five_alive.state import TABLE, build_table, tab_offsets


@pytest.mark.parametrize("module", [obs, five_alive_v0], ids=["observation", "five_alive_v0"])
def test_documented_tables_match_the_layout(module):
    assert obs.LAYOUT.check_table(module.__doc__) == []


def test_documented_sizes_match_the_layout():
    total = str(obs.LAYOUT.total())
    assert total == "80+3n"
    assert re.search(r"float32\[([^\]]+)\]", five_alive_v0.__doc__.replace(" ", "")).group(1) == total
    assert f"Thesizeis``{total}``" in "".join(obs.__doc__.split())


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_gather_reads_each_piece_from_the_table_piece_of_its_name(n):
    cfg = FiveAliveConfig(num_players=n)
    s = engine.new_game(cfg, 5)
    for _ in range(7):
        engine.step(cfg, s, int(np.flatnonzero(engine.legal_mask(s))[0]))
    tab = build_table(s)
    assert np.array_equal(tab, s.tab) and tab.size == TABLE.size(n) == tab_offsets(n)[4]
    tsp = TABLE.spans(n)
    for p in range(n):
        x = obs.observe(cfg, s, p)
        assert x.size == obs.observation_size(n) == sum(size for _, size in obs.pieces(n).values())
        cut = {name: x[off:off + size] for name, (off, size) in obs.pieces(n).items()}
        assert cut["hand"].tolist() == s.hands[p]
        assert cut["hand_sizes"].tolist() == [s.hand_size[(p + i) % n] for i in range(n)]
        assert cut["lives"].tolist() == [s.lives[(p + i) % n] for i in range(n)]
        assert cut["turn"].tolist() == [1.0 if (p + i) % n == s.current else 0.0 for i in range(n)]
        for name in ("discard", "top", "total", "direction", "draw_pile", "phase"):
            o, size = tsp[name]
            assert np.array_equal(cut[name], tab[o:o + size]), name
        assert cut["total"].tolist().index(1.0) == s.total and cut["draw_pile"][0] == len(s.draw)
