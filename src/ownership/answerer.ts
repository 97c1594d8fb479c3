/**
 * Who sent an answer to an agent's permission request — the person, or an agent passing for one.
 * The runtime asks this of the process at the other end of the socket (lib/socket-peer.ts), never
 * of a pid the client states. The person's places:
 * - the dashboard: a running klaude instance (supervisor or `klaude ui`) that no claude klaude
 *   launched is an ancestor of;
 * - an interactive terminal: the process has a controlling terminal and is in its foreground, no
 *   claude (or runtime, or PTY server) klaude launched is among its ancestors, and no such claude
 *   or its children run on that terminal (a process that slipped its ancestry by forking twice
 *   still has the foreground claude's terminal);
 * - the web companion: this home's running web server (`klaude web`, web-record.ts), for a page
 *   whose sign-in is on record (web-sessions.ts): the answer names that page's session, and what
 *   the sign-in proved is what is recorded;
 * - the zone link: for an agent started from another machine (a zone, docs/zones.md), only a
 *   live `klaude __zone-serve` of this home that came in through sshd, carrying the answer the
 *   person gave on their own machine; nothing here counts as the person for such an agent.
 * Where the peer cannot be asked at all (no /proc or no `ss`), only the dashboard and the web
 * server count, by the key each holds while it runs (person-key.ts); where it was asked and
 * nobody held the other end (a client that wrote and hung up), nothing counts.
 * What this cannot stop, an agent running as the same Unix user without a sandbox: see
 * docs/approvals.md.
 */
import path from 'node:path';
import type { HasSqlite } from '../db/connection.js';
import { openAgentRootRows, runningInstances } from '../db/repos/person-facts.js';
import { isSameProcess, liveRows } from '../lib/process.js';
import { ancestry, processTable, ttyName, type ProcessTable } from '../lib/process-table.js';
import type { Peer } from '../lib/socket-peer.js';
import { personKeyMatches } from './person-key.js';
import { liveWebRecord } from './web-record.js';
import { cameThroughSshd, liveZoneServes } from './zone-serve-record.js';
import { pageSessionLabel, readPageSession } from './web-sessions.js';

export type Answerer =
  | { person: true; by: string }
  | {
      person: false;
      /** What answered, truthfully: "agent (pid 12, inside claude pid 9)". */
      by: string;
      /** Why it is not the person. */
      why: string;
      /** Where the person answers instead, when the usual places (a terminal of theirs) do not count either. */
      hint?: string;
    };

/** Where to answer when this system cannot tell who sent an answer. */
export const ANSWER_ELSEWHERE =
  'answer in the dashboard (`klaude ui`) or on the web page (`klaude web`): they prove themselves with a key of their own';

/** What the client says besides its answer; checked here, never believed as such. */
export interface AnswerClaims {
  /** The dashboard's or the web server's key (person-key.ts). */
  key?: unknown;
  /** From the web server: the signed-in page the answer came from. */
  webSession?: unknown;
  /** From a zone serve process: who answered on the person's machine, as its link judged. */
  onBehalf?: unknown;
}

/** What the runtime knows of zones when it asks: its agent was started from another machine (docs/zones.md). */
export interface ZoneAnswer {
  held: boolean;
}

type Db = HasSqlite & { path: string };

/** Processes klaude launched that run claude (or host it): their descendants are agents. */
function agentRoots(db: HasSqlite): Map<number, string> {
  const rows = liveRows(openAgentRootRows(db));
  return new Map(
    rows.map((r) => [r.pid, r.kind === 'pty' ? 'PTY server' : r.kind === 'runtime' ? 'agent runtime' : 'claude']),
  );
}

/** Terminals on which a root or any of its descendants runs. */
function agentTerminals(table: ProcessTable, roots: Map<number, string>): Set<number | string> {
  const ttys = new Set<number | string>();
  for (const p of table.values()) {
    if (!p.tty) continue;
    if (ancestry(table, p.pid).some((a) => roots.has(a))) ttys.add(p.tty);
  }
  return ttys;
}

const homeOf = (db: Db): string | null => (db.path === ':memory:' ? null : path.dirname(db.path));

