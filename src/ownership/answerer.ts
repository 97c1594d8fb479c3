/**
 * Who sent an answer to an agent's permission request — the person, or an agent passing for one.
 * The runtime asks this of the process at the other end of the socket (lib/socket-peer.ts), not
 * of anything the client says about itself. The person's places:
 * - the dashboard: a running klaude instance (supervisor or `klaude ui`) that no claude klaude
 *   launched is an ancestor of;
 * - an interactive terminal: the process has a controlling terminal and is in its foreground, no
 *   claude (or runtime, or PTY server) klaude launched is among its ancestors, and no such claude
 *   or its children run on that terminal (a process that slipped its ancestry by forking twice
 *   still has the foreground claude's terminal).
 * - the web companion: this home's running web server (`klaude web`, ownership/web-record.ts),
 *   which sends an answer only for a request of a page authenticated with its token.
 * - the zone link: for an agent started from another machine (a zone, docs/zones.md), only a
 *   live `klaude __zone-serve` of this home that came in through sshd, carrying the answer the
 *   person gave on their own machine; nothing here counts as the person for such an agent.
 * What this cannot stop, an agent running as the same Unix user without a sandbox: see
 * docs/approvals.md.
 */
import type { Db } from '../db/client.js';
import { listInstances } from '../db/repos/instances.js';
import { openProcessesOfKinds } from '../db/repos/processes.js';
import { liveRows } from '../lib/process.js';
import { ancestry, processTable, ttyName, type ProcessTable } from '../lib/process-table.js';
import { liveWebRecord } from './web-record.js';
import { cameThroughSshd, liveZoneServes } from './zone-serve-record.js';
import path from 'node:path';

export type Answerer =
  | { person: true; by: string }
  | {
      person: false;
      /** What answered, truthfully: "agent (pid 12, inside claude pid 9)". */
      by: string;
      /** Why it is not the person. */
      why: string;
    };

/** Processes klaude launched that run claude (or host it): their descendants are agents. */
function agentRoots(db: Db): Map<number, string> {
  const rows = liveRows(openProcessesOfKinds(db, ['claude', 'cli', 'runtime', 'pty']));
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

/**
 * Identify the sender `pid` (null: unknown). `verified`: the pid came from the kernel, not from
 * the client's word (platforms where the peer cannot be asked).
 */
export function identifyAnswerer(
  db: Db,
  pid: number | null,
  verified: boolean,
  table: ProcessTable | null = processTable(),
  zone: ZoneAnswer = { held: false },
): Answerer {
  const dashboards = new Set(listInstances(db, { status: 'running' }).map((i) => i.pid));
  const home = db.path === ':memory:' ? null : path.dirname(db.path);
  const web = home ? liveWebRecord(home) : null;
  const serves = home ? liveZoneServes(home) : new Set<number>();
  const zoneLink =
    pid !== null && serves.has(pid) && table ? { viaSshd: cameThroughSshd(table, pid), onBehalf: zone.onBehalf } : null;
  return classifyAnswerer({
    pid,
    verified,
    table,
    roots: agentRoots(db),
    dashboards,
    web: web?.pid ?? null,
    zoneHeld: zone.held,
    zoneLink,
  });
}

/** What the runtime knows of zones when it asks: its agent was started from another machine, and who the link says answered. */
export interface ZoneAnswer {
  held: boolean;
  /** The zone link's word on who answered on the person's machine ("person at /dev/pts/3"). */
  onBehalf?: string;
}

export interface AnswererFacts {
  pid: number | null;
  verified: boolean;
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

/** The rules above, on facts gathered (pure: tests give their own process table). */
export function classifyAnswerer(f: AnswererFacts): Answerer {
  const { pid, table, roots } = f;
  const note = f.verified ? '' : ', unverified';
  if (pid === null || !table?.has(pid))
    return { person: false, by: 'unknown', why: 'klaude could not tell which process sent the answer' };
  const under = ancestry(table, pid).find((a) => roots.has(a));
  if (under !== undefined) {
    return {
      person: false,
      by: `agent (pid ${pid}, inside ${roots.get(under)} pid ${under}${note})`,
      why: 'it was sent from inside an agent (a process a claude klaude launched started)',
    };
  }
  const zoned = zoneAnswerer(f, pid, note);
  if (zoned) return zoned;
  if (f.web === pid) return { person: true, by: `person (web)${note ? ` (${note.slice(2)})` : ''}` };
  if (f.dashboards.has(pid)) return { person: true, by: `person in the dashboard${note ? ` (${note.slice(2)})` : ''}` };
  const me = table.get(pid)!;
  if (!me.tty)
    return { person: false, by: `process ${pid}${note}`, why: 'it was not sent from an interactive terminal' };
  if (me.pgrp !== me.tpgid)
    return { person: false, by: `process ${pid}${note}`, why: 'it was not sent from the foreground of a terminal' };
  if (agentTerminals(table, roots).has(me.tty)) {
    return {
      person: false,
      by: `process ${pid} on ${ttyName(me.tty)}${note}`,
      why: 'it was sent from a terminal a claude klaude launched runs on',
    };
  }
  return { person: true, by: `person at ${ttyName(me.tty)}${note ? ` (${note.slice(2)})` : ''}` };
}

/** The zone rules: the link answers for the person (through sshd only); nothing else may for a zone's agent. */
function zoneAnswerer(f: AnswererFacts, pid: number, note: string): Answerer | null {
  if (f.zoneLink?.viaSshd) return { person: true, by: `${f.zoneLink.onBehalf ?? 'person'}, through the zone link` };
  if (f.zoneLink) {
    return {
      person: false,
      by: `zone serve process ${pid}${note}`,
      why: 'it did not come in through sshd, so it is not the link from the person’s machine',
    };
  }
  if (!f.zoneHeld) return null;
  return {
    person: false,
    by: `process ${pid}${note}`,
    why: 'this agent was started from another machine (a zone): its requests are answered there, where klaude started it',
  };
}
