/**
 * `klaude __zone-serve --path <clone>`: the zone's end of the link, run by the person's link as
 * `ssh <zone> klaude __zone-serve …` (docs/zones.md). It speaks the channel (channel.ts) on its
 * stdin and stdout and nothing else: it listens on no port and holds no secret of the person's
 * machine. It lives exactly as long as that ssh session: the end of its stdin (the connection
 * dropped or the link closed it) ends it; the agents it started run on, detached, and a later
 * link follows them from its own cursor.
 */
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeAgentServices, openAgentServices, type AgentServices } from '../agent-ops/context.js';
import { recoverAfterReconcile } from '../agent-ops/recover.js';
import { reconcile } from '../ownership/reconcile.js';
import { recordZoneServe } from '../ownership/zone-serve-record.js';
import { KlaudeError } from '../lib/errors.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { createFileLogger, type Logger } from '../lib/logger.js';
import { Channel, type WireRequest } from './channel.js';
import { ServeSync } from './serve-sync.js';
import * as ops from './serve-ops.js';
import { pruneKeys } from './serve-keys.js';
import { openCheckRequest } from './serve-open.js';
import { budget, handover } from './serve-handover.js';

/** A peer that stops reading this long (its output piling up) is gone: the serve ends rather than grow. */
const MAX_BACKLOG = 8 * 1024 * 1024;

function clonePath(argv: string[]): string {
  const i = argv.indexOf('--path');
  const raw = i === -1 ? undefined : argv[i + 1];
  if (!raw)
    throw new KlaudeError('E_USAGE', 'usage: klaude __zone-serve --path <clone> (internal: a zone link runs it)');
  if (raw === '~') return os.homedir();
  return raw.startsWith('~/') ? path.join(os.homedir(), raw.slice(2)) : path.resolve(raw);
}

class Serve {
  private svc: AgentServices | null = null;
  private sync: ServeSync | null = null;
  private from = 'the person’s machine';

  constructor(
    private readonly root: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Logger,
  ) {}

  private services(): AgentServices {
    if (this.svc) return this.svc;
    if (!existsSync(this.root) || !statSync(this.root).isDirectory()) {
      throw new KlaudeError('E_ZONE_SETUP', `there is no ${this.root} on ${os.hostname()}`, {
        hint: 'clone the project there (klaude zone setup <zone> pushes this one), or fix the zone’s path',
      });
    }
    this.svc = openAgentServices({ env: this.env, cwd: this.root });
    return this.svc;
  }

  async handle(r: WireRequest, ch: Channel): Promise<unknown> {
    if (r.op === 'ping') return { t: Date.now() };
    const svc = this.services();
    switch (r.op) {
      case 'hello':
        if (typeof r.from === 'string') this.from = r.from;
        await this.recover(svc);
        this.sync ??= this.startSync(svc, ch);
        return ops.hello(svc);
      case 'follow':
        return this.sync!.follow(String(r.sid), typeof r.at === 'number' ? r.at : 0);
      case 'unfollow':
        this.sync?.unfollow(String(r.sid));
        return {};
      case 'start':
        return ops.start(svc, r, this.from);
      case 'message':
        return ops.message(svc, r, this.from);
      case 'interrupt':
        return ops.interrupt(svc, r);
      case 'answer':
        return ops.answer(svc, r);
      case 'diff':
        return ops.diff(svc, r);
      case 'commit':
        return ops.commit(svc, r);
      case 'open-check':
        return openCheckRequest(svc, r.sid);
      case 'handover':
        return handover(svc, r, this.from);
      case 'budget':
        return budget(svc, r);
      default:
        throw new KlaudeError('E_BAD_REQUEST', `unknown zone request '${r.op}'`);
    }
  }

  private startSync(svc: AgentServices, ch: Channel): ServeSync {
    const sync = new ServeSync(svc, (e) => {
      ch.send(e);
      if (ch.backlog > MAX_BACKLOG) {
        this.log.warn('the link stopped reading: ending', { backlog: ch.backlog });
        ch.close('the link stopped reading');
      }
    });
    sync.start();
    return sync;
  }

  /** A machine that rebooted (or runtimes killed with no one to notice) is recovered as a local crash is. */
  private async recover(svc: AgentServices): Promise<void> {
    const { sessionsEnded } = reconcile(svc.db, { projectId: svc.projectHash });
    await recoverAfterReconcile(svc, sessionsEnded);
    pruneKeys(svc.home);
  }

  async close(): Promise<void> {
    this.sync?.close();
    if (this.svc) await closeAgentServices(this.svc);
  }
}

export async function zoneServeMain(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const root = clonePath(argv);
  const open = argv.indexOf('--open');
  if (open !== -1) {
    const sid = argv[open + 1];
    if (!sid) throw new KlaudeError('E_USAGE', 'usage: klaude __zone-serve --path <clone> --open <id>');
    const { zoneOpenMain } = await import('./serve-open.js');
    return zoneOpenMain(root, sid, env);
  }
  if (argv.includes('--check')) {
    const { zoneFacts } = await import('./serve-check.js');
    process.stdout.write(`${JSON.stringify(zoneFacts(root, env))}\n`);
    return 0;
  }
  const home = klaudeHome(env);
  const log = createFileLogger(logFilePath(home), 'zone-serve', env);
  const forget = recordZoneServe(home);
  const serve = new Serve(root, env, log);
  const inFlight = new Set<Promise<unknown>>();
  const ended = new Promise<string>((resolve) => {
    const ch: Channel = new Channel(process.stdin, process.stdout, {
      request: (r) => {
        const p = serve.handle(r, ch);
        inFlight.add(p);
        void p.catch(() => undefined).finally(() => inFlight.delete(p)); // the channel sends its error
        return p;
      },
      closed: resolve,
    });
  });
  // sshd hangs up on a dropped connection: what is under way finishes, then the end of stdin ends it.
  process.on('SIGHUP', () => undefined);
  process.on('SIGPIPE', () => undefined);
  const why = await ended;
  log.info('zone link ended', { why, inFlight: inFlight.size });
  await Promise.allSettled([...inFlight]);
  await serve.close();
  forget();
  setTimeout(() => process.exit(0), 2000).unref(); // nothing should hold it; if something does, it does not linger
  return 0;
}
