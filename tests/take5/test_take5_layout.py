"""The Take 5 observation layout is declared once (``observation.LAYOUT``); the documented tables, the
sizes, ``pieces()`` and the encoders follow it."""
from __future__ import annotations

import re

import numpy as np
import pytest

from fiveplay_env import take5_v0
from fiveplay_env.take5 import compact, engine
from fiveplay_env.take5 import observation as obs
from fiveplay_env.take5.config import Take5Config


@pytest.mark.parametrize("module", [obs, take5_v0], ids=["observation", "take5_v0"])
def test_documented_tables_match_the_layout(module):
    assert obs.LAYOUT.check_table(module.__doc__) == []


def test_documented_sizes_match_the_layout():
    plain, others = str(obs.LAYOUT.total()), str(obs.LAYOUT.piece("others").size)
    assert (plain, others) == ("848+3n", "104(n-1)")
    assert obs.LAYOUT.total(draft=True) == obs.LAYOUT.total() + obs.LAYOUT.piece("others").size
    doc = take5_v0.__doc__.replace(" ", "")
    assert re.search(r"float32\[([^\]]+)\]", doc).group(1) == plain and f"{plain}+{others}" in doc
    assert f"thesizeis``{plain}``,plus``{others}``with``draft=True``" in "".join(obs.__doc__.split())


@pytest.mark.parametrize("n, draft", [(2, False), (4, False), (10, False), (3, True), (6, True)])
def test_pieces_tile_the_observation_and_name_what_the_encoder_writes(n, draft):
    p = obs.pieces(n, draft)
    assert list(p) == [x.name for x in obs.LAYOUT.present(draft=draft)]
    pos = 0
    for off, size in p.values():
        assert off == pos
        pos += size
    assert pos == obs.observation_size(n, draft) and obs.players_of_size(pos) == (n, draft)
    cfg = Take5Config(num_players=n, professional=draft, draft=draft)
    s = engine.new_game(cfg, 3)
    while s.phase != 1:  # play the draft out (first legal pick)
        engine.step(cfg, s, int(np.flatnonzero(engine.legal_mask(s))[0]))
    engine.step(cfg, s, int(np.flatnonzero(engine.legal_mask(s))[0]))  # one card chosen: seat 1 acts
    x = obs.encode(cfg, s, 1)
    cut = {name: x[off:off + size] for name, (off, size) in p.items()}
    assert np.array_equal(cut["hand"], s.hands[1, :104]) and np.array_equal(cut["seen"], s.seen)
    assert cut["seat"].tolist() == [1.0 if q == 1 else 0.0 for q in range(n)] and cut["phase"].tolist() == [0, 1, 0]
    assert cut["scores"].tolist() == [0.0] * n and cut["tricks"][0] == 0.0
    assert np.array_equal(x, obs.observe(cfg, s, 1))
    for r, row in enumerate(s.rows):
        plane = cut["rows"][104 * r:104 * (r + 1)]
        assert sorted(np.flatnonzero(plane).tolist()) == sorted(row)
        assert cut["row_stats"][3 * r] == np.float32((row[-1] + 1) / obs.ROW_STAT_DIVS[0])
    if draft:  # seat 0's choice is public in the draft: seat 1 sees it among seat 0's cards (relative seat n-1)
        others = cut["others"].reshape(n - 1, 104)
        assert others[n - 2, s.pending[0]] == 1.0


def test_the_compact_codec_follows_the_layout_codes():
    lay = compact.layout(4, 66)
    assert compact.BINARY_PIECES == ("hand", "seen", "trick", "pool", "rows")
    assert lay.tail_start == obs.ROW_STATS and lay.obs_size == obs.observation_size(4)
    sp = obs.pieces(4)
    o, size = sp["scores"]
    assert np.all(lay.tail_mul[o - lay.tail_start:o - lay.tail_start + size] == 1.0 / 66)
    o, size = sp["row_stats"]
    assert lay.tail_div[:size].tolist() == list(obs.ROW_STAT_DIVS) * 4
