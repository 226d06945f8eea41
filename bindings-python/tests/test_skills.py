"""Skills (SEP-2640) in Python: a Python server serving a directory of skills and one made in
code (tests/servers/skills.py, a real child process on stdio), used by the mcpcore Python client
on both lineages: listed, got, loaded and read with verification, directories read; and the
rules a skill must obey refused at registration with the rule named."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Dict

import pytest

from mcpcore import Client, InvalidInput, McpError, ProtocolError, Server

from conftest import LINEAGES, PY, SERVERS, run_async

PDF = ("---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n"
       "metadata:\n  version: \"2.1.0\"\n---\n# PDF\nRead references/FORMS.md.\n")
FORMS = "# Forms\nCapitals only.\n"


def tree(root: Path) -> Path:
    for rel, text in [("pdf-processing/SKILL.md", PDF), ("pdf-processing/references/FORMS.md", FORMS),
                      ("pdf-processing/templates/regional/eu.md", "# EU\n")]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize("mode,version", LINEAGES)
def test_a_python_servers_skills_are_listed_loaded_and_read_verified(tmp_path: Path, mode: str,
                                                                   version: str) -> None:
    root = tree(tmp_path)

    @run_async
    async def go() -> None:
        async with await Client.connect_stdio(PY, [str(SERVERS / "skills.py"), str(root)],
                                              protocol_version=version) as client:
            assert client.skills_support() == {"directoryRead": True}
            skills = await client.list_skills()
            by_uri: Dict[str, Any] = {s["uri"]: s for s in skills}
            assert sorted(by_uri) == ["skill://git-workflow/SKILL.md", "skill://pdf-processing/SKILL.md"]
            pdf = by_uri["skill://pdf-processing/SKILL.md"]
            assert pdf["frontmatter"] == {"name": "pdf-processing",
                                          "description": "Extract, fill, and assemble PDF documents",
                                          "metadata": {"version": "2.1.0"}}
            md = next(f for f in pdf["resources"] if f["uri"] == pdf["uri"])
            assert md == {"uri": pdf["uri"], "size": len(PDF.encode()),
                          "digest": "sha256:" + hashlib.sha256(PDF.encode()).hexdigest()}
            assert await client.get_skill(pdf["uri"]) == pdf
            assert await client.load_skill(pdf) == PDF
            forms = await client.read_skill_file(pdf, "skill://pdf-processing/references/FORMS.md")
            assert forms == FORMS.encode()
            children = await client.read_directory("skill://pdf-processing/templates")
            assert [(c["name"], c["mimeType"]) for c in children] == [("regional", "inode/directory")]
            with pytest.raises(McpError) as e:
                await client.get_skill("skill://nope/SKILL.md")
            assert e.value.code == -32602
            with pytest.raises(ProtocolError, match="not listed"):
                await client.read_skill_file(pdf, "skill://pdf-processing/extra.md")
            made = by_uri["skill://git-workflow/SKILL.md"]
            assert (await client.load_skill(made)).endswith("Branch from main.\n")
            # The same entry with a changed digest: the content is refused, not returned.
            tampered = dict(pdf, resources=[dict(f, digest="sha256:" + "0" * 64) for f in pdf["resources"]])
            with pytest.raises(ProtocolError, match="failed verification"):
                await client.load_skill(tampered)

    go()


def test_a_skill_breaking_a_rule_is_refused_with_the_rule(tmp_path: Path) -> None:
    server = Server("s", "1")
    with pytest.raises(InvalidInput, match="must match"):
        server.add_skill("pdf", {"SKILL.md": PDF})
    with pytest.raises(InvalidInput, match="no SKILL.md"):
        server.add_skill("a", {"README.md": "x"})
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("no frontmatter")
    with pytest.raises(InvalidInput, match="does not begin"):
        server.skills(tmp_path)
    entry = server.add_skill("acme/billing/refunds", {
        "SKILL.md": "---\nname: refunds\ndescription: Refunds\n---\n", "logo.png": b"\x89PNG\xff"})
    assert entry["uri"] == "skill://acme/billing/refunds/SKILL.md"
    assert [f["size"] for f in entry["resources"]] == [43, 5]
    assert server.remove_skill(entry["uri"]) and not server.remove_skill(entry["uri"])
