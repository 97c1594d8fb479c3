/**
 * `klaude __zone-serve --check --path <clone>`: what a zone has, seen from inside it, printed as
 * one JSON document (`klaude zone check` runs it over ssh and prints it with the fixes): this
 * klaude and Node, its config, the claude it would launch, and the clone.
 */
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import { klaudeHome } from '../config/paths.js';
import { checkClaude, checkConfig, checkNode } from '../doctor/claude-checks.js';
import { failed, passed, warned, type CheckResult } from '../doctor/check.js';
import { gitTopLevel, headCommit } from '../git/exec.js';
import { VERSION } from '../lib/version.js';

export interface ZoneFacts {
  host: string;
  version: string;
  home: string;
  root: string;
  /** The clone's HEAD (null: no repository, or no commit). */
  head: string | null;
  checks: CheckResult[];
}

function checkClone(root: string): { result: CheckResult; head: string | null } {
  if (!existsSync(root) || !statSync(root).isDirectory())
    return {
      result: failed(
        'clone',
        `there is no ${root}`,
        'klaude zone setup <zone> pushes this project there (or clone it there)',
      ),
      head: null,
    };
  const top = gitTopLevel(root);
  if (!top)
    return {
      result: warned(
        'clone',
        `${root} is not a git repository: agents there work in it directly, with no worktree`,
        'make it a clone of the project (git clone …) to review and merge their work',
      ),
      head: null,
    };
  const head = headCommit(top);
  if (!head)
    return {
      result: failed('clone', `${top} has no commit yet`, 'klaude zone setup <zone> pushes this project there'),
      head: null,
    };
  return { result: passed('clone', `${top} at ${head.slice(0, 10)}`), head };
}

export function zoneFacts(root: string, env: NodeJS.ProcessEnv): ZoneFacts {
  const home = klaudeHome(env);
  const { result: config, config: cfg } = checkConfig(home);
  const claude = cfg
    ? checkClaude(cfg, env).result
    : failed('claude', 'not checked: the config cannot be read', 'fix the config over there first');
  const clone = checkClone(root);
  return {
    host: os.hostname(),
    version: VERSION,
    home,
    root,
    head: clone.head,
    checks: [passed('klaude', `klaude ${VERSION}`), checkNode(), config, claude, clone.result],
  };
}
