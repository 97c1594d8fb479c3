/**
 * Which of the project's `.mcp.json` servers the person approved: Claude Code's own rule (read
 * from claude 2.1.197), applied by klaude because its agents run with a strict MCP config. A
 * cloned repository's `.mcp.json` is the repository's word, not the person's: interactive claude
 * asks before starting such a server, but `claude -p` starts every one not rejected, so klaude
 * decides instead of letting claude load them.
 *
 *   rejected  named in `disabledMcpjsonServers` of any settings file below;
 *   approved  `enableAllProjectMcpServers: true`, or named in `enabledMcpjsonServers`, in
 *             - user settings `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`),
 *             - local settings `<root>/.claude/settings.local.json` (where claude's "use this
 *               server" answer goes; in a workspace not trusted, not when it or `.claude` is a
 *               symlink: a repository could commit one),
 *             - project settings `<root>/.claude/settings.json` only once the person trusted the
 *               workspace (`projects[<root>].hasTrustDialogAccepted` in `~/.claude.json`): before
 *               that it is the repository approving itself,
 *             - the older per-project entry in `~/.claude.json` (claude moves it to local settings);
 *   pending   anything else: left out.
 * Names compare as claude compares them: characters other than `A-Z a-z 0-9 _ -` count as `_`.
 * Managed (policy) settings are not read: there, klaude leaves out what an admin approved.
 */
import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { claudeConfigDir, claudeJsonPath, tildify } from '../claude/config-dir.js';

export type McpApproval = 'approved' | 'rejected' | 'pending';

export interface McpDecision {
  approval: McpApproval;
  /** Why a server is left out, in words (`disabled in …`, `not approved`). */
  why: string | null;
}

export interface ProjectMcpRule {
  /** The person accepted claude's trust dialog for this workspace. */
  trusted: boolean;
  decide(name: string): McpDecision;
  /** The file an approval goes in: local settings, where claude's own prompt writes it. */
  approveFile: string;
  /** Settings files that could not be read (claude skips them too): one line each. */
  problems: string[];
}

type Settings = Record<string, unknown>;

const normal = (name: string): string => name.replace(/[^a-zA-Z0-9_-]/g, '_');
const names = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A settings file, or {} when it is missing or broken (a broken one is named in `problems`). */
function readSettings(file: string, problems: string[]): Settings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${file}: ${(e as Error).message}`);
    return {};
  }
  try {
    const data: unknown = JSON.parse(text);
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) return data as Settings;
    problems.push(`${file}: must hold a JSON object (its MCP approvals are not read)`);
  } catch (e) {
    problems.push(`${file}: not valid JSON (its MCP approvals are not read): ${(e as Error).message}`);
  }
  return {};
}

/** `.claude` or the local settings file is a symlink (or cannot be checked): claude then ignores its approvals. */
function localSettingsLinked(root: string): boolean {
  for (const p of [path.join(root, '.claude'), path.join(root, '.claude', 'settings.local.json')]) {
    try {
      if (lstatSync(p).isSymbolicLink()) return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return true;
    }
  }
  return false;
}

/**
 * The approval rule of the project at `root`. `projectEntry` is `~/.claude.json`'s
 * `projects[<root>]` (trust and the older approval lists).
 */
export function projectMcpRule(root: string, env: NodeJS.ProcessEnv, projectEntry: Settings): ProjectMcpRule {
  const problems: string[] = [];
  const files = {
    user: path.join(claudeConfigDir(env), 'settings.json'),
    project: path.join(root, '.claude', 'settings.json'),
    local: path.join(root, '.claude', 'settings.local.json'),
  };
  const user = readSettings(files.user, problems);
  const project = readSettings(files.project, problems);
  const local = readSettings(files.local, problems);
  const trusted = projectEntry.hasTrustDialogAccepted === true;
  const shown = (f: string): string => tildify(f, env);

  const disabling = [
    [user, shown(files.user)],
    [project, shown(files.project)],
    [local, shown(files.local)],
    [projectEntry, `${shown(claudeJsonPath(env))} (this project's entry)`],
  ] as const;
  const localCounts = trusted || !localSettingsLinked(root);
  const approving: Settings[] = [user, projectEntry];
  if (localCounts) approving.push(local);
  if (trusted) approving.push(project);

  return {
    trusted,
    approveFile: localCounts ? files.local : files.user,
    problems,
    decide(name) {
      const n = normal(name);
      const listed = (s: Settings, key: string): boolean => names(s[key]).some((x) => normal(x) === n);
      const disabled = disabling.find(([s]) => listed(s, 'disabledMcpjsonServers'));
      if (disabled) return { approval: 'rejected', why: `disabled in ${disabled[1]} (disabledMcpjsonServers)` };
      if (approving.some((s) => s.enableAllProjectMcpServers === true || listed(s, 'enabledMcpjsonServers')))
        return { approval: 'approved', why: null };
      const selfApproved =
        !trusted && (project.enableAllProjectMcpServers === true || listed(project, 'enabledMcpjsonServers'));
      return {
        approval: 'pending',
        why: selfApproved
          ? `approved only in ${shown(files.project)}, which counts once you trust this project in claude`
          : 'not approved',
      };
    },
  };
}

/** How to approve left-out `.mcp.json` servers (`disabled`: those the person turned off): the key and the file. */
export function approveHint(
  rule: Pick<ProjectMcpRule, 'approveFile'>,
  servers: string[],
  disabled: string[],
  env: NodeJS.ProcessEnv,
): string {
  const file = tildify(rule.approveFile, env);
  const off = disabled.length
    ? `; ${disabled.join(', ')} must also come off "disabledMcpjsonServers" where it is listed`
    : '';
  return (
    `to approve, add "enabledMcpjsonServers": ${JSON.stringify(servers)} (or "enableAllProjectMcpServers": true) ` +
    `to ${file}, or run \`claude\` in the project and answer its prompt${off}`
  );
}
