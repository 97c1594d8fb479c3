/**
 * Hooks that never fire go unnoticed otherwise: a person's `disableAllHooks`, managed settings
 * that allow only managed hooks, or a broken hook command leave klaude's records of the session
 * stale with no error anywhere. After each claude launch the supervisor waits for that launch's
 * SessionStart hook (its `hook.SessionStart` event); if it has not arrived within
 * `hooks.startWarnSeconds` while claude still runs, the person is told once, with the likely cause
 * (E_HOOK_TIMEOUT), on stderr and in klaude's log.
 */
import { sessionStartSince } from '../db/repos/events.js';
import { KlaudeError } from '../lib/errors.js';
import type { SupervisorContext } from './context.js';
import type { LaunchSpec } from './foreground.js';

const POLL_MS = 250;

export function hookTimeoutError(seconds: number): KlaudeError {
  return new KlaudeError(
    'E_HOOK_TIMEOUT',
    `claude's SessionStart hook has not reached klaude ${seconds}s after launch: statuses and checkout will be stale for this session`,
    {
      hint: 'hooks are probably disabled ("disableAllHooks": true, or managed settings with "allowManagedHooksOnly") — see ~/.claude/settings.json and .claude/settings*.json',
    },
  );
}

export class HookWatch {
  private warned = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: SupervisorContext,
    private readonly warn: (e: KlaudeError) => void,
  ) {}

  /** Watch a claude just launched for `spec`; `running()` says whether it still is. */
  watch(spec: LaunchSpec, running: () => boolean): void {
    if (this.warned || (spec.runtime && spec.runtime !== 'claude')) return;
    this.stop();
    const since = Date.now() - 1000; // the hook may have fired before this row of bookkeeping
    const seconds = this.ctx.config['hooks.startWarnSeconds'];
    const deadline = Date.now() + seconds * 1000;
    const tick = (): void => {
      this.timer = null;
      if (!running()) return;
      try {
        if (sessionStartSince(this.ctx.db, spec.sessionId, since)) return;
      } catch (err) {
        this.ctx.log.warn('checking for the SessionStart hook failed', { err });
        return;
      }
      if (Date.now() < deadline) {
        this.timer = setTimeout(tick, POLL_MS);
        this.timer.unref();
        return;
      }
      this.warned = true;
      const e = hookTimeoutError(seconds);
      this.ctx.log.warn(e.message, { code: e.code, sessionId: spec.sessionId, claudeSessionId: spec.claudeSessionId });
      this.warn(e);
    };
    this.timer = setTimeout(tick, POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
