// `klaude review` end to end: a claude worktree agent (the real claude against the Messages-API
// stand-in) writes a file; the real codex (against the Responses-API stand-in) reviews its diff,
// read-only and held to the findings' JSON Schema; the findings show under the origin in
// `klaude sessions` (and --json), `--send` gives them to the origin as a message (it resumes),
// and a second reviewer (claude, with only the read tools) sits beside the first.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopContext, launchChromium } from '../support/browser.js';
import { REPO_ROOT } from '../support/klaude-bin.js';
import { startWeb } from '../support/web-client.js';
import { prepareCliHomes } from '../support/cli-homes.js';
import { startMockOpenAi, type MockOpenAi } from '../support/mock-openai.js';
import type { RecordedRequest, Responder } from '../support/mock-anthropic.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const CODEX_FINDINGS = {
  summary: 'The file is written, but its content is wrong.',
  findings: [
    { file: 'made.txt', line: 1, severity: 'high', text: 'made.txt says "hello" where the task asked for "goodbye"' },
    { file: null, line: null, severity: 'low', text: 'no test covers the new file' },
  ],
};

const CLAUDE_FINDINGS =
  'I read made.txt.\n\n```json\n{"summary": "One nit.", "findings": [{"path": "made.txt:1", "severity": "nit", "message": "no trailing newline check"}]}\n```\n';

const isReview = (prompt: string): boolean => prompt.startsWith('Review the work of another AI agent');

/** The claude reviewer's conversation: it tries to write (it has no Write tool), then reads made.txt, then answers. */
function claudeReviewer(r: RecordedRequest): ReturnType<Responder> {
  const dir = /You may read the files under (\S+) for context/.exec(JSON.stringify(r.body.messages))![1]!;
  if (!r.isToolResult) return { toolUse: { name: 'Write', input: { file_path: join(dir, 'evil.txt'), content: 'x' } } };
  const res = r.toolResults[0]!;
  if (!res.content.includes('hello')) return { toolUse: { name: 'Read', input: { file_path: join(dir, 'made.txt') } } };
  return { text: CLAUDE_FINDINGS };
}

const fx = useAgentHomes({
  responder: (r: RecordedRequest) => {
    if (JSON.stringify(r.body.messages).includes('Review the work of another AI agent')) return claudeReviewer(r);
    if (r.isToolResult) return { text: 'Wrote it.' };
    const m = /^run: (.+)$/s.exec(r.prompt);
    if (m) return { text: 'Running.', bash: { command: m[1]!, description: 'run' } };
    return { text: `Reply to: ${r.prompt.slice(0, 40)}` };
  },
});
let home: AgentHome;
let openai: MockOpenAi;

beforeAll(async () => {
  openai = await startMockOpenAi({
    responder: (r) => {
      // A review of an answer: codex answers in prose (no findings block), as a model may.
      if (isReview(r.prompt) && r.prompt.includes('Its final answer:')) return { text: 'It reads fine to me.' };
      return isReview(r.prompt) ? { text: JSON.stringify(CODEX_FINDINGS) } : { text: 'Reply.' };
    },
  });
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 120_000 });
  prepareCliHomes(home, { openai });
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
      cwd: home.projectDir,
      env: home.env,
      encoding: 'utf8',
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});

afterAll(async () => {
  await openai?.close();
});

const klaude = (args: string[]) => home.k(args, { env: { COLUMNS: '200' } });
const idFrom = (stdout: string): string => /started (\w{8})/.exec(stdout)![1]!;

/** KLAUDE_WEB_SCREENSHOTS=1 writes the README's screenshot of the reviews. */
async function shot(page: Page, name: string): Promise<void> {
  if (process.env.KLAUDE_WEB_SCREENSHOTS === '1') await page.screenshot({ path: join(REPO_ROOT, 'assets', name) });
}

/** The claude worktree agent reviewed, and its first reviewer (codex): shared by the tests in order. */
let origin = '';
let codexReviewer = '';

