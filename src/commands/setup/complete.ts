/**
 * `klaude __complete <shell> …`: what the completion scripts (completion-scripts.ts) ask on every
 * Tab. Hidden, and fast: the command table is already loaded by cli.ts, and the rest loads only
 * when the position asks for it: session ids (one query on the drizzle-free connection,
 * db/fast.ts), agent types, runtimes. It never migrates, reconciles or writes, and never prints an
 * error into the person's command line: a failure offers nothing (KLAUDE_DEBUG=1 shows it on stderr).
 *
 * Arguments: `bash <bash's current word> <the line up to the cursor>` (bash splits words at `=` and
 * `:`, so the line is split here, as the shell would, and the candidates are cut to bash's word);
 * `zsh|fish <words after klaude…> <current word>`. Output: the first line `words` or `files` (the
 * shell completes file names itself), then one candidate a line, `word<TAB>description` for zsh and
 * fish, the word alone for bash.
 */
import { HIDE_ENDED_AFTER_MS } from '../../core/status.js';
import type { SessionPick, SessionToComplete } from '../../db/repos/completion.js';
import { COMMANDS } from '../table/registry.js';
import { brief, completeWords, type Candidate, type Completion, type Lookups } from './completion-words.js';

export async function completeMain(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const [shell, ...rest] = args;
  try {
    const { words, bashWord } =
      shell === 'bash' ? fromBashLine(rest[0] ?? '', rest[1] ?? '') : { words: rest, bashWord: null };
    if (words.length === 0) words.push('');
    const done = await candidates(words, env, cwd);
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

/**
 * The candidates, loading only what the position asks for: a first pass with empty lookups notes
 * what it asked (most Tabs need neither the database nor the agent files), the second has them.
 */
async function candidates(words: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Completion> {
  const asked: { pick?: SessionPick; types?: true; runtimes?: true } = {};
  const dry: Lookups = {
    sessions: (pick) => ((asked.pick = pick), []),
    agentTypes: () => ((asked.types = true), []),
    runtimes: () => ((asked.runtimes = true), []),
  };
  const first = completeWords(COMMANDS, words, dry);
  if (!asked.pick && !asked.types && !asked.runtimes) return first;
  const sessions = asked.pick ? await readSessions(asked.pick, env, cwd) : [];
  const types = asked.types ? await readAgentTypes(env, cwd) : [];
  const runtimes = asked.runtimes ? (await import('../../config/schema.js')).RUNTIMES : [];
  return completeWords(COMMANDS, words, {
    sessions: () => sessions,
    agentTypes: () => types,
    runtimes: () => runtimes,
  });
}

async function readAgentTypes(env: NodeJS.ProcessEnv, cwd: string): Promise<Candidate[]> {
  const { loadAgentDefinitions } = await import('../../agent-types/index.js');
  return loadAgentDefinitions({ cwd, env }).agents.map((a) => ({
    word: a.name,
    ...(a.description ? { description: brief(a.description) } : {}),
  }));
}

async function readSessions(pick: SessionPick, env: NodeJS.ProcessEnv, cwd: string): Promise<SessionToComplete[]> {
  const [{ klaudeHome, projectRoot }, { openFastDb }, { sessionsToComplete }] = await Promise.all([
    import('../../config/paths.js'),
    import('../../db/fast.js'),
    import('../../db/repos/completion.js'),
  ]);
  const db = openFastDb(klaudeHome(env));
  if (!db) return [];
  try {
    return sessionsToComplete(db, {
      projectRoot: projectRoot(cwd),
      pick,
      endedSince: Date.now() - HIDE_ENDED_AFTER_MS,
    });
  } finally {
    db.close();
  }
}
