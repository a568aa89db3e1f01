"""``fiveplay_env.agents.arena.mean_ci``, the one 95% interval of a mean that tournaments, evaluation and the
experiments report, and the forms its users keep (evaluation's ``(mean, half-width)`` pair)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fiveplay_env.agents.arena import Z95, mean_ci


def test_the_interval_and_where_it_is_undefined():
    assert mean_ci([]) == {"mean": None, "ci95": None, "half_width": None, "n": 0}
    assert mean_ci([2.5]) == {"mean": 2.5, "ci95": None, "half_width": None, "n": 1}
    ci = mean_ci([0.0, 1.0, 1.0, 0.0])
    half = Z95 * (1 / 3) ** 0.5 / 2  # s = sqrt(1/3), n = 4
    assert ci["mean"] == 0.5 and ci["n"] == 4 and ci["half_width"] == pytest.approx(half, rel=1e-15)
    assert ci["ci95"] == [0.5 - ci["half_width"], 0.5 + ci["half_width"]]
    assert Z95 == pytest.approx(1.959964, abs=1e-6)


def test_numpy_input_gives_plain_floats_and_the_same_figures():
    values = np.random.default_rng(0).normal(3.0, 2.0, 1000)
    a, b = mean_ci(values), mean_ci(values.tolist())
    assert type(a["mean"]) is float and type(a["half_width"]) is float and a == b
    assert a["mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert a["half_width"] == pytest.approx(Z95 * values.std(ddof=1) / math.sqrt(1000), rel=1e-12)


def test_evaluation_reports_it_as_a_mean_and_half_width_pair():
    from fiveplay_env.agents.learned.evaluation import mean_half_width

    assert mean_half_width(np.array([1.0, 3.0])) == (2.0, mean_ci([1.0, 3.0])["half_width"])
    one, none = mean_half_width(np.array([4.0])), mean_half_width(np.array([]))
    assert one[0] == 4.0 and math.isnan(one[1]) and all(math.isnan(x) for x in none)
