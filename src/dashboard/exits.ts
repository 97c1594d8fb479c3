/**
 * The dashboard's signals and crashes. While claude runs, the terminal's SIGINT/SIGQUIT are its
 * (the whole foreground group gets them): klaude ignores them. SIGTERM/SIGHUP stop claude first
 * when it has the terminal, else close. A crash restores the terminal synchronously and exits 70.
 * Ctrl-Z stops like any terminal program and comes back on `fg`.
 */
import { endInstance } from '../db/repos/instances.js';
import type { SupervisorContext } from '../supervisor/context.js';
import type { HandOver } from './hand-over.js';
import type { UiShell } from './shell.js';

const IGNORED: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT'];

export interface ExitDeps {
  ctx: SupervisorContext;
  shell: UiShell;
  handOver: HandOver;
  close(code: number): void;
}

export function guardExits(d: ExitDeps): { suspendToShell(): void; dispose(): void } {
  const { ctx, shell, handOver } = d;
  const { host } = shell;

  const crash = (err: unknown): void => {
    ctx.log.error('dashboard crashed', { err });
    handOver.switcher.fg.current?.child.kill('SIGTERM');
    host.screen.emergencyRestore();
    shell.stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
    try {
      endInstance(ctx.db, shell.instanceId, { status: 'exited', exitCode: 70 });
    } catch {
      /* best effort */
    }
    process.exit(70);
  };
  const ignore = (): void => {};
  const onSignal = (code: number) => (): void => {
    if (handOver.face === 'claude' || handOver.face === 'switching') {
      // The claude child's exit ends in 'finished' → close; a failure to stop it is the crash path.
      handOver.switcher.shutdown(code).catch(crash);
    } else d.close(code);
  };
  const term = onSignal(143);
  const hup = onSignal(129);

  /**
   * With the dashboard up, Ctrl-Z goes through the same suspend/resume as the hand-over; while
   * claude runs, claude stops itself by signalling the process group and klaude just stops with it.
   */
  const suspendToShell = (): void => {
    if (handOver.face === 'dashboard') {
      host.suspend();
      process.once('SIGCONT', () => {
        if (handOver.face === 'dashboard') host.resume();
      });
    }
    process.kill(process.pid, 'SIGSTOP');
  };

  for (const s of IGNORED) process.on(s, ignore);
  process.on('SIGTERM', term);
  process.on('SIGHUP', hup);
  shell.onSuspend(suspendToShell);
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  host.onCrash(crash);

  return {
    suspendToShell,
    dispose: () => {
      for (const s of IGNORED) process.off(s, ignore);
      process.off('SIGTERM', term);
      process.off('SIGHUP', hup);
      process.off('uncaughtException', crash);
      process.off('unhandledRejection', crash);
    },
  };
}
