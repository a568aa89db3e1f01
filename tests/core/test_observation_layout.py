"""Observation layouts as data (``fiveplay_env.core.layout``): sizes in n, offsets, tables and their parser."""
from __future__ import annotations

import pytest

from fiveplay_env.core.layout import BITS, Code, Layout, N, Piece, Size, parse_table


def _layout() -> Layout:
    return Layout((
        Piece("hand", 104, "one flag per card", code=BITS),
        Piece("scores", N, "one score per seat, a long meaning that the table has to wrap over several lines"),
        Piece("tail", 3, "three values", code=Code(div=(10.0,), per="end_score")),
        Piece("others", 104 * (N - 1), "the other hands", when="draft"),
    ))


def test_sizes_are_linear_in_the_number_of_players():
    assert (104 * (N - 1))(4) == 312 and (844 + 3 * N)(2) == 850 and (N + N - 2)(5) == 8
    assert [str(s) for s in (Size(104), N, 2 * N, 844 + N, 844 + 3 * N, 104 * (N - 1), N - 3, Size(0))] == [
        "104", "n", "2n", "844+n", "844+3n", "104(n-1)", "n-3", "0"]
    with pytest.raises(ValueError, match="expected an int or a Size"):
        N + 1.5  # noqa: B018


def test_offsets_spans_and_flags():
    lay = _layout()
    assert lay.spans(4) == {"hand": (0, 104), "scores": (104, 4), "tail": (108, 3)}
    assert lay.spans(3, draft=True)["others"] == (110, 208) and lay.size(3, draft=True) == 318 == lay.total(draft=True)(3)
    assert lay.size(4) == 111 and str(lay.total()) == "107+n"
    assert lay.start("scores") == 104 and str(lay.offset("tail")) == "104+n" and str(lay.offset("others")) == "107+n"
    assert lay.slices(2)["tail"] == slice(106, 109)
    with pytest.raises(ValueError, match="depends on the number of players"):
        lay.start("tail")
    with pytest.raises(ValueError, match="flags: expected some of"):
        lay.spans(4, professional=True)
    with pytest.raises(ValueError, match="expected the conditional pieces last"):
        Layout((Piece("a", 1, "x", when="draft"), Piece("b", 1, "y")))
    with pytest.raises(ValueError, match="duplicates"):
        Layout((Piece("a", 1, "x"), Piece("a", 2, "y")))


def test_the_rendered_table_parses_back_and_a_wrong_one_is_reported():
    lay = _layout()
    table = lay.table(width=30)
    assert len(table.splitlines()) > 2 + len(lay.pieces)  # the long meaning wrapped
    assert parse_table("Some text.\n\n" + table + "\n\nMore text.") == lay.rows()
    assert lay.check_table(table) == []
    wrong = table.replace("| 104+n  |", "| 105+n  |").replace("three values", "four values")
    problems = lay.check_table(wrong)
    assert any("tail: documented offset '105+n'" in p for p in problems)
    assert any("tail: documented meaning 'four values'" in p for p in problems)
    assert lay.check_table(table.replace("| scores |", "| score  |"))[0].startswith("pieces: documented")
    with pytest.raises(ValueError, match="expected a markdown table"):
        parse_table("no table here")
