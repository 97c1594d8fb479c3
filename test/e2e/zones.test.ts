// Agents in a zone (docs/zones.md), against a real sshd in a network namespace of the test's own
// (test/support/zone-host.ts): the zone is another Unix user on its own address, reached with a key
// made for the test; its klaude is this checkout's dist/, its claude the pinned one against the
// stand-in. Start, stream, approve, message, interrupt, diff and merge go through the zone's link.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { until } from '../support/until.js';
import {
  cloneToZone,
  makeZoneNetwork,
  planZone,
  startZoneHost,
  zoneHostProblem,
  type ZoneHost,
} from '../support/zone-host.js';

const plan = planZone();
const problem = zoneHostProblem();
let removeNetwork: (() => void) | undefined;

beforeAll(() => {
  if (problem) throw new Error(problem);
  removeNetwork = makeZoneNetwork(plan);
});
afterAll(() => removeNetwork?.());

const homes = useAgentHomes({ host: plan.apiHost });
let zone: ZoneHost;

beforeAll(async () => {
  zone = await startZoneHost(plan, homes.mock.url);
}, 60_000);
afterAll(() => zone?.close());

function sessionsJson(h: AgentHome): Promise<any[]> {
  return h.k(['sessions', '--json']).then((r) => JSON.parse(r.stdout).sessions ?? JSON.parse(r.stdout));
}

function zoneLogOf(sid: string): string {
  const out = zone.zoneKlaude(['sessions', '--json', '--projects']);
  void out;
  const logs = join(zone.zoneHome, 'projects');
  const found = zone.asUser('sh', ['-c', `ls ${logs}/*/logs/${sid}.ndjson`]).trim();
  return readFileSync(found, 'utf8');
}

describe('klaude start --zone', () => {
  it('runs the agent over there and streams it here, its log a byte copy of the zone’s', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    homes.mock.setResponder((r) => ({ text: `Reply to: ${r.prompt} — done.`, chunks: 6, delayMs: 40 }));
    const r = await h.k(['start', 'general', 'hello from here', '--zone', 'build'], { timeoutMs: 90_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Reply to: hello from here — done.');
    expect(r.code).toBe(0);
    const id = /started (\w{8})/.exec(r.stdout)![1]!;
    const rows = await sessionsJson(h);
    const row = rows.find((s: any) => s.id.endsWith(id));
    expect(row.status).toBe('done');
    const local = readFileSync(row.logPath, 'utf8');
    await until('the zone log to be complete', () => zoneLogOf(row.id).length === local.length, 10_000);
    expect(local).toBe(zoneLogOf(row.id));
  }, 120_000);
});
