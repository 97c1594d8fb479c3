/** Did-you-mean for commands (the matching itself is src/lib/closest.ts, shared with flags, agent types and runtimes). */
import { closestName } from '../../lib/closest.js';
import type { CommandSpec } from './types.js';

export { closestName };

export function closestCommand(name: string, commands: CommandSpec[]): string | undefined {
  return closestName(
    name,
    commands.map((c) => c.name),
  );
}
