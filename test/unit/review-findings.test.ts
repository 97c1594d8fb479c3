// Reading a reviewer's findings from its answer (core/review.ts): the shapes models actually write,
// and the message the reviewed agent gets.
import { describe, expect, it } from 'vitest';
import { FINDINGS_MAX, findingsCount, readFindings, reviewMessage, severityOf } from '../../src/core/findings.js';

describe('readFindings', () => {
  it('reads the last fenced json block, not an example earlier in the answer', () => {
    const answer = [
      'The shape is:',
      '```json',
      '{"summary": "example", "findings": [{"file": "x", "line": 1, "severity": "low", "text": "example"}]}',
      '```',
      'My review:',
      '```json',
      '{"summary": "Two issues.", "findings": [',
      '  {"file": "src/a.ts", "line": 12, "severity": "high", "text": "null check inverted"},',
      '  {"file": null, "line": null, "severity": "info", "text": "consider a test"}',
      ']}',
      '```',
    ].join('\n');
    expect(readFindings(answer)).toEqual({
      summary: 'Two issues.',
      findings: [
        { file: 'src/a.ts', line: 12, severity: 'high', text: 'null check inverted' },
        { file: null, line: null, severity: 'info', text: 'consider a test' },
      ],
    });
  });

  it('reads a bare JSON answer (codex with --output-schema) and an unlabelled fence', () => {
    expect(readFindings('{"summary":"ok","findings":[]}')).toEqual({ summary: 'ok', findings: [] });
    expect(readFindings('```\n{"findings":[{"text":"t"}]}\n```')?.findings).toEqual([
      { file: null, line: null, severity: 'medium', text: 't' },
    ]);
  });

  it('finds an object in prose, with braces inside strings and trailing commas', () => {
    const answer =
      'Here you go: {"summary": "a } in a string", "findings": [{"file": "b.ts", "text": "uses {x}",},],} — done.';
    expect(readFindings(answer)).toEqual({
      summary: 'a } in a string',
      findings: [{ file: 'b.ts', line: null, severity: 'medium', text: 'uses {x}' }],
    });
  });

  it('takes other spellings of the fields, and file:line in the file field', () => {
    const r = readFindings(
      '```json\n{"verdict":"v","issues":[{"path":"c.ts:40:2","level":"Critical","message":"m"},{"filename":"d.ts","lineNumber":"7-9","priority":"nit","description":"d"},"a plain string finding",{"severity":"high"}]}\n```',
    );
    expect(r).toEqual({
      summary: 'v',
      findings: [
        { file: 'c.ts', line: 40, severity: 'high', text: 'm' },
        { file: 'd.ts', line: 7, severity: 'low', text: 'd' },
        { file: null, line: null, severity: 'medium', text: 'a plain string finding' },
      ],
    });
  });

  it('a list alone is the findings', () => {
    expect(readFindings('```json\n[{"file":"e.ts","line":3,"severity":"warning","text":"w"}]\n```')).toEqual({
      summary: null,
      findings: [{ file: 'e.ts', line: 3, severity: 'medium', text: 'w' }],
    });
  });

  it('null when there is nothing to read', () => {
    expect(readFindings('')).toBeNull();
    expect(readFindings('Looks good to me!')).toBeNull();
    expect(readFindings('```json\n{"summary": "no list here"}\n```')).toBeNull();
    expect(readFindings('{"findings": [ broken')).toBeNull();
  });

  it('keeps at most FINDINGS_MAX findings and cuts long texts', () => {
    const many = Array.from({ length: FINDINGS_MAX + 50 }, (_, i) => ({ text: `f${i}`, severity: 'low' }));
    expect(readFindings(JSON.stringify({ findings: many }))!.findings).toHaveLength(FINDINGS_MAX);
    const long = readFindings(JSON.stringify({ findings: [{ text: 'x'.repeat(5000) }] }))!.findings[0]!.text;
    expect(long).toHaveLength(2000);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('severities, counts and the message', () => {
  it('maps the words reviewers use', () => {
    expect(['critical', 'Blocker', 'error', 'major'].map(severityOf)).toEqual(['high', 'high', 'high', 'high']);
    expect(['warning', 'moderate', 'whatever', undefined].map(severityOf)).toEqual([
      'medium',
      'medium',
      'medium',
      'medium',
    ]);
    expect(['minor', 'nit', 'style'].map(severityOf)).toEqual(['low', 'low', 'low']);
    expect(['note', 'suggestion', 'praise'].map(severityOf)).toEqual(['info', 'info', 'info']);
  });

  it('counts', () => {
    expect(findingsCount([])).toBe('no findings');
    const f = (severity: 'high' | 'low') => ({ file: null, line: null, severity, text: 't' });
    expect(findingsCount([f('low'), f('high'), f('low')])).toBe('3 findings (1 high, 2 low)');
  });

  it('numbers every finding across reviews, high first', () => {
    const text = reviewMessage([
      {
        by: 'codex',
        shortId: 'KKKK2222',
        subject: 'diff',
        summary: 'S.',
        findings: [
          { file: 'a.ts', line: null, severity: 'low', text: 'later' },
          { file: 'b.ts', line: 4, severity: 'high', text: 'first' },
        ],
      },
      { by: 'claude', shortId: 'LLLL3333', subject: 'output', summary: null, findings: [] },
    ]);
    expect(text).toBe(
      [
        'Review of your changes by codex (klaude review KKKK2222): 2 findings (1 high, 1 low).',
        'Summary: S.',
        '1. [high] b.ts:4 — first',
        '2. [low] a.ts — later',
        '',
        'Review of your answer by claude (klaude review LLLL3333): no findings.',
        '',
        'Please address these findings, or say why one does not apply.',
      ].join('\n'),
    );
  });
});
