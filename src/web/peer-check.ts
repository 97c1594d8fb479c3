/**
 * Whether a request to the web server comes from inside an agent on this machine: the TCP
 * connection's other end is asked of the kernel (`ss -tp`, lib/socket-peer.ts) and its process
 * judged by the answerer's rules (ownership/answerer.ts `agentVerdict`: the records of what klaude
 * launched, ancestry, terminals), whatever its environment says. Asked for the person's verbs only
 * (signing a page in, answering a permission request): one `ss` run each.
 *
 * A second line, not the proof: a client on another machine (a phone through a tunnel or a VPN)
 * has no local process, and where `ss` is missing nothing can be asked; then the link (made only
 * outside agents) or the page's session is what counts. See docs/approvals.md.
 */
import type { HasSqlite } from '../db/connection.js';
import { agentVerdict } from '../ownership/answerer.js';
import { SYSTEM_PEER_SOURCE, tcpSocketPeer, type PeerSource } from '../lib/socket-peer.js';
import type { Req } from './http-io.js';

/** Why this request counts as an agent's (a sentence), or null. */
export function agentBehind(req: Req, db: HasSqlite, src: PeerSource = SYSTEM_PEER_SOURCE): string | null {
  const peer = tcpSocketPeer(req.socket, src);
  if (peer.pid === null) return null;
  const v = agentVerdict(db, peer.pid);
  return v.inside ? `its client ${v.why.replace(/^it /, '')}: ${v.by}` : null;
}

/** The client's address as people write it (`127.0.0.1`, not `::ffff:127.0.0.1`). */
export function clientAddress(req: Req): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
}