/** The answer a signed-in page sent (through a web server proven by its pid or its key). */
function fromPage(db: Db, claims: AnswerClaims, note: string): Answerer {
  const home = homeOf(db);
  const s = home && typeof claims.webSession === 'string' ? readPageSession(home, claims.webSession) : null;
  if (!s)
    return {
      person: false,
      by: 'klaude web',
      why: 'the web server sent it for no signed-in page',
      hint: 'sign the page in with a link `klaude web` prints in your terminal',
    };
  return { person: true, by: `${pageSessionLabel(s)}${note}` };
}

/** Where the peer could not be asked: the dashboard's or the web server's key, or nobody. */
function byKey(db: Db, claims: AnswerClaims, env: NodeJS.ProcessEnv): Answerer {
  const home = homeOf(db);
  const refused: Answerer = {
    person: false,
    by: 'unknown (unverified)',
    why: 'this system cannot tell klaude which process sent it (no /proc or no `ss` to ask), and a pid the sender states is not proof',
    hint: ANSWER_ELSEWHERE,
  };
  if (!home || !personKeyMatches(home, env, claims.key)) return refused;
  const { holder } = claims.key;
  const note = ' (by its key)';
  if (holder === 'web') return liveWebRecord(home) ? fromPage(db, claims, note) : refused;
  const dash = runningInstances(db).find((i) => i.id === holder);
  return dash && isSameProcess(dash.pid, null) ? { person: true, by: `person in the dashboard${note}` } : refused;
}

/** Identify the sender of an answer from the peer of its connection and what it claims. */
export function identifyAnswerer(
  db: Db,
  peer: Peer,
  claims: AnswerClaims,
  env: NodeJS.ProcessEnv,
  table: ProcessTable | null = processTable(),
  zone: ZoneAnswer = { held: false },
): Answerer {
  if (peer.pid === null) {
    if (zone.held) return zoneOnly(`unknown${peer.reason === 'cannot-ask' ? ' (unverified)' : ''}`);
    if (peer.reason === 'cannot-ask') return byKey(db, claims, env);
    return {
      person: false,
      by: 'unknown',
      why: 'its sender hung up before klaude could ask the system who it was',
      hint: 'answer with `klaude approve`/`deny` in a terminal of your own, in the dashboard or on the web page',
    };
  }
  const dashboards = new Set(runningInstances(db).map((i) => i.pid));
  const home = homeOf(db);
  const web = home ? liveWebRecord(home) : null;
  const onBehalf = typeof claims.onBehalf === 'string' ? claims.onBehalf : undefined;
  const zoneLink =
    home && table && liveZoneServes(home).has(peer.pid)
      ? { viaSshd: cameThroughSshd(table, peer.pid), ...(onBehalf ? { onBehalf } : {}) }
      : null;
  const facts = { pid: peer.pid, table, roots: agentRoots(db), dashboards, web: web?.pid ?? null };
  const who = classifyAnswerer({ ...facts, zoneHeld: zone.held, zoneLink });
  return who.person && who.by === WEB ? fromPage(db, claims, '') : who;
}

export interface AnswererFacts {
  /** The sender, as the kernel named it (null: unknown). */
  pid: number | null;
  table: ProcessTable | null;
  /** Live processes klaude launched that run or host claude, by pid: what they are. */
  roots: Map<number, string>;
  /** Pids of running klaude instances (supervisors, `klaude ui`). */
  dashboards: Set<number>;
  /** Pid of this home's running web server, if any. */
  web?: number | null;
  /** The agent was started from another machine: only its zone link answers for the person. */
  zoneHeld?: boolean;
  /** The sender is a live zone serve process of this home; whether it came in through sshd. */
  zoneLink?: { viaSshd: boolean; onBehalf?: string } | null;
}

/** classifyAnswerer's verdict for the web server; identifyAnswerer then asks which page. */
export const WEB = 'person (web)';

