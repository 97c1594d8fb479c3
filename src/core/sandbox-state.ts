/**
 * Where a headless agent's commands run, as decided when it was started (agent-ops/sandbox-plan.ts)
 * and kept in its session's metadata (`metadata.sandbox`), so every relaunch runs it the same way and
 * every listing can say it: `sandboxed`, or `unsandboxed: <why>`.
 */
export interface SandboxState {
  state: 'sandboxed' | 'unsandboxed';
  /** Unsandboxed: why, in a few words ("agents.sandbox: off", "bubblewrap (bwrap) is not installed"). */
  why?: string;
  /** Sandboxed: the engine ("bubblewrap", "Seatbelt"). */
  engine?: string;
  /** bypassPermissions asked for and run as acceptEdits inside the sandbox (docs/sandbox.md). */
  bypassAsAcceptEdits?: boolean;
}

export function sandboxOf(metadata: Record<string, unknown> | null | undefined): SandboxState | null {
  const s = metadata?.sandbox as SandboxState | undefined;
  return s && (s.state === 'sandboxed' || s.state === 'unsandboxed') ? s : null;
}

/** `sandboxed` or `unsandboxed: <why>` (listings, the dashboard, the web page). */
export function sandboxLabel(s: SandboxState): string {
  return s.state === 'sandboxed' ? 'sandboxed' : `unsandboxed${s.why ? `: ${s.why}` : ''}`;
}
