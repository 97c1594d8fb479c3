// Where klaude is installed and the repairs it names (config/install.ts), and doctor's `install` line
// on a clone, on a package folder laid out as npm installs the tarball, and with a native module
// that does not load. The real probes run in the first test (this clone's own modules).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isAddonLoadFailure,
  klaudeInstall,
  moduleLoadError,
  rebuildCommand,
  reinstallHint,
} from '../../src/config/install.js';
import { checkInstall, SHIPPED_FILES } from '../../src/doctor/install-checks.js';
import { REPO_ROOT } from '../support/klaude-bin.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** `<prefix>/lib/node_modules/klaude` with package.json and the shipped files (no sources). */
function packageFolder(opts: { leaveOut?: string } = {}): string {
  const prefix = mkdtempSync(path.join(tmpdir(), 'klaude-install-'));
  dirs.push(prefix);
  const root = path.join(prefix, 'lib', 'node_modules', 'klaude');
  for (const f of SHIPPED_FILES) {
    if (f === opts.leaveOut) continue;
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), '');
  }
  mkdirSync(path.join(root, 'dist', 'chunks'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'klaude', version: '9.8.7' }));
  return root;
}

const fine = { pty: () => Promise.resolve() };

describe('klaudeInstall', () => {
  it('finds this clone from its sources, and an installed package from a chunk of its dist/', () => {
    expect(klaudeInstall()).toMatchObject({ root: REPO_ROOT, kind: 'clone' });
    const root = packageFolder();
    expect(klaudeInstall(path.join(root, 'dist', 'chunks'))).toEqual({ root, kind: 'package', version: '9.8.7' });
    expect(klaudeInstall(tmpdir())).toBeNull();
  });

  it('names the commands for each kind of install, with its path', () => {
    const pkg = { root: '/opt/my node/lib/node_modules/klaude', kind: 'package', version: '1.0.0' } as const;
    const clone = { root: '/src/klaude', kind: 'clone', version: '1.0.0' } as const;
    expect(rebuildCommand(['node-pty'], pkg)).toBe("cd '/opt/my node/lib/node_modules/klaude' && npm rebuild node-pty");
    expect(rebuildCommand(['better-sqlite3', 'node-pty'], clone)).toBe(
      'cd /src/klaude && npm rebuild better-sqlite3 node-pty',
    );
    expect(reinstallHint(pkg)).toBe(
      'npm install -g ./klaude-<version>.tgz (the release you installed; this klaude is /opt/my node/lib/node_modules/klaude)',
    );
    expect(reinstallHint(pkg, true)).toContain('(a newer release;');
    expect(reinstallHint(clone)).toBe('cd /src/klaude && npm ci');
    expect(reinstallHint(clone, true)).toBe('cd /src/klaude && git pull && npm ci');
  });

  it('tells a native module that does not load (rebuild) from one missing from the install (reinstall)', () => {
    const pkg = { root: '/usr/lib/node_modules/klaude', kind: 'package', version: '1.0.0' } as const;
    const abi = new Error(
      "The module '/x/pty.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 108.",
    );
    expect(isAddonLoadFailure(abi)).toBe(true);
    const e = moduleLoadError('node-pty', abi, pkg);
    expect(e.code).toBe('E_INSTALL');
    expect(e.message).toBe("node-pty does not load: The module '/x/pty.node'");
    expect(e.hint).toBe('rebuild it: cd /usr/lib/node_modules/klaude && npm rebuild node-pty');
    const gone = Object.assign(new Error("Cannot find package 'node-pty' imported from /x/dist/chunks/a.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const m = moduleLoadError('node-pty', gone, pkg);
    expect(m.message).toMatch(/^node-pty is missing from this klaude: Cannot find package 'node-pty'/);
    expect(m.hint).toMatch(/^reinstall klaude: npm install -g \.\/klaude-<version>\.tgz/);
    expect(isAddonLoadFailure(new Error('SQLITE_CORRUPT: database disk image is malformed'))).toBe(false);
  });
});

describe("doctor's install line", () => {
  it('passes on this clone with its real modules', async () => {
    const r = await checkInstall();
    expect(r).toMatchObject({ check: 'install', ok: true, level: 'ok', fix: null });
    expect(r.detail).toMatch(/^klaude \d+\.\d+\.\d+, a clone at .*: whole; node-pty loads$/);
  });

  it('names a file missing from a package, and a node-pty that does not load, with the repair for that path', async () => {
    const gone = packageFolder({ leaveOut: 'dist/web/index.html' });
    const missing = await checkInstall(klaudeInstall(path.join(gone, 'dist')), fine);
    expect(missing).toMatchObject({ ok: false, level: 'error' });
    expect(missing.detail).toBe(`klaude 9.8.7, installed package at ${gone}: missing dist/web/index.html`);
    expect(missing.fix).toContain(
      `npm install -g ./klaude-<version>.tgz (the release you installed; this klaude is ${gone})`,
    );

    const root = packageFolder();
    const broken = await checkInstall(klaudeInstall(path.join(root, 'dist')), {
      ...fine,
      pty: () => Promise.reject(new Error('Failed to load native module: pty.node, checked: build/Release')),
    });
    expect(broken.detail).toBe(
      `klaude 9.8.7, installed package at ${root}: node-pty does not load: Failed to load native module: pty.node, checked: build/Release`,
    );
    expect(broken.fix).toBe(`rebuild it: cd ${root} && npm rebuild node-pty`);
  });
});
