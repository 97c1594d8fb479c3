// `klaude logs` through the built CLI, on a seeded DB and real log files.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionLogPath } from '../../src/config/paths.js';
import { shortId } from '../../src/core/ids.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject, spawnKlaude, type LiveKlaude } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
let live: LiveKlaude | undefined;
afterEach(() => {
  live?.kill();
  live = undefined;
  home?.cleanup();
  home = undefined;
});

let t = 1_700_000_000_000;
const j = (x: Record<string, unknown>) => `${JSON.stringify({ ts: ++t, ...x })}\n`;
const LOG = [
  j({ type: 'init', runtime: 'claude', nativeSessionId: '4a234254-cccc-4000-8000-000000000003', model: 'sonnet' }),
  j({ type: 'user', text: 'make the tests pass', source: 'start' }),
  j({ type: 'text', text: 'Looking at the failing test.' }),
  j({ type: 'tool_call', id: 't1', name: 'Bash', summary: 'npm test', input: { command: 'npm test' } }),
  j({ type: 'tool_result', id: 't1', isError: false, output: '1 failed\n9 passed' }),
  'this line is not json\n',
  j({ type: 'tool_call', id: 't2', name: 'Edit', summary: 'src/wait.ts', input: { file_path: 'src/wait.ts' } }),
  j({ type: 'tool_result', id: 't2', isError: false, output: 'ok' }),
  j({ type: 'text', text: '[UPDATE] fixed the wait helper' }),
  j({ type: 'update', text: 'fixed the wait helper' }),
  j({ type: 'usage', inputTokens: 10, outputTokens: 20 }),
  j({ type: 'text', text: 'All tests pass now.' }),
  j({
    type: 'done',
    status: 'done',
    finalText: 'All tests pass now.',
    costUsd: 0.0123,
    durationMs: 41_000,
    numTurns: 3,
  }),
];

function seed(opts: { status?: 'running' | 'done'; log?: string[] | null; logPath?: 'explicit' | 'default' } = {}) {
  const h = (home = makeTempHome());
  const { db, hash } = seedProject(h);
  const explicit = path.join(h.root, 'logs', 'agent.ndjson');
  const s = createSession(db, {
    projectId: hash,
    type: 'coder',
    status: opts.status ?? 'done',
    nativeSessionId: '4a234254-cccc-4000-8000-000000000003',
    logPath: opts.logPath === 'default' ? null : explicit,
  });
  db.close();
  const file = opts.logPath === 'default' ? sessionLogPath(h.klaudeHome, hash, s.id) : explicit;
  if (opts.log !== null) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, (opts.log ?? LOG).join(''));
  }
  return { h, s, file, id: shortId(s.id) };
}

