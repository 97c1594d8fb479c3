/**
 * Cross-AI review (`klaude review`): what a reviewer is asked to answer with, how its answer is read
 * back into findings, and how findings are put to the agent they are about. Pure: imports nothing of
 * the project, so the web page uses it too.
 *
 * The reviewer ends its answer with one JSON block in REVIEW_SHAPE (codex is held to it with
 * `--output-schema`; claude is asked for a fenced block). Models stray from a shape, so the reader
 * is lenient: the last fenced block that parses, else the whole answer, else the last balanced
 * `{…}` around `"findings"`; trailing commas dropped; other spellings of the fields taken
 * (`path`, `message`, `lineNumber`, `"12-15"`); severities mapped onto four.
 */

export const SEVERITIES = ['high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One thing a reviewer found: where (file and line when it is about a place) and what. */
export interface ReviewFinding {
  /** Relative to the reviewed tree; null for a finding about no particular file (a final answer). */
  file: string | null;
  line: number | null;
  severity: Severity;
  text: string;
}

export type ReviewSubject = 'diff' | 'output';

export interface ReadFindings {
  summary: string | null;
  findings: ReviewFinding[];
}

/** At most this many findings are kept from one answer, each text cut at TEXT_MAX. */
export const FINDINGS_MAX = 200;
const TEXT_MAX = 2000;
const FILE_MAX = 500;

/** The JSON Schema of the answer (codex `--output-schema`: strict, so every field is required). */
export const REVIEW_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'findings'],
  properties: {
    summary: { type: 'string' },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'line', 'severity', 'text'],
        properties: {
          file: { type: ['string', 'null'] },
          line: { type: ['integer', 'null'] },
          severity: { type: 'string', enum: [...SEVERITIES] },
          text: { type: 'string' },
        },
      },
    },
  },
} as const;

/** The shape the prompt shows the reviewer. */
export const REVIEW_SHAPE =
  '{"summary": "<one sentence: your verdict>", "findings": [{"file": "src/app.ts", "line": 12, "severity": "high", "text": "what is wrong, and why"}]}';

const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'high',
  blocker: 'high',
  high: 'high',
  error: 'high',
  major: 'high',
  severe: 'high',
  medium: 'medium',
  moderate: 'medium',
  warning: 'medium',
  warn: 'medium',
  normal: 'medium',
  low: 'low',
  minor: 'low',
  nit: 'low',
  nitpick: 'low',
  style: 'low',
  trivial: 'low',
  info: 'info',
  note: 'info',
  suggestion: 'info',
  praise: 'info',
  question: 'info',
};

/** A severity word as a reviewer may write it → one of SEVERITIES (an unknown or missing one: medium). */
export function severityOf(v: unknown): Severity {
  return (typeof v === 'string' && SEVERITY_WORDS[v.trim().toLowerCase()]) || 'medium';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function firstString(o: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return null;
}

function lineOf(o: Record<string, unknown>): number | null {
  for (const k of ['line', 'lineNumber', 'line_number', 'startLine', 'start_line', 'lines']) {
    const v = o[k];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return Math.floor(v);
    const m = typeof v === 'string' ? /^\s*L?(\d+)/.exec(v) : null;
    if (m) return Number(m[1]);
  }
  return null;
}

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** One finding as written → a ReviewFinding; null when it says nothing. */
function toFinding(v: unknown): ReviewFinding | null {
  if (typeof v === 'string')
    return v.trim() ? { file: null, line: null, severity: 'medium', text: clip(v.trim(), TEXT_MAX) } : null;
  if (!isObj(v)) return null;
  const text = firstString(v, ['text', 'message', 'description', 'issue', 'comment', 'problem', 'finding', 'title']);
  if (!text) return null;
  const rawFile = firstString(v, ['file', 'path', 'filename', 'file_path', 'location']);
  // "src/a.ts:12" in the file field: the line is in it.
  const m = rawFile ? /^(.*?):(\d+)(?::\d+)?$/.exec(rawFile) : null;
  const file = m ? m[1]! : rawFile;
  return {
    file: file ? clip(file, FILE_MAX) : null,
    line: lineOf(v) ?? (m ? Number(m[2]) : null),
    severity: severityOf(v.severity ?? v.level ?? v.priority),
    text: clip(text, TEXT_MAX),
  };
}

/** A parsed JSON value → findings, when it has the answer's shape (an object with a list, or the list itself). */
function fromValue(v: unknown): ReadFindings | null {
  const list = Array.isArray(v) ? v : isObj(v) ? (v.findings ?? v.issues ?? v.comments) : undefined;
  if (!Array.isArray(list)) return null;
  const findings = list
    .map(toFinding)
    .filter((f): f is ReviewFinding => f !== null)
    .slice(0, FINDINGS_MAX);
  const summary = isObj(v) ? firstString(v, ['summary', 'verdict', 'overall']) : null;
  return { summary: summary ? clip(summary, TEXT_MAX) : null, findings };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(text.replace(/,(\s*[}\]])/g, '$1')); // trailing commas
    } catch {
      return undefined;
    }
  }
}

