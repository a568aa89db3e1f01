"""One documentation page per game of the table ``fiveplay_env.games``, generated from its definition.

``game_page(game)`` is the page of one ``GameDef`` (a built-in game or one registered by another
package: the same function, nothing per game), as MyST Markdown:

| section            | where it comes from                                                          |
|--------------------|------------------------------------------------------------------------------|
| title, summary     | ``GameDef.title``, ``GameDef.describe``                                       |
| facts              | ``GameDef.spec`` (players, actions, version), ``observation_size`` of the     |
|                    | default config, ``gym_id``, ``batched``, ``jax_engine``, the env module        |
| configuration      | the config dataclass: each field's type and default (``dataclasses.fields``)  |
|                    | and its text from the class docstring's ``Attributes:`` section               |
| presets            | ``GameDef.presets``: the fields each preset changes                           |
| actions            | the action table of the env module's docstring (``GameDef.env_module``)       |
| observation        | the observation module's layout table (the module of ``observe_state``) with  |
|                    | the offsets and sizes of ``pieces(...)`` at the default config               |
| rewards, episode   | the env module docstring's paragraphs on rewards, infos and the episode       |
| results            | ``GameDef.metrics`` and ``score``: what tournaments report                    |
| version history    | ``GameDef.spec.version`` and ``GameDef.history``                              |

Where a definition's module has no such table (a minimal third-party game), the section says so
instead. Where a table and the code disagree (a piece in ``pieces()`` that the table does not list, or
pieces that do not tile the observation), ``DocsError`` is raised and the build fails: the page is
only written from facts that hold. The observation layout is read by ``observation_pieces``, the one
function to change when the layouts become data.
"""
from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import re
import textwrap
from typing import Any

from fiveplay_env.core.gamedef import GameDef

from fiveplay_docs.docstrings import _is_table_start, table_rows


class DocsError(ValueError):
    """A game's documentation sources disagree with its code, or cannot be read."""


# --- docstring reading ------------------------------------------------------------------------------
def paragraphs(doc: str) -> list[list[str]]:
    """The docstring's blocks (paragraphs, tables, indented examples) split at blank lines."""
    out: list[list[str]] = []
    cur: list[str] = []
    for line in inspect.cleandoc(doc or "").splitlines():
        if line.strip():
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _split_tables(blocks: list[list[str]]) -> list[list[str]]:
    """Blocks with a pipe table split off the text above it (``Actions (...):`` then the table)."""
    out: list[list[str]] = []
    for block in blocks:
        start = next((i for i in range(len(block)) if _is_table_start(block, i)), None)
        if start:
            out.extend([block[:start], block[start:]])
        else:
            out.append(block)
    return out


