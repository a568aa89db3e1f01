"""The layers of docs/architecture.md, enforced: imports go downwards only (imports inside functions
included), no import cycles (lazy imports included), every module imports on its own in a fresh
interpreter, and ``fiveplay_env`` stands alone (numpy, gymnasium and pettingzoo only)."""
from __future__ import annotations

import ast
import json
import importlib.util
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fiveplay_env import games as fiveplay_games

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("fiveplay_env", "agents", "experiments")
NOT_GAMES = ("core", "integrations")
"""Subpackages of ``fiveplay_env`` that are not a game's package."""
CORE_DEPENDENCIES = {"numpy", "gymnasium", "pettingzoo", "numba"}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if pkg != "fiveplay_env":  # agents/ and experiments/ are fiveplay_env.agents, fiveplay_env.experiments
                parts = ["fiveplay_env", *parts]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(path: Path, module: str, top_level_only: bool) -> set[str]:
    """Names of the modules ``path`` imports (absolute; relative imports resolved); with
    ``top_level_only``, only the imports executed when the module is imported (not inside functions,
    not under ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = True
            if isinstance(child, ast.Import) and not (top_level_only and nested):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom) and not (top_level_only and nested):
                base = child.module or ""
                if child.level:
                    anchor = pkg.split(".")[: len(pkg.split(".")) - child.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                subs = {f"{base}.{a.name}" for a in child.names} & MODULES.keys()
                found.update(subs or {base})  # "from agents import games" imports agents.games
            visit(child, inner)

    visit(tree, False)
    return found


def layer(module: str) -> tuple[int, str | None]:
    """``(rank, game)`` of a project module: ``fiveplay_env.core`` 0; a game's package
    (``fiveplay_env.<game>``) 1; the rest of ``fiveplay_env`` (the game table, entry modules, vector API,
    records, wrappers, integrations) 2; ``agents`` 3; ``experiments`` 4."""
    parts = module.split(".")
    if parts[0] == "fiveplay_env":
        if len(parts) > 1 and parts[1] in ("agents", "experiments"):
            return {"agents": 3, "experiments": 4}[parts[1]], None
        if len(parts) > 1 and parts[1] == "core":
            return 0, None
        if len(parts) > 1 and parts[1] not in NOT_GAMES and (ROOT / "fiveplay_env" / parts[1]).is_dir():
            return 1, parts[1]
        return 2, None
    return {"agents": 3, "experiments": 4}[parts[0]], None


def allowed(importer: str, imported: str) -> bool:
    """An import goes down the layers, or stays in its layer (a game's package: in its own game)."""
    (mine, my_game), (theirs, their_game) = layer(importer), layer(imported)
    return theirs < mine or (theirs == mine and my_game == their_game)


def test_layers_import_downwards_only() -> None:
    bad = []
    for module, path in MODULES.items():
        for imported in _imports(path, module, top_level_only=False):
            if imported.split(".")[0] in PACKAGES and not allowed(module, imported):
                bad.append(f"{module} imports {imported}")
    assert not bad, ("imports against the layer order (core -> a game's package -> envs, table, vector API -> "
                     "agents -> experiments; a game never imports another):\n" + "\n".join(bad))


def test_the_layer_rule_refuses_what_it_should() -> None:
    assert allowed("fiveplay_env.take5.engine", "fiveplay_env.core.seeding")
    assert allowed("fiveplay_env.vector", "fiveplay_env.take5.batched")
    assert allowed("fiveplay_env.agents.search", "fiveplay_env.games")
    assert not allowed("fiveplay_env.core.batched", "fiveplay_env.vector")  # core reaching up
    assert not allowed("fiveplay_env.take5.engine", "fiveplay_env.five_alive.state")  # another game
    assert not allowed("fiveplay_env.take5.env", "fiveplay_env.games")
    assert not allowed("fiveplay_env.records", "fiveplay_env.agents.games")
    assert not allowed("fiveplay_env.agents.search", "fiveplay_env.experiments.tournament")


STRING_TABLES = ("fiveplay_env.agents.learned.algorithms",)
"""Modules holding a table of module names as strings, imported by name on first use (the algorithm table):
each name counts as an import, so a learner that imported the table (or the trainer that reads it) back
would show as a cycle."""


def _named_modules(path: Path) -> set[str]:
    """The project modules that string constants of ``path`` name (``"pkg.mod"`` or ``"pkg.mod:attr"``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value.partition(":")[0] for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.partition(":")[0] in MODULES}


def test_no_import_cycles() -> None:
    """No cycle, counting imports inside functions too (a lazy import hides a cycle, it does not remove it),
    and the module names of the ``STRING_TABLES`` (a table read by name is an import too). An import of
    one's own ancestor package is no cycle: the package is already being initialised."""
    graph = {m: {i for i in _imports(p, m, top_level_only=False) | (_named_modules(p) if m in STRING_TABLES else set())
                 if i in MODULES and not (m + ".").startswith(i + ".")}
             for m, p in MODULES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            elif n not in state:
                found = dfs(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = dfs(m)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_algorithm_table_counts_as_imports() -> None:
    """The algorithm table's names are edges of the cycle check: its built-in learners are found by name."""
    table = "fiveplay_env.agents.learned.algorithms"
    assert {f"{table}.ppo", f"{table}.expit"} <= _named_modules(MODULES[table])


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path) -> None:
    """The checker above is real: a planted two-module cycle is reported."""
    a = tmp_path / "a.py"
    a.write_text("from fiveplay_env.agents import registry\n")
    assert "fiveplay_env.agents.registry" in _imports(a, "agents.planted", top_level_only=True)
    b = tmp_path / "b.py"
    b.write_text("def f():\n    import fiveplay_env.experiments.tournament\n")
    assert _imports(b, "agents.planted", top_level_only=True) == set()
    assert "fiveplay_env.experiments.tournament" in _imports(b, "agents.planted", top_level_only=False)


FORK_IMPORTER = r"""
import json, os, sys, tempfile, traceback, warnings
warnings.filterwarnings("ignore", category=DeprecationWarning)
# third-party libraries loaded once, then shared by fork: every child imports one of our modules afresh
for lib in ("numpy", "gymnasium", "pettingzoo", "numba", "torch", "matplotlib"):
    try:
        __import__(lib)
    except Exception:
        pass
assert not [m for m in sys.modules if m.split(".")[0] in ("fiveplay_env", "agents", "experiments")]
mods, width = json.loads(sys.stdin.read()), int(sys.argv[1])
out = tempfile.mkdtemp()
running, failed = {}, {}

def wait_one():
    pid, status = os.wait()
    module = running.pop(pid)
    if status:
        path = os.path.join(out, str(pid))
        failed[module] = open(path).read() if os.path.exists(path) else f"exit status {status}"

for module in mods:
    while len(running) >= width:
        wait_one()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            __import__(module)
        except BaseException:
            with open(os.path.join(out, str(os.getpid())), "w") as f:
                f.write(traceback.format_exc()[-2000:])
            code = 1
        os._exit(code)
    running[pid] = module
while running:
    wait_one()
print(json.dumps(failed))
"""


@pytest.mark.slow
def test_every_module_imports_alone_in_a_fresh_interpreter() -> None:
    """Each module imported first in a process of its own (forked from one that loaded only the third-party
    libraries, so that 190 fresh interpreters cost seconds, not minutes): no module relies on another of
    ours having been imported before it."""
    mods = [m for m in MODULES if not m.endswith("__main__")]
    proc = subprocess.run([sys.executable, "-c", FORK_IMPORTER, str(max(1, min(4, os.cpu_count() or 1)))],
                          input=json.dumps(mods), cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    failed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not failed, "\n\n".join(f"{m}: {err}" for m, err in failed.items())


def test_the_fork_importer_reports_a_module_that_fails_alone(tmp_path: Path) -> None:
    (tmp_path / "good_mod.py").write_text("import json\n")
    (tmp_path / "bad_mod.py").write_text("raise RuntimeError('needs another module first')\n")
    proc = subprocess.run([sys.executable, "-c", FORK_IMPORTER, "2"], input=json.dumps(["good_mod", "bad_mod"]),
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    failed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert list(failed) == ["bad_mod"] and "needs another module first" in failed["bad_mod"]


BLOCKER = """
import importlib.abc, sys
ALLOWED = {allowed!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in {blocked!r} or name.split(".")[:2] in (["fiveplay_env", "agents"], ["fiveplay_env", "experiments"]):
            raise ImportError(f"blocked for this test: {{name}}")
        return None
sys.meta_path.insert(0, Block())
import pkgutil, importlib
import fiveplay_env
for info in pkgutil.walk_packages(fiveplay_env.__path__, "fiveplay_env."):
    try:
        importlib.import_module(info.name)
    except ImportError as exc:  # an optional module (the JAX engines) must name its extra
        if "pip install -e '.[jax]'" not in str(exc):
            raise
from fiveplay_env import take5_v0, five_alive_v0
env = take5_v0.env(num_players=3)
env.reset(seed=0)
print("ok", len(sys.modules))
"""


def test_fiveplay_env_stands_alone() -> None:
    """``import fiveplay_env`` (every submodule) works with agents, experiments and the optional
    dependencies made unimportable."""
    blocked = {"agents", "experiments", "torch", "ray", "matplotlib", "openskill", "tqdm", "sb3_contrib",
               "stable_baselines3", "tianshou", "supersuit", "fastapi", "starlette", "uvicorn", "jax", "jaxlib", "pgx"}
    code = BLOCKER.format(allowed=sorted(CORE_DEPENDENCIES), blocked=blocked)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok")


def test_opponent_names_resolve_through_the_registered_hook() -> None:
    """SingleAgentEnv resolves names through the resolver the agents package registers (entry point or
    ``register_agent_resolver``), and says what to do when there is none."""
    from fiveplay_env.agents.random_agent import RandomAgent  # imports agents.registry, which registers itself
    from fiveplay_env import single_agent as sa

    calls = []

    def resolver(name, game, seed):
        calls.append((name, game, seed))
        return RandomAgent(seed)

    previous = sa._resolver
    sa.register_agent_resolver(resolver)
    try:
        env = sa.SingleAgentEnv("take5", opponents="anything", num_players=3)
        assert calls == [("anything", "take5", 0), ("anything", "take5", 1)]
        env.reset(seed=0)
        with pytest.raises(ValueError, match="callable"):
            sa.register_agent_resolver("not callable")  # type: ignore[arg-type]
        # Without a registered one, the installed entry point (pyproject: fiveplay.agent_resolvers) is used.
        sa.register_agent_resolver(None)
        from fiveplay_env.agents.registry import make_agent
        assert sa._find_resolver() is make_agent
        env = sa.SingleAgentEnv("take5", opponents="take5-safest", num_players=3)
        assert [o.name for o in env._opponents] == ["take5-safest", "take5-safest"]
    finally:
        sa.register_agent_resolver(previous)


def test_without_any_resolver_a_name_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from fiveplay_env import single_agent as sa

    monkeypatch.setattr(sa, "_resolver", None)
    monkeypatch.setattr(sa, "_find_resolver", lambda: None)
    with pytest.raises(ValueError, match="need a resolver"):
        sa.SingleAgentEnv("take5", opponents="take5-safest", num_players=3)


RULE_FILES = ("config", "state", "engine", "observation", "render", "results", "determinize")


def test_engines_import_only_numpy_core_and_their_own_game() -> None:
    """The pure core: no PettingZoo or gymnasium in a game's rules, no other game."""
    bad = []
    for game in ("take5", "five_alive"):
        for name in RULE_FILES:
            module = f"fiveplay_env.{game}.{name}"
            for imported in _imports(MODULES[module], module, top_level_only=False):
                top = imported.split(".")[0]
                ok = (top in ("numpy", "__future__") or imported in sys.stdlib_module_names
                      or top in sys.stdlib_module_names or imported.startswith("fiveplay_env.core")
                      or imported.startswith(f"fiveplay_env.{game}."))
                if not ok:
                    bad.append(f"{module} imports {imported}")
    assert not bad, "\n".join(bad)


REMOVED_IN_0_3 = ("fiveplay_env.agents.take5_heuristics", "fiveplay_env.agents.five_alive_heuristics",
                  "fiveplay_env.agents.five_alive_support", "fiveplay_env.agents.learned.ppo",
                  "fiveplay_env.experiments.ray_backend", "fiveplay_env.agents.adapter",
                  "fiveplay_env.agents.take5.adapter", "fiveplay_env.agents.five_alive.adapter")
"""The compatibility modules kept for 0.2's imports, removed in 0.3 (CHANGELOG.md)."""


@pytest.mark.parametrize("old", REMOVED_IN_0_3)
def test_the_compatibility_modules_of_0_2_are_gone(old: str) -> None:
    """The modules moved in 0.2 kept their old names until 0.3 (issue 53): they no longer import, and
    neither do the old aliases ``agents.games.Game`` and ``ray_tasks.RayPool``; 5 Alive's
    ``engine.sample_world`` is the determinization's own function (its old ``(state, player, rng)`` form went)."""
    assert importlib.util.find_spec(old) is None, old
    from fiveplay_env.agents import games
    from fiveplay_env.experiments.tournament import ray_tasks
    from fiveplay_env.five_alive import determinize, engine

    assert not hasattr(games, "Game") and not hasattr(ray_tasks, "RayPool")
    assert engine.sample_world is determinize.sample_world


OUTSIDE_FILES = re.compile(r"\b(?<!docs/)(RULES|DESIGN)\.md\b|(?<![#\w])shared/")  # not the web's #shared/ links
"""Names of the project's working files that live beside the repository, not in it (users have neither)."""


def test_no_source_file_points_outside_the_repository() -> None:
    """Docstrings and comments cite the repository's own docs (docs/rules.md, docs/architecture.md), never the
    spec or design files that sit beside a developer's clone."""
    paths = [*MODULES.values(), *sorted((ROOT / "tests").rglob("*.py"))]
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()[:80]}" for p in paths
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if OUTSIDE_FILES.search(line) and p.name != "test_architecture.py"]
    assert OUTSIDE_FILES.search("see RULES.md 2.4") and not OUTSIDE_FILES.search("see docs/rules.md 2.4")
    assert found == [], found


# --- no game by name outside its folders ---------------------------------------------------------------
GAME_NAMES = frozenset(g.name for g in fiveplay_games.BUILTIN)
NAME_ALLOWLIST = {
    # file (relative to the root) -> why it may name a game
    "experiments/demo.py": "the demo plays one tournament of each built-in game by design",
    "experiments/baselines.py": "a single-game script: the 5 Alive ladder of heuristics and policies",
    "agents/learned/pretrained/__init__.py": "the shipped policies' table: each file is trained for one game",
}


def _game_folder(rel: Path) -> bool:
    """``fiveplay_env/<game>/``, ``agents/<game>/`` or a file named after one game (``take5_v0.py``, ...)."""
    parts = rel.parts
    return any(part in GAME_NAMES for part in parts[:-1]) or parts[-1].startswith(tuple(GAME_NAMES))


def game_name_sites(root: Path = ROOT, names: frozenset[str] = GAME_NAMES) -> list[str]:
    """``file:line`` of every string literal equal to a built-in game's name in the packages' code outside
    the game folders and the allowlist (a game's name is data the game table holds, not code's to know)."""
    out = []
    for top in PACKAGES:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root)
            if _game_folder(rel) or rel.as_posix() in NAME_ALLOWLIST:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                    out.append(f"{rel.as_posix()}:{node.lineno}")
    return out


def test_no_code_outside_a_game_names_the_game() -> None:
    """Code reads what a game declares (``GameDef``, ``AgentKit``) instead of branching on its name; the
    game's own folders, files named after it and ``NAME_ALLOWLIST`` (each with its reason) may name it."""
    assert game_name_sites() == []


def test_the_name_finder_finds_a_name(tmp_path: Path) -> None:
    (tmp_path / "experiments").mkdir()
    (tmp_path / "experiments" / "tool.py").write_text('GAME = "take5"\nDOC = "take5 is a game"\n')
    (tmp_path / "agents" / "take5").mkdir(parents=True)
    (tmp_path / "agents" / "take5" / "x.py").write_text('NAME = "take5"\n')
    assert game_name_sites(tmp_path) == ["experiments/tool.py:1"]


def test_every_allowlisted_file_exists_and_still_needs_it() -> None:
    for rel in NAME_ALLOWLIST:
        path = ROOT / rel
        assert path.is_file(), rel
        assert any(isinstance(n, ast.Constant) and n.value in GAME_NAMES
                   for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))), f"{rel}: no longer names a game"