/** The `{…}` starting at `start` (strings and escapes respected), or null when it never closes. */
function balancedFrom(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/** Fenced blocks (```json … ``` or ``` … ```), last first. */
function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  const re = /```[ \t]*([\w-]*)[^\n]*\n([\s\S]*?)```/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[2]!);
  return out.reverse();
}

/**
 * The findings in a reviewer's final answer, or null when it holds none in any shape we can read
 * (the caller keeps the answer's text and says so).
 */
export function readFindings(answer: string): ReadFindings | null {
  const text = answer.trim();
  if (!text) return null;
  for (const block of fencedBlocks(text)) {
    const r = fromValue(tryParse(block.trim()));
    if (r) return r;
  }
  const whole = fromValue(tryParse(text));
  if (whole) return whole;
  // A JSON object somewhere in prose: try the `{`s before the last "findings", nearest first (a
  // bounded number: each try reads on to the end of the answer).
  const at = text.lastIndexOf('"findings"');
  let tries = 0;
  for (
    let i = at === -1 ? -1 : text.lastIndexOf('{', at);
    i >= 0 && tries++ < 64;
    i = i > 0 ? text.lastIndexOf('{', i - 1) : -1
  ) {
    const obj = balancedFrom(text, i);
    const r = obj ? fromValue(tryParse(obj)) : null;
    if (r) return r;
  }
  return null;
}

/** `3 findings (1 high, 2 low)`, `no findings`. */
export function findingsCount(findings: readonly ReviewFinding[]): string {
  if (findings.length === 0) return 'no findings';
  const by = SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length] as const).filter(
    ([, n]) => n > 0,
  );
  const parts = by.map(([s, n]) => `${n} ${s}`).join(', ');
  return `${findings.length} finding${findings.length === 1 ? '' : 's'} (${parts})`;
}

/** Where a finding is: `src/a.ts:12`, `src/a.ts`, or '' for none. */
export function findingPlace(f: Pick<ReviewFinding, 'file' | 'line'>): string {
  if (!f.file) return f.line ? `line ${f.line}` : '';
  return f.line ? `${f.file}:${f.line}` : f.file;
}

/** Findings sorted for reading: high first, then by place (a stable order within a severity). */
export function bySeverity(findings: readonly ReviewFinding[]): ReviewFinding[] {
  const rank = (s: Severity): number => SEVERITIES.indexOf(s);
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.severity) - rank(b.f.severity) || a.i - b.i)
    .map((x) => x.f);
}

/** `codex`, or `security-reviewer (claude)`: a reviewer named by its runtime, and its agent type when it has its own. */
export function reviewerName(r: { type: string; runtime: string }): string {
  return r.type === 'general' || r.type === 'reviewer' ? r.runtime : `${r.type} (${r.runtime})`;
}

/** One review as the message to its origin shows it. */
export interface ReviewForMessage {
  /** `codex`, or `security-reviewer (claude)`. */
  by: string;
  shortId: string;
  subject: ReviewSubject;
  summary: string | null;
  findings: readonly ReviewFinding[];
}

/** The message `klaude review <id> --send` gives the reviewed agent: every finding, numbered, high first. */
export function reviewMessage(reviews: readonly ReviewForMessage[]): string {
  const parts: string[] = [];
  let n = 0;
  for (const r of reviews) {
    const of = r.subject === 'diff' ? 'your changes' : 'your answer';
    parts.push(`Review of ${of} by ${r.by} (klaude review ${r.shortId}): ${findingsCount(r.findings)}.`);
    if (r.summary) parts.push(`Summary: ${r.summary}`);
    for (const f of bySeverity(r.findings)) {
      const place = findingPlace(f);
      parts.push(`${++n}. [${f.severity}]${place ? ` ${place} —` : ''} ${f.text}`);
    }
    parts.push('');
  }
  parts.push(
    n > 0
      ? 'Please address these findings, or say why one does not apply.'
      : 'The reviewers found nothing to fix; no action is needed unless you disagree.',
  );
  return parts.join('\n');
}
