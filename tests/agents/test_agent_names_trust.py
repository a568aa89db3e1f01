"""Agent names never run code unasked: import paths only with ``allow_import=True`` (nested ones too),
only agent classes and marked factories are called, errors name the kind of object and never its value,
``rllib:`` folders are read without unpickling anything but weights and spaces; the optional thoughts
hooks of the policy and search agents."""
from __future__ import annotations

import os
import pickle
import sys
import tempfile

import numpy as np
import pytest

from fiveplay_env.agents.registry import make_agent, nested_names
from fiveplay_env.core.errors import CheckpointError

ATTACKS = [
    "os:abort", "faulthandler:_sigsegv", "sys:exit", "builtins:input", "_thread:interrupt_main",
    "tempfile:mkdtemp", "os:environ", "os:system", "subprocess:Popen", "shutil:rmtree", "builtins:exec",
    "os.path:expanduser", "json:loads", "threading:Thread", "fiveplay_env.agents.base:Agent",
]
"""Import paths that would end, hang or change the process, or reveal what it holds, if called."""
NESTED = [f"ismcts:sims=5,prior={a}" for a in ("tempfile:mkdtemp", "os:abort", "sys:exit")] + \
    ["ismcts:sims=5,topk=2,prior=faulthandler:_sigsegv"]


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """``tempfile`` makes its folders in an empty folder of this test's, so that one made by an attack shows."""
    probe = tmp_path / "tmp"
    probe.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(probe))
    return probe


def _tmp_entries() -> set[str]:
    return set(os.listdir(tempfile.gettempdir()))


@pytest.mark.parametrize("name", ATTACKS + NESTED)
def test_import_paths_are_refused_without_the_opt_in(name):
    before = _tmp_entries()
    with pytest.raises(ValueError, match="import path") as e:
        agent = make_agent(name, "take5", seed=0)
        if agent.uses_engine:  # a search agent would load its prior here, at the latest
            from fiveplay_env.take5.config import Take5Config
            from fiveplay_env.take5.engine import Take5Engine

            agent.observe_engine(Take5Engine(Take5Config(mode="round"), 0), 0)
    assert "allow_import=True" in str(e.value)
    assert _tmp_entries() <= before  # tempfile:mkdtemp made nothing


@pytest.mark.parametrize("name", ATTACKS + NESTED)
def test_with_the_opt_in_only_agents_are_called(name, monkeypatch):
    """Even a caller that allows import paths gets no call of a non-agent: each is refused before calling,
    and the message names the kind of object, never its value (os:environ is the process environment)."""
    monkeypatch.setenv("FIVEPLAY_SECRET_PROBE", "s3cr3t-value")
    before = _tmp_entries()
    with pytest.raises(ValueError) as e:
        agent = make_agent(name, "take5", seed=0, allow_import=True)
        if agent.uses_engine:
            from fiveplay_env.take5.config import Take5Config
            from fiveplay_env.take5.engine import Take5Engine

            agent.observe_engine(Take5Engine(Take5Config(mode="round"), 0), 0)
    msg = str(e.value)
    assert "s3cr3t-value" not in msg and "PATH" not in msg.replace("ckpt:PATH", "")
    assert "expected" in msg
    if name.startswith("os:environ"):
        assert "got a _Environ" in msg
    assert _tmp_entries() <= before


def test_errors_name_the_kind_never_the_value(monkeypatch):
    with pytest.raises(ValueError, match=r"got a builtin_function_or_method; nothing was called"):
        make_agent("os:abort", "take5", allow_import=True)
    with pytest.raises(ValueError, match="expected a public attribute"):
        make_agent("faulthandler:_sigsegv", "take5", allow_import=True)
    with pytest.raises(ValueError, match="a function that is not marked as an agent factory"):
        make_agent("tempfile:mkdtemp", "take5", allow_import=True)
    with pytest.raises(ValueError, match="a class without act"):
        make_agent("subprocess:Popen", "take5", allow_import=True)
    with pytest.raises(ValueError, match="an abstract class"):
        make_agent("fiveplay_env.agents.base:Agent", "take5", allow_import=True)


