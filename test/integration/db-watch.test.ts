// DB-write notifications: listeners of one DB file share one directory watch, each hears a write
// once, and stopping one leaves the others hearing. A real SQLite file, real writes.
import { afterEach, expect, it, vi } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { watchDbWrites } from '../../src/db/watch.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
let db: Db | undefined;
const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
  db?.close();
  home?.cleanup();
});

it('tells every listener of a write (together: one watch, one debounce), and keeps telling the ones still listening', async () => {
  home = makeTempHome({ prefix: 'klaude-dbwatch-' });
  const d = openDb(home.klaudeHome);
  db = d;
  const heard = { a: 0, b: 0 };
  const stopA = watchDbWrites(d.path, () => heard.a++);
  stops.push(
    stopA,
    watchDbWrites(d.path, () => heard.b++),
  );
  ensureProject(d, { hash: 'e'.repeat(24), rootPath: '/p' });
  await vi.waitFor(() => expect(heard.a).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 20 });
  expect(heard.b).toBe(heard.a); // called in the same turn
  stopA();
  stopA(); // twice is harmless
  const before = { ...heard };
  ensureProject(d, { hash: 'f'.repeat(24), rootPath: '/q' });
  await vi.waitFor(() => expect(heard.b).toBeGreaterThan(before.b), { timeout: 5_000, interval: 20 });
  expect(heard.a).toBe(before.a);
  // A listener added after the others stopped gets a watch of its own again.
  stops.splice(0).forEach((s) => s());
  let c = 0;
  stops.push(watchDbWrites(d.path, () => c++));
  ensureProject(d, { hash: 'a'.repeat(24), rootPath: '/r' });
  await vi.waitFor(() => expect(c).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 20 });
});

it('tells an immediate listener of a write before the debounced ones, on the same watch', async () => {
  home = makeTempHome({ prefix: 'klaude-dbwatch-' });
  const d = openDb(home.klaudeHome);
  db = d;
  const order: string[] = [];
  stops.push(
    watchDbWrites(d.path, () => order.push('debounced')),
    watchDbWrites(d.path, () => order.push('immediate'), undefined, { immediate: true }),
  );
  ensureProject(d, { hash: 'b'.repeat(24), rootPath: '/s' });
  await vi.waitFor(() => expect(order).toContain('debounced'), { timeout: 5_000, interval: 20 });
  expect(order[0]).toBe('immediate');
  // Each notification reaches the immediate listener; the debounced one hears fewer or as many.
  const count = (k: string): number => order.filter((o) => o === k).length;
  expect(count('immediate')).toBeGreaterThanOrEqual(count('debounced'));
});

it('holds the process open only while a keepAlive listener listens', () => {
  home = makeTempHome({ prefix: 'klaude-dbwatch-' });
  const d = openDb(home.klaudeHome);
  db = d;
  const held = (): number => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
  const base = held();
  const stopPlain = watchDbWrites(d.path, () => undefined);
  stops.push(stopPlain);
  expect(held()).toBe(base); // a plain listener never keeps a process alive
  const stopKeep = watchDbWrites(d.path, () => undefined, undefined, { immediate: true, keepAlive: true });
  stops.push(stopKeep);
  expect(held()).toBe(base + 1);
  stopKeep();
  expect(held()).toBe(base); // the plain listener still listens, unheld
  stopPlain();
  expect(held()).toBe(base);
});
