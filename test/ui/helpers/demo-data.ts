// A realistic project for the dashboard: root sessions with nested agents in every state, and
// session logs with text, tool calls, results, updates and a done line. Written through the
// real repos and the real log format, so the built `klaude ui` reads it like any project.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { sessionLogPath } from '../../../src/config/paths.js';
import type { AgentEvent, AgentEventInput } from '../../../src/core/events.js';
import type { SessionStatus } from '../../../src/core/status.js';
import type { Db } from '../../../src/db/client.js';
import { createSession, updateSession } from '../../../src/db/repos/sessions.js';

export interface DemoSession {
  id: string;
  type: string;
  status: SessionStatus;
  logPath: string;
}

export function appendEvents(file: string, events: AgentEventInput[], ts = Date.now()): void {
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, events.map((e, i) => `${JSON.stringify({ ts: ts + i, ...e } as AgentEvent)}\n`).join(''));
}

interface Spec {
  key: string;
  parent?: string;
  type: string;
  status: SessionStatus;
  title?: string;
  prompt?: string;
  minutesAgo: number;
  tokens?: [number, number];
  cost?: number;
  runtime?: 'claude' | 'codex';
  log?: AgentEventInput[];
}

const SPECS: Spec[] = [
  { key: 'root1', type: 'tui', status: 'idle', title: 'Fix the flaky login test', minutesAgo: 42 },
  {
    key: 'rev',
    parent: 'root1',
    type: 'reviewer',
    status: 'running',
    prompt: 'Review the auth middleware change for race conditions',
    minutesAgo: 12,
    tokens: [18200, 2400],
    cost: 0.07,
    log: [
      {
        type: 'init',
        runtime: 'claude',
        nativeSessionId: '3f2a9c1e-5b7d-4e11-9a0c-2d6f8e4b1a77',
        model: 'claude-sonnet-4-5',
      },
      { type: 'user', text: 'Review the auth middleware change for race conditions', source: 'start' },
      { type: 'text', text: "I'll start by reading the middleware and its tests." },
      { type: 'tool_call', id: 't1', name: 'Read', summary: 'src/auth/middleware.ts' },
      {
        type: 'tool_result',
        id: 't1',
        isError: false,
        output:
          'import { verify } from "./token";\nexport async function auth(req, res, next) {\n  const session = await store.get(req.cookies.sid);\n  …\n}',
      },
      { type: 'tool_call', id: 't2', name: 'Grep', summary: 'store\\.get\\( in src/' },
      {
        type: 'tool_result',
        id: 't2',
        isError: false,
        output: 'src/auth/middleware.ts:3\nsrc/auth/refresh.ts:18\nsrc/api/logout.ts:9',
      },
      {
        type: 'text',
        text: 'The refresh path reads the session before the write from login has committed.\n[UPDATE] found a read-before-write race in refresh.ts:18',
      },
      { type: 'update', text: 'found a read-before-write race in refresh.ts:18' },
      { type: 'tool_call', id: 't3', name: 'Bash', summary: 'npm test -- auth' },
      {
        type: 'tool_result',
        id: 't3',
        isError: true,
        output: 'FAIL test/auth/refresh.test.ts\n  ✕ refresh after login (41 ms)\n\nTests: 1 failed, 23 passed',
      },
      {
        type: 'text',
        text: 'Confirmed: the refresh test fails when login and refresh overlap. Writing a fix proposal now.',
      },
    ],
  },
  {
    key: 'tests',
    parent: 'root1',
    type: 'test-runner',
    status: 'done',
    prompt: 'Run the whole suite and list the flaky tests',
    minutesAgo: 30,
    tokens: [9100, 800],
    cost: 0.02,
    log: [
      { type: 'init', runtime: 'claude', nativeSessionId: '8b1d0f42-77aa-4c3e-b2f0-91e5c6d3a208' },
      { type: 'user', text: 'Run the whole suite and list the flaky tests', source: 'start' },
      { type: 'tool_call', id: 'a', name: 'Bash', summary: 'npm test -- --repeat 5' },
      {
        type: 'tool_result',
        id: 'a',
        isError: false,
        output: 'Tests: 312 passed (5 runs)\nflaky: test/auth/login.test.ts (2/5)',
      },
      { type: 'text', text: 'One flaky test: test/auth/login.test.ts failed 2 of 5 runs.' },
      { type: 'done', status: 'done', durationMs: 95_000, numTurns: 3, costUsd: 0.0213 },
    ],
  },
  {
    key: 'fix',
    parent: 'rev',
    type: 'coder',
    status: 'waiting',
    prompt: 'Make refresh wait for the login write',
    minutesAgo: 4,
    tokens: [4100, 600],
    cost: 0.01,
    log: [
      { type: 'user', text: 'Make refresh wait for the login write', source: 'start' },
      { type: 'tool_call', id: 'e', name: 'Edit', summary: 'src/auth/refresh.ts' },
      { type: 'status', status: 'waiting', reason: 'permission to edit src/auth/refresh.ts' },
    ],
  },
  {
    key: 'docs',
    parent: 'root1',
    type: 'docs-writer',
    status: 'failed',
    prompt: 'Update the auth section of the README',
    minutesAgo: 25,
    runtime: 'codex',
    log: [
      { type: 'user', text: 'Update the auth section of the README', source: 'start' },
      { type: 'error', message: 'codex: model quota exceeded' },
      { type: 'done', status: 'failed', error: 'codex: model quota exceeded' },
    ],
  },
  { key: 'root2', type: 'tui', status: 'done', title: 'Upgrade to drizzle 0.45', minutesAgo: 180 },
  {
    key: 'mig',
    parent: 'root2',
    type: 'general',
    status: 'interrupted',
    prompt: 'Regenerate the migrations',
    minutesAgo: 170,
    tokens: [2200, 300],
    log: [
      { type: 'user', text: 'Regenerate the migrations', source: 'start' },
      { type: 'tool_call', id: 'm', name: 'Bash', summary: 'npx drizzle-kit generate' },
      { type: 'done', status: 'interrupted' },
    ],
  },
];

/** Seed the demo tree; returns the sessions by key. */
export function seedDemo(db: Db, home: string, hash: string, now = Date.now()): Record<string, DemoSession> {
  const out: Record<string, DemoSession> = {};
  for (const s of SPECS) {
    const created = now - s.minutesAgo * 60_000;
    const row = createSession(db, {
      projectId: hash,
      parentId: s.parent ? out[s.parent]!.id : null,
      type: s.type,
      runtime: s.runtime ?? 'claude',
      status: s.status,
      title: s.title ?? null,
      prompt: s.prompt ?? null,
    });
    const logPath = sessionLogPath(home, hash, row.id);
    updateSession(db, row.id, {
      createdAt: created,
      updatedAt: created,
      logPath: s.type === 'tui' ? null : logPath,
      tokensIn: s.tokens?.[0] ?? null,
      tokensOut: s.tokens?.[1] ?? null,
      costUsd: s.cost ?? null,
    } as never);
    if (s.log) appendEvents(logPath, s.log, created);
    out[s.key] = { id: row.id, type: s.type, status: s.status, logPath };
  }
  return out;
}
