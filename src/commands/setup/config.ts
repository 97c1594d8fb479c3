import { loadConfig } from '../../config/config.js';
import { klaudeHome } from '../../config/paths.js';
import { CONFIG_KEYS, type ConfigKey, describeType } from '../../config/schema.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  if (ctx.flags.keys) {
    for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
      ctx.stdout.write(`${key}\n    ${spec.doc}\n    ${describeType(spec)}; default ${JSON.stringify(spec.default)}\n`);
    }
    return 0;
  }
  const loaded = loadConfig(home);
  for (const w of loaded.warnings) ctx.stderr.write(`klaude: warning: ${w}\n`);
  if (ctx.flags.path) {
    ctx.stdout.write(`${loaded.path}\n`);
    return 0;
  }
  if (ctx.flags.json) {
    ctx.stdout.write(
      `${JSON.stringify({ path: loaded.path, exists: loaded.exists, home, config: loaded.config, warnings: loaded.warnings }, null, 2)}\n`,
    );
    return 0;
  }
  ctx.stdout.write(`# ${loaded.path}${loaded.exists ? '' : ' (not present: all defaults)'}\n`);
  const width = Math.max(...Object.keys(CONFIG_KEYS).map((k) => k.length)) + 2;
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const source = loaded.fromFile.has(key) ? 'file' : 'default';
    ctx.stdout.write(`${key.padEnd(width)}${JSON.stringify(loaded.config[key])}  (${source})\n`);
  }
  return 0;
}
