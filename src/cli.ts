/**
 * klaude entry point: help, version, dispatch on the first word, one top-level catch.
 * Keep this file's static imports tiny: every subcommand (and `klaude hook`, which
 * Claude Code runs after every tool call) pays for them.
 */
import { KlaudeError, isKlaudeError } from './lib/errors.js';
import { safeText } from './lib/escapes.js';
import { VERSION } from './lib/version.js';
import { COMMANDS, findCommand } from './commands/table/registry.js';
import { directCommand } from './commands/table/direct.js';
import { closestCommand } from './commands/cli/argv.js';
import { commandStdout } from './commands/cli/output.js';
import { parseCommandLine } from './commands/cli/parse-flags.js';
import { isAgentCommand } from './sandbox/agent-commands.js';
import { commandHelp, overviewHelp } from './commands/cli/help.js';
import type { CommandContext, CommandSpec } from './commands/cli/types.js';

/** A flag of this command written after `--` (where it is taken as text), if any. */
function flagAfterDashDash(spec: CommandSpec, args: string[]): string | undefined {
  const dd = args.indexOf('--');
  if (dd === -1 || spec.passthrough) return undefined;
  const known = (tok: string): boolean =>
    Object.entries(spec.flags).some(
      ([name, f]) =>
        tok === `--${kebab(name)}` || tok.startsWith(`--${kebab(name)}=`) || (f.shortFlag && tok === `-${f.shortFlag}`),
    );
  return args.slice(dd + 1).find(known);
}

/** A usage error when a flag sat after `--`: say so first, it is the likely cause. */
async function parseAndRun(spec: CommandSpec, args: string[]): Promise<number> {
  try {
    return await parseAndRunAs(spec, args);
  } catch (e) {
    const late = flagAfterDashDash(spec, args);
    if (!late || !isKlaudeError(e) || e.code !== 'E_USAGE') throw e;
    throw new KlaudeError('E_USAGE', e.message, {
      hint: `options go before \`--\`: after it '${late}' is text${e.hint ? `; ${e.hint}` : ''}`,
      ...(e.details ? { details: e.details } : {}),
    });
  }
}

async function parseAndRunAs(spec: CommandSpec, args: string[]): Promise<number> {
  const { help, flags, input, passthrough } = parseCommandLine(spec, args);
  if (help) {
    commandStdout().write(commandHelp(spec));
    return 0;
  }
  for (const [name, f] of Object.entries(spec.flags)) {
    const v = flags[name];
    if (f.type === 'number' && typeof v === 'number' && Number.isNaN(v)) {
      throw new KlaudeError('E_USAGE', `--${kebab(name)} needs a number`, { hint: `see \`${spec.usage}\`` });
    }
  }
  if (spec.minArgs !== undefined && input.length < spec.minArgs) {
    throw new KlaudeError('E_USAGE', `missing argument for '${spec.name}'`, { hint: `usage: ${spec.usage}` });
  }
  if (spec.maxArgs !== undefined && input.length > spec.maxArgs) {
    throw new KlaudeError('E_USAGE', `unexpected argument '${input[spec.maxArgs]}' for '${spec.name}'`, {
      hint: input[spec.maxArgs]!.startsWith('-')
        ? `flags go before the arguments (or quote text after \`--\`); usage: ${spec.usage}`
        : `usage: ${spec.usage}`,
    });
  }
  // Run for a sandboxed agent by its channel: its commands only, on its own sessions only.
  const scope = process.env.KLAUDE_AGENT_SCOPE;
  if (scope)
    (await import('./commands/agents/agent-scope.js')).checkAgentScope(scope, spec.name, input, flags, process.env);
  const ctx: CommandContext = {
    input,
    passthrough,
    flags,
    env: process.env,
    cwd: process.cwd(),
    // `klaude … | head -1`: the reader going away ends the command quietly, whichever it is.
    stdout: commandStdout(),
    // made when first written to (node's stream for a pipe loads a dozen modules)
    get stderr() {
      return process.stderr;
    },
  };
  const mod = await spec.load();
  const code = await mod.run(ctx);
  return typeof code === 'number' ? code : 0;
}

function kebab(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (process.env.KLAUDE_AGENT_SCOPE && (first === 'hook' || first?.startsWith('__') || first === undefined))
    throw new KlaudeError('E_AGENT_CHANNEL', `\`klaude ${first ?? ''}\` is not an agent's command`, {
      hint: 'klaude --help lists them',
    });
  if (first === '--version' || first === '-v' || first === '-V' || first === 'version') {
    commandStdout().write(`${VERSION}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const sub = first === 'help' ? rest[0] : undefined;
    const spec = sub ? findCommand(sub) : undefined;
    if (sub && !spec) throw unknownCommand(sub);
    // An agent's klaude (its channel sets the scope) lists the commands it has.
    const listed = process.env.KLAUDE_AGENT_SCOPE ? COMMANDS.filter((c) => isAgentCommand(c.name)) : COMMANDS;
    // Not process.stdout: into a pipe that is a net.Socket, whose loading cost more than the help.
    commandStdout().write(spec ? commandHelp(spec) : overviewHelp(listed, VERSION));
    return 0;
  }
  // `klaude hook` (after every tool call) and the hidden commands: no flag parsing, only their code.
  const direct = directCommand(first, rest);
  if (direct) return direct(rest);
  const root = findCommand('');
  if (first === undefined || first.startsWith('-')) {
    if (!root) {
      commandStdout().write(overviewHelp(COMMANDS, VERSION));
      return first === undefined ? 0 : 2;
    }
    return parseAndRun(root, argv);
  }
  const spec = findCommand(first);
  if (!spec || spec.name === '') throw unknownCommand(first);
  return parseAndRun(spec, rest);
}

function unknownCommand(name: string): KlaudeError {
  const near = closestCommand(name, COMMANDS);
  return new KlaudeError('E_UNKNOWN_COMMAND', `unknown command '${name}'`, {
    hint: near
      ? `did you mean \`klaude ${near}\`? (\`klaude --help\` lists commands)`
      : 'run `klaude --help` to list commands',
  });
}

/** The line an error ends a command with; safe to print, as a message may quote an agent's text or a file name. */
export function formatError(e: unknown): string {
  if (isKlaudeError(e)) {
    return `klaude: ${safeText(e.message)} [${e.code}]${e.hint ? ` — hint: ${safeText(e.hint)}` : ''}\n`;
  }
  const msg = e instanceof Error ? e.message : String(e);
  return `klaude: ${safeText(msg)} [E_INTERNAL] — hint: rerun with KLAUDE_DEBUG=1 for details\n`;
}

// The bundle is minified: with KLAUDE_DEBUG=1, stacks are mapped back to the sources (dist/*.map)
// for the code loaded from here on.
if (process.env.KLAUDE_DEBUG === '1') process.setSourceMapsEnabled(true);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(formatError(e));
    if (process.env.KLAUDE_DEBUG === '1' && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    process.exitCode = isKlaudeError(e) ? e.exitCode : 1;
  },
);
