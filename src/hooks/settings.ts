/**
 * The Claude Code settings klaude injects per launch with `--settings '<json>'`, so the
 * person's own settings files are never edited. Each hook calls the klaude that is
 * running right now by absolute path (node + entry script): it works the same when
 * klaude was started with npx or from a checkout. A built klaude points them at its
 * dist/hook.cjs (the same `klaude hook`, minus the CLI's start-up cost).
 */
import { readFileSync } from 'node:fs';
import { shellQuote, type KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';

export const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'Notification',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** CLI word for an event: SessionStart → session-start. */
export function hookWord(event: string): string {
  return event.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
}

export function eventFromWord(word: string): HookEventName | undefined {
  const norm = word.replace(/[-_]/g, '').toLowerCase();
  return HOOK_EVENTS.find((e) => e.toLowerCase() === norm);
}

type HookEntry = { matcher?: string; hooks: { type: 'command'; command: string; timeout?: number; async?: boolean }[] };
export type Settings = { hooks?: Record<string, HookEntry[]>; [k: string]: unknown };

/** The argument that tells the PostToolUse hook its claude is interactive (see handle.ts). */
export const INTERACTIVE_ARG = '--interactive';

/**
 * Node options of the injected hook: dist/hook.cjs is a real path already (shim.ts resolves the
 * running cli.js), so node need not resolve the main script's symlinks (about 1 M instructions of
 * fs.realpathSync's first compile and run, some 1 % of a `node -e 0`: bench/hook.mjs).
 */
export const HOOK_NODE_OPTIONS = ['--preserve-symlinks-main'];

function hookCommand(inv: KlaudeInvocation, event: HookEventName, ...extra: string[]): string {
  const entry = inv.hook ? [...HOOK_NODE_OPTIONS, shellQuote(inv.hook)].join(' ') : `${shellQuote(inv.cli)} hook`;
  return [shellQuote(inv.node), entry, hookWord(event), ...extra].join(' ');
}

/**
 * The hooks of an interactive claude (the foreground, a PTY session). PreToolUse only says what
 * the session is doing (`Bash: npm test`), so it runs in the background (`async`): no tool waits
 * for it. PostToolUse carries INTERACTIVE_ARG: a checked-out agent is interactive too, and only
 * this tells its hooks from its headless runtime's. PostToolUseFailure (a tool that failed: claude
 * sends it instead of PostToolUse) says the session is thinking again. PermissionRequest says at once
 * that the session waits for the person (claude's own permission_prompt Notification comes ~6 s later).
 */
export function hookSettings(inv: KlaudeInvocation): Settings {
  const hooks: Record<string, HookEntry[]> = {};
  for (const event of HOOK_EVENTS) {
    const command = hookCommand(inv, event, ...(event === 'PostToolUse' ? [INTERACTIVE_ARG] : []));
    // SessionEnd runs under Claude's own 1.5 s budget unless a timeout raises it.
    const timeout = event === 'SessionEnd' ? 10 : 30;
    const tool =
      event === 'PreToolUse' ||
      event === 'PostToolUse' ||
      event === 'PostToolUseFailure' ||
      event === 'PermissionRequest';
    // Only reports: nothing waits for them (a PermissionRequest hook that answers nothing leaves the dialog to the person).
    const async = event === 'PreToolUse' || event === 'PermissionRequest';
    hooks[event] = [
      {
        ...(tool ? { matcher: '*' } : {}),
        hooks: [{ type: 'command', command, timeout, ...(async ? { async: true } : {}) }],
      },
    ];
  }
  return { hooks };
}

/** The person's --settings (inline JSON or a file) with klaude's hooks appended per event, and klaude's other keys over theirs. */
export function mergeSettings(userValue: string | undefined, ours: Settings): Settings {
  if (userValue === undefined) return ours;
  let user: Settings;
  try {
    const text = userValue.trimStart().startsWith('{') ? userValue : readFileSync(userValue, 'utf8');
    user = JSON.parse(text) as Settings;
  } catch (e) {
    throw new KlaudeError('E_USAGE', `can't read the --settings passed to claude: ${(e as Error).message}`, {
      hint: 'give inline JSON or a path to a JSON file',
    });
  }
  // klaude's other keys win (a sandboxed agent's `sandbox`), except that deny rules add up.
  const { hooks: ourHooks, permissions: ourPermissions, ...ourRest } = ours;
  const merged: Settings = { ...user, ...ourRest, hooks: { ...(user.hooks ?? {}) } };
  for (const [event, entries] of Object.entries(ourHooks ?? {})) {
    merged.hooks![event] = [...(merged.hooks![event] ?? []), ...entries];
  }
  if (ourPermissions) merged.permissions = mergePermissions(user.permissions, ourPermissions);
  return merged;
}

function mergePermissions(user: unknown, ours: unknown): Record<string, unknown> {
  const u = (user && typeof user === 'object' ? user : {}) as Record<string, unknown>;
  const o = ours as Record<string, unknown>;
  const deny = [...(Array.isArray(u.deny) ? (u.deny as unknown[]) : []), ...((o.deny as unknown[] | undefined) ?? [])];
  return { ...u, ...o, deny };
}

/**
 * Only PostToolUse is injected into a headless claude: it is how an agent that starts agents of
 * its own gets their `[UPDATE]`s. The session's status is the runtime's to keep, so the lifecycle
 * hooks (SessionStart → idle, Stop → idle, …) are left out, and so is PreToolUse (the runtime
 * reads what its agent does from the stream).
 */
export function headlessHookSettings(inv: KlaudeInvocation): string {
  const post: HookEntry = {
    matcher: '*',
    hooks: [{ type: 'command', command: hookCommand(inv, 'PostToolUse'), timeout: 30 }],
  };
  return JSON.stringify({ hooks: { PostToolUse: [post] } });
}
