/**
 * Whether Claude Code's sandbox can run here (docs/sandbox.md): on Linux it needs bubblewrap
 * (`bwrap`) and `socat` on the PATH the agent's claude gets — claude looks them up there itself
 * and, with `sandbox.failIfUnavailable`, refuses to start without them; on macOS Seatbelt's
 * `sandbox-exec` is part of the system. No process is spawned: a start must stay cheap.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export interface EngineCheck {
  /** The engine, as people know it. */
  engine: string;
  /** Null when it can run, else why not: one line naming what is missing. */
  missing: string | null;
  /** How to get it (null when there is no way on this platform). */
  fix: string | null;
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {
      /* not in this directory */
    }
  }
  return false;
}

export const LINUX_FIX = 'apt install bubblewrap socat (Debian/Ubuntu; dnf install bubblewrap socat on Fedora)';

export function claudeSandboxEngine(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = fileExists,
): EngineCheck {
  if (platform === 'linux') {
    const absent = ['bwrap', 'socat'].filter((b) => !onPath(b, env));
    const names = absent.map((b) => (b === 'bwrap' ? 'bubblewrap (bwrap)' : b));
    return {
      engine: 'bubblewrap',
      missing: absent.length ? `${names.join(' and ')} ${absent.length > 1 ? 'are' : 'is'} not installed` : null,
      fix: LINUX_FIX,
    };
  }
  if (platform === 'darwin') {
    const ok = exists('/usr/bin/sandbox-exec');
    return { engine: 'Seatbelt', missing: ok ? null : '/usr/bin/sandbox-exec is missing', fix: null };
  }
  return { engine: 'none', missing: `Claude Code has no sandbox on ${platform}`, fix: null };
}

function fileExists(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
