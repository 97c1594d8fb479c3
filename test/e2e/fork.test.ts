// `klaude fork` with the real claude against the stand-in: the fork's first request carries the
// origin's conversation (claude --resume <origin> --fork-session), the fork is recorded beside its
// origin with "forked from" (sessions, -v, --json, logs), a message to the fork resumes the fork
// (its own turn is in the history), and a session of another runtime is refused with a code.
import { describe, expect, it } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { useAgentHomes } from './agent-home.js';

const fx = useAgentHomes({ responder: (r) => ({ text: `Reply to: ${r.prompt}` }) });

const requestWith = (text: string) => fx.mock.mainRequests().filter((r) => JSON.stringify(r.body).includes(text));

describe('klaude fork (real claude)', () => {
  it('continues a fork of the conversation, recorded beside its origin', async () => {
    const { k } = fx.home({ prefix: 'klaude-fork-', timeoutMs: 90_000 });

    const started = await k(['start', 'general', 'origin-marker-31', '--json']);
    const id = (JSON.parse(started.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    expect((await k(['wait', id])).code).toBe(0);

    const forked = await k(['fork', id.slice(-8), 'fork-prompt-32', '--json']);
    expect(forked.stderr).toBe('');
    const fork = JSON.parse(forked.stdout) as { id: string; forkedFrom: string; nativeSessionId: string };
    expect(fork.forkedFrom).toBe(id);
    expect((await k(['wait', fork.id])).code).toBe(0);
    // The fork's request holds the origin's turn, then its own prompt.
    const first = requestWith('fork-prompt-32');
    expect(first.length).toBeGreaterThan(0);
    expect(JSON.stringify(first[0]!.body)).toContain('origin-marker-31');

    const table = (await k(['sessions'])).stdout;
    expect(table).toContain(`forked from ${id.slice(-8)}: fork-prompt-32`);
    expect((await k(['sessions', '-v'])).stdout).toContain(`forked from ${id.slice(-8)}`);
    const json = JSON.parse((await k(['sessions', '--json'])).stdout) as { id: string; forkedFrom: string | null }[];
    expect(json.find((r) => r.id === fork.id)?.forkedFrom).toBe(id);
    expect(json.find((r) => r.id === id)?.forkedFrom).toBeNull();
    const logs = (await k(['logs', fork.id.slice(-8)])).stdout;
    expect(logs.split('\n')[0]).toBe(
      `forked from ${id.slice(-8)} (\`klaude logs ${id.slice(-8)}\`: the turns before the fork)`,
    );
    expect(logs).toContain('Reply to: fork-prompt-32');

    // A message resumes the fork itself: its own turn is in the history, under the same Claude id.
    expect((await k(['message', fork.id, 'fork-followup-33'])).code).toBe(0);
    expect((await k(['wait', fork.id])).code).toBe(0);
    const followup = JSON.stringify(requestWith('fork-followup-33')[0]!.body);
    expect(followup).toContain('fork-prompt-32');
    expect(followup).toContain('origin-marker-31');
    const after = JSON.parse((await k(['sessions', '--json'])).stdout) as { id: string; nativeSessionId: string }[];
    expect(after.find((r) => r.id === fork.id)?.nativeSessionId).toBe(fork.nativeSessionId);
  });

  it('refuses a session of another runtime with a code and a hint; --help', async () => {
    const h = fx.home({ prefix: 'klaude-fork-codex-', config: false });
    const db = openDb(h.klaudeHome);
    const hash = projectHash(h.projectDir);
    ensureProject(db, { hash, rootPath: h.projectDir });
    const s = createSession(db, { projectId: hash, type: 'general', runtime: 'codex', status: 'done', prompt: 'x' });
    db.close();
    const r = await h.k(['fork', s.id, 'again']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('only claude conversations can be forked');
    expect(r.stderr).toContain('E_FORK_UNSUPPORTED');
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    const help = await h.k(['fork', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('klaude fork <id>');
  });
});
