/**
 * Claude Code's sandbox for a headless agent (docs/sandbox.md, verified against claude 2.1.197 and
 * 2.1.332): Bash commands run in bubblewrap (Linux) or Seatbelt (macOS) with the boundary's paths
 * and hosts. Always strict: no unsandboxed fallback (`dangerouslyDisableSandbox` is ignored), no
 * excluded commands (2.1.197 runs a whole command line outside the sandbox when its first command
 * matches one), and no start without a working sandbox. Claude's file tools are not sandboxed: they
 * get deny rules for klaude's files, and the unattended modes keep them to the working tree.
 */
import type { SandboxBoundary } from '../../sandbox/boundary.js';
import type { SandboxLaunch } from '../runtime-adapter.js';

/** `Read(//abs/**)`: claude's spelling of an absolute path in a permission rule. */
const rule = (tool: string, p: string): string => `${tool}(/${p})`;

export function claudeSandboxSettings(b: SandboxBoundary): Record<string, unknown> {
  return {
    sandbox: {
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      // Explicit: 2.1.197 defaults to true, 2.1.332 to false.
      autoAllowBashIfSandboxed: b.autoAllowCommands,
      filesystem: { allowWrite: b.write, denyRead: b.hidden, allowRead: b.readable },
      network: { allowedDomains: b.domains },
    },
    permissions: { deny: b.denyFiles.flatMap((p) => [rule('Read', p), rule('Edit', p)]) },
  };
}

/**
 * bypassPermissions would let every host through the sandbox's proxy unasked and Claude's file
 * tools write anywhere (seen with both versions): inside the sandbox it runs as acceptEdits, which
 * with the sandbox's auto-allowed commands runs everything within the boundary unasked and asks
 * the person for anything beyond it.
 */
export function claudeSandboxLaunch(b: SandboxBoundary, permissionMode: string | null): SandboxLaunch {
  return {
    settings: claudeSandboxSettings(b),
    permissionMode: permissionMode === 'bypassPermissions' ? 'acceptEdits' : permissionMode,
  };
}
