/**
 * Checking what arrives on a control socket against the protocol (protocol.ts): a request line
 * before any handler sees it (action, version, payload fields), and the client's view of response
 * and event frames. Kept apart from the protocol's types, which every client imports.
 */
import type { SerializedError } from '../lib/errors.js';
import { isPriorityName } from '../core/priority.js';
import { isImageRef, MAX_IMAGES } from '../core/image.js';
import {
  ACTIONS,
  PROTOCOL_VERSION,
  TOPICS,
  type Action,
  type EventFrame,
  type RequestFrame,
  type ResponseFrame,
} from './protocol.js';

export type RequestCheck =
  { ok: true; request: RequestFrame } | { ok: false; id: string | null; error: SerializedError };

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

export function isAction(x: unknown): x is Action {
  return typeof x === 'string' && (ACTIONS as readonly string[]).includes(x);
}

const bad = (id: string | null, message: string, hint?: string): RequestCheck => ({
  ok: false,
  id,
  error: { code: 'E_BAD_REQUEST', message, ...(hint ? { hint } : {}) },
});

/** Parse and check one request line: JSON, envelope, version, action, payload shape. */
export function parseRequestLine(line: string): RequestCheck {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return bad(null, `malformed request: not JSON (${(e as Error).message})`);
  }
  return checkRequest(value);
}

/** Check a decoded request envelope (and its payload) against this protocol version. */
export function checkRequest(value: unknown): RequestCheck {
  if (!isObject(value)) return bad(null, 'malformed request: expected a JSON object');
  const id = typeof value.id === 'string' && value.id !== '' ? value.id : null;
  // A request without `v` (the design notes' sketch, hand-written scripts) is read as version 1.
  if (value.v !== PROTOCOL_VERSION && !(value.v === undefined && PROTOCOL_VERSION === 1)) {
    const theirs = `v${JSON.stringify(value.v)}`;
    return {
      ok: false,
      id,
      error: {
        code: 'E_PROTOCOL',
        message: `protocol version mismatch: request has ${theirs}, this supervisor speaks v${PROTOCOL_VERSION}`,
        hint: 'use the same klaude version for the supervisor and the command',
        details: { expected: PROTOCOL_VERSION, received: value.v ?? null },
      },
    };
  }
  if (id === null) return bad(null, 'malformed request: "id" must be a non-empty string');
  if (typeof value.action !== 'string') return bad(id, 'malformed request: "action" must be a string');
  if (!isAction(value.action)) {
    return bad(id, `unknown action "${value.action}"`, `known actions: ${ACTIONS.join(', ')}`);
  }
  const payload = value.payload === undefined || value.payload === null ? {} : value.payload;
  if (!isObject(payload)) return bad(id, `bad payload for ${value.action}: expected an object`);
  const problem = PAYLOAD_CHECKS[value.action](payload);
  if (problem) return bad(id, `bad payload for ${value.action}: ${problem}`);
  return { ok: true, request: { v: PROTOCOL_VERSION, id, action: value.action, payload } as RequestFrame };
}

type P = Record<string, unknown>;
const optStr = (p: P, k: string): string | null =>
  p[k] === undefined || typeof p[k] === 'string' ? null : `"${k}" must be a string`;
const reqStr = (p: P, k: string): string | null =>
  typeof p[k] === 'string' && p[k] !== '' ? null : `"${k}" must be a non-empty string`;
const optBool = (p: P, k: string): string | null =>
  p[k] === undefined || typeof p[k] === 'boolean' ? null : `"${k}" must be a boolean`;
const optCount = (p: P, k: string, min: number): string | null => {
  const x = p[k];
  if (x === undefined) return null;
  return typeof x === 'number' && Number.isInteger(x) && x >= min ? null : `"${k}" must be an integer ≥ ${min}`;
};
const first = (...checks: (string | null)[]): string | null => checks.find((c) => c !== null) ?? null;

const PAYLOAD_CHECKS: Record<Action, (p: P) => string | null> = {
  ping: () => null,
  status: () => null,
  stop: () => null,
  checkout: (p) =>
    first(optStr(p, 'target'), optStr(p, 'fromSessionId'), optCount(p, 'timeoutMs', 0), optBool(p, 'force')),
  start: (p) =>
    first(
      reqStr(p, 'type'),
      typeof p.prompt === 'string' ? null : '"prompt" must be a string',
      optStr(p, 'parentId'),
      optCount(p, 'count', 1),
      optStr(p, 'runtime'),
      optStr(p, 'model'),
      optBool(p, 'share'),
      optBool(p, 'checkout'),
      optBool(p, 'checkoutNow'),
      optBool(p, 'worktree'),
      optStr(p, 'cwd'),
      optStr(p, 'skill'),
      p.budgetUsd === undefined || (typeof p.budgetUsd === 'number' && p.budgetUsd > 0)
        ? null
        : '"budgetUsd" must be a number > 0',
      p.sandbox === undefined || p.sandbox === 'on' || p.sandbox === 'off' ? null : '"sandbox" must be "on" or "off"',
      optBool(p, 'bypassWithoutSandbox'),
      p.priority === undefined || isPriorityName(p.priority) ? null : '"priority" must be high, normal or low',
    ),
  message: (p) =>
    first(
      reqStr(p, 'sessionId'),
      typeof p.prompt === 'string' ? null : '"prompt" must be a string',
      p.images === undefined || (Array.isArray(p.images) && p.images.length <= MAX_IMAGES && p.images.every(isImageRef))
        ? null
        : `"images" must be at most ${MAX_IMAGES} image refs ({path, mediaType, bytes})`,
    ),
  interrupt: (p) =>
    Array.isArray(p.sessionIds) &&
    p.sessionIds.length > 0 &&
    p.sessionIds.every((s) => typeof s === 'string' && s !== '')
      ? null
      : '"sessionIds" must be a non-empty array of strings',
  answer: (p) =>
    first(
      reqStr(p, 'sessionId'),
      p.behavior === 'allow' || p.behavior === 'deny' ? null : '"behavior" must be "allow" or "deny"',
      optStr(p, 'request'),
      optBool(p, 'always'),
      optStr(p, 'message'),
      p.pid === undefined || (Number.isInteger(p.pid) && (p.pid as number) > 0) ? null : '"pid" must be a pid',
    ),
  subscribe: (p) => {
    if (p.topics === undefined) return null;
    if (!Array.isArray(p.topics)) return '"topics" must be an array';
    const unknown = p.topics.find((t) => !(TOPICS as readonly unknown[]).includes(t));
    return unknown === undefined ? null : `unknown topic ${JSON.stringify(unknown)} (topics: ${TOPICS.join(', ')})`;
  },
};

/** Client side: is this a response frame (either outcome)? */
export function isResponseFrame(x: unknown): x is ResponseFrame {
  if (!isObject(x) || typeof x.ok !== 'boolean' || !(typeof x.id === 'string' || x.id === null)) return false;
  if (x.ok) return 'result' in x;
  return isObject(x.error) && typeof x.error.code === 'string' && typeof x.error.message === 'string';
}

/** Client side: is this an event frame? (event types are not checked: unknown ones are for the caller to ignore) */
export function isEventFrame(x: unknown): x is EventFrame {
  return isObject(x) && typeof x.id === 'string' && isObject(x.event) && typeof x.event.type === 'string';
}
