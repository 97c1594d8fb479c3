// Issue 26's CLI texts that need no claude: a misnamed agent file, did-you-mean for a prefix, the
// hook usage, `klaude -- --continue`, approve with nothing pending, a flag after `--`, the old
// `message -w`, `sessions` in a pipe, and watch's banner.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { addApproval } from '../../src/db/repos/approvals.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { addUpdate } from '../../src/db/repos/updates.js';
import { HOOK_EVENTS, hookWord } from '../../src/hooks/settings.js';
import { closestName } from '../../src/lib/closest.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject, spawnKlaude, type LiveKlaude } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

let home: TempHome | undefined;
let live: LiveKlaude | undefined;
afterEach(() => {
  live?.kill();
  live = undefined;
  home?.cleanup();
  home = undefined;
});

const klaude = (h: TempHome, args: string[], env: Record<string, string> = {}) =>
  runKlaude(args, { env: { ...h.env, ...env }, cwd: h.projectDir });

describe('first contact, CLI texts', () => {
  it('an agent file whose name: differs from its file name: the error says which type it defines', async () => {
    const h = (home = makeTempHome());
    const dir = join(h.projectDir, '.claude', 'agents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mismatch.md'), '---\nname: other-name\ndescription: d\n---\nYou help.\n');
    const r = await klaude(h, ['start', 'mismatch', 'hello', '-d']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown agent type 'mismatch'");
    expect(r.stderr).toContain("defines the type 'other-name' (its name: field)");
    expect(r.stderr).not.toContain('to add');
  });

  it('did-you-mean prefers the shortest name a prefix starts; hook usage lists every event', async () => {
    expect(closestName('resum', ['resume-last', 'resume'])).toBe('resume');
    expect(closestName('resume-l', ['resume-last', 'resume'])).toBe('resume-last');
    const h = (home = makeTempHome());
    const r = await klaude(h, ['--resum']);
    expect(r.stderr).toContain('did you mean `--resume`?');
    const help = await klaude(h, ['hook', '--help']);
    for (const e of HOOK_EVENTS) expect(help.stdout).toContain(hookWord(e));
  });

  it('`klaude -- --continue` points at klaude --continue; approve with nothing pending names what sessions shows', async () => {
    const h = (home = makeTempHome());
    const r = await klaude(h, ['--', '--continue']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('`klaude --continue`');
    const { db, hash } = seedProject(h);
    const s = createSession(db, { projectId: hash, type: 'general', status: 'running' });
    db.close();
    const a = await klaude(h, ['approve', shortId(s.id)]);
    expect(a.stderr).toContain('E_NO_PENDING_APPROVAL');
    expect(a.stderr).toContain('"needs approval"');
    expect(a.stderr).not.toContain('needs you');
  });

  it('a flag after `--` is pointed out; the old `message -w` suggests --wait', async () => {
    const h = (home = makeTempHome());
    const r = await klaude(h, ['start', 'general', '--', '--verbose', '-d']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("options go before `--`: after it '-d' is text");
    const m = await klaude(h, ['message', 'ABCD', 'hi', '-w']);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('did you mean `--wait`?');
  });

  it('sessions in a pipe fits COLUMNS, else 100 columns', async () => {
    const h = (home = makeTempHome());
    const { db, hash } = seedProject(h);
    createSession(db, { projectId: hash, type: 'general', status: 'done', title: 'x'.repeat(300) });
    db.close();
    const wide = Math.max(...(await klaude(h, ['sessions'])).stdout.split('\n').map((l) => [...l].length));
    expect(wide).toBeLessThanOrEqual(100);
    expect(wide).toBeGreaterThan(60);
    const narrow = await klaude(h, ['sessions'], { COLUMNS: '60' });
    expect(Math.max(...narrow.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(60);
  });

  it('sessions at 100 and 60 columns in a pipe keeps a pending request’s command readable, wrapped', async () => {
    const h = (home = makeTempHome());
    const { db, hash } = seedProject(h);
    const s = createSession(db, { projectId: hash, type: 'general', status: 'waiting', title: 'clean the build' });
    db.sqlite
      .prepare('UPDATE sessions SET activity = ?, run_started_at = ? WHERE id = ?')
      .run('Bash', Date.now(), s.id);
    const command = 'rm -rf build/generated && npm run compile -- --project tsconfig.build.json --watch=false';
    addApproval(db, { sessionId: s.id, requestId: 'r1', toolName: 'Bash', summary: command });
    db.close();
    const id = shortId(s.id);
    for (const columns of [100, 60]) {
      const out = (await klaude(h, ['sessions'], { COLUMNS: String(columns) })).stdout;
      const lines = out.trimEnd().split('\n');
      expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(columns);
      // The row, then the cell's lines: read together they are the whole request and the answer.
      const at = lines.findIndex((l) => l.startsWith(id));
      const joined = lines
        .slice(at)
        .map((l, i) => (i === 0 ? l : l.trim()))
        .join(' ')
        .replace(/\s+/g, ' ');
      expect(joined).toContain(`needs approval: Bash: ${command} (klaude approve|deny ${id})`);
    }
    // A command too long for the lines it may take keeps its start and its end.
    const db2 = seedProject(h).db;
    const long = `python3 -c "${'x = 1; '.repeat(60)}print('the end')"`;
    addApproval(db2, { sessionId: s.id, requestId: 'r2', toolName: 'Bash', summary: long });
    db2.sqlite.prepare("UPDATE approvals SET answer = 'allow' WHERE request_id = 'r1'").run();
    db2.close();
    const out = (await klaude(h, ['sessions'], { COLUMNS: '60' })).stdout;
    const flat = out.replace(/\s+/g, ' ');
    expect(flat).toContain('needs approval: Bash: python3 -c "x = 1;');
    expect(flat).toMatch(/…[^…]*print\('the end'\)" \(klaude approve\|deny/);
    expect(flat).toContain(`deny ${id})`);
  });

  it('a running watch says what it watches and how to stop; a top-level agent’s update is shown', async () => {
    const h = (home = makeTempHome());
    const { db, hash } = seedProject(h);
    const top = createSession(db, { projectId: hash, type: 'coder', status: 'running' });
    live = spawnKlaude(['watch'], { env: h.env, cwd: h.projectDir });
    await until('the watch banner', () => /Ctrl-C stops/.test(live!.stderr()), 15_000);
    expect(live.stderr()).toContain('watching [UPDATE] and [NEEDS APPROVAL] notes from every agent of this project');
    addUpdate(db, { sessionId: top.id, parentSessionId: null, text: 'on my own' });
    await live.waitForOutput(new RegExp(`\\[UPDATE\\] ${shortId(top.id)} \\(coder\\): on my own`));
    db.close();
  });
});
