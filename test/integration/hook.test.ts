// `klaude hook <event>` without claude: captured payload shapes (docs/cli-facts.md §1.3) piped
// into the built entries with the KLAUDE_* env a supervisor sets, then the rows checked.
// Both routes: `node dist/hook.cjs <event>` (what klaude injects) and `node dist/cli.js hook`.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/client.js';
import { createInstance } from '../../src/db/repos/instances.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { HOOK_NODE_OPTIONS } from '../../src/hooks/settings.js';
import { KLAUDE_CLI, REPO_ROOT } from '../support/klaude-bin.js';
import { runProcess, type RunProcessResult } from '../support/run-process.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const HOOK_CJS = path.join(REPO_ROOT, 'dist', 'hook.cjs');
const PROJECT = 'c'.repeat(24);
const ID_A = '4a234254-0000-4000-8000-00000000000a';
const ID_B = '4a234254-0000-4000-8000-00000000000b';

let home: TempHome;
let rootId: string;
let childId: string;
let env: Record<string, string>;

beforeEach(() => {
  home = makeTempHome({ prefix: 'klaude-hook-' });
  const db = openDb(home.klaudeHome);
  try {
    ensureProject(db, { hash: PROJECT, rootPath: home.projectDir });
    const inst = createInstance(db, {
      projectId: PROJECT,
      pid: process.pid,
      socketPath: '/nowhere.sock',
      cwd: home.projectDir,
      mode: 'cli',
    });
    rootId = createSession(db, { projectId: PROJECT, type: 'tui', status: 'idle', instanceId: inst.id }).id;
    childId = createSession(db, { projectId: PROJECT, parentId: rootId, type: 'general', status: 'running' }).id;
    env = {
      ...home.env,
      KLAUDE_SESSION_ID: rootId,
      KLAUDE_PROJECT_HASH: PROJECT,
      KLAUDE_INSTANCE_ID: inst.id,
      KLAUDE_SOCKET: '/nowhere.sock',
    };
  } finally {
    db.close();
  }
});
afterEach(() => home.cleanup());

const common = (id: string) => ({
  session_id: id,
  transcript_path: `/tmp/transcripts/${id}.jsonl`,
  cwd: '/home/me/proj',
  prompt_id: '4b8f999e-0000-4000-8000-000000000000',
  permission_mode: 'default',
});
const P = {
  start: (id: string, source = 'startup') => ({ ...common(id), hook_event_name: 'SessionStart', source }),
  end: (id: string, reason: string) => ({ ...common(id), hook_event_name: 'SessionEnd', reason }),
  prompt: (id: string, prompt: string) => ({ ...common(id), hook_event_name: 'UserPromptSubmit', prompt }),
  stop: (id: string, text: string) => ({
    ...common(id),
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: text,
    background_tasks: [],
    session_crons: [],
  }),
  notification: (id: string, type: string) => ({
    ...common(id),
    hook_event_name: 'Notification',
    message: 'Claude needs your permission to use Bash',
    notification_type: type,
  }),
  postToolUse: (id: string, toolUseId = 'toolu_1') => ({
    ...common(id),
    effort: { level: 'high' },
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'echo tool-ran', description: 'echo' },
    tool_response: { stdout: 'tool-ran', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
    tool_use_id: toolUseId,
    duration_ms: 54,
  }),
  postToolUseFailure: (id: string, toolUseId: string) => ({
    ...common(id),
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command: 'npm test', description: 'run the tests' },
    tool_use_id: toolUseId,
    error: 'Exit code 1',
    duration_ms: 812,
  }),
  stopFailure: (id: string, error: string, text: string) => ({
    ...common(id),
    hook_event_name: 'StopFailure',
    error,
    error_details: '429 {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
    last_assistant_message: text,
  }),
  permissionRequest: (id: string) => ({
    ...common(id),
    hook_event_name: 'PermissionRequest',
    tool_name: 'Bash',
    tool_input: { command: 'touch a', description: 'touch' },
  }),
  preToolUse: (
    id: string,
    toolUseId: string,
    tool_name = 'Bash',
    tool_input: unknown = { command: 'npm test', description: 'run the tests' },
  ) => ({
    ...common(id),
    effort: { level: 'high' },
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    tool_use_id: toolUseId,
  }),
};

