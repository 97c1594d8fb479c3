/**
 * Entry of dist/hook.cjs, the command klaude injects for every hook (`node …/hook.cjs <event>`;
 * see settings.ts): `klaude hook <event>` without the CLI's command table, as one CommonJS file
 * so Claude waits as little as possible (scripts/build.mjs, bench/hook.mjs).
 */
import { isKlaudeError } from '../lib/errors.js';
import { runHook } from './run.js';

runHook(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // Only a bad event word gets here (a misconfiguration): say so, like the CLI would.
    const msg = isKlaudeError(e) ? `${e.message} [${e.code}]${e.hint ? ` — hint: ${e.hint}` : ''}` : String(e);
    process.stderr.write(`klaude: ${msg}\n`);
    process.exitCode = isKlaudeError(e) ? e.exitCode : 1;
  },
);