describe('klaude review', () => {
  it('codex reviews a claude worktree agent’s diff, read-only, and the findings come back', async () => {
    const start = await klaude(['start', 'general', 'run: echo hello > made.txt', '--worktree']);
    expect(start.code, start.stderr).toBe(0);
    origin = idFrom(start.stdout);

    const r = await klaude(['review', origin]);
    expect(r.code, r.stderr).toBe(0);
    codexReviewer = idFrom(r.stdout);
    expect(r.stdout).toContain(`started ${codexReviewer} (general, codex): review of ${origin}'s diff, read-only\n`);
    expect(r.stdout).toContain(
      `review by codex ${codexReviewer} (of its diff): 2 findings (1 high, 1 low)\n` +
        '  summary: The file is written, but its content is wrong.\n' +
        '  high    made.txt:1  made.txt says "hello" where the task asked for "goodbye"\n' +
        '  low                 no test covers the new file\n',
    );
    expect(r.stdout).toContain(`\`klaude review ${origin} --send\` gives the findings to ${origin}`);

    // What codex was given: the diff, the task, the shape, read-only sandbox, the output schema.
    const req = openai.mainRequests().find((x) => isReview(x.prompt))!;
    expect(req.prompt).toContain('+hello');
    expect(req.prompt).toContain('made.txt (+1 -0)');
    expect(req.prompt).toContain('run: echo hello > made.txt');
    expect(req.body.text?.format).toMatchObject({ type: 'json_schema', strict: true });
    expect(JSON.stringify(req.body.text.format.schema)).toContain('"severity"');
    // Read-only in its sandbox: the one writable root codex is told of is its channel's directory
    // under klaude's run directory, never a tree.
    expect(JSON.stringify(req.body.input)).toContain(`The writable root is \`${home.klaudeHome}/run/`);
  });

  it('sessions shows the findings under the origin, and the reviewer beside it; --json has them', async () => {
    const s = await klaude(['sessions']);
    expect(s.code, s.stderr).toBe(0);
    const lines = s.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith(origin));
    expect(at).toBeGreaterThan(0);
    // Under the origin's row (the tree's continuation, then two columns in).
    expect(lines[at + 1]).toBe(`     review by codex ${codexReviewer} (of its diff): 2 findings (1 high, 1 low)`);
    expect(lines[at + 2]).toBe('       high    made.txt:1  made.txt says "hello" where the task asked for "goodbye"');
    expect(lines[at + 3]).toBe('       low                 no test covers the new file');
    expect(s.stdout).toMatch(
      new RegExp(`${codexReviewer}\\s+done\\s+general\\s+codex.*review of ${origin}'s diff: 2 findings`),
    );

    const j = await klaude(['sessions', '--json']);
    const all = JSON.parse(j.stdout) as { id: string; shortId: string; reviewOf: string | null; reviews: any[] }[];
    const o = all.find((x) => x.shortId === origin)!;
    expect(o.reviews).toHaveLength(1);
    expect(o.reviews[0]).toMatchObject({
      shortId: codexReviewer,
      runtime: 'codex',
      subject: 'diff',
      summary: CODEX_FINDINGS.summary,
      findings: CODEX_FINDINGS.findings,
      sentAt: null,
    });
    expect(all.find((x) => x.shortId === codexReviewer)!.reviewOf).toBe(o.id);
  });

  it('--send gives the findings to the origin as a message: it resumes with them', async () => {
    const before = fx.mock.mainRequests().length;
    const r = await klaude(['review', origin, '--send']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^sent 2 findings of ${codexReviewer} to ${origin}: it had stopped \\(done\\) and was resumed with them\\n`,
      ),
    );
    const got = await fx.mock.waitForRequest(
      (x) => x.index >= before && x.prompt.includes('Review of your changes by codex'),
      60_000,
    );
    expect(got.prompt).toContain(
      `Review of your changes by codex (klaude review ${codexReviewer}): 2 findings (1 high, 1 low).`,
    );
    expect(got.prompt).toContain('1. [high] made.txt:1 — made.txt says "hello" where the task asked for "goodbye"');
    expect(got.prompt).toContain('2. [low] no test covers the new file');
    const w = await klaude(['wait', origin]);
    expect(w.code, w.stderr).toBe(0);
    const s = await klaude(['sessions']);
    expect(s.stdout).toContain(`review by codex ${codexReviewer} (of its diff): 2 findings (1 high, 1 low) · sent`);
    // Sent once: a second --send says so.
    const again = await klaude(['review', origin, '--send']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('were sent to it already [E_NO_REVIEW]');
  });

  it('a second reviewer, claude with only the read tools, sits beside the first', async () => {
    const r = await klaude(['review', origin, '--by', 'claude', '--focus', 'the file content']);
    expect(r.code, r.stderr).toBe(0);
    const second = idFrom(r.stdout);
    expect(r.stdout).toContain(`review by claude ${second} (of its diff, focus: the file content): 1 finding (1 low)`);
    const req = fx.mock
      .mainRequests()
      .find((x) => isReview(x.prompt) && x.prompt.includes('Focus on: the file content'))!;
    const tools = (req.body.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['Read', 'Grep', 'Glob']));
    for (const t of ['Edit', 'Write', 'Bash', 'NotebookEdit']) expect(tools).not.toContain(t);
    // It could not write: Write is no tool of its own (the file is not there); reading worked.
    const results = fx.mock
      .mainRequests()
      .filter((x) => x.isToolResult && JSON.stringify(x.body.messages).includes('Focus on: the file content'))
      .map((x) => x.toolResults[0]!);
    expect(results[0]!.isError).toBe(true);
    expect(results[1]).toMatchObject({ isError: false, content: expect.stringContaining('hello') });
    const wt = /You may read the files under (\S+) for context/.exec(req.prompt)![1]!;
    expect(existsSync(join(wt, 'evil.txt'))).toBe(false);
    const show = await klaude(['review', origin, '--show']);
    expect(show.stdout).toContain(`review by codex ${codexReviewer} (of its diff): 2 findings (1 high, 1 low) · sent`);
    expect(show.stdout).toContain(
      `review by claude ${second} (of its diff, focus: the file content): 1 finding (1 low)`,
    );
    expect(show.stdout).toContain('  low     made.txt:1  no trailing newline check');
  });
});

describe('klaude review of an answer', () => {
  it('an agent that changed no files has its final answer reviewed; --diff says there is none', async () => {
    const a = await klaude(['start', 'general', 'what is 2+2?']);
    expect(a.code, a.stderr).toBe(0);
    const id = idFrom(a.stdout);
    const d = await klaude(['review', id, '--diff']);
    expect(d.code).toBe(1);
    expect(d.stderr).toBe(
      `klaude: general ${id} (claude) changed no files: there is no diff to review [E_NOTHING_TO_REVIEW] — hint: klaude review ${id} --output reviews its final answer\n`,
    );
    const r = await klaude(['review', id, '-d']);
    expect(r.code, r.stderr).toBe(0);
    const rev = idFrom(r.stdout);
    expect(r.stdout).toContain(`started ${rev} (general, codex): review of ${id}'s final answer, read-only\n`);
    const req = await openai.waitForRequest((x) => isReview(x.prompt) && x.prompt.includes(`general ${id}`), 60_000);
    expect(req.prompt).toContain('Its final answer:\n<answer>\nReply to: what is 2+2?\n</answer>');
    expect((await klaude(['wait', rev])).code).toBe(0);
    // Prose without a findings block: said as such, the answer kept in its log.
    const show = await klaude(['review', id, '--show']);
    expect(show.stdout).toBe(
      `review by codex ${rev} (of its answer): no findings read: its answer held no findings block klaude could read (\`klaude logs\` shows the answer)\n`,
    );
    const send = await klaude(['review', id, '--send']);
    expect(send.code).toBe(1);
    expect(send.stderr).toContain(`the review by codex (${rev}) has no findings: its answer held no findings block`);
  });
});

