"""How to cite: ``CITATION.cff`` beside the README's BibTeX, both with the package's one version
(``fiveplay_env.__version__``) and the same title (issue 53, item 8)."""
from __future__ import annotations

import re
from pathlib import Path

import fiveplay_env

ROOT = Path(__file__).resolve().parents[2]


def _cff() -> dict[str, str]:
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    return {k: v.strip().strip('"') for k, v in re.findall(r"^([a-z-]+):[ \t]*(.*)$", text, re.M) if v.strip()}


def test_citation_cff_has_the_required_fields_and_the_package_version():
    cff = _cff()
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software" and cff["message"]
    assert cff["version"] == fiveplay_env.__version__
    assert "- name:" in (ROOT / "CITATION.cff").read_text(encoding="utf-8")  # authors


def test_the_readme_bibtex_agrees():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    entry = re.search(r"```bibtex\n(.*?)```", readme, re.S).group(1)
    fields = dict(re.findall(r"(\w+)\s*=\s*\{+(.*?)\}+,?\n", entry))
    assert fields["version"] == fiveplay_env.__version__
    assert fields["title"] == _cff()["title"]
    assert "CITATION.cff" in readme
