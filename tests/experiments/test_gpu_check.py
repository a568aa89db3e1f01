"""The prepared GPU script runs end to end (on the CPU, tiny settings) and says when there is no GPU."""
from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")


def test_gpu_check_dry_run_on_cpu(tmp_path):
    from fiveplay_env.experiments.gpu_check import main

    prev = torch.get_num_threads()
    try:
        res = main(["--device", "cpu", "--seconds", "0.2", "--num-envs", "8", "--minibatch-size", "32",
                    "--curve-minutes", "0.03", "--eval-interval", "1", "--eval-games", "8", "--threads", "1",
                    "--out", str(tmp_path)])
    finally:
        torch.set_num_threads(prev)
    assert set(res["throughput"]) == {"take5 4p single_round", "take5 4p single_round, compact obs", "five_alive 4p default"}
    for r in res["throughput"].values():
        assert r["decisions_per_s"] > 0 and r["device"] == "cpu" and abs(sum(r["share"].values()) - 1) < 1e-9
    assert res["curve"]["rows"] and {r["baseline"] for r in res["curve"]["rows"]} == {"random", "take5-safest"}
    saved = json.load(open(os.path.join(tmp_path, "gpu_check.json")))
    assert saved["throughput"].keys() == res["throughput"].keys()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on a machine without a GPU")
def test_gpu_check_without_gpu_is_a_clear_error(tmp_path):
    from fiveplay_env.experiments.gpu_check import main

    with pytest.raises(ValueError, match="expected a usable GPU"):
        main(["--out", str(tmp_path)])


def test_gpu_check_jax_part_dry_run_on_cpu(tmp_path):
    """Part 3 (the JAX engines) on the CPU with tiny sizes: throughput rows and the on-device equality check."""
    pytest.importorskip("jax")
    from fiveplay_env.experiments.gpu_check import main

    res = main(["--jax-only", "--jax-games", "take5", "--jax-batch", "2", "--seconds", "0.01", "--jax-equal-steps", "4",
                "--jax-compile-fast",
                "--out", str(tmp_path)])
    rows = res["jax"]["throughput"]
    assert rows and all(r["decisions_per_s"] > 0 and r["bytes_per_game"] > 0 for r in rows)
    assert {r["game"] for r in rows} == {"take5"}  # --jax-games
    assert all(e["decisions_compared"] == 4 * 64 for e in res["jax"]["equality"])
    saved = json.load(open(os.path.join(tmp_path, "gpu_check.json")))
    assert saved["jax"]["throughput"] == rows