# --- engines are read through their public views (issue 49) ------------------------------------------------

ENGINE_MODULES = ("engine", "batched", "kernel", "positions", "encoders", "jax_engine")
"""A game's engine modules; with ``core/kernel_engine.py``, ``core/batched.py`` and ``core/jax_vec.py``, their
classes' private members (``_name``) are the engines' own business."""
_CORE_ENGINES = ("core/kernel_engine.py", "core/batched.py", "core/jax_vec.py")


def _engine_files(root: Path) -> list[Path]:
    files = [root / "fiveplay_env" / rel for rel in _CORE_ENGINES]
    files += [p for p in (root / "fiveplay_env").glob("*/*.py") if p.stem in ENGINE_MODULES]
    return [p for p in files if p.is_file()]


def engine_private_names(root: Path = ROOT) -> set[str]:
    """The private members of the engine classes: attributes set on ``self``, methods, and the names listed
    in a ``STATE`` tuple (arrays set by name)."""
    names: set[str] = set()
    for path in _engine_files(root):
        for cls in (n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.ClassDef)):
            for node in ast.walk(cls):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                    names.add(node.attr)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(node.name)
                elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "STATE" for t in node.targets):
                    names.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def engine_private_sites(root: Path = ROOT) -> list[str]:
    """``file:line: expression`` for every read or write, in ``agents/`` and ``experiments/``, of an engine's
    private member (on anything but ``self`` / ``cls``) or of a private name of an engine module
    (``engine._next`` where ``engine`` is ``fiveplay_env.<game>.engine``)."""
    private = engine_private_names(root)
    out = []
    for pkg in ("agents", "experiments"):
        for path in sorted((root / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            modules = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fiveplay_env."):
                    for a in node.names:
                        if a.name in ENGINE_MODULES:
                            modules.add(a.asname or a.name)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
                    continue
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                if node.attr in private or (isinstance(owner, ast.Name) and owner.id in modules):
                    out.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_agents_and_experiments_read_engines_through_public_views() -> None:
    """No code in ``agents/`` or ``experiments/`` reads or writes an engine's private (``_name``) member: the
    engines offer read-only views (``field``, ``phase``, ``hands()``, ...) and the moves a search needs
    (``redeal``, ``replace_choice``, ``jit_step``)."""
    assert engine_private_sites() == []


def test_the_private_reader_finder_finds_a_reader(tmp_path: Path) -> None:
    (tmp_path / "fiveplay_env" / "core").mkdir(parents=True)
    (tmp_path / "fiveplay_env" / "g").mkdir()
    (tmp_path / "fiveplay_env" / "g" / "batched.py").write_text(
        "class E:\n    STATE = ('_hands',)\n    def __init__(self):\n        self._st = {}\n    def _step(self):\n"
        "        return self._st\n")
    (tmp_path / "fiveplay_env" / "g" / "engine.py").write_text("def _next(s):\n    return s\n")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.py").write_text(
        "from fiveplay_env.g import engine as eng\n"
        "def f(e, other):\n    x = e._st\n    e._hands[0] = 1\n    y = eng._next(1)\n    return other._private_thing\n")
    (tmp_path / "experiments").mkdir()
    assert engine_private_sites(tmp_path) == ["agents/a.py:3: e._st", "agents/a.py:4: e._hands", "agents/a.py:5: eng._next"]


NO_NUMBA = """
import sys
import fiveplay_env
from fiveplay_env import take5_v0, five_alive_v0
for mod in (take5_v0, five_alive_v0):
    env = mod.env(num_players=3)
    env.reset(seed=0)
    env.step(int(env.observe(env.agent_selection)["action_mask"].argmax()))
    if hasattr(mod, "parallel_env"):
        mod.parallel_env(num_players=3).reset(seed=0)
print("numba" in sys.modules)
"""


def test_the_envs_do_not_import_numba() -> None:
    """numba is imported by the batched engines and the kernels only: ``import fiveplay_env`` and the AEC and
    parallel envs never pay for it."""
    proc = subprocess.run([sys.executable, "-c", NO_NUMBA], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "False"
