// The [UPDATE] channel end to end: a parent agent (real claude, headless under klaude) starts a
// child from its Bash tool; the child reports `[UPDATE] …`; the note is stored, and the parent's
// PostToolUse hook hands it to the parent Claude with that tool call's result — the stand-in sees
// it in the parent's next request. `klaude watch --once` shows what is still pending.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, expect, it } from 'vitest';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.prompt.includes('CHILD-TASK')) return { text: `Working on it.\n[UPDATE] ${NOTE}\nChild done.` };
    if (r.prompt.includes('PARENT-TASK')) {
      return {
        text: 'Delegating.',
        bash: { command: 'klaude start general "CHILD-TASK"', description: 'start a child agent' },
      };
    }
    if (r.isToolResult) return { text: 'Parent done.' };
    return undefined;
  },
});
let home: AgentHome;
const NOTE = 'child-progress-7f3a';

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n' });
});

it("a child's [UPDATE] reaches the parent Claude with its next tool result, once", async () => {
  const parent = await home.k(['start', 'general', 'PARENT-TASK'], {
    timeoutMs: 120_000,
  });
  expect(parent.code, parent.stderr).toBe(0);
  expect(parent.stdout).toContain('Parent done.');

  // The parent's request that answers the Bash call carries the child's note as hook context.
  const answer = await fx.mock.waitForRequest(
    (r) => r.isToolResult && JSON.stringify(r.body).includes('Delegating.'),
    30_000,
  );
  // (The Bash output itself also shows the child's text; the hook's context is a separate text:
  // a <system-reminder> in the user message with 2.1.197, a `role: "system"` message with 2.1.332.)
  const context = hookContexts(answer.body).find((t) => t.startsWith('PostToolUse:Bash hook additional context: '));
  expect(context, 'no PostToolUse context in the parent request').toBeDefined();
  expect(context).toContain(NOTE);

  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT text, acknowledged_at FROM agent_updates').all() as {
      text: string;
      acknowledged_at: number | null;
    }[];
    expect(rows).toEqual([{ text: NOTE, acknowledged_at: expect.any(Number) }]);
  } finally {
    db.close();
  }
  // Delivered once: nothing is left pending for watch.
  const watch = await home.k(['watch', '--once']);
  expect(watch.code).toBe(0);
  expect(watch.stdout).not.toContain(NOTE);
});

/** The hook contexts claude put in a request: each text after a `PostToolUse:…` marker, either version's form. */
function hookContexts(body: {
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
}): string[] {
  const texts = body.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? [m.content]
      : m.content.flatMap((c) => (c.type === 'text' && c.text ? [c.text] : [])),
  );
  return texts.flatMap((t) => {
    const at = t.indexOf('PostToolUse:');
    if (at < 0) return [];
    const rest = t.slice(at);
    const end = rest.indexOf('</system-reminder>');
    return [end < 0 ? rest : rest.slice(0, end)];
  });
}
