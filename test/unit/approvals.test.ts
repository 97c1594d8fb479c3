// Pure parts of permission approvals: claude's can_use_tool control_request (as captured from
// 2.1.197, docs/approvals.md) → approval_request; the answers klaude writes back; the launch flag;
// the permission mode of runtimes without an approval channel; the log lines.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { approvalAnswerText, formatEvent } from '../../src/logs/format.js';
import { formatUpdateLine } from '../../src/logs/updates.js';
import { permissionModeFor } from '../../src/runtime/approval-desk.js';
import { buildClaudeCommand, claudeAdapter } from '../../src/adapters/claude/adapter.js';
import { createClaudeNormaliser, suggestedRule } from '../../src/adapters/claude/normaliser.js';
import { codexAdapter } from '../../src/adapters/codex/adapter.js';

const CAPTURED =
  '{"type":"control_request","request_id":"1084001d-73c7-44ad-9f1f-9a585eeddb2e","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"python3 -c \\"print(6*7)\\"","description":"calc"},"description":"calc","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"python3 -c \\"print(6*7)\\""}],"behavior":"allow","destination":"localSettings"}],"decision_reason":"This command requires approval","decision_reason_type":"other","tool_use_id":"toolu_mockmwtm13t01"}}';

describe('claude approvals', () => {
  it('normalises can_use_tool into an approval_request with the command, reason and rule', () => {
    const [e] = createClaudeNormaliser().line(CAPTURED);
    expect(e).toMatchObject({
      type: 'approval_request',
      requestId: '1084001d-73c7-44ad-9f1f-9a585eeddb2e',
      tool: 'Bash',
      summary: 'python3 -c "print(6*7)"',
      input: { command: 'python3 -c "print(6*7)"' },
      reason: 'This command requires approval',
      rule: 'Bash(python3 -c "print(6*7)")',
    });
    expect((e as { suggestions: unknown[] }).suggestions).toHaveLength(1);
  });

  it('ignores other control requests and reports cancels to the runtime', () => {
    const cancelled: string[] = [];
    const n = createClaudeNormaliser({ onControlCancel: (id) => cancelled.push(id) });
    expect(n.line('{"type":"control_request","request_id":"x","request":{"subtype":"hook_callback"}}')).toEqual([]);
    expect(n.line('{"type":"control_cancel_request","request_id":"r1"}')).toEqual([]);
    expect(cancelled).toEqual(['r1']);
  });

  it('suggested rules: tool(content), bare tool names, nothing for other suggestion types', () => {
    expect(
      suggestedRule([
        {
          type: 'addRules',
          behavior: 'allow',
          rules: [{ toolName: 'Bash', ruleContent: 'npm test' }, { toolName: 'WebSearch' }],
        },
      ]),
    ).toBe('Bash(npm test), WebSearch');
    expect(suggestedRule([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }])).toBeUndefined();
    expect(suggestedRule(undefined)).toBeUndefined();
  });

  it('answers as control_responses: allow (with the suggestions for "always") and deny with the message', () => {
    const allow = JSON.parse(claudeAdapter.encodeApproval!('r1', { behavior: 'allow', input: { command: 'ls' } }));
    expect(allow).toEqual({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'r1',
        response: { behavior: 'allow', updatedInput: { command: 'ls' } },
      },
    });
    const always = JSON.parse(
      claudeAdapter.encodeApproval!('r2', { behavior: 'allow', input: {}, permanent: [{ type: 'addRules' }] }),
    );
    expect(always.response.response.updatedPermissions).toEqual([{ type: 'addRules' }]);
    const deny = JSON.parse(claudeAdapter.encodeApproval!('r3', { behavior: 'deny', message: 'no' }));
    expect(deny.response.response).toEqual({ behavior: 'deny', message: 'no' });
  });

  it('launches claude with the stdio permission tool when approvals are on', () => {
    const base = { binary: 'claude', cwd: '/p', nativeSessionId: null, resume: false };
    expect(buildClaudeCommand({ ...base, approvals: true, permissionMode: 'default' }).args.join(' ')).toContain(
      '--permission-mode default --permission-prompt-tool stdio',
    );
    expect(buildClaudeCommand(base).args).not.toContain('--permission-prompt-tool');
  });

  it('runtimes without an approval channel run `default` as acceptEdits; explicit modes pass through', () => {
    expect(permissionModeFor(claudeAdapter, 'default')).toBe('default');
    expect(permissionModeFor(codexAdapter, 'default')).toBe('acceptEdits');
    expect(permissionModeFor(codexAdapter, 'plan')).toBe('plan');
  });

  it('log lines and the parent note', () => {
    const req: AgentEvent = {
      ts: 0,
      type: 'approval_request',
      requestId: 'r',
      approvalId: 3,
      tool: 'Bash',
      summary: 'npm test',
    };
    expect(formatEvent(req)).toBe(
      '? needs approval 3: Bash: npm test — `klaude approve <id>` [--always] or `klaude deny <id>` [--reason …]',
    );
    expect(approvalAnswerText({ behavior: 'deny', by: 'person', message: 'use node' })).toBe(
      '✗ denied by person: use node',
    );
    expect(approvalAnswerText({ behavior: 'allow', always: true, by: 'parent' })).toBe('✓ allowed always by parent');
    const note = {
      id: 1,
      sessionId: 's',
      shortId: '8HJ2KD0P',
      agentType: 'general',
      parentSessionId: 'p',
      text: 'Bash: npm test',
      kind: 'approval',
      createdAt: 0,
    };
    expect(formatUpdateLine(note)).toBe('[NEEDS APPROVAL] 8HJ2KD0P Bash: npm test');
    expect(formatUpdateLine({ ...note, kind: null, text: 'tests pass' })).toBe(
      '[UPDATE] 8HJ2KD0P (general): tests pass',
    );
  });
});