/** The rules above, on facts gathered (pure: tests give their own process table). */
export function classifyAnswerer(f: AnswererFacts): Answerer {
  const { pid, table, roots } = f;
  if (pid === null || !table?.has(pid))
    return { person: false, by: 'unknown', why: 'klaude could not tell which process sent the answer' };
  const under = belowAgent(table, roots, pid);
  if (under) return answerOf(under);
  const zoned = zoneAnswerer(f, pid);
  if (zoned) return zoned;
  if (f.web === pid) return { person: true, by: WEB };
  if (f.dashboards.has(pid)) return { person: true, by: 'person in the dashboard' };
  const me = table.get(pid)!;
  if (!me.tty) return { person: false, by: `process ${pid}`, why: 'it was not sent from an interactive terminal' };
  if (me.pgrp !== me.tpgid)
    return { person: false, by: `process ${pid}`, why: 'it was not sent from the foreground of a terminal' };
  const term = onAgentTerminal(table, roots, pid);
  return term ? answerOf(term) : { person: true, by: `person at ${ttyName(me.tty)}` };
}

/** The zone rules: the link answers for the person (through sshd only); nothing else may for a zone's agent. */
function zoneAnswerer(f: AnswererFacts, pid: number): Answerer | null {
  if (f.zoneLink?.viaSshd) return { person: true, by: `${f.zoneLink.onBehalf ?? 'person'}, through the zone link` };
  if (f.zoneLink) {
    return {
      person: false,
      by: `zone serve process ${pid}`,
      why: 'it did not come in through sshd, so it is not the link from the person’s machine',
    };
  }
  return f.zoneHeld ? zoneOnly(`process ${pid}`) : null;
}

function zoneOnly(by: string): Answerer {
  return {
    person: false,
    by,
    why: 'this agent was started from another machine (a zone): its requests are answered there, where klaude started it',
  };
}

const answerOf = ({ person, by, why }: Refusal): Answerer => ({ person, by, why });

type Refusal = Extract<Answerer, { person: false }> & {
  /** The same, said of the process itself: "it runs inside an agent (…)". */
  runs: string;
};

/** Refused when `pid` descends from an agent root; else null. */
function belowAgent(table: ProcessTable, roots: Map<number, string>, pid: number): Refusal | null {
  const under = ancestry(table, pid).find((a) => roots.has(a));
  if (under === undefined) return null;
  const where = 'inside an agent (a process a claude klaude launched started)';
  return {
    person: false,
    by: `agent (pid ${pid}, inside ${roots.get(under)} pid ${under})`,
    why: `it was sent from ${where}`,
    runs: `it runs ${where}`,
  };
}

/** Refused when `pid` runs on a terminal an agent root (or a descendant) runs on; else null. */
function onAgentTerminal(table: ProcessTable, roots: Map<number, string>, pid: number): Refusal | null {
  const me = table.get(pid);
  if (!me?.tty || !agentTerminals(table, roots).has(me.tty)) return null;
  const where = 'a terminal a claude klaude launched runs on';
  return {
    person: false,
    by: `process ${pid} on ${ttyName(me.tty)}`,
    why: `it was sent from ${where}`,
    runs: `it runs on ${where}`,
  };
}

export type AgentVerdict =
  | { inside: false; /** `at /dev/pts/3`, or `with no terminal (pid 812)`. */ place: string }
  | {
      inside: true;
      by: string;
      /** A sentence about the process: "it runs inside an agent (…)". */
      why: string;
    };

/**
 * Is `pid` inside an agent — by the records of what klaude launched (runtimes, PTY server,
 * foreground claudes), the ancestry and the terminal rules above, whatever its environment says?
 * For the person's verbs that are not answers: making a web sign-in link (`klaude web`), signing
 * a page in. Where the process table cannot be read, the answer is "inside" (it cannot be told).
 */
export function agentVerdict(db: HasSqlite, pid: number, table: ProcessTable | null = processTable()): AgentVerdict {
  return verdictOf(table, agentRoots(db), pid);
}

/** agentVerdict on facts gathered (pure: tests give their own process table). */
export function verdictOf(table: ProcessTable | null, roots: Map<number, string>, pid: number): AgentVerdict {
  if (!table?.has(pid))
    return { inside: true, by: `process ${pid}`, why: 'klaude cannot read the process table here to tell' };
  const inside = belowAgent(table, roots, pid) ?? onAgentTerminal(table, roots, pid);
  if (inside) return { inside: true, by: inside.by, why: inside.runs };
  const tty = table.get(pid)!.tty;
  return { inside: false, place: tty ? `at ${ttyName(tty)}` : `with no terminal (pid ${pid})` };
}