describe('klaude review in the web page', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await home.k(['web', '--stop']);
  });

  it('the origin’s pane has a section per reviewer with its findings; Send gives them to the origin', async () => {
    const w = await startWeb(home.env, home.projectDir);
    browser = await launchChromium();
    const page = await (await desktopContext(browser)).newPage();
    await page.goto(w.url);
    await page.locator('.conn.on').waitFor();
    const [o] = (JSON.parse((await klaude(['sessions', '--json'])).stdout) as { id: string; shortId: string }[]).filter(
      (x) => x.shortId === origin,
    );
    await page.locator(`[data-testid=session-row][data-session="${o!.id}"]`).click();
    const sections = page.getByTestId('review');
    await sections.nth(1).waitFor();
    expect(await sections.count()).toBe(2);
    const codex = sections.nth(0);
    await expect(codex.getByTestId('review-state').textContent()).resolves.toBe(
      'of its diff: 2 findings (1 high, 1 low)',
    );
    await expect(codex.getByTestId('finding').nth(0).textContent()).resolves.toContain(
      'made.txt:1 made.txt says "hello" where the task asked for "goodbye"',
    );
    await expect(codex.textContent()).resolves.toContain('· sent');
    const claude = sections.nth(1);
    await expect(claude.getByTestId('finding').textContent()).resolves.toContain('no trailing newline check');
    await shot(page, 'web-review.png');
    const before = fx.mock.mainRequests().length;
    page.once('dialog', (d) => void d.accept());
    await claude.getByTestId('review-send').click();
    const got = await fx.mock.waitForRequest(
      (x) => x.index >= before && x.prompt.includes('Review of your changes by claude'),
      60_000,
    );
    expect(got.prompt).toContain('1. [low] made.txt:1 — no trailing newline check');
    // The page shows it sent, from the state the server pushes.
    await claude.getByText('· sent').waitFor();
    expect((await klaude(['wait', origin])).code).toBe(0);
    // Review starts a third reviewer (the default: codex), whose section fills in when it ends.
    await page.getByTestId('review-start').click();
    const started = page.getByTestId('review-start-note');
    await started.waitFor();
    await expect(started.textContent()).resolves.toMatch(/^\w{8} reviews its diff, read-only/);
    await sections.nth(2).getByText('of its diff: 2 findings (1 high, 1 low)').waitFor({ timeout: 60_000 });
  });
});
