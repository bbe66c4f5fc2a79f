"""Words a question's words go with in answers (search/expansion.py): the table's format, the
weights partners join the query with, and a ranking they change."""

from __future__ import annotations

import pytest

from ihmt import IHMT
from ihmt.search import expansion


def test_table_lines_parse_and_bad_items_are_skipped() -> None:
    table = expansion.parse_table("tunnel wireguard:0.6 vpn:0.3\nspend cost:oops\nlonely\n")
    assert table == {"tunnel": (("wireguard", 0.6), ("vpn", 0.3)), "spend": ()}


def test_partners_weigh_a_share_of_their_idf_and_never_the_questions_own_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = expansion.parse_table("tunnel wireguard:0.6 vpn:0.1 plant:1\nlink wireguard:0.2\n")
    monkeypatch.setattr(expansion, "_table", lambda: table)
    shares = expansion.partners(["tunnel", "plant", "link"])
    # doubled and capped at 1, the strongest word's share wins; "plant" is asked already
    assert shares == {"wireguard": expansion.FACTOR, "vpn": expansion.FACTOR * 0.2}
    weights = expansion.add_partners({"tunnel": 3.0}, shares, {"wireguard": 2.0, "vpn": 0.0})
    # a partner no memory holds (idf 0) adds nothing
    assert weights == {"tunnel": 3.0, "wireguard": expansion.FACTOR * 2.0}


def test_every_shipped_pair_is_two_single_words_and_a_fraction() -> None:
    # words are terms as the tokenizer writes them (stems, folded), not words to tokenize again
    table = expansion._table()
    assert table, "the shipped table is empty"
    for word, found in table.items():
        for partner, share in found:
            assert partner and partner == partner.lower() and partner != word, (word, partner)
            assert not set(word + partner) & set(" \t:"), (word, partner)
            assert 0 < share <= 1, (word, partner, share)


def _store(tmp_path) -> IHMT:
    memory = IHMT.initialize(tmp_path / "mem")
    memory.save(
        "The WireGuard link between the office and the bottling plant drops every night "
        "at 02:00 when the ISP router reboots.",
        timestamp="2026-03-02T09:00:00",
    )
    memory.save("Plant visit on Thursday: bring helmets.", timestamp="2026-03-05T09:00:00")
    return memory


def test_a_partner_puts_the_memory_in_the_answers_words_first(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "is the tunnel to the plant stable?"
    monkeypatch.setattr(expansion, "_table", lambda: {})
    memory = _store(tmp_path)
    without = [h.content for h in memory.search(question, top_k=2).hits]
    partners = expansion.parse_table("tunnel wireguard:0.6\n")
    monkeypatch.setattr(expansion, "_table", lambda: partners)
    with_partners = [h.content for h in memory.search(question, top_k=2).hits]
    memory.close()
    assert len(without) == len(with_partners) == 2
    assert without[0].startswith("Plant visit")
    assert with_partners[0].startswith("The WireGuard link")


def test_a_leader_holding_only_partners_answers_rather_than_not_found(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory found through the words a question's words go with, sharing none of the
    question's own, is no stray match: such leaders were mostly the answer."""
    partners = expansion.parse_table("tunnel wireguard:0.6\n")
    monkeypatch.setattr(expansion, "_table", lambda: partners)
    memory = IHMT.initialize(tmp_path / "mem")
    memory.save("The WireGuard link drops every night at 02:00.", timestamp="2026-03-02T09:00:00")
    memory.save("Plant visit on Thursday: bring helmets.", timestamp="2026-03-05T09:00:00")
    result = memory.search("what breaks the tunnel?")
    memory.close()
    assert not result.not_found, result.reason
    assert result.best is not None and result.best.content.startswith("The WireGuard link")
