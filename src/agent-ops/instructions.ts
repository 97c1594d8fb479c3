/**
 * What every klaude agent is told on top of its own instructions (appended to the CLI's system
 * prompt): who it is, and the `[UPDATE]` convention for reporting to its parent.
 */
import { shortId } from '../core/ids.js';

export function agentPreamble(o: {
  sessionId: string;
  type: string;
  parentId: string | null;
  /** A fork of a worktree agent: the origin, its worktree, and the fork's own. */
  fork?: { origin: string; originTree: string; tree: string } | null;
}): string {
  const lines = [
    `You are a klaude sub-agent (type "${o.type}", id ${shortId(o.sessionId)}), running headless: nobody watches your`,
    'screen, and your final message is what the session that started you reads.',
  ];
  if (o.fork) lines.push(forkNote(o.fork));
  if (o.parentId) {
    lines.push(
      'To tell the session that started you about progress while you work, put a line of its own in your reply:',
      '[UPDATE] <one short sentence>',
      'It is delivered to that session at once. Use it for milestones and blockers, not for every step.',
    );
  }
  lines.push('End with a short, self-contained answer: what you did, what you found, files changed.');
  return lines.join('\n');
}

/** The agent definition's instructions followed by the preamble. */
export function systemPromptAddition(instructions: string | null | undefined, preamble: string): string {
  const own = instructions?.trim();
  return own ? `${own}\n\n${preamble}` : preamble;
}

/**
 * Where a fork of a worktree agent works. Also put before its first prompt: a resumed conversation
 * keeps the system prompt it was started with in claude 2.1.332, so the fork's own would be lost.
 */
export function forkNote(fork: { origin: string; originTree: string; tree: string }): string {
  return [
    `This conversation is a fork of ${shortId(fork.origin)}'s. You work in a git worktree of your own, ${fork.tree},`,
    `made from ${fork.originTree} as it was at the fork (its commits and uncommitted changes). Paths under`,
    `${fork.originTree} earlier in the conversation are the origin's: read and change their copies in yours.`,
  ].join('\n');
}
