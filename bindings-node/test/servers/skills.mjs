// A Node server serving skills (the Skills extension, SEP-2640) on stdio: every skill under the
// directory given as the first argument, plus one added from code. Used by skills.test.mjs.
import { Server } from '../../lib/mcpcore.js';

const server = new Server({ name: 'node-skills', version: '1.0' });
server.skills(process.argv[2]);
server.addSkill('git-workflow', {
  'SKILL.md': '---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]),
});
await server.serveStdio();