def is_table(block: list[str]) -> bool:
    return _is_table_start(block, 0)


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown pipe table (``|`` inside a cell escaped)."""
    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def field_docs(cls: type) -> dict[str, str]:
    """``{field: text}`` from the ``Attributes:`` section of a (Google-style) class docstring."""
    lines = inspect.cleandoc(cls.__doc__ or "").splitlines()
    out: dict[str, str] = {}
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Attributes:")
    except StopIteration:
        return out
    base = len(lines[start]) - len(lines[start].lstrip())
    name = None
    item_indent = None
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        ind = len(line) - len(line.lstrip())
        if ind <= base:
            break
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?:\s*(.*)$", line)
        if m and (item_indent is None or ind == item_indent):
            item_indent = ind
            name = m.group(1)
            out[name] = m.group(2).strip()
        elif name is not None:
            out[name] = f"{out[name]} {line.strip()}".strip()
    return out


def _md_text(text: str) -> str:
    """A docstring's text for a Markdown table cell or paragraph on a page of ``docs/games/`` (its
    ````code```` spans are Markdown code spans already). The rule book's section numbers are those of
    the specification the docstrings cite as ``RULES.md``: the name becomes a link to the rule book."""
    text = " ".join(text.split())
    return re.sub(r"(?<![\w/])(?:docs/rules|RULES)\.md\b", "[the rule book](../rules.md)", text)


# --- the sections ------------------------------------------------------------------------------------
def default_config(game: GameDef) -> Any:
    return game.config_cls()


def _show(value: Any) -> str:
    if isinstance(value, tuple) and len(value) > 6:
        return "(" + ", ".join(map(str, value)) + ")"
    return repr(value)


def config_rows(game: GameDef) -> list[list[str]]:
    """One row per config field: name, type, default, text."""
    docs = field_docs(game.config_cls)
    rows = []
    for f in dataclasses.fields(game.config_cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        else:
            default = "(required)"
        typ = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        rows.append([f"`{f.name}`", f"`{typ}`", f"`{_show(default)}`", _md_text(docs.get(f.name, ""))])
    return rows


def preset_rows(game: GameDef) -> list[list[str]]:
    """One row per preset: its name and the fields it sets away from the defaults."""
    base = default_config(game)
    rows = []
    for name, cfg in game.presets.items():
        changed = [f"`{f.name}={getattr(cfg, f.name)!r}`" for f in dataclasses.fields(cfg)
                   if getattr(cfg, f.name) != getattr(base, f.name)]
        rows.append([f"`{name}`", ", ".join(changed) or "(the defaults)"])
    return rows


def env_blocks(game: GameDef) -> list[list[str]]:
    return _split_tables(paragraphs(game.env.__doc__ or ""))


def _starts(block: list[str], *words: str) -> bool:
    head = block[0].lstrip() if block else ""
    return any(head.startswith(w) for w in words)


def action_section(game: GameDef) -> str:
    """The env module docstring's ``Actions`` paragraph, its table and the notes after the table."""
    blocks = env_blocks(game)
    i = next((k for k, b in enumerate(blocks) if _starts(b, "Actions")), None)
    if i is None or i + 1 >= len(blocks) or not is_table(blocks[i + 1]):
        return (f"The env module `{game.env_module}` has no action table in its docstring; the game "
                f"has {game.num_actions} actions (ids 0..{game.num_actions - 1}).")
    header, rows = table_rows(blocks[i + 1])
    rows = [[_md_text(c) for c in r] for r in rows]
    parts = [_md_text(" ".join(blocks[i])), markdown_table(header, rows)]
    for block in blocks[i + 2:]:
        if _starts(block, "Observations", "Rewards", "Episode", "Misuse", "Errors", "Decision order",
                   "``infos", "Agents", "Rules"):
            break
        if not is_table(block) and not block[0].startswith(" "):
            parts.append(_md_text(" ".join(block)))
    return "\n\n".join(parts)


def env_paragraphs(game: GameDef, *starts: str) -> list[str]:
    return [_md_text(" ".join(b)) for b in env_blocks(game) if _starts(b, *starts) and not is_table(b)]


def observation_module(game: GameDef) -> Any:
    """The module of the game's ``observe_state`` (``fiveplay_env/<game>/observation.py``)."""
    return importlib.import_module(game.observe_state.__module__)


def observation_pieces(game: GameDef, config: Any) -> list[tuple[str, int, int]] | None:
    """``[(piece, offset, size)]`` of the observation under ``config``, from the observation module's
    ``pieces(...)`` (its arguments filled from the config's fields of the same name); None when the
    module has no ``pieces``. The one place that reads the layout: switch it here when layouts are data."""
    mod = observation_module(game)
    fn = getattr(mod, "pieces", None)
    if fn is None:
        return None
    kwargs = {p: getattr(config, p) for p in inspect.signature(fn).parameters if hasattr(config, p)}
    return [(name, int(off), int(size)) for name, (off, size) in fn(**kwargs).items()]


