/**
 * What klaude's own processes ask a zone's link (`klaude __zone-link <zone>`, src/zones/link.ts)
 * over its Unix socket: one JSON request line, one JSON reply line, then the connection closes
 * (the PTY server's shape, ptyd/protocol.ts). The link carries the request over its ssh channel
 * to `klaude __zone-serve` on the zone's machine, or holds it (messages, answers) until it can.
 *
 * Kept free of runtime imports beyond the error type: every command that talks to a zone loads it.
 */
import type { SerializedError } from '../lib/errors.js';

/** What a start in a zone sends (one agent; its mirror row exists already, `sid` is its id). */
export interface ZoneStartRequest {
  op: 'start';
  sid: string;
  type: string;
  prompt: string;
  runtime?: string;
  model?: string;
  budgetUsd?: number;
  /** `--sandbox`/`--no-sandbox`, `--bypass-without-sandbox`, `--priority`, `--skill`: as for a start here, decided over there. */
  sandbox?: 'on' | 'off';
  bypassWithoutSandbox?: boolean;
  priority?: 'high' | 'normal' | 'low';
  skill?: string;
  /** The parent's recent conversation (`--share`), read on this machine. */
  share?: string;
  /** The commit the agent's worktree starts from (this machine's HEAD); absent: the zone's own HEAD. */
  base?: string;
  /** This machine's repository top level (to push `base` there when the zone lacks it). */
  repo?: string;
  /** `klaude fork`: the zone's agent whose conversation this one forks (over there, where it is). */
  forkOf?: string;
}

export type LinkRequest =
  | ZoneStartRequest
  | {
      op: 'message';
      sid: string;
      prompt: string;
      /** Made by the caller once, so a request repeated to a new link is still one message (zones/serve-keys.ts). */
      key?: string;
    }
  | { op: 'interrupt'; sid: string; peek?: boolean }
  | {
      op: 'answer';
      sid: string;
      /** The CLI's request id (the mirror row's `request_id`). */
      requestId: string;
      behavior: 'allow' | 'deny';
      always?: boolean;
      message?: string;
      /** The dashboard's or the web server's key (ownership/person-key.ts): checked, never believed. */
      key?: { holder: string; secret: string };
      /** From the web server: the signed-in page the answer came from. */
      webSession?: string;
    }
  | { op: 'diff'; sid: string; patch: boolean }
  | { op: 'commit'; sid: string }
  /** Whether its conversation may be opened over there now (a talk session, `checkout --remote`): throws why not. */
  | { op: 'open-check'; sid: string }
  /**
   * `klaude checkout` here: its conversation leaves the zone (refused while it runs, unless `force`
   * stops its run); its work committed on its branch; what fetching it here takes (zones/serve-handover.ts).
   */
  | { op: 'handover'; sid: string; force?: boolean }
  /** `klaude budget <id> <usd>`: its limit over there, where its runtime enforces it (null: none). */
  | { op: 'budget'; sid: string; usd: number | null }
  | { op: 'follow'; sid: string }
  | { op: 'status' }
  | { op: 'kick' };

export type LinkOp = LinkRequest['op'];

export type LinkReply = { ok: true; result: unknown } | { ok: false; error: SerializedError };

/** The link's ready line (lib/detached-server.ts reads it). */
export type LinkReady = { ok: true; pid: number } | { ok: false; error: SerializedError };

/** `status`: what `klaude zone list` shows of a link. */
export interface LinkStatus {
  zone: string;
  pid: number;
  state: 'connected' | 'connecting' | 'offline';
  /** Why the last connection ended or failed (one line), if it did. */
  lastError: string | null;
  /** When the next try is (epoch ms) while offline. */
  nextTryAt: number | null;
  /** Mirror sessions followed now. */
  following: string[];
  /** Messages and answers waiting in the outbox. */
  outbox: number;
  /** The round trip of the last ping (ms). */
  rttMs: number | null;
}

/** The code of the error the link's ready line carries when another link of the zone listens: not a failure. */
export const LINK_RUNNING = 'E_ZONE_LINK_RUNNING';
