// Images with a message, with the real claude (and the real codex) against the stand-ins:
// `klaude message --image` reaches the Messages API as an image block — to a stopped claude agent
// (resumed with it) and to a running one (after its turn) — checked by its first bytes and size
// (E_IMAGE), and refused for a codex agent (E_IMAGE_UNSUPPORTED) before anything is kept or sent.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareCliHomes } from '../support/cli-homes.js';
import { GIF, PNG } from '../support/images.js';
import { startMockOpenAi, type MockOpenAi } from '../support/mock-openai.js';
import { useAgentHomes } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    const m = /^block job in (\S+)$/.exec(r.prompt);
    if (m && !r.isToolResult)
      return { bash: { command: `while [ ! -f ${m[1]}/go ]; do sleep 0.1; done; echo went`, description: 'wait' } };
    if (r.images.length > 0)
      return { text: `I see ${r.images.map((i) => `${i.mediaType} of ${i.bytes.length} bytes`).join(' and ')}` };
    return { text: r.isToolResult ? 'unblocked' : `Reply to: ${r.prompt}` };
  },
});

let openai: MockOpenAi;
beforeAll(async () => {
  openai = await startMockOpenAi({ responder: (r) => ({ text: `codex says: ${r.prompt}` }) });
});
afterAll(async () => {
  await openai?.close();
});

const idOf = (out: string): string => (JSON.parse(out) as { sessions: { id: string }[] }).sessions[0]!.id;

describe('klaude message --image (real claude)', () => {
  it('to a stopped claude agent: resumed with the image as an image block; to a running one: after its turn', async () => {
    const h = fx.home({ prefix: 'klaude-img-', config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 90_000 });
    writeFileSync(join(h.projectDir, 'shot.png'), PNG);
    writeFileSync(join(h.projectDir, 'anim.gif'), GIF);
    const id = idOf((await h.k(['start', 'general', 'first job', '--json'])).stdout);
    expect((await h.k(['wait', id])).code).toBe(0);

    const sent = await h.k(['message', id.slice(-8), 'what is in this picture?', '--image', 'shot.png', '-f']);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('I see image/png of 70 bytes');
    // (2.1.332 adds a text block naming where it keeps a copy: `[Image: source: …/images/1.png]`)
    const req = fx.mock.mainRequests().find((r) => r.prompt.startsWith('what is in this picture?'))!;
    expect(req.images).toHaveLength(1);
    expect(req.images[0]!.mediaType).toBe('image/png');
    expect(req.images[0]!.bytes.equals(PNG)).toBe(true);
    // Kept privately with the session, and the log says what went with the message.
    const dir = join(h.klaudeHome, 'projects');
    const kept = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((p) => p.includes('attachments'));
    expect(kept.some((p) => p.endsWith('.png'))).toBe(true);
    expect((await h.k(['logs', id])).stdout).toContain('> [image: png, 70 B]');

    // A running agent gets it with its next turn (two images, the prompt left out).
    const gate = join(h.projectDir, 'gate');
    mkdirSync(gate);
    const busy = idOf((await h.k(['start', 'general', `block job in ${gate}`, '--json'])).stdout);
    await expect
      .poll(async () => (await h.k(['sessions'])).stdout, { timeout: 60_000, interval: 200 })
      .toMatch(new RegExp(`${busy.slice(-8)}\\s+running.*Bash: while`));
    const queued = await h.k(['message', busy, '--image', 'shot.png', '--image', 'anim.gif']);
    expect(queued.stdout).toContain('it gets the message when its current turn ends');
    writeFileSync(join(gate, 'go'), '');
    expect((await h.k(['wait', busy])).code).toBe(0);
    const both = fx.mock.mainRequests().find((r) => r.images.length === 2)!;
    expect(both.images.map((i) => i.mediaType)).toEqual(['image/png', 'image/gif']);
    expect(both.images[1]!.bytes.equals(GIF)).toBe(true);
  });

  it('refuses what is no image, an image too big, and any image for a codex agent, sending nothing', async () => {
    const h = fx.home({ prefix: 'klaude-img-no-', timeoutMs: 90_000 });
    prepareCliHomes(h, { openai });
    writeFileSync(join(h.projectDir, 'fake.png'), 'not a picture at all');
    writeFileSync(join(h.projectDir, 'huge.png'), Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]));
    writeFileSync(join(h.projectDir, 'shot.png'), PNG);
    const id = idOf((await h.k(['start', 'general', 'a claude job', '--json'])).stdout);
    expect((await h.k(['wait', id])).code).toBe(0);
    const before = fx.mock.requests.length;

    const fake = await h.k(['message', id, 'look', '--image', 'fake.png']);
    expect(fake.code).toBe(1);
    expect(fake.stderr).toBe(
      'klaude: fake.png is not a PNG, JPEG, GIF or WebP image [E_IMAGE] — hint: agents take only those four kinds of image\n',
    );
    const huge = await h.k(['message', id, 'look', '--image', 'huge.png']);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(
      /^klaude: huge\.png is 5242950 bytes: an image is at most 5242880 bytes \(5\.0 MB\) \[E_IMAGE\]/,
    );
    const missing = await h.k(['message', id, 'look', '--image', 'nowhere.png']);
    expect(missing.stderr).toMatch(
      /cannot read the image .*nowhere\.png: no such file \[E_IMAGE\] — hint: give the path of a PNG/,
    );

    const codex = idOf((await h.k(['start', 'general', 'a codex job', '--runtime', 'codex', '--json'])).stdout);
    expect((await h.k(['wait', codex])).code).toBe(0);
    const refused = await h.k(['message', codex, 'look at this', '--image', 'shot.png']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `klaude: ${codex.slice(-8)} is a codex agent, and codex takes no images: only claude agents do [E_IMAGE_UNSUPPORTED] — hint: send the text alone (describe what the image shows), or start a claude agent for it\n`,
    );
    // Nothing reached either model, nothing was kept.
    expect(fx.mock.requests.slice(before).some((r) => r.kind === 'messages' && !r.isSideRequest)).toBe(false);
    expect(openai.requests.some((r) => r.prompt === 'look at this')).toBe(false);
    expect(existsSync(join(h.klaudeHome, 'projects'))).toBe(true);
    const kept = readdirSync(join(h.klaudeHome, 'projects'), { recursive: true }).map(String);
    expect(kept.filter((p) => p.includes('attachments') && /\.\w+$/.test(p))).toEqual([]);
  });
});
