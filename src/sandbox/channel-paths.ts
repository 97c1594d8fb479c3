/**
 * Where a sandboxed agent's channel lives (docs/sandbox.md, "The agent's klaude"):
 * `<run>/<project-hash>/c/<session>/` holds `bin/klaude` (read-only to the agent: the client it runs
 * as `klaude`) and `io/` (the only directory of klaude's the agent can write: requests and the FIFOs
 * of their output). Inside the run directory, which the sandbox hides; the sandbox opens these two
 * for this agent alone, so no agent can write another's requests.
 */
import path from 'node:path';

export interface ChannelPaths {
  dir: string;
  bin: string;
  io: string;
}

export function channelPaths(runDir: string, projectHash: string, sessionId: string): ChannelPaths {
  const dir = path.join(runDir, projectHash, 'c', sessionId);
  return { dir, bin: path.join(dir, 'bin'), io: path.join(dir, 'io') };
}

/** The variable naming the io directory to the client (its shim sets it too). */
export const CHANNEL_ENV = 'KLAUDE_CHANNEL';
/**
 * Set by the channel's server on the klaude it runs for a request: that klaude acts for this agent
 * only (commands/agents/agent-scope.ts). An agent cannot set it: it runs only outside the sandbox.
 */
export const SCOPE_ENV = 'KLAUDE_AGENT_SCOPE';
