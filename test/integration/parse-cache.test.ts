// What a YAML text parsed to is remembered in <home>/cache/parsed.json (config/parse-cache.ts): the
// next process gets it without loading the yaml library; an edited file is parsed again; only
// results JSON keeps exactly are remembered; the file is private, bounded (least recently used
// goes first) and written once per process.
import {
  existsSync,
  mkdirSync,
  watch,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { parseFrontmatter } from '../../src/agent-types/frontmatter.js';
import {
  flushParseCaches,
  jsonExact,
  PARSE_CACHE_ENTRIES,
  parseCacheFile,
  parseRemembered,
} from '../../src/config/parse-cache.js';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const dirs: string[] = [];
let home: TempHome | undefined;
afterEach(() => {
  flushParseCaches(); // now, not at the worker's exit into a removed directory
  home?.cleanup();
  home = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-parse-cache-')));
  dirs.push(d);
  return d;
};

const entriesIn = (file: string): [string, string, unknown][] =>
  (JSON.parse(readFileSync(file, 'utf8')) as { entries: [string, string, unknown][] }).entries;

describe('parseRemembered', () => {
  it('parses once per text, keeps the file private, and is bounded', () => {
    const file = parseCacheFile(tmp());
    let calls = 0;
    const parse = (t: string) => {
      calls++;
      return { t, n: t.length };
    };
    expect(parseRemembered(file, 'k', 'a: 1', parse)).toEqual({ t: 'a: 1', n: 4 });
    expect(parseRemembered(file, 'k', 'a: 1', parse)).toEqual({ t: 'a: 1', n: 4 });
    expect(calls).toBe(1);
    expect(parseRemembered(file, 'other', 'a: 1', parse)).toEqual({ t: 'a: 1', n: 4 });
    expect(calls).toBe(2);
    expect(existsSync(file)).toBe(false); // written once, at exit
    flushParseCaches();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(entriesIn(file)).toHaveLength(2);
  });

  it('is a least-recently-used cache of 512 entries: a set read over and over stays', () => {
    const file = parseCacheFile(tmp());
    let calls = 0;
    const parse = (t: string) => {
      calls++;
      return t;
    };
    const texts = Array.from({ length: 150 }, (_, i) => `agent: ${i}`);
    for (let round = 0; round < 3; round++) for (const t of texts) parseRemembered(file, 'k', t, parse);
    expect(calls).toBe(150); // the old 64-entry FIFO parsed every one of them every round
    // 600 new texts: the oldest go, but one in use all along stays.
    for (let i = 0; i < 600; i++) {
      parseRemembered(file, 'k', `new: ${i}`, parse);
      if (i % 50 === 0) parseRemembered(file, 'k', 'agent: 7', parse);
    }
    expect(calls).toBe(750);
    flushParseCaches();
    const kept = entriesIn(file).map((e) => e[1]);
    expect(kept).toHaveLength(PARSE_CACHE_ENTRIES);
    expect(kept).toContain('agent: 7');
    expect(kept).not.toContain('agent: 8');
    expect(kept.at(-1)).toBe('new: 599');
    expect(kept).not.toContain('new: 0');
  });

  it('writes its file once per process, keeping what another process wrote meanwhile', () => {
    const file = parseCacheFile(tmp());
    mkdirSync(path.dirname(file), { recursive: true });
    parseRemembered(file, 'k', 'mine: 1', (t) => t);
    // Another process wrote after this one read the file.
    writeFileSync(file, JSON.stringify({ v: 2, entries: [['k', 'theirs: 1', '"theirs: 1"']] }));
    flushParseCaches();
    expect(entriesIn(file).map((e) => e[1])).toEqual(['theirs: 1', 'mine: 1']);
    const written = readFileSync(file, 'utf8');
    parseRemembered(file, 'k', 'mine: 2', (t) => t);
    flushParseCaches();
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('a hit is a copy: changing what a caller got changes nothing for the next', () => {
    const file = parseCacheFile(tmp());
    const v = parseRemembered(file, 'k', 't', () => ({ list: [1] }));
    v.list.push(2);
    expect(parseRemembered(file, 'k', 't', () => ({ list: [9] }))).toEqual({ list: [1] });
  });

  it('does not remember what JSON would change, nor a parse that throws', () => {
    const file = parseCacheFile(tmp());
    for (const v of [
      Number.POSITIVE_INFINITY,
      Number.NaN,
      -0,
      new Date(0),
      new Uint8Array(1),
      { a: undefined },
      [1, , 2],
      { __proto__: null, x: new Map() },
    ]) {
      expect(jsonExact(v)).toBe(false);
    }
    expect(jsonExact({ a: [1, 'x', null, true, { b: 2.5 }] })).toBe(true);
    let calls = 0;
    const inf = () => {
      calls++;
      return { x: Number.POSITIVE_INFINITY };
    };
    parseRemembered(file, 'k', 'x: .inf', inf);
    expect(parseRemembered(file, 'k', 'x: .inf', inf)).toEqual({ x: Number.POSITIVE_INFINITY });
    expect(calls).toBe(2);
    expect(() =>
      parseRemembered(file, 'k', 'bad', () => {
        throw new Error('bad yaml');
      }),
    ).toThrow('bad yaml');
    expect(existsSync(file)).toBe(false);
  });

  it('config and frontmatter give the same results from the cache as from the yaml library', () => {
    const file = parseCacheFile(tmp());
    const config =
      'switch:\n  graceSeconds: 2.5\nagents:\n  onStop:\n    - prompt: sum it up\n      artifact: summary\n';
    const direct = parseConfig(config, 'c.yaml');
    expect(parseConfig(config, 'c.yaml', file)).toEqual(direct);
    expect(parseConfig(config, 'c.yaml', file)).toEqual(direct); // from the cache
    const md = '---\nname: rev\ndescription: "Reviews: carefully"\ntools: [Read, Grep]\nmodel: opus\n---\nBe kind.\n';
    const fm = parseFrontmatter(md);
    expect(parseFrontmatter(md, file)).toEqual(fm);
    const again = parseFrontmatter(md, file);
    expect(again).toEqual(fm);
    expect(again.keyLines.get('model')).toBe(5);
    expect(() => parseFrontmatter('---\nname: [\n---\n', file)).toThrow(/invalid YAML/);
  });
});

describe('klaude with a config file', () => {
  const loadsYaml = (stderr: string): boolean => /[\\/]node_modules[\\/]yaml[\\/]/.test(stderr);

  it('loads the yaml library for a new or edited config only', async () => {
    home = makeTempHome({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-ant-test-cache' });
    const h = home;
    writeFileSync(path.join(h.klaudeHome, 'config.yaml'), 'switch:\n  graceSeconds: 2.5\n');
    const env = { ...h.env, NODE_DEBUG: 'module' };
    const first = await runKlaude(['config', '--json'], { env, cwd: h.projectDir });
    const second = await runKlaude(['config', '--json'], { env, cwd: h.projectDir });
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(loadsYaml(first.stderr)).toBe(true);
    expect(loadsYaml(second.stderr)).toBe(false);
    expect(JSON.parse(second.stdout).config['switch.graceSeconds']).toBe(2.5);

    writeFileSync(path.join(h.klaudeHome, 'config.yaml'), 'switch:\n  graceSeconds: 4\n');
    const edited = await runKlaude(['config', '--json'], { env, cwd: h.projectDir });
    expect(loadsYaml(edited.stderr)).toBe(true);
    expect(JSON.parse(edited.stdout).config['switch.graceSeconds']).toBe(4);

    mkdirSync(path.join(h.projectDir, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      path.join(h.projectDir, '.claude', 'agents', 'rev.md'),
      '---\nname: rev\ndescription: Reviews\n---\nBe kind.\n',
    );
    const agents = await runKlaude(['agents', '--json'], { env, cwd: h.projectDir });
    const agentsAgain = await runKlaude(['agents', '--json'], { env, cwd: h.projectDir });
    expect([agents.code, agentsAgain.code]).toEqual([0, 0]);
    expect(loadsYaml(agents.stderr)).toBe(true);
    expect(loadsYaml(agentsAgain.stderr)).toBe(false);
    expect(agentsAgain.stdout).toBe(agents.stdout);
    expect(agentsAgain.stdout).toContain('rev');
  });

  it('150 agent files: one write of the cache by the first command, every file a hit for the next', async () => {
    home = makeTempHome({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-ant-test-cache' });
    const h = home;
    const dir = path.join(h.projectDir, '.claude', 'agents');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 150; i++)
      writeFileSync(path.join(dir, `a${i}.md`), `---\nname: a${i}\ndescription: agent ${i}\n---\nDo ${i}.\n`);
    const cacheDir = path.dirname(parseCacheFile(h.klaudeHome));
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    // Every write ends in a rename onto parsed.json; a sentinel file written afterwards says when
    // the watcher has seen everything before it (inotify keeps the order).
    let writes = 0;
    let sentinel: () => void = () => {};
    const watcher = watch(cacheDir, (_ev, name) => {
      if (name === 'parsed.json') writes++;
      if (name === 'sentinel') sentinel();
    });
    const settle = async (): Promise<number> => {
      const seen = new Promise<void>((r) => (sentinel = r));
      writeFileSync(path.join(cacheDir, 'sentinel'), String(Date.now()));
      await seen;
      const n = writes;
      writes = 0;
      return n;
    };
    try {
      const env = { ...h.env, NODE_DEBUG: 'module' };
      const first = await runKlaude(['agents', '--json'], { env, cwd: h.projectDir });
      expect(first.code, first.stderr).toBe(0);
      expect(await settle()).toBe(1);
      expect(entriesIn(parseCacheFile(h.klaudeHome)).length).toBeGreaterThanOrEqual(150);
      const again = await runKlaude(['agents', '--json'], { env, cwd: h.projectDir });
      expect(again.stdout).toBe(first.stdout);
      expect(loadsYaml(again.stderr)).toBe(false);
      expect(await settle()).toBe(0);
    } finally {
      watcher.close();
    }
  });
});
