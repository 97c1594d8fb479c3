// Where an agent runs, as the views show it (docs/sandbox.md): the listing reads its sandbox state
// from the session's metadata; the dashboard tags an unsandboxed agent in the tree and the log
// pane marks a command its sandbox blocked; `klaude logs` says so too.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { openMemoryDb } from '../../src/db/client.js';
import { listSessionRows } from '../../src/db/repos/listing.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import type { TreeRow } from '../../src/feeds/session-tree.js';
import { createFormatter, safeEvent } from '../../src/logs/format.js';
import { treeRowSegments } from '../../src/ui/components/tree-pane.js';
import { eventLines } from '../../src/ui/log/event-lines.js';
import { themes } from '../../src/ui/theme.js';

describe('sandbox state in the views', () => {
  it('the listing says sandboxed or unsandboxed: why; the tree tags the unsandboxed one', () => {
    const db = openMemoryDb();
    const P = 'd'.repeat(24);
    ensureProject(db, { hash: P, rootPath: '/p' });
    const inside = createSession(db, {
      projectId: P,
      type: 'coder',
      status: 'running',
      metadata: { sandbox: { state: 'sandboxed', engine: 'bubblewrap' } },
    });
    const outside = createSession(db, {
      projectId: P,
      type: 'coder',
      status: 'running',
      metadata: { sandbox: { state: 'unsandboxed', why: 'socat is not installed' } },
    });
    const tui = createSession(db, { projectId: P, type: 'tui', status: 'idle' });
    const rows = listSessionRows(db, { projectId: P, detail: 'brief' });
    const of = (id: string) => rows.find((r) => r.id === id)!;
    expect(of(inside.id).sandbox).toBe('sandboxed');
    expect(of(outside.id).sandbox).toBe('unsandboxed: socat is not installed');
    expect(of(tui.id).sandbox).toBeNull();
    const text = (id: string): string =>
      treeRowSegments(
        {
          session: of(id),
          depth: 0,
          hasChildren: false,
          collapsed: false,
          match: true,
          subtree: { costUsd: 0, tokens: 0 },
        } as TreeRow,
        80,
        themes.noColor,
        Date.now(),
      )
        .map((s) => s.text)
        .join('');
    expect(text(outside.id)).toContain('coder unsandboxed');
    expect(text(inside.id)).not.toContain('unsandboxed');
    db.close();
  });

  it('beside the unsandboxed tag, a short title that fits is still shown (the 160-column dashboard)', () => {
    const db = openMemoryDb();
    const P = 'e'.repeat(24);
    ensureProject(db, { hash: P, rootPath: '/p' });
    const meta = { sandbox: { state: 'unsandboxed', why: '--no-sandbox' } };
    // Not ended: the tag shows while the agent can act (a finished one's state is in -v).
    const short = createSession(db, { projectId: P, type: 'general', status: 'idle', prompt: 'hi', metadata: meta });
    const long = createSession(db, {
      projectId: P,
      type: 'general',
      status: 'idle',
      prompt: 'find where the config is loaded',
      metadata: meta,
    });
    const rows = listSessionRows(db, { projectId: P, detail: 'brief' });
    const row = (id: string): TreeRow =>
      ({
        session: rows.find((r) => r.id === id)!,
        depth: 0,
        hasChildren: false,
        collapsed: false,
        match: true,
        subtree: { costUsd: 0, tokens: 0 },
      }) as TreeRow;
    // 63 cells: the tree's inner width beside the log at 160 columns.
    const text = (id: string): string =>
      treeRowSegments(row(id), 63, themes.noColor, Date.now())
        .map((s) => s.text)
        .join('');
    expect(text(short.id)).toContain('general unsandboxed · hi ');
    // Marked in yellow, not in the needs-you look (black on yellow).
    const tag = treeRowSegments(row(short.id), 63, themes.color, Date.now()).find((x) => x.text === 'unsandboxed');
    expect(tag?.style).toEqual(themes.color.ui.warn);
    // A title that does not fit whole still needs room enough to be of use.
    expect(text(long.id)).not.toContain('·');
    db.close();
  });

  it('a blocked command is “blocked by the sandbox” in the log pane and in `klaude logs`', () => {
    const e = {
      ts: 0,
      type: 'tool_result',
      id: '1',
      isError: true,
      output: 'bash: /home/me/x: Read-only file system',
      blocked: ['/home/me/x: Read-only file system', 'PermissionError: [Errno 1] Operation not permitted'],
    } as AgentEvent;
    expect(eventLines(e, { expandResults: false })).toEqual([
      {
        text: '  ⊘ blocked by the sandbox: /home/me/x: Read-only file system (+1 more)',
        tone: 'resultError',
        indent: 4,
      },
    ]);
    expect(createFormatter({ color: false }).format(e)).toContain(
      '⊘ blocked by the sandbox: /home/me/x: Read-only file system (+1 more)',
    );
    // The lines come from what the agent ran: printed without their escapes.
    const hostile = { ...e, blocked: ['\x1b]52;c;cm0=\x07/x: Read-only file system'] } as AgentEvent;
    expect(JSON.stringify(safeEvent(hostile))).not.toContain('\\u001b');
  });
});
