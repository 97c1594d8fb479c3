/**
 * Diagnostics go to a file under the home, never to the terminal (which belongs to
 * claude or the dashboard). Appends are synchronous: volume is low, and a crash must
 * not lose the line that explains it.
 */
import { appendFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from './private-dir.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const ROTATE_BYTES = 5 * 1024 * 1024;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/**
 * `ms` as Date.prototype.toISOString writes it (UTC, to the millisecond; years 0–9999), by arithmetic. Node's
 * toISOString asks ICU for the host's time zone first, even for UTC: ICU's zone data and date code
 * then stay resident, about 1 MiB of each long-lived process that logs (the PTY server logs
 * when it starts). Days to a civil date: Howard Hinnant's days_from_civil, inverted.
 */
export function isoTime(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const inDay = ms - days * 86_400_000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(inDay / 3_600_000);
  const m = Math.floor(inDay / 60_000) % 60;
  const s = Math.floor(inDay / 1000) % 60;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(h)}:${pad(m)}:${pad(s)}.${pad(inDay % 1000, 3)}Z`;
}

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
  child(component: string): Logger;
  readonly file: string | null;
}

function minLevel(env: NodeJS.ProcessEnv): number {
  const v = env.KLAUDE_LOG_LEVEL as LogLevel | undefined;
  if (v && v in RANK) return RANK[v];
  return env.KLAUDE_DEBUG === '1' ? RANK.debug : RANK.info;
}

function errorData(data: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!data) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    out[k] = v instanceof Error ? { message: v.message, code: (v as { code?: unknown }).code, stack: v.stack } : v;
  }
  return out;
}

/**
 * `file` is usually config/paths' logFilePath(home). Before each line, a file that would pass
 * `rotateBytes` (5 MB) becomes `<file>.1` (replacing the previous one): so a long-lived process
 * rotates as often as needed, and lines other processes append to the same file count too (one
 * stat per line; diagnostics are low volume).
 */
export function createFileLogger(
  file: string,
  component: string,
  env: NodeJS.ProcessEnv = process.env,
  opts: { rotateBytes?: number } = {},
): Logger {
  const threshold = minLevel(env);
  const rotateBytes = opts.rotateBytes ?? ROTATE_BYTES;
  let ready = false;
  const rotateIfFull = (adding: number): void => {
    let size = 0;
    try {
      size = statSync(file).size;
    } catch {
      return; // no file yet
    }
    if (size > 0 && size + adding > rotateBytes) renameSync(file, `${file}.1`);
  };
  const write = (level: LogLevel, comp: string, msg: string, data?: Record<string, unknown>): void => {
    if (RANK[level] < threshold) return;
    try {
      if (!ready) {
        ensurePrivateDir(path.dirname(file));
        ready = true;
      }
      const extra = data ? ` ${JSON.stringify(errorData(data))}` : '';
      const line = `${isoTime(Date.now())} ${level.toUpperCase()} [${comp} ${process.pid}] ${msg}${extra}\n`;
      rotateIfFull(Buffer.byteLength(line));
      appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // Logging must never be the reason a command fails.
    }
  };
  const make = (comp: string): Logger => ({
    debug: (m, d) => write('debug', comp, m, d),
    info: (m, d) => write('info', comp, m, d),
    warn: (m, d) => write('warn', comp, m, d),
    error: (m, d) => write('error', comp, m, d),
    child: (c) => make(`${comp}:${c}`),
    file,
  });
  return make(component);
}

export const nullLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => nullLogger,
  file: null,
};
