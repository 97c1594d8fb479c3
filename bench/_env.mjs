// Imported first by every bench: klaude and its floor run in one environment, without the start-up
// costs a machine adds to every process. NODE_EXTRA_CA_CERTS (set on some machines for every
// process) makes each node start read a CA bundle, ~55 ms that klaude and `node -e 0` alike would
// pay, flattering every ratio; NODE_OPTIONS could preload anything.
import { readFileSync } from 'node:fs';

export const UNSET = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];
for (const k of UNSET) delete process.env[k];

/** The 1, 5 and 15 minute load averages, for the line that says what a figure was taken under. */
export function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
