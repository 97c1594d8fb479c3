// The dashboard and permission requests (ink-testing-library): the selected agent's pending
// request is pinned above its log (tool, command or edit diff, reason, keys); A allows once,
// W asks first (naming the rule and the file) then allows always, D asks for a reason and denies.
import { afterEach, describe, expect, it } from 'vitest';
import { addApproval } from '../../src/db/repos/approvals.js';
import type { ApprovalRow } from '../../src/db/repos/approvals.js';
import { approvalLines } from '../../src/ui/log/approval-lines.js';
import { renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

const suggestions = [
  {
    type: 'addRules',
    rules: [{ toolName: 'Bash', ruleContent: 'npm test' }],
    behavior: 'allow',
    destination: 'localSettings',
  },
];

async function withRequest(): Promise<{ d: RenderedDashboard; id: string; approval: ApprovalRow }> {
  const r = await renderDashboard({ columns: 140, rows: 30 });
  const id = r.sessions.fix!.id; // the demo's waiting coder
  const approval = addApproval(r.db, {
    sessionId: id,
    requestId: 'req-0001',
    toolName: 'Bash',
    summary: 'npm test',
    input: { command: 'npm test', description: 'run the tests' },
    suggestions,
    suggestedRule: 'Bash(npm test)',
    reason: 'This command requires approval',
  });
  r.feed.refresh();
  r.ui.dispatch({ type: 'select', id });
  return { d: r, id, approval };
}

const answers = (r: RenderedDashboard) => r.calls.filter((c) => c.name === 'answer').map((c) => c.args);

describe('dashboard: permission requests', () => {
  it('shows the request above the log and allows it once with A', async () => {
    const w = await withRequest();
    d = w.d;
    await d.waitForText(`? needs approval · request ${w.approval.id} · Bash`);
    const f = d.frame();
    expect(f).toContain('$ npm test');
    expect(f).toContain('This command requires approval');
    expect(f).toContain('A allow once · W allow always (Bash(npm test)) · D deny');
    await d.press('A');
    await d.waitFor(() => answers(d!).length === 1, 'the answer');
    expect(answers(d)[0]).toEqual([w.id, { request: String(w.approval.id), behavior: 'allow' }]);
    await d.waitForText('allowed');
  });

  it('W says where the rule is written and allows always only after y; D denies with the typed reason', async () => {
    const w = await withRequest();
    d = w.d;
    await d.waitForText('? needs approval');
    await d.press('W');
    await d.waitForText('/p/.claude/settings.local.json');
    expect(d.frame()).toContain('the rule Bash(npm test) goes into');
    expect(answers(d)).toHaveLength(0); // nothing written before the yes
    await d.press('y');
    await d.waitFor(() => answers(d!).length === 1, 'the answer');
    expect(answers(d)[0]).toEqual([w.id, { request: String(w.approval.id), behavior: 'allow', always: true }]);

    await d.press('D');
    await d.waitForText('reason for the agent');
    await d.type('use the unit tests');
    await d.press('enter');
    await d.waitFor(() => answers(d!).length === 2, 'the deny');
    expect(answers(d)[1]).toEqual([
      w.id,
      { request: String(w.approval.id), behavior: 'deny', message: 'use the unit tests' },
    ]);
  });

  it('the keys explain themselves on an agent without a request', async () => {
    d = await renderDashboard({ columns: 140, rows: 30 });
    d.ui.dispatch({ type: 'select', id: d.sessions.rev!.id });
    await d.press('A');
    await d.waitForText('has no pending permission request');
    expect(answers(d)).toHaveLength(0);
  });

  it('an edit request shows its diff; long bodies are cut to the room given', () => {
    const row = {
      id: 7,
      sessionId: 'x',
      requestId: 'r',
      toolName: 'Edit',
      summary: 'src/a.ts',
      input: { file_path: 'src/a.ts', old_string: 'const a = 1;', new_string: 'const a = 2;\nconst b = 3;' },
      suggestions: null,
      suggestedRule: null,
      reason: null,
      createdAt: 0,
      answer: null,
      answerMessage: null,
      answeredBy: null,
      answeredAt: null,
    } satisfies ApprovalRow;
    const text = approvalLines(row, 2, 60, 20).map((l) => l.text);
    expect(text).toEqual([
      '? needs approval · request 7 (1 of 2) · Edit',
      '  src/a.ts',
      '  - const a = 1;',
      '  + const a = 2;',
      '  + const b = 3;',
      'A allow once · W allow always · D deny',
      '─'.repeat(60),
    ]);
    const cut = approvalLines(row, 1, 60, 5).map((l) => l.text);
    expect(cut).toHaveLength(5);
    expect(cut).toContain('  … 3 more lines');
  });
});
