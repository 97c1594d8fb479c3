/**
 * What a sandboxed agent may touch, as paths and hosts (docs/sandbox.md): runtime-neutral, so each
 * CLI's adapter turns it into its own sandbox's settings (adapters/claude/sandbox-settings.ts).
 *
 * - write: its working tree (its worktree when it has one, with the git metadata a commit there
 *   needs), what the person allows (config `sandbox.allowWrite`), and its channel's io directory;
 * - hidden: klaude's home and run directory (the DB, logs, launch files, web token, every socket,
 *   other agents' worktrees and channels), and `logs.dir` when set;
 * - readable again inside those: its own worktree and channel, and klaude's own code;
 * - hosts: config `sandbox.allowedDomains` and the model endpoint (not a loopback one: that would
 *   open every local port); any other host is a permission request.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ChannelPaths } from './channel-paths.js';

export interface SandboxBoundary {
  write: string[];
  hidden: string[];
  readable: string[];
  domains: string[];
  /** klaude's own files that Claude's file tools (Read, Edit, Write) are denied too, as absolute globs. */
  denyFiles: string[];
  /** Commands inside the sandbox run without asking (the unattended modes, acceptEdits and bypassPermissions). */
  autoAllowCommands: boolean;
  channel: ChannelPaths;
}

export interface BoundaryInput {
  home: string;
  runDir: string;
  /** config `logs.dir`, when set. */
  logsDir: string | null;
  projectRoot: string;
  cwd: string;
  /**
   * The tree the agent works in: its own worktree's top level, else the git top level above its cwd
   * (the project's, or the worktree of the agent that started it there: `workingTree`).
   */
  tree: string;
  channel: ChannelPaths;
  /** The directory of the running klaude's code (its agent client runs from there). */
  codeDir: string;
  allowWrite: readonly string[];
  allowedDomains: readonly string[];
  /** ANTHROPIC_BASE_URL or the like; null = the CLI's default endpoint. */
  modelUrl: string | null;
  permissionMode: string | null;
  /** For `~` in config paths. */
  userHome: string;
}

const inside = (p: string, dir: string): boolean => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/** `~/x` and relative paths of config `sandbox.allowWrite`, made absolute (relative: to the project). */
function expand(p: string, o: BoundaryInput): string {
  if (p === '~') return o.userHome;
  if (p.startsWith('~/')) return path.join(o.userHome, p.slice(2));
  return path.resolve(o.projectRoot, p);
}

/**
 * A worktree's git metadata in the repository it came from: its own git dir, the object store, and
 * the `klaude/` branches (its branch and that branch's log). Not the repository's config or hooks:
 * those run outside any sandbox the next time the person uses git.
 */
export function worktreeGitPaths(worktree: string): string[] {
  try {
    if (!statSync(path.join(worktree, '.git')).isFile()) return []; // a repository's own .git: inside the tree
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(path.join(worktree, '.git'), 'utf8'));
    if (!m) return [];
    const gitDir = path.resolve(worktree, m[1]!.trim());
    let common = path.resolve(gitDir, '..', '..');
    try {
      common = path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
    } catch {
      /* an older git without commondir: <common>/worktrees/<name> */
    }
    if (!statSync(common).isDirectory()) return [gitDir];
    const heads = path.join(common, 'refs', 'heads', 'klaude');
    const logs = path.join(common, 'logs', 'refs', 'heads', 'klaude');
    return [gitDir, path.join(common, 'objects'), heads, logs];
  } catch {
    return [];
  }
}

/** A host the sandbox may let through, from the model endpoint's URL (none for loopback). */
export function modelHost(url: string | null): string | null {
  let host = 'api.anthropic.com';
  if (url) {
    try {
      host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return null;
    }
  }
  if (host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '0.0.0.0') return null;
  return host;
}

/**
 * The working tree of a directory: the nearest directory above it (or it) holding `.git`, else the
 * directory itself. A worktree's `.git` is a file; its git metadata is elsewhere (worktreeGitPaths).
 */
export function workingTree(cwd: string): string {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return cwd;
  }
}

export function sandboxBoundary(o: BoundaryInput): SandboxBoundary {
  const { tree } = o;
  const write = [tree, ...worktreeGitPaths(tree), o.channel.io, ...o.allowWrite.map((p) => expand(p, o))];
  const hidden = [o.home];
  if (!inside(o.runDir, o.home)) hidden.push(o.runDir);
  if (o.logsDir && !hidden.some((h) => inside(o.logsDir!, h))) hidden.push(o.logsDir);
  const hiddenHas = (p: string): boolean => hidden.some((h) => inside(p, h));
  // Each path by itself: a read-only bind of the channel's directory made after the writable one
  // of its io directory would cover it (seen with 2.1.197: the io directory was read-only).
  const readable = [o.channel.bin, o.channel.io, ...[tree, o.cwd, o.codeDir].filter(hiddenHas)];
  const host = modelHost(o.modelUrl);
  const domains = [...new Set([...o.allowedDomains, ...(host ? [host] : [])])];
  return {
    write: [...new Set(write)],
    hidden,
    readable: [...new Set(readable)],
    domains,
    denyFiles: klaudeFiles(o),
    autoAllowCommands: o.permissionMode === 'acceptEdits' || o.permissionMode === 'bypassPermissions',
    channel: o.channel,
  };
}

/**
 * klaude's files Claude's file tools may not open either (the sandbox covers commands only): the
 * DB, the config and its parse cache (they name commands klaude runs), the log, the launch files,
 * the web token, the PATH shims, the agents' merged settings and logs. Not the run directory: deny
 * rules become the sandbox's denyWrite, which would close the agent's own channel; its sockets are
 * no files a tool can open, and a write there is outside the agent's tree, so it asks the person.
 */
function klaudeFiles(o: BoundaryInput): string[] {
  const h = o.home;
  const files = [
    `${h}/sessions.db*`,
    `${h}/config.yaml`,
    `${h}/klaude.log*`,
    `${h}/web/**`,
    `${h}/launch/**`,
    `${h}/bin/**`,
    `${h}/cache/**`,
    `${h}/projects/*/settings/**`,
    `${h}/projects/*/logs/**`,
  ];
  if (o.logsDir) files.push(`${o.logsDir}/**`);
  return files;
}
