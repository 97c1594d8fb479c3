/**
 * The two claude stream-json lines that make a headless agent look alive (docs/cli-facts.md §2.2):
 *
 *   {"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"…"}}}
 *   {"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"…"}}}
 *     (only with `--include-partial-messages`) → text_delta / thinking_delta
 *   {"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":8000,
 *    "error_status":null|429|529|500,"error":"…"} → retry
 */
import type { AgentEventInput, RetryKind } from '../../core/events.js';
import { isObj, num, type Json } from '../json-line.js';

export function streamDelta(o: Json): AgentEventInput[] {
  const ev = o.event;
  if (!isObj(ev) || ev.type !== 'content_block_delta' || !isObj(ev.delta)) return [];
  const d = ev.delta;
  if (d.type === 'text_delta' && typeof d.text === 'string' && d.text !== '')
    return [{ type: 'text_delta', text: d.text }];
  if (d.type === 'thinking_delta' && typeof d.thinking === 'string' && d.thinking !== '')
    return [{ type: 'thinking_delta', text: d.thinking }];
  return [];
}

/** The error of an api_retry line as one short line (a string, or `{message}` / `{error:{message}}`). */
function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (isObj(e)) {
    if (typeof e.message === 'string') return e.message;
    if (isObj(e.error)) return errorText(e.error);
    if (typeof e.type === 'string') return e.type;
  }
  return '';
}

export function retryKind(status: number | undefined, reason: string): RetryKind {
  if (status === 429 || /rate.?limit/i.test(reason)) return 'rate_limit';
  if (status === 529 || /overload/i.test(reason)) return 'overloaded';
  if (
    status === undefined ||
    /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|connection|network|fetch failed|unreachable/i.test(reason)
  ) {
    return 'unreachable';
  }
  return 'server';
}

/**
 * Plain words for the error. Seen with claude 2.1.197: a closed port gives `error_status:null,
 * error:"unknown"`; a 429 `"rate_limit"`; a 529 `"overloaded"` (docs/transcript-format.md).
 */
function plainReason(reason: string, status: number | undefined): string {
  if (status === undefined && (reason === '' || reason === 'unknown')) return 'no connection to the API';
  if (/^[a-z_]+$/.test(reason)) return `${reason.replace(/_/g, ' ')}${status !== undefined ? ` (HTTP ${status})` : ''}`;
  if (/ECONNREFUSED|Unable to connect|ConnectionRefused/i.test(reason)) return 'connection refused';
  if (/ENOTFOUND|getaddrinfo/i.test(reason)) return 'host not found';
  if (/ETIMEDOUT|timed? ?out/i.test(reason)) return 'timed out';
  if (/ECONNRESET|socket hang up/i.test(reason)) return 'connection reset';
  const line = reason.trim().split('\n')[0] ?? '';
  if (line) return line.length > 160 ? `${line.slice(0, 159)}…` : line;
  return status !== undefined ? `HTTP ${status}` : 'no response';
}

export function retryFromClaude(o: Json): AgentEventInput[] {
  const attempt = num(o.attempt);
  if (attempt === undefined) return [];
  const status = num(o.error_status);
  const raw = errorText(o.error);
  const max = num(o.max_retries);
  const delay = num(o.retry_delay_ms);
  return [
    {
      type: 'retry',
      attempt,
      ...(max !== undefined ? { maxAttempts: max } : {}),
      ...(delay !== undefined ? { delayMs: delay } : {}),
      reason: plainReason(raw, status),
      kind: retryKind(status, raw),
    },
  ];
}
