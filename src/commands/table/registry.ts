/**
 * The command table: COMMANDS lists every command, in the order `klaude --help` shows them
 * (groups of specs are in registry-front/-agents/-manage/-info/-logs/-review/-queue.ts). Only specs live here; each
 * command's code is behind a dynamic import so `klaude hook …` (run by Claude Code after every
 * tool call) loads nothing it doesn't need.
 */
import { AGENT_COMMANDS, WAIT_COMMAND } from './registry-agents.js';
import { FRONT_COMMANDS } from './registry-front.js';
import { INFO_COMMANDS } from './registry-info.js';
import { LISTING_COMMANDS, READ_COMMANDS } from './registry-logs.js';
import { APPROVAL_COMMANDS, TIDY_COMMANDS } from './registry-manage.js';
import { REVIEW_COMMANDS } from './registry-review.js';
import { ZONE_COMMANDS } from './registry-zone.js';
import { QUEUE_COMMAND } from './registry-queue.js';
import type { CommandSpec } from '../cli/types.js';

export const COMMANDS: CommandSpec[] = [
  ...FRONT_COMMANDS,
  ...AGENT_COMMANDS,
  ...APPROVAL_COMMANDS,
  WAIT_COMMAND,
  QUEUE_COMMAND,
  ...TIDY_COMMANDS,
  ...INFO_COMMANDS,
  ...LISTING_COMMANDS,
  ...REVIEW_COMMANDS,
  ...ZONE_COMMANDS,
  ...READ_COMMANDS,
  {
    name: 'hook',
    summary: 'record a Claude Code hook event (injected by klaude; payload JSON on stdin)',
    usage:
      'klaude hook <session-start|session-end|user-prompt-submit|stop|stop-failure|notification|pre-tool-use|post-tool-use|post-tool-use-failure|permission-request>',
    description:
      'Outside klaude (no KLAUDE_SESSION_ID) it does nothing. It never fails Claude: errors go to the klaude log.',
    flags: {},
    plumbing: true,
    minArgs: 1,
    maxArgs: 1,
    load: () => import('../setup/hook.js'),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
