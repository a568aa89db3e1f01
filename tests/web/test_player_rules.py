"""The rules as players read them (experiments/web/rules_text.py, each game's PlayerRules and Options):
every rule of the rule book's player sections (docs/rules.md 1.1-1.5, 2.1-2.8) has its player sentence,
no sentence names an item the book does not have, and no engine word reaches a player (section tags,
ids, config field names and values, the book's section numbers, single-letter variables)."""
from __future__ import annotations

import dataclasses
import re

import pytest

from fiveplay_env import games
from fiveplay_env.experiments.web import games as web_views
from fiveplay_env.experiments.web import rules_text

GAMES = {"take5": "1", "five_alive": "2"}  # the built-in games and their chapters of the rule book


def _covers(name: str) -> set[str]:
    v = web_views.view(name)
    out = {c for _title, lines in v.rules.sections for covers, _t in lines for c in covers}
    out |= {c for _k, covers, _t in v.rules.cards for c in covers}
    out |= {c for o in v.options.values() for c in o.covers}
    return out


@pytest.mark.parametrize("name", GAMES)
def test_every_player_rule_of_the_book_has_its_sentence(name):
    book = rules_text.book_items(GAMES[name])
    assert len(book) > 15 and all(k.startswith(GAMES[name] + ".") for k in book)
    covered = _covers(name)
    assert sorted(set(book) - covered) == [], "rules of the book without a player sentence"
    assert sorted(covered - set(book)) == [], "player sentences naming no rule of the book"


def _player_texts(name: str) -> list[str]:
    r = rules_text.rules(name)
    texts = [r["title"], *(b["p"] for b in r["intro"])]
    for s in r["sections"]:
        texts.append(s["title"])
        for b in s["blocks"]:
            texts += [it["text"] for it in b.get("list", [])] + ([b["p"]] if "p" in b else [])
    texts += list(r["cards"].values())
    for o in web_views.view(name).options.values():
        texts += [o.label, o.rule, *o.values.values()]
    return texts


@pytest.mark.parametrize("name", GAMES)
def test_no_engine_words_in_the_player_rules(name):
    g = games.get(name)
    fields = [f.name for f in dataclasses.fields(g.config_cls)]
    values = [str(x) for vals in web_views.view(name).choices.values() for x in vals]
    engine = [r"\[[RDE]\]", r"\bids?\b", r"\bengines?\b", r"\bconfig\b", r"\bseats?\b", r"player_\d", r"\d\s*\.\.\s*\d",
              r"\b\d+\.\d+\b", r"`", r"\b[TPv]\b", r"\b(True|False|None)\b", r"\baction\b", r"\brows? 0\b", r"\bindex\b"]
    engine += [re.escape(f) for f in fields if "_" in f] + [re.escape(v) for v in values if "_" in v or ":" in v]
    texts = _player_texts(name)
    assert len(texts) > 20
    found = [(pat, t[:80]) for t in texts for pat in engine if re.search(pat, t)]
    assert found == [], found
    # and the test itself sees engine words where they are: the rule book's own lines have them
    book = " ".join(rules_text.book_items(GAMES[name]).values())
    assert re.search(r"\[[RD]\]", book) and any(re.search(re.escape(f), book) for f in fields if "_" in f)


def test_each_card_explained_once_and_the_options_named_as_the_panel_names_them():
    fa = rules_text.rules("five_alive")
    from fiveplay_env.five_alive.state import ACTION_NAMES, BUST

    assert sorted(int(k) for k in fa["cards"]) == list(range(BUST))
    for k in range(8, BUST):
        assert fa["cards"][str(k)].startswith(ACTION_NAMES[k] + ": ")
    drawn = next(s for s in fa["sections"] if s.get("cards"))
    assert sorted(k for kinds, _t in drawn["cards"] for k in kinds) == list(range(BUST))
    for name in GAMES:
        v = web_views.view(name)
        about = v.about()["options"]
        opts = rules_text.rules(name)["sections"][-1]
        lines = [it["text"] for it in opts["blocks"][0]["list"]]
        assert lines == [f"{o['label']}: {o['rule']}" for o in about.values()]
        for f, vals in v.choices.items():  # every choice of the panel has its words
            assert f in about and set(map(str, vals)) <= set(about[f]["values"]), f
    assert rules_text.rules("take5")["cards"] == {}