describe('klaude logs', () => {
  it('prints the log readably: text as is, one line per tool call, folded results, marked updates', async () => {
    const { h, id } = seed();
    const r = await runKlaude(['logs', id], { env: h.env, cwd: h.projectDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '· claude · sonnet · session 4a234254-cccc-4000-8000-000000000003',
        '> make the tests pass',
        'Looking at the failing test.',
        '→ Bash: npm test',
        '  ✓ 2 lines',
        '→ Edit: src/wait.ts',
        '  ✓ 1 line',
        '[UPDATE] fixed the wait helper',
        'All tests pass now.',
        '■ done · 41s · 3 turns · $0.0123',
        '',
      ].join('\n'),
    );
  });

  it('-n N prints only the last N events', async () => {
    const { h, id } = seed();
    const r = await runKlaude(['logs', id, '-n', '2'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('All tests pass now.\n■ done · 41s · 3 turns · $0.0123\n');
  });

  it('--raw prints the event lines as written (with -n too)', async () => {
    const { h, id } = seed();
    const r = await runKlaude(['logs', id, '--raw'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(LOG.filter((l) => l.startsWith('{')).join(''));
    const tail = await runKlaude(['logs', id, '--raw', '-n', '1'], { env: h.env, cwd: h.projectDir });
    expect(tail.stdout).toBe(LOG[LOG.length - 1]);
  });

  it('-s prints only the completion summary', async () => {
    const { h, s, id } = seed();
    const r = await runKlaude(['logs', id, '-s'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `── coder ${shortId(s.id)}: done · 41s · 3 turns · $0.0123 ──`,
        'files edited: src/wait.ts',
        'files created: none',
        'final text:',
        'All tests pass now.',
        '',
      ].join('\n'),
    );
  });

  it('resolves the Claude session id and a unique prefix; the default log location is used without a log_path', async () => {
    const { h, s } = seed({ logPath: 'default' });
    const byClaude = await runKlaude(['logs', '4a234254-cccc-4000-8000-000000000003', '-n', '1'], {
      env: h.env,
      cwd: h.projectDir,
    });
    expect(byClaude.stdout).toBe('■ done · 41s · 3 turns · $0.0123\n');
    const byPrefix = await runKlaude(['logs', s.id.slice(0, 20), '-n', '1'], { env: h.env, cwd: h.projectDir });
    expect(byPrefix.stdout).toBe(byClaude.stdout);
  });

  it('a bad id is one line with a code; a missing log is reported on stderr', async () => {
    const { h, id } = seed({ log: null });
    const bad = await runKlaude(['logs', 'ZZZZZZ'], { env: h.env, cwd: h.projectDir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^klaude: no session matches "ZZZZZZ" \[E_SESSION_NOT_FOUND\] — hint: .*\n$/);
    const missing = await runKlaude(['logs', id], { env: h.env, cwd: h.projectDir });
    expect(missing.code).toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^no log yet for \w{8} \(done\); expected at .*agent\.ndjson\n$/);
    const usage = await runKlaude(['logs', id, '-s', '--raw'], { env: h.env, cwd: h.projectDir });
    expect(usage.code).toBe(2);
  });

  it('-f follows a running agent live and ends after done', async () => {
    const { h, id, file } = seed({ status: 'running', log: LOG.slice(0, 5) });
    live = spawnKlaude(['logs', id, '-f'], { env: h.env, cwd: h.projectDir });
    await live.waitForOutput(/→ Bash: npm test\n {2}✓ 2 lines\n/);
    appendFileSync(file, j({ type: 'text', text: 'Now appended while following.' }));
    await live.waitForOutput(/Now appended while following\.\n/);
    const read = j({ type: 'tool_call', id: 't9', name: 'Read', summary: 'src/a.ts' });
    appendFileSync(file, read.slice(0, 20)); // a torn line: held until the rest arrives
    appendFileSync(file, read.slice(20));
    appendFileSync(file, j({ type: 'done', status: 'done', durationMs: 1500 }));
    const { code } = await live.exited();
    expect(code).toBe(0);
    expect(live.stdout()).toMatch(/Now appended while following\.\n→ Read: src\/a\.ts\n■ done · 1\.5s\n$/);
  });

  it('-f on a finished session prints the log and exits', async () => {
    const { h, id } = seed();
    const r = await runKlaude(['logs', id, '-f', '-n', '1'], { env: h.env, cwd: h.projectDir, timeoutMs: 10_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('■ done · 41s · 3 turns · $0.0123\n');
  });

  it('-f waits for a log that does not exist yet; Ctrl-C stops following', async () => {
    const { h, id, file } = seed({ status: 'running', log: null });
    live = spawnKlaude(['logs', id, '-f'], { env: h.env, cwd: h.projectDir });
    // The directory is created after the follower started.
    await new Promise((r) => setTimeout(r, 300));
    mkdirSync(path.dirname(file), { recursive: true });
    appendFileSync(file, j({ type: 'text', text: 'first words' }));
    await live.waitForOutput(/first words\n/);
    live.child.kill('SIGINT');
    const { code } = await live.exited();
    expect(code).toBe(130);
    expect(live.stderr()).toContain(`klaude logs -f ${id}`);
    expect(readFileSync(file, 'utf8')).toContain('first words');
  });
});
