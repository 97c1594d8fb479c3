/**
 * `klaude __complete <shell> …`: what the completion scripts (completion-scripts.ts) ask on every
 * Tab. Hidden, and fast: the command table is already loaded by cli.ts; session ids come from one
 * query on the drizzle-free connection (db/fast.ts), and agent types and runtimes load only when the
 * position asks for them. It never migrates, reconciles or writes, and never prints an error into
 * the person's command line: a failure offers nothing (KLAUDE_DEBUG=1 shows it on stderr).
 *
 * Arguments: `bash <bash's current word> <the line up to the cursor>` (bash splits words at `=` and
 * `:`, so the line is split here, as the shell would, and the candidates are cut to bash's word);
 * `zsh|fish <words after klaude…> <current word>`. Output: the first line `words` or `files` (the
 * shell completes file names itself), then one candidate a line, `word<TAB>description` for zsh and
 * fish, the word alone for bash.
 */
import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import { HIDE_ENDED_AFTER_MS } from '../core/status.js';
import { openFastDb } from '../db/fast.js';
import { sessionsToComplete, type SessionPick, type SessionToComplete } from '../db/repos/completion.js';
import { COMMANDS } from './registry.js';
import { brief, completeWords, type Candidate, type Completion, type Lookups } from './completion-words.js';

export async function completeMain(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const [shell, ...rest] = args;
  try {
    const { words, bashWord } =
      shell === 'bash' ? fromBashLine(rest[0] ?? '', rest[1] ?? '') : { words: rest, bashWord: null };
    if (words.length === 0) words.push('');
    const lookups = await prepareLookups(words, env, cwd);
    const done = completeWords(COMMANDS, words, lookups);
    process.stdout.write(
      render(done, shell === 'bash' ? { cut: bashCut(words.at(-1)!, bashWord!) } : { withDescriptions: true }),
    );
  } catch (e) {
    if (env.KLAUDE_DEBUG === '1') process.stderr.write(`klaude __complete: ${(e as Error)?.stack ?? String(e)}\n`);
    process.stdout.write('words\n');
  }
  return 0;
}

/** The line up to the cursor → words after the command's own name. */
function fromBashLine(bashWord: string, line: string): { words: string[]; bashWord: string } {
  const words = splitLine(line).slice(1);
  return { words, bashWord };
}

/**
 * What bash replaces: its current word is the end of ours when COMP_WORDBREAKS split it
 * (`--runtime=co` → `co`; `--runtime=` → `=`), so each candidate loses what precedes it.
 */
function bashCut(ours: string, bashWord: string): string {
  return ours.endsWith(bashWord) ? ours.slice(0, ours.length - bashWord.length) : '';
}

/** Words as a POSIX shell splits them: blanks, '…' as is, "…" and \ escapes; the last may be open or ''. */
export function splitLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else word += c;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      inWord = true;
      if (c === "'" || c === '"') quote = c;
      else if (c === '\\' && i + 1 < line.length) word += line[++i];
      else word += c;
    }
  }
  words.push(inWord ? word : '');
  return words;
}

function render(c: Completion, o: { cut?: string; withDescriptions?: boolean }): string {
  const clean = (s: string): string => s.replace(/[\t\r\n\x00-\x1f\x7f]/g, ' ');
  const line = (x: Candidate): string => {
    const word = o.cut && x.word.startsWith(o.cut) ? x.word.slice(o.cut.length) : x.word;
    return o.withDescriptions && x.description ? `${clean(word)}\t${clean(x.description)}` : clean(word);
  };
  return [c.files ? 'files' : 'words', ...c.candidates.map(line)].join('\n') + '\n';
}

/** Lookups that open what they need once, when first asked. */
async function prepareLookups(words: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Lookups> {
  // Agent types and runtimes are read before the walk (it is synchronous); only when the line could want them.
  const mayWantTypes = words.length >= 2 && words[0] === 'start';
  const agentTypes = mayWantTypes ? await readAgentTypes(env, cwd) : [];
  const mayWantRuntimes = words.some((w) => w.startsWith('--runtime'));
  const runtimes = mayWantRuntimes ? (await import('../config/schema.js')).RUNTIMES : [];
  return {
    sessions: (pick) => readSessions(pick, env, cwd),
    agentTypes: () => agentTypes,
    runtimes: () => runtimes,
  };
}

async function readAgentTypes(env: NodeJS.ProcessEnv, cwd: string): Promise<Candidate[]> {
  const { loadAgentDefinitions } = await import('../agent-types/index.js');
  return loadAgentDefinitions({ cwd, env }).agents.map((a) => ({
    word: a.name,
    ...(a.description ? { description: brief(a.description) } : {}),
  }));
}

function readSessions(pick: SessionPick, env: NodeJS.ProcessEnv, cwd: string): SessionToComplete[] {
  const db = openFastDb(klaudeHome(env));
  if (!db) return [];
  try {
    const projectId = projectHash(projectRoot(cwd));
    return sessionsToComplete(db, { projectId, pick, endedSince: Date.now() - HIDE_ENDED_AFTER_MS });
  } finally {
    db.close();
  }
}
