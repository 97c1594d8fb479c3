/**
 * Finding a non-Claude agent CLI and its version: `<runtime>.binary` from config.yaml, else the
 * CLI's command name on PATH. Missing → E_RUNTIME_MISSING with the install hint, as one line.
 *
 * The version is read once per process per executable: from the npm package the executable
 * belongs to (a realpath walk to its package.json: no process spawned, which matters because
 * `gemini --version` alone takes seconds), else from `<binary> --version`. An executable that
 * exists but cannot report a version does not run, and is reported like a missing one.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { whichSync } from '../config/claude-binary.js';
import type { Config, ConfigKey } from '../config/schema.js';
import { KlaudeError } from '../lib/errors.js';

export interface CliSpec {
  /** Runtime name, used in messages. */
  runtime: string;
  /** What people call it ("OpenAI Codex CLI"). */
  label: string;
  /** Command names tried on PATH, in order. */
  commands: readonly string[];
  /** The config key overriding the executable. */
  configKey: ConfigKey;
  /** How to install it (shown as the hint). */
  install: string;
  /** npm package names whose package.json carries the version. */
  packages: readonly string[];
}

const versions = new Map<string, string | null>();

/** Version from the npm package that contains `file` (following symlinks), or null. */
function packageVersion(file: string, names: readonly string[]): string | null {
  let dir: string;
  try {
    dir = path.dirname(realpathSync(file));
  } catch {
    return null;
  }
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (typeof pkg.name === 'string' && names.includes(pkg.name) && typeof pkg.version === 'string')
        return pkg.version;
    } catch {
      /* no package.json here */
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

/** First thing that looks like a version in `--version` output ("codex-cli 0.169.0" → 0.169.0). */
export function parseVersion(text: string): string | null {
  return /\b(\d+\.\d+\.\d+(?:[-+][\w.]+)?)\b/.exec(text)?.[1] ?? null;
}

/** The executable's version (cached per process); null when it cannot tell. */
export function cliVersion(
  file: string,
  spec: Pick<CliSpec, 'packages'>,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  if (versions.has(file)) return versions.get(file)!;
  let v = packageVersion(file, spec.packages);
  if (v === null) {
    const r = spawnSync(file, ['--version'], {
      env,
      encoding: 'utf8',
      timeout: 15_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    v = r.error || r.status !== 0 ? null : parseVersion(`${r.stdout}\n${r.stderr}`);
  }
  versions.set(file, v);
  return v;
}

/** The executable for `spec`, checked to exist and to run (version read once per process). */
export function resolveCliBinary(spec: CliSpec, config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const configured = config[spec.configKey] as string | null;
  const wanted = configured ? [configured] : spec.commands;
  const found = wanted.map((w) => whichSync(w, env)).find((f): f is string => f !== null);
  const hint = configured
    ? `fix ${spec.configKey} in config.yaml, or install it: ${spec.install}`
    : `install it (${spec.install}) or set ${spec.configKey} in config.yaml`;
  if (!found) {
    throw new KlaudeError(
      'E_RUNTIME_MISSING',
      `${spec.label} '${wanted[0]}' not found${configured ? '' : ' on PATH'} (runtime ${spec.runtime})`,
      { hint },
    );
  }
  if (cliVersion(found, spec, env) === null) {
    throw new KlaudeError(
      'E_RUNTIME_MISSING',
      `${spec.label} at ${found} does not run (\`${path.basename(found)} --version\` failed)`,
      { hint },
    );
  }
  return found;
}
