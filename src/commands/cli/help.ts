import type { CommandSpec, FlagSpec } from './types.js';

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function pad(s: string, n: number): string {
  return s.length >= n ? `${s}  ` : s + ' '.repeat(n - s.length);
}

export function overviewHelp(commands: CommandSpec[], version: string): string {
  const people = commands.filter((c) => c.name && !c.plumbing);
  const plumbing = commands.filter((c) => c.name && c.plumbing);
  const width = Math.max(...commands.map((c) => c.name.length)) + 4;
  const list = (cs: CommandSpec[]): string => cs.map((c) => `  ${pad(c.name, width)}${c.summary}`).join('\n');
  const root = commands.find((c) => c.name === '');
  return [
    `klaude ${version} — a supervisor for Claude Code`,
    '',
    'Usage',
    ...(root ? [`  ${root.usage}`, `      ${root.summary}`] : []),
    '  klaude <command> [options]',
    '',
    'Commands',
    list(people),
    ...(plumbing.length ? ['', 'Plumbing (run by Claude Code or scripts)', list(plumbing)] : []),
    '',
    'Options',
    '  -h, --help       show help (also: klaude <command> --help)',
    '  -v, --version    print the version',
    '',
    'Environment',
    '  KLAUDE_HOME      data directory (default ~/.klaude)',
    '  KLAUDE_DEBUG=1   print stack traces and log debug lines',
    '',
  ].join('\n');
}

function flagLine(name: string, f: FlagSpec): [string, string] {
  const value = f.type === 'boolean' ? '' : ` <${f.valueName ?? f.type}>`;
  const short = f.shortFlag ? `-${f.shortFlag}, ` : '    ';
  const def = f.default !== undefined && f.type !== 'boolean' ? ` (default ${String(f.default)})` : '';
  return [`${short}--${kebab(name)}${value}`, `${f.description}${def}`];
}

export function commandHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([n, f]) => flagLine(n, f));
  rows.push(['-h, --help', 'show this help (before any argument; after one it is text)']);
  rows.push(['--', spec.passthrough ? 'the rest goes to claude' : 'the rest are arguments even if they start with -']);
  const width = Math.max(...rows.map((r) => r[0].length)) + 2;
  return [
    spec.name ? `klaude ${spec.name} — ${spec.summary}` : `klaude — ${spec.summary}`,
    '',
    'Usage',
    `  ${spec.usage}`,
    ...(spec.description ? ['', ...spec.description.split('\n').map((l) => (l ? `  ${l}` : ''))] : []),
    '',
    'Options',
    ...rows.map(([a, b]) => `  ${pad(a, width)}${b}`),
    ...(spec.examples?.length ? ['', 'Examples', ...spec.examples.map((e) => `  ${e}`)] : []),
    '',
  ].join('\n');
}