def observation_section(game: GameDef) -> str:
    """The observation module's layout table, with the offsets of ``pieces()`` at the default config."""
    config = default_config(game)
    size = int(game.observation_size(config))
    mod = observation_module(game)
    blocks = _split_tables(paragraphs(mod.__doc__ or ""))
    table = next((b for b in blocks if is_table(b)), None)
    pieces = observation_pieces(game, config)
    n = getattr(config, "num_players", None)
    at = f"n = {n}" if n is not None else "the default config"
    intro = (f"`float32[{size}]` at the default config ({at}); "
             f"`{{\"observation\": ..., \"action_mask\": int8[{game.num_actions}]}}` from the environments.")
    if table is None or pieces is None:
        return intro + f"\n\nThe observation module `{mod.__name__}` has no layout table."
    header, rows = table_rows(table)
    lower = [h.lower() for h in header]
    if "piece" not in lower:
        raise DocsError(f"{mod.__name__}: expected a layout table with a 'piece' column, got {header}")
    pc = lower.index("piece")
    documented = {r[pc] for r in rows}
    missing = [p for p, _, _ in pieces if p not in documented]
    if missing:
        raise DocsError(f"{mod.__name__}: pieces() has {missing}, which its docstring's layout table "
                        f"does not list")
    pos = 0
    for name, off, length in pieces:
        if off != pos:
            raise DocsError(f"{mod.__name__}: piece {name!r} starts at {off}, expected {pos} (pieces must "
                            f"tile the observation)")
        pos += length
    if pos != size:
        raise DocsError(f"{mod.__name__}: the pieces cover {pos} floats, expected observation_size = {size}")
    where = {p: (off, length) for p, off, length in pieces}
    out_header = [*header, f"offset, size ({at})"]
    out_rows = [[*(_md_text(c) for c in r), ("{}, {}".format(*where[r[pc]]) if r[pc] in where else "absent")]
                for r in rows]
    # the prose around the table, less notes on how the encoder is made fast (the API page has them)
    text = [b for b in blocks[1:] if not is_table(b) and not b[0].startswith((" ", "Speed"))]
    before = [_md_text(" ".join(b)) for b in text if blocks.index(b) < blocks.index(table)]
    after = [_md_text(" ".join(b)) for b in text if blocks.index(b) > blocks.index(table)]
    return "\n\n".join([intro, *before, markdown_table(out_header, out_rows), *after,
                        f"Source: {_ref('mod', mod.__name__)} (`pieces()`, `observe`)."])


def metric_rows(game: GameDef) -> list[list[str]]:
    return [[f"`{m.name}`" + (" (the score)" if m.name == game.score else ""),
             "lower" if m.lower_is_better else "higher", m.meaning] for m in game.metrics]


def _ref(role: str, target: str) -> str:
    """A cross-reference to the API reference for this project's own modules (nitpicky mode checks it);
    plain code for another package's (a third-party game's modules are not in this site's API pages)."""
    if target.startswith("fiveplay_env."):
        return f"{{py:{role}}}`{target}`"
    return f"`{target}`"


def _jax_engine(game: GameDef) -> str:
    """The JAX engine's module, linked when it exists; the table may name one still to come."""
    if not game.jax_engine:
        return "none in this version"
    try:
        found = importlib.util.find_spec(game.jax_engine) is not None
    except ImportError:
        found = False
    if not found:
        return f"`{game.jax_engine}` (named by the definition; not in this version)"
    return _ref("mod", game.jax_engine) + " (the `jax` extra)"


def fact_rows(game: GameDef) -> list[list[str]]:
    config = default_config(game)
    spec = game.spec
    env = game.env
    rows = [
        ["name in the table", f"`{game.name}` (`fiveplay_env.games.get({game.name!r})`)"],
        ["environments", f"{_ref('mod', game.env_module)}: `env()` (AEC)" +
         (", `parallel_env()` (parallel)" if hasattr(env, "parallel_env") else "")],
        ["players", f"{spec.min_players} to {spec.max_players}"],
        ["actions", f"`Discrete({game.num_actions})`"],
        ["observation (default config)", f"`float32[{int(game.observation_size(config))}]`"],
        ["Gymnasium id (one learning seat)", f"`{game.gym_id}`" if game.gym_id else "none"],
        ["illegal action penalty (Gymnasium id)", f"`{game.illegal_action_penalty}`"],
        ["batched numpy engine", _ref("func", game.batched.replace(":", ".")) if game.batched else
         "none (the vector API loops over reference engines)"],
        ["JAX engine (accelerators)", _jax_engine(game)],
        ["reference engine", _ref("class", f"{game.engine_cls.__module__}.{game.engine_cls.__name__}")],
        ["config class", _ref("class", f"{game.config_cls.__module__}.{game.config_cls.__name__}")],
    ]
    return rows


def history_rows(game: GameDef) -> list[list[str]]:
    return [[f"v{v}", _md_text(text)] for v, text in game.history]


def example(game: GameDef) -> str:
    """A random game to its end through the AEC env (run by the examples test, like every block)."""
    return textwrap.dedent(f"""\
        ```python
        import numpy as np
        import fiveplay_env

        env = fiveplay_env.make({game.name!r})     # the default config; any field as a keyword
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        decisions = 0
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                decisions += 1
            env.step(action)
        print(decisions, "decisions; last info:", info)
        ```""")


