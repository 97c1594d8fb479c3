/**
 * Make `klaude` callable from Claude's Bash tool even when klaude was started with npx
 * or from a checkout: a tiny shell shim that execs this very node + entry script,
 * put first on the child's PATH.
 */
import { existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../config/paths.js';
import { shellQuote } from '../lib/shell-quote.js';
import { sha256Hex } from '../lib/sha256.js';

export interface KlaudeInvocation {
  node: string;
  cli: string;
  /** dist/hook.cjs next to a built cli.js: the fast hook entry (scripts/build.mjs). */
  hook?: string;
}

export { shellQuote };

/** The node binary and entry script of the running klaude (and its fast hook entry, if built). */
export function currentInvocation(): KlaudeInvocation {
  const script = process.argv[1];
  if (!script) throw new Error('cannot tell which script is running');
  const cli = realpathSync(script);
  const hook = path.join(path.dirname(cli), 'hook.cjs');
  return { node: process.execPath, cli, ...(existsSync(hook) ? { hook } : {}) };
}

/** `<home>/bin/<key>/klaude`, keyed by node + entry so two klaude checkouts never clash. */
export function ensureShim(home: string, inv: KlaudeInvocation): string {
  const key = sha256Hex(`${inv.node}\0${inv.cli}`).slice(0, 12);
  const dir = ensurePrivateDir(path.join(home, 'bin', key));
  const file = path.join(dir, 'klaude');
  const body = `#!/bin/sh\nexec ${shellQuote(inv.node)} ${shellQuote(inv.cli)} "$@"\n`;
  if (!existsSync(file) || readFileSync(file, 'utf8') !== body) {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, body, { mode: 0o755 });
    renameSync(tmp, file);
  }
  return dir;
}

export function prependPath(dir: string, pathVar: string | undefined): string {
  const rest = (pathVar ?? '').split(path.delimiter).filter((p) => p && p !== dir);
  return [dir, ...rest].join(path.delimiter);
}
