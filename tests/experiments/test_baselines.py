"""fiveplay_env.experiments.baselines (the 5 Alive baselines per player count) on a tiny run through the command,
its spec's checks, and the seat map that lets the 4-player 5 Alive policy read other player counts."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fiveplay_env.agents.learned.defaults import adapt_observation, five_alive_seat_map
from fiveplay_env.experiments import baselines, cli
from fiveplay_env.five_alive import observation as faobs


def test_tiny_baselines_through_the_command(tmp_path, capsys) -> None:
    code = cli.main(["baselines", "--players", "2", "3", "--selfplay-games", "5", "--ladder-cycles", "1",
                     "--agents", "random", "five-alive-attacker", "five-alive-saver", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "Seat win rates in self-play" in out and "Ladder, 3 players:" in out
    (run_dir,) = [d for d in tmp_path.iterdir() if d.name.startswith("baselines__five_alive__")]
    data = json.loads((run_dir / "baselines.json").read_text(encoding="utf-8"))
    for n in (2, 3):
        for agent in ("random", "five-alive-attacker"):
            fig = data["selfplay"][str(n)][agent]
            assert fig["games"] == n * -(-5 // n)  # rounded up to every deal from every seat
            seats = [s["mean"] for s in fig["seat_win_rate"]]
            assert len(seats) == n and sum(seats) == pytest.approx(1.0)  # every game has winners worth 1 in all
            assert fig["decisions"]["mean"] > 0 and fig["rounds"]["mean"] >= 1
    assert data["ladders"]["2"]["games"] == 2 * 3 and data["ladders"]["3"]["games"] == 3  # n * C(3, n)
    with open(f"{data['selfplay']['2']['random']['run_dir']}/config.json", encoding="utf-8") as f:
        assert json.load(f)["config"]["first_player"] == "seat0"


def test_spec_checks_its_fields() -> None:
    with pytest.raises(ValueError, match="players: expected player counts in 2..6"):
        baselines.BaselinesSpec(players=(7,))
    with pytest.raises(ValueError, match="selfplay_games: expected an integer >= 0"):
        baselines.BaselinesSpec(selfplay_games=-1)
    assert baselines.BaselinesSpec(search="ismcts:sims=9").entrants()[-1] == "ismcts:sims=9"


def test_each_ladder_seats_the_policy_of_its_player_count(monkeypatch) -> None:
    from fiveplay_env.agents.learned import pretrained

    fake = {n: pretrained.Pretrained(n, f"{n}.pt", "five_alive", k, "") for n, k in
            (("five-alive-2p", 2), ("five-alive-4p", 4), ("five-alive-6p", 6))}
    monkeypatch.setattr(pretrained, "MODELS", fake)
    monkeypatch.setattr(pretrained, "available", lambda: list(fake))
    spec = baselines.BaselinesSpec(search="ismcts:sims=9")

    def policies(n):
        return [a for a in spec.entrants(n) if a.startswith("pretrained:")]

    assert policies(2) == ["pretrained:five-alive-2p"] and policies(3) == ["pretrained:five-alive-4p"]  # tie: higher
    assert policies(4) == ["pretrained:five-alive-4p"] and policies(5) == ["pretrained:five-alive-6p"]
    assert policies(6) == ["pretrained:five-alive-6p"]
    assert len(policies(None)) == 3 and spec.entrants(6)[-1] == "ismcts:sims=9"
    assert baselines.BaselinesSpec(agents=("random", "five-alive-saver")).entrants(6) == ("random", "five-alive-saver")


def test_five_alive_seat_map_keeps_both_neighbours() -> None:
    assert five_alive_seat_map(4, 4) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert five_alive_seat_map(3, 4) == [(0, 0), (1, 1), (2, 3)]  # the previous player stays last
    assert five_alive_seat_map(6, 4) == [(0, 0), (1, 1), (2, 2), (5, 3)]  # the farthest seats dropped
    n, k = 3, 4
    obs = np.arange(faobs.observation_size(n), dtype=np.float32)[None, :]
    out = adapt_observation("five_alive", obs, k, faobs.observation_size(k))
    S = faobs.SEATS
    assert out.shape == (1, faobs.observation_size(k))
    assert np.array_equal(out[0, :S], obs[0, :S])
    lives_in, lives_out = obs[0, S + n:S + 2 * n], out[0, S + k:S + 2 * k]
    assert list(lives_out) == [lives_in[0], lives_in[1], 0.0, lives_in[2]]  # an empty seat reads as eliminated
    with pytest.raises(ValueError, match="expected 80 \\+ 3n floats"):
        adapt_observation("five_alive", np.zeros((1, 81), np.float32), k, faobs.observation_size(k))