def test_marked_factories_and_agent_classes_still_load(tmp_path, monkeypatch):
    (tmp_path / "trustbots_x.py").write_text(
        "import numpy as np\n"
        "from fiveplay_env.agents.base import Agent\n"
        "from fiveplay_env.agents.imported import agent_factory\n"
        "class Low(Agent):\n"
        "    def act(self, observation, action_mask):\n"
        "        return int(np.flatnonzero(action_mask)[0])\n"
        "@agent_factory\n"
        "def make(seed, game):\n"
        "    return Low(seed)\n"
        "def plain(seed):\n"
        "    return Low(seed)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        mask = np.zeros(109, np.int8)
        mask[[3, 9]] = 1
        assert make_agent("trustbots_x:Low", "take5", 0, allow_import=True).act(np.zeros(860), mask) == 3
        assert make_agent("trustbots_x:make", "take5", 0, allow_import=True).act(np.zeros(860), mask) == 3
        with pytest.raises(ValueError, match="not marked as an agent factory"):
            make_agent("trustbots_x:plain", "take5", 0, allow_import=True)
        with pytest.raises(ValueError, match="import path"):
            make_agent("trustbots_x:Low", "take5", 0)
        # the search agent's prior honours the opt-in too (checked eagerly without it)
        with pytest.raises(ValueError, match="the nested name 'trustbots_x:make' is an import path"):
            make_agent("ismcts:sims=5,prior=trustbots_x:make", "take5", 0)
    finally:
        sys.modules.pop("trustbots_x", None)


def test_nested_names():
    assert nested_names("random") == ["random"]
    assert nested_names("ismcts:sims=10,prior=take5-game-4p") == ["ismcts:sims=10,prior=take5-game-4p",
                                                                  "pretrained:take5-game-4p"]
    assert nested_names(" ismcts:prior=ckpt:runs/x?sample ") == ["ismcts:prior=ckpt:runs/x?sample", "ckpt:runs/x?sample"]
    with pytest.raises(ValueError, match="search option"):
        nested_names("ismcts:bogus=1")


def test_the_opponent_resolver_of_user_code_opts_in(tmp_path, monkeypatch):
    from fiveplay_env.agents.registry import user_agent
    from fiveplay_env import single_agent as sa

    assert sa._find_resolver() is user_agent
    with pytest.raises(ValueError, match="got a builtin_function_or_method"):
        user_agent("os:abort", "take5", 0)


# --- rllib: folders ------------------------------------------------------------------------------------------

class _Boom:
    """Unpickling this calls ``open`` on a marker file: proof that code ran."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _rllib_folder(tmp_path, ctor, state) -> str:
    folder = tmp_path / "ckpt" / "learner_group" / "learner" / "rl_module" / "shared"
    folder.mkdir(parents=True)
    with open(folder / "class_and_ctor_args.pkl", "wb") as f:
        pickle.dump(ctor, f)
    with open(folder / "module_state.pkl", "wb") as f:
        pickle.dump(state, f)
    return str(tmp_path / "ckpt")


@pytest.mark.parametrize("where", ["ctor", "state"])
def test_a_crafted_rllib_folder_runs_nothing(tmp_path, where):
    marker = str(tmp_path / "ran")
    evil = _Boom(marker)
    ctor = evil if where == "ctor" else {"class": None, "ctor_args_and_kwargs": ((), {})}
    state = evil if where == "state" else {}
    path = _rllib_folder(tmp_path, ctor, state)
    with pytest.raises(CheckpointError, match="refused, not loaded: UnpicklingError: it names io.open") as e:
        from fiveplay_env.agents.rllib_agent import load_safe_module

        load_safe_module(path)
    assert not os.path.exists(marker)
    assert "rllib checkpoint" in str(e.value)
    with pytest.raises(ValueError):  # through the registry name too
        make_agent(f"rllib:{path}", "take5", 0)
    from fiveplay_env.integrations.rllib import load_module

    with pytest.raises(CheckpointError, match="refused, not loaded"):  # and the integration's public loader
        load_module(path)
    assert not os.path.exists(marker)


def test_rllib_folder_with_other_classes_is_refused(tmp_path):
    from fiveplay_env.agents.rllib_agent import load_safe_module

    path = _rllib_folder(tmp_path, {"class": np.dtype("float32"), "ctor_args_and_kwargs": ((), {})}, {})
    with pytest.raises(CheckpointError, match="expected the class fiveplay_env.integrations.rllib.MaskedPPOTorchRLModule"):
        load_safe_module(path)
    with pytest.raises(CheckpointError, match="found no module"):
        load_safe_module(str(tmp_path / "nothing"))


@pytest.mark.slow
def test_rllib_module_loads_the_safe_way_and_plays_like_rllibs_own_loader(tmp_path):
    pytest.importorskip("ray.rllib")
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec

    from fiveplay_env.agents.rllib_agent import load_safe_module
    from fiveplay_env.integrations import rllib as R

    env = R.FiveplayMultiAgentEnv({"game": "take5", "num_players": 3, "mode": "round"})
    env.observation_spaces["player_0"].seed(1)  # a trained module's spaces carry seeded generators
    env.action_spaces["player_0"].seed(2)
    spec = RLModuleSpec(module_class=R.__getattr__("MaskedPPOTorchRLModule"),
                        observation_space=env.observation_spaces["player_0"], action_space=env.action_spaces["player_0"],
                        model_config={"fcnet_hiddens": [16], "fcnet_activation": "relu", "vf_share_layers": False})
    folder = str(tmp_path / "m" / "rl_module" / "shared")
    spec.build().save_to_path(folder)
    mine = load_safe_module(str(tmp_path / "m"))
    theirs = RLModule.from_checkpoint(folder)
    for k, v in theirs.state_dict().items():
        assert np.array_equal(v.numpy(), mine.state_dict()[k].numpy()), k
    agent = make_agent(f"rllib:{tmp_path / 'm'}", "take5", seed=0)
    obs, _ = env.reset(seed=1)
    (pid, o), = obs.items()
    a = agent.act(o["observations"], o["action_mask"].astype(np.int8))
    assert o["action_mask"][a] == 1
    # a state that does not fit the module is refused
    with open(os.path.join(folder, "module_state.pkl"), "rb") as f:
        state = pickle.load(f)
    state[next(iter(state))] = np.zeros(3, np.float32)
    with open(os.path.join(folder, "module_state.pkl"), "wb") as f:
        pickle.dump(state, f)
    with pytest.raises(CheckpointError, match="expected shape"):
        load_safe_module(str(tmp_path / "m"))


# --- thoughts ---------------------------------------------------------------------------------------------------

def _engine_game(game: str, seed: int):
    from fiveplay_env.agents import games

    g = games.get_game(game)
    cfg = g.config_cls(num_players=4, **({"mode": "round"} if game == "take5" else {}))
    return g, g.new_engine(cfg, seed)


@pytest.mark.parametrize("game, name", [("take5", "pretrained:take5-round-4p"), ("five_alive", "pretrained:five-alive-4p")])
def test_policy_thoughts(game, name):
    pytest.importorskip("torch")
    g, engine = _engine_game(game, 3)
    plain, thinking = make_agent(name, game, seed=1), make_agent(name, game, seed=1)
    thinking.keep_thoughts = True
    checked = 0
    while not engine.is_over and checked < 12:
        q = engine.current_player
        obs, mask = g.observe(engine, q), engine.legal_mask()
        a = thinking.act(obs, mask)
        assert a == plain.act(obs, mask)  # keeping thoughts changes no decision
        t = thinking.last_thoughts
        assert t["kind"] == "policy" and t["chosen"] == a
        assert set(t["probs"]) == set(int(x) for x in np.flatnonzero(mask))
        assert abs(sum(t["probs"].values()) - 1) < 1e-3 and max(t["probs"], key=t["probs"].get) == a
        assert np.isfinite(t["value"])
        assert plain.last_thoughts is None
        engine.step(a)
        checked += 1


@pytest.mark.parametrize("game, spec", [("take5", "sims=24"), ("five_alive", "sims=24"), ("take5", "sims=16,alloc=ucb")])
def test_search_thoughts(game, spec):
    g, engine = _engine_game(game, 5)
    plain, thinking = make_agent(f"ismcts:{spec}", game, seed=2), make_agent(f"ismcts:{spec}", game, seed=2)
    thinking.keep_thoughts = True
    seen = 0
    for _ in range(16):
        if engine.is_over:
            break
        q = engine.current_player
        obs, mask = g.observe(engine, q), engine.legal_mask()
        for agent in (plain, thinking):
            agent.observe_engine(engine, q)
        a = thinking.act(obs, mask)
        assert a == plain.act(obs, mask)
        t = thinking.last_thoughts
        assert t["kind"] == "search" and t["chosen"] == a
        acts = [c["action"] for c in t["candidates"]]
        assert a in acts and set(acts) <= set(int(x) for x in np.flatnonzero(mask))
        if not t.get("forced"):
            assert sum(c["visits"] for c in t["candidates"]) == t["sims"] > 0
            seen += 1
        engine.step(a)
    assert seen >= 3