def rules_link(game: GameDef, rules_text: str | None, rel: str = "../rules.md") -> str | None:
    """A link to the rule book's top-level section whose heading names the game, if it has one."""
    if not rules_text:
        return None
    from myst_parser.mdit_to_docutils.base import default_slugify

    for m in re.finditer(r"^## (.+)$", rules_text, re.M):
        heading = m.group(1).strip()
        if re.search(rf"(?<![\w]){re.escape(game.title)}(?![\w])", heading):
            return f"[{heading}]({rel}#{default_slugify(heading)})"
    return None


def batched_schema(game: GameDef) -> Any:
    """The game's batched state schema (``fiveplay_env.<game>.positions.SCHEMA``), or None without one."""
    if not game.batched:
        return None
    module = game.batched.split(":")[0].rpartition(".")[0] + ".positions"
    try:
        return getattr(importlib.import_module(module), "SCHEMA", None)
    except ImportError:
        return None


def game_page(game: GameDef, rules_text: str | None = None) -> str:
    """The Markdown page of ``game`` (see the module docstring)."""
    title = game.title or game.name
    rules = rules_link(game, rules_text)
    parts = [f"({game.name})=", f"# {title}", ""]
    if game.describe:
        parts += [_md_text(game.describe), ""]
    if rules:
        parts += [f"Rules: {rules}. Every choice the printed rules leave open is a config field below.", ""]
    parts += ["This page is generated from the game's definition (`fiveplay_env.games`) and the "
              "docstrings of its modules at every build of the site.", ""]
    parts += [markdown_table(["fact", "value"], fact_rows(game)), ""]
    parts += ["## Play it", "", example(game), ""]
    parts += ["## Configuration", "",
              f"Fields of `{game.config_cls.__name__}`, given as keywords to the environments "
              f"(`fiveplay_env.make({game.name!r}, field=value)`) and to every tool's `--config "
              f"field=value`; a bad value raises `ValueError` naming the field.", "",
              markdown_table(["field", "type", "default", "meaning"], config_rows(game)), ""]
    if game.presets:
        parts += ["### Presets", "", markdown_table(["preset", "fields"], preset_rows(game)), ""]
    parts += ["## Actions", "", action_section(game), ""]
    parts += ["## Observation", "", observation_section(game), ""]
    rewards = env_paragraphs(game, "Rewards", "``infos")
    parts += ["## Rewards and infos", ""]
    parts += [*(p + "\n" for p in rewards)] if rewards else ["The env module's docstring says nothing about "
                                                             "rewards.", ""]
    episode = env_paragraphs(game, "Episode", "Decision order", "Agents")
    if episode:
        parts += ["## Turn order and the end of an episode", "", *(p + "\n" for p in episode)]
    schema = batched_schema(game)
    if schema is not None:
        parts += ["## Batched state", "",
                  f"The arrays of the compiled batched engine (`{schema.game}`'s `positions.SCHEMA`, one row per game): "
                  "allocation, `set_state`'s checks, `load_states` and `gather` are generated from it "
                  "(see {doc}`../architecture`).", "", schema.table(), ""]
    parts += ["## Results in tournaments", "",
              "The per-seat figures of a finished game (`GameDef.results`); tournaments report the mean of "
              "each with a 95% interval, the win rate and a rating.", "",
              markdown_table(["metric", "better", "meaning"], metric_rows(game)), ""]
    parts += ["## Version history", "",
              f"Environment `{game.spec.name}` (spec version {game.spec.version}).", ""]
    if game.history:
        parts += [markdown_table(["version", "change"], history_rows(game)), ""]
    else:
        parts += ["No history recorded (`GameDef.history`).", ""]
    return "\n".join(parts).rstrip() + "\n"


def index_page(games: list[GameDef]) -> str:
    """The list of every game in the table, each with its page."""
    rows = [[f"[{g.title or g.name}]({g.name}.md)", f"`{g.name}`",
             f"{g.spec.min_players}-{g.spec.max_players}", _md_text(g.describe)] for g in games]
    toctree = "\n".join(g.name for g in games)
    return "\n".join([
        "# Games", "",
        "Every game of the table `fiveplay_env.games` has a page generated from its definition: the "
        "built-in games, and any game another package registers (`games.register` or the entry-point "
        "group `fiveplay.games`) gets one the same way when the site is built where it is installed.", "",
        markdown_table(["game", "name", "players", "what"], rows), "",
        "```{toctree}", ":hidden:", "", toctree, "```", ""])
