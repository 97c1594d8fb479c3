/**
 * The agent channel's wire (client: channel-client.ts, inside the sandbox; server:
 * runtime/agent-channel.ts, outside). Everything is a file in the agent's io directory:
 *   <id>.out  FIFO the client makes and reads; the server writes NDJSON frames to it
 *   <id>.in   FIFO the client makes and holds open (O_RDWR) while it lives: EOF = the client is gone
 *   <id>.req  the request (JSON), written as <id>.tmp and renamed, so the server sees it whole
 * Unix sockets are not an option: the sandbox blocks them by seccomp on Linux.
 */

export interface ChannelRequest {
  /** The klaude command line, without `klaude`. */
  argv: string[];
  /** Where the command was run (the server keeps it only when it is inside the agent's tree). */
  cwd: string;
  /** A few of the caller's variables that change how klaude prints (COLUMNS, NO_COLOR, CLAUDECODE…). */
  env: Record<string, string>;
  /** stdin, read whole, when the command line takes its prompt from it (`-`, `--prompt-file -`). */
  stdin?: string;
}

/** Frames on <id>.out, one JSON object a line. */
export type ChannelFrame = { t: 'hello' } | { t: 'o'; d: string } | { t: 'e'; d: string } | { t: 'exit'; code: number };

/** Request ids: what the client makes, and all the server accepts as a name. */
export const REQUEST_ID = /^[a-z0-9]{8,32}$/;
/** The most a request file may hold (a prompt read from stdin included). */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** The client's environment that reaches the klaude run for it. */
export const PASSED_ENV = ['COLUMNS', 'LINES', 'NO_COLOR', 'FORCE_COLOR', 'CLAUDECODE', 'TERM'] as const;
/** How long the client waits for the server to take its request before it gives up. */
export const ACCEPT_TIMEOUT_MS = 15_000;