function query<T>(sql: string, ...args: unknown[]): T[] {
  const db = new Database(path.join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return db.prepare(sql).all(...args) as T[];
  } finally {
    db.close();
  }
}
const session = (id: string) =>
  query<{
    status: string;
    activity: string | null;
    native_session_id: string | null;
    transcript_path: string | null;
    prompt: string | null;
    last_text: string | null;
    parent_id: string | null;
    error: string | null;
  }>('SELECT * FROM sessions WHERE id = ?', id)[0]!;
const linksOf = (id: string) =>
  query<{
    claude_session_id: string;
    source: string;
    transcript_path: string | null;
    ended_at: number | null;
    end_reason: string | null;
  }>('SELECT * FROM claude_session_links WHERE klaude_session_id = ? ORDER BY id', id);
const eventKinds = (id: string) =>
  query<{ kind: string }>('SELECT kind FROM events WHERE klaude_session_id = ? ORDER BY id', id).map((e) => e.kind);
const logText = () => {
  const f = path.join(home.klaudeHome, 'klaude.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
};

const routes = [
  // With the node options klaude injects before it (settings.ts).
  {
    name: 'dist/hook.cjs (injected)',
    args: (event: string) => [...HOOK_NODE_OPTIONS, HOOK_CJS, ...event.split(' ')],
  },
  { name: 'dist/cli.js hook', args: (event: string) => [KLAUDE_CLI, 'hook', ...event.split(' ')] },
];
const activity = (id: string) =>
  query<{ activity: string | null }>('SELECT activity FROM sessions WHERE id = ?', id)[0]!.activity;

describe.each(routes)('klaude hook via $name', ({ args }) => {
  async function run(
    event: string,
    payload: unknown,
    e: Record<string, string | undefined> = env,
  ): Promise<RunProcessResult> {
    const input = typeof payload === 'string' ? payload : JSON.stringify(payload);
    return runProcess(process.execPath, args(event), { env: e, cwd: home.projectDir, input, timeoutMs: 15_000 });
  }
  async function hook(
    event: string,
    payload: unknown,
    e: Record<string, string | undefined> = env,
  ): Promise<RunProcessResult> {
    const r = await run(event, payload, e);
    expect(r.stdout).toBe(''); // nothing for Claude to read
    return r;
  }
  const ok = async (event: string, payload: unknown): Promise<void> => {
    const r = await hook(event, payload);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  };

  it('SessionStart links the Claude id to KLAUDE_SESSION_ID; SessionEnd closes the link', async () => {
    await ok('session-start', P.start(ID_A));
    expect(linksOf(rootId)).toMatchObject([
      { claude_session_id: ID_A, source: 'startup', transcript_path: `/tmp/transcripts/${ID_A}.jsonl`, ended_at: null },
    ]);
    expect(session(rootId)).toMatchObject({
      native_session_id: ID_A,
      transcript_path: `/tmp/transcripts/${ID_A}.jsonl`,
      status: 'idle',
    });

    await ok('session-end', P.end(ID_A, 'prompt_input_exit'));
    const [link] = linksOf(rootId);
    expect(link!.ended_at).toBeGreaterThan(0);
    expect(link!.end_reason).toBe('prompt_input_exit');
    expect(session(rootId).native_session_id).toBe(ID_A); // still resumable
    expect(eventKinds(rootId)).toEqual(['hook.SessionStart', 'hook.SessionEnd']);
    expect(logText()).toBe('');
  });

  it('/clear moves the session to the new Claude id and ends the old link; the tree is untouched', async () => {
    await ok('session-start', P.start(ID_A));
    // What /clear fires: SessionEnd(clear) for the old id, SessionStart(clear) with a new one.
    await ok('session-end', P.end(ID_A, 'clear'));
    await ok('session-start', P.start(ID_B, 'clear'));
    expect(linksOf(rootId)).toMatchObject([
      { claude_session_id: ID_A, end_reason: 'clear' },
      { claude_session_id: ID_B, source: 'clear', ended_at: null },
    ]);
    expect(session(rootId)).toMatchObject({ native_session_id: ID_B, parent_id: null });
    expect(session(childId).parent_id).toBe(rootId);
    expect(query('SELECT id FROM sessions')).toHaveLength(2);
  });

  it('records prompt → running, Stop → idle with the last text, a permission prompt → waiting, a tool → running', async () => {
    await ok('user-prompt-submit', P.prompt(ID_A, 'fix the bug'));
    expect(session(rootId)).toMatchObject({ status: 'running', prompt: 'fix the bug' });
    await ok('notification', P.notification(ID_A, 'permission_prompt'));
    expect(session(rootId).status).toBe('waiting');
    await ok('post-tool-use', P.postToolUse(ID_A));
    expect(session(rootId).status).toBe('running');
    await ok('stop', P.stop(ID_A, 'Done: the bug is fixed.'));
    expect(session(rootId)).toMatchObject({ status: 'idle', last_text: 'Done: the bug is fixed.' });
    await ok('notification', P.notification(ID_A, 'idle_prompt'));
    expect(session(rootId).status).toBe('idle');
    await ok('user-prompt-submit', P.prompt(ID_A, 'and another thing'));
    expect(session(rootId).prompt).toBe('fix the bug'); // the first prompt names the session
    expect(eventKinds(rootId)).toEqual([
      'hook.UserPromptSubmit',
      'hook.Notification',
      'hook.PostToolUse',
      'hook.Stop',
      'hook.Notification',
      'hook.UserPromptSubmit',
    ]);
  });

  it('an interactive claude’s tool shows as the activity (PreToolUse), thinking after it; a late PreToolUse is dropped', async () => {
    await ok('user-prompt-submit', P.prompt(ID_A, 'run the tests'));
    expect(activity(rootId)).toBe('thinking');
    await ok('pre-tool-use', P.preToolUse(ID_A, 'toolu_7'));
    expect(activity(rootId)).toBe('Bash: npm test');
    await ok('post-tool-use --interactive', P.postToolUse(ID_A, 'toolu_7'));
    expect(activity(rootId)).toBe('thinking');
    // PreToolUse runs in the background: one that lands after its tool's PostToolUse says nothing.
    await ok('post-tool-use --interactive', P.postToolUse(ID_A, 'toolu_8'));
    await ok('pre-tool-use', P.preToolUse(ID_A, 'toolu_8', 'Read', { file_path: '/p/src/a.ts' }));
    expect(activity(rootId)).toBe('thinking');
    await ok('pre-tool-use', P.preToolUse(ID_A, 'toolu_9', 'Read', { file_path: '/p/src/a.ts' }));
    expect(activity(rootId)).toBe('Read: /p/src/a.ts');
    // A tool that fails ends with PostToolUseFailure: thinking again, and its late start is dropped too.
    await ok('post-tool-use-failure', P.postToolUseFailure(ID_A, 'toolu_11'));
    expect(activity(rootId)).toBe('thinking');
    await ok('pre-tool-use', P.preToolUse(ID_A, 'toolu_11'));
    expect(activity(rootId)).toBe('thinking');
    expect(session(rootId).status).toBe('running');
    // Nor one that lands after the turn ended.
    await ok('stop', P.stop(ID_A, 'Tests pass.'));
    await ok('pre-tool-use', P.preToolUse(ID_A, 'toolu_10'));
    expect(activity(rootId)).toBeNull();
    await ok('post-tool-use-failure', P.postToolUseFailure(ID_A, 'toolu_12'));
    expect(session(rootId)).toMatchObject({ status: 'idle', activity: null });
    expect(eventKinds(rootId).filter((k) => k === 'hook.PreToolUse')).toHaveLength(5);
  });

  it('a turn an API error ended (StopFailure): idle, why in one line until the next prompt', async () => {
    await ok('user-prompt-submit', P.prompt(ID_A, 'summarise'));
    await ok('stop-failure', P.stopFailure(ID_A, 'rate_limit', 'API Error: Request rejected (429) · slow down'));
    expect(session(rootId)).toMatchObject({
      status: 'idle',
      activity: null,
      error: 'rate limited: API Error: Request rejected (429) · slow down',
    });
    expect(session(rootId).last_text).toBe('API Error: Request rejected (429) · slow down');
    await ok('user-prompt-submit', P.prompt(ID_A, 'again'));
    expect(session(rootId)).toMatchObject({ status: 'running', error: null });
    await ok('stop-failure', P.stopFailure(ID_A, 'overloaded', ''));
    expect(session(rootId)).toMatchObject({ status: 'idle', error: 'API overloaded' });
    await ok('stop', P.stop(ID_A, 'fine now'));
    await ok('user-prompt-submit', P.prompt(ID_A, 'and again'));
    expect(session(rootId).error).toBeNull();
  });

  it('a permission dialog (PermissionRequest) makes a running session waiting, and answers claude nothing', async () => {
    await ok('user-prompt-submit', P.prompt(ID_A, 'touch a file'));
    const r = await hook('permission-request', P.permissionRequest(ID_A));
    expect(r.code, r.stderr).toBe(0);
    // Any output would be a decision; the dialog is the person's.
    expect(r.stdout).toBe('');
    expect(session(rootId).status).toBe('waiting');
    await ok('post-tool-use --interactive', P.postToolUse(ID_A, 'toolu_21'));
    expect(session(rootId).status).toBe('running');
    // A tool that was allowed and failed answers the dialog too; an interrupted one leaves it to the transcript.
    await ok('permission-request', P.permissionRequest(ID_A));
    await ok('post-tool-use-failure', { ...P.postToolUseFailure(ID_A, 'toolu_22'), is_interrupt: true });
    expect(session(rootId).status).toBe('waiting');
    await ok('post-tool-use-failure', P.postToolUseFailure(ID_A, 'toolu_23'));
    expect(session(rootId)).toMatchObject({ status: 'running', activity: 'thinking' });
    // Late (the turn is over): not waiting.
    await ok('stop', P.stop(ID_A, 'Done.'));
    await ok('permission-request', P.permissionRequest(ID_A));
    expect(session(rootId).status).toBe('idle');
  });

  it('an interactive agent (a checkout) gets thinking after a tool; a headless one keeps its runtime’s activity', async () => {
    const agent = { ...env, KLAUDE_SESSION_ID: childId };
    const db = new Database(path.join(home.klaudeHome, 'sessions.db'));
    db.prepare("UPDATE sessions SET activity = 'writing' WHERE id = ?").run(childId);
    db.close();
    const r = await hook('post-tool-use', P.postToolUse(ID_B), agent);
    expect(r.code, r.stderr).toBe(0);
    expect(activity(childId)).toBe('writing');
    await hook('pre-tool-use', P.preToolUse(ID_B, 'toolu_2', 'Grep', { pattern: 'TODO' }), agent);
    expect(activity(childId)).toBe('Grep: TODO');
    await hook('post-tool-use --interactive', P.postToolUse(ID_B, 'toolu_2'), agent);
    expect(activity(childId)).toBe('thinking');
  });

  it("PostToolUse hands sub-agents' pending [UPDATE] notes to Claude once, as additionalContext", async () => {
    const db = new Database(path.join(home.klaudeHome, 'sessions.db'));
    try {
      const add = db.prepare(
        'INSERT INTO agent_updates (session_id, parent_session_id, text, created_at) VALUES (?, ?, ?, ?)',
      );
      add.run(childId, rootId, 'tests pass (42/42)', Date.now());
      add.run(childId, rootId, 'starting the refactor', Date.now());
    } finally {
      db.close();
    }
    const first = await run('post-tool-use', P.postToolUse(ID_A));
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(out.hookSpecificOutput.additionalContext).toContain('tests pass (42/42)');
    expect(out.hookSpecificOutput.additionalContext).toContain('starting the refactor');
    expect(out.hookSpecificOutput.additionalContext).toContain(childId.slice(-8));
    const pending = query<{ n: number }>('SELECT count(*) AS n FROM agent_updates WHERE acknowledged_at IS NULL')[0]!.n;
    expect(pending).toBe(0);
    await ok('post-tool-use', P.postToolUse(ID_A)); // already delivered: nothing the second time
  });

  it('goes by the Claude session id’s link over KLAUDE_SESSION_ID', async () => {
    const r = await hook('session-start', P.start(ID_B), { ...env, KLAUDE_SESSION_ID: childId });
    expect(r.code).toBe(0);
    await ok('post-tool-use', P.postToolUse(ID_B)); // env still names the root
    expect(eventKinds(childId)).toEqual(['hook.SessionStart', 'hook.PostToolUse']);
    expect(eventKinds(rootId)).toEqual([]);
  });

  it('does not revive a finished session with a late hook', async () => {
    const db = openDb(home.klaudeHome);
    db.sqlite.prepare("UPDATE sessions SET status = 'done' WHERE id = ?").run(rootId);
    db.close();
    await ok('stop', P.stop(ID_A, 'late'));
    expect(session(rootId)).toMatchObject({ status: 'done', last_text: 'late' });
  });

  it('outside klaude (no KLAUDE_SESSION_ID) does nothing: exit 0, no DB, no log', async () => {
    const fresh = path.join(home.root, 'fresh-home');
    mkdirSync(fresh);
    const { KLAUDE_SESSION_ID: _drop, ...rest } = env;
    const r = await hook('post-tool-use', P.postToolUse(ID_A), { ...rest, KLAUDE_HOME: fresh });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(readdirSync(fresh)).toEqual([]);
  });

  it('creates and migrates a missing DB before recording (and ignores an unknown session)', async () => {
    const fresh = path.join(home.root, 'fresh-home');
    const r = await hook('session-start', P.start(ID_A), { ...env, KLAUDE_HOME: fresh });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(fresh, 'sessions.db'))).toBe(true);
    expect(existsSync(path.join(fresh, 'klaude.log'))).toBe(false);
  });

  it('a payload it cannot parse: exit 1 (non-blocking for Claude), one stderr line, a line in klaude.log, nothing recorded', async () => {
    for (const bad of ['{"session_id": "x", garbage', '', '[1,2]']) {
      const r = await hook('session-start', bad);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^klaude: hook session-start: .* \[E_BAD_REQUEST\]\n$/);
    }
    expect(logText()).toMatch(/ERROR \[hook \d+\] hook SessionStart failed: payload is not JSON/);
    expect(logText()).toMatch(/hook SessionStart failed: empty payload on stdin/);
    expect(eventKinds(rootId)).toEqual([]); // never recorded as {}
    expect(linksOf(rootId)).toEqual([]);
  });

  it('a starved hook waits for its whole payload (no timer of its own): written after 3 s, still recorded', async () => {
    const child = spawn(process.execPath, args('session-start'), {
      env,
      cwd: home.projectDir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const text = JSON.stringify(P.start(ID_A));
    child.stdin.write(text.slice(0, 20)); // half now, the rest once the old 2 s timer would have fired
    await new Promise((r) => setTimeout(r, 3000));
    child.stdin.end(text.slice(20));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(linksOf(rootId).map((l) => l.claude_session_id)).toEqual([ID_A]);
    expect(eventKinds(rootId)).toEqual(['hook.SessionStart']);
  });

  it('never fails Claude on an unusable DB → exit 0 and a line in klaude.log', async () => {
    const broken = path.join(home.root, 'broken-home');
    mkdirSync(path.join(broken, 'sessions.db'), { recursive: true }); // a directory where the DB should be
    const r = await hook('stop', P.stop(ID_A, 'x'), { ...env, KLAUDE_HOME: broken });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(readFileSync(path.join(broken, 'klaude.log'), 'utf8')).toMatch(
      /ERROR \[hook \d+\] hook Stop failed .*E_DB|ERROR \[hook \d+\] hook Stop failed .*sessions\.db/,
    );
  });

  it('names an unknown event in one line (exit 2)', async () => {
    const r = await hook('pre-frobnicate', {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^klaude: unknown hook event 'pre-frobnicate' \[E_USAGE\] — hint: one of: session-start, .*post-tool-use, post-tool-use-failure, permission-request\n$/,
    );
  });
});
