// Skills (SEP-2640) in Node: a Node server serving a directory of skills and one added from code
// (servers/skills.mjs, a real child process on stdio), used by the mcpcore Node client on both
// lineages: listed, got, loaded and read with verification, directories read; and the rules a
// skill must obey refused at registration with the rule named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Server } from '../lib/mcpcore.js';
import { here } from './helpers.mjs';

const PDF = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n# PDF\nRead references/FORMS.md.\n';
const FORMS = '# Forms\nCapitals only.\n';

function tree() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mcpcore-node-skills-'));
  for (const [rel, text] of [
    ['pdf-processing/SKILL.md', PDF],
    ['pdf-processing/references/FORMS.md', FORMS],
    ['pdf-processing/templates/regional/eu.md', '# EU\n'],
  ]) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

for (const protocolVersion of ['2026-07-28', '2025-11-25']) {
  test(`a Node server's skills are listed, loaded and read verified (${protocolVersion})`, async () => {
    const root = tree();
    const client = await Client.connectStdio(process.execPath, [path.join(here, 'servers', 'skills.mjs'), root], { protocolVersion });
    try {
      assert.deepEqual(client.skillsSupport(), { directoryRead: true });
      const skills = await client.listSkills();
      assert.deepEqual(skills.map((s) => s.uri).sort(), ['skill://git-workflow/SKILL.md', 'skill://pdf-processing/SKILL.md']);
      const pdf = skills.find((s) => s.uri === 'skill://pdf-processing/SKILL.md');
      const md = pdf.resources.find((f) => f.uri === pdf.uri);
      assert.deepEqual(md, { uri: pdf.uri, size: Buffer.byteLength(PDF), digest: 'sha256:' + createHash('sha256').update(PDF).digest('hex') });
      assert.deepEqual(await client.getSkill(pdf.uri), pdf);
      assert.equal(await client.loadSkill(pdf), PDF);
      const forms = await client.readSkillFile(pdf, 'skill://pdf-processing/references/FORMS.md');
      assert.ok(Buffer.isBuffer(forms));
      assert.equal(forms.toString(), FORMS);
      const children = await client.readDirectory('skill://pdf-processing/templates');
      assert.deepEqual(children.map((c) => [c.name, c.mimeType]), [['regional', 'inode/directory']]);
      await assert.rejects(client.getSkill('skill://nope/SKILL.md'), (e) => e.code === -32602);
      await assert.rejects(client.readSkillFile(pdf, 'skill://pdf-processing/extra.md'), (e) => e.kind === 'protocol' && /not listed/.test(e.message));
      const git = skills.find((s) => s.uri === 'skill://git-workflow/SKILL.md');
      const logo = await client.readSkillFile(git, 'skill://git-workflow/logo.png');
      assert.deepEqual([...logo], [0x89, 0x50, 0x4e, 0x47, 0xff]);
      const tampered = { ...pdf, resources: pdf.resources.map((f) => ({ ...f, digest: 'sha256:' + '0'.repeat(64) })) };
      await assert.rejects(client.loadSkill(tampered), (e) => e.kind === 'protocol' && /failed verification/.test(e.message));
    } finally {
      await client.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test('a skill breaking a rule is refused with the rule', () => {
  const server = new Server({ name: 's', version: '1' });
  assert.throws(() => server.addSkill('pdf', { 'SKILL.md': PDF }), (e) => e.kind === 'invalid_input' && /must match/.test(e.message));
  assert.throws(() => server.addSkill('a', { 'README.md': 'x' }), /no SKILL.md/);
  const entry = server.addSkill('acme/billing/refunds', { 'SKILL.md': '---\nname: refunds\ndescription: Refunds\n---\n' });
  assert.equal(entry.uri, 'skill://acme/billing/refunds/SKILL.md');
  assert.equal(server.removeSkill(entry.uri), true);
  assert.equal(server.removeSkill(entry.uri), false);
});
