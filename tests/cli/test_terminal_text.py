"""Strings from records and plug-ins reach a terminal as printable text (issue 53, items 2 and 3): agent
names that are not printable are refused at the header check, every such string the command line prints
is escaped, and a plug-in game that clashes with a built-in one or looks like one is reported, not
silently dropped."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fiveplay_env import games, records
from fiveplay_env.core.printable import escape, is_printable, quote
from fiveplay_env.experiments import cli

ROOT = Path(__file__).resolve().parents[2]
EVIL = "evil\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\nrecord 1: take5, seed 0: replays exactly"


def _record(agents):
    from fiveplay_env.take5.config import Take5Config
    from fiveplay_env.take5.engine import Take5Engine

    config = Take5Config(num_players=3, mode="round")
    eng = Take5Engine(config, 3)
    rng = np.random.default_rng(3)
    actions = []
    while not eng.is_over:
        a = int(rng.choice(np.flatnonzero(eng.legal_mask())))
        eng.step(a)
        actions.append(a)
    return records.make_record("take5", config, 3, actions, agents=agents)


def test_replay_refuses_a_record_whose_agent_names_drive_the_terminal(tmp_path, capsys):
    """The audit's reproducer: a record's agent name holding a window title, an OSC 52 clipboard write, a
    screen clear and a newline forging a "replays exactly" line; agent names are outside the chain, so
    the edited record still verified."""
    rec = _record(["a", "b", "c"])
    rec["agents"][1] = EVIL  # edited after the chain was made
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    code = cli.main(["replay", str(path), "--verify-only"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "\x1b" not in err and "\x07" not in err and err.count("\n") == 1
    assert "agents[1]: expected a printable name" in err and "\\x1b]0;pwned" in err


@pytest.mark.parametrize("name", ["a\x1b[31m", "line\nbreak", "bidi\u202eevil", "tab\there", "nbsp\xa0x", "zw\u200bj",
                                  "\x9b31m"])
def test_every_kind_of_unprintable_name_is_refused(name):
    with pytest.raises(records.RecordError, match=r"agents\[0\]: expected a printable name"):
        records.parse_records(records.dumps(_record([name, "b", "c"])))


def test_printable_names_still_read_and_print(tmp_path, capsys):
    names = ["ismcts:sims=50,prior=take5-game-4p", "Zoë's bot", "玩家"]
    path = tmp_path / "ok.jsonl"
    path.write_text(records.dumps(_record(names)) + "\n")
    assert cli.main(["replay", str(path), "--verify-only"]) == 0
    out = capsys.readouterr().out
    assert "replays exactly" in out and all(n in out for n in names)


def test_escape_and_quote():
    assert escape("a\x1b[2Jb\nc\x7f\u202e") == "a\\x1b[2Jb\\nc\\x7f\\u202e"
    assert escape("x" * 50, 10) == "xxxxxxx..." and quote("a\x00") == "'a\\x00'"
    assert is_printable("take5 Zoë 玩家") and not is_printable("a\u2028b")
    assert escape("\U000e0041") == "\\U000e0041"


@pytest.fixture()
def loud_game():
    """A game registered in this process whose title, metric text and config hold escape sequences."""
    take5 = games.get("take5")
    g = take5.__class__(**{**take5.__dict__, "name": "loud_game", "title": "Loud\x1b]0;owned\x07\x1b[2J\nfake line",
                           "gym_id": None})
    games.register(g)
    yield g
    games.unregister("loud_game")


def test_games_and_agents_print_plug_in_strings_escaped(loud_game, capsys):
    for argv in (["games"], ["games", "loud_game"], ["agents", "loud_game"]):
        assert cli.main(argv) == 0, argv
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x07" not in out, argv
        if argv[0] == "games":
            assert "Loud\\x1b]0;owned\\x07\\x1b[2J\\nfake line" in out
            assert not any(line.startswith("fake line") for line in out.splitlines())


def _plugin_site(tmp_path: Path, entries: dict[str, str]) -> Path:
    site = tmp_path / "site"
    dist = site / "fiveplay_clash-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fiveplay-clash\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[fiveplay.games]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    (site / "clashpkg.py").write_text(
        "from fiveplay_env import games\n"
        "from tests.toy_game import GAME as TOY\n"
        "def named(name):\n"
        "    return TOY.__class__(**{**TOY.__dict__, 'name': name, 'gym_id': None})\n"
        "SAME = named('take5')\n"
        "CYRILLIC = named('t\\u0430ke5')\n"
        "LOOKALIKE = named('Take_5')\n"
        "FINE = named('toybid')\n")
    return site


def test_plug_ins_that_clash_with_a_built_in_or_look_like_one_are_reported(tmp_path):
    """The audit's reproducer: a plug-in game named with a Cyrillic "а" was listed beside take5, and one
    reusing a built-in name was dropped without a word."""
    site = _plugin_site(tmp_path, {"same": "clashpkg:SAME", "cyr": "clashpkg:CYRILLIC",
                                   "look": "clashpkg:LOOKALIKE", "fine": "clashpkg:FINE",
                                   "esc\x1b": "clashpkg:FINE"})
    code = ("import warnings; warnings.simplefilter('always'); from fiveplay_env import games; "
            "print(games.names()); print(games.get('take5') is games.BUILTIN[0])")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["['five_alive', 'take5', 'toybid']", "True"]
    err = out.stderr
    assert "'same'" in err and "is taken by a built-in game" in err
    assert "'t\\u0430ke5' is not plain ASCII" in err
    assert "'Take_5' looks like the name of the game 'take5'" in err
    assert "\x1b" not in err
