// A copy of klaude's install whose SQLite module is broken the ways a Node upgrade or an interrupted
// install leaves it: built for another Node (another NODE_MODULE_VERSION), cut short (to its first
// 200 bytes, or to half: loading that one crashes Node), not a shared object at all, or missing.
// The copy has this build's dist/ and drizzle/, and a node_modules/ of links to the repository's
// packages except better-sqlite3, which has its package.json and the broken native file only (its
// JavaScript is bundled into dist/).
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './klaude-bin.js';

export type Breakage = 'other-abi' | 'truncated' | 'cut-short' | 'garbage' | 'missing';

export const GOOD_ADDON = join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
/** The ABI the "other Node" build claims: Node 18's. */
export const OTHER_ABI = 108;

export interface BrokenInstall {
  dir: string;
  cli: string;
  addon: string;
  /** Break its native module this way (a fresh copy of the good one first). */
  breakAs(how: Breakage): void;
}

export function brokenInstall(root: string): BrokenInstall {
  const dir = join(root, 'klaude-install');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  for (const part of ['dist', 'drizzle']) cpSync(join(REPO_ROOT, part), join(dir, part), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  const modules = join(REPO_ROOT, 'node_modules');
  for (const name of readdirSync(modules))
    if (name !== 'better-sqlite3') symlinkSync(join(modules, name), join(dir, 'node_modules', name));
  const pkg = join(dir, 'node_modules', 'better-sqlite3');
  mkdirSync(join(pkg, 'build', 'Release'), { recursive: true });
  copyFileSync(join(modules, 'better-sqlite3', 'package.json'), join(pkg, 'package.json'));
  const addon = join(pkg, 'build', 'Release', 'better_sqlite3.node');
  return {
    dir,
    cli: join(dir, 'dist', 'cli.js'),
    addon,
    breakAs(how) {
      rmSync(addon, { force: true });
      const good = readFileSync(GOOD_ADDON);
      if (how === 'other-abi') writeFileSync(addon, builtForAbi(good, Number(process.versions.modules), OTHER_ABI));
      else if (how === 'truncated') writeFileSync(addon, good.subarray(0, 200));
      else if (how === 'cut-short') writeFileSync(addon, good.subarray(0, good.length >> 1));
      else if (how === 'garbage') writeFileSync(addon, 'not a shared object\n'.repeat(8));
    },
  };
}

interface Section {
  name: string;
  type: number;
  addr: number;
  offset: number;
  size: number;
}

function sections(b: Buffer): Section[] {
  const shoff = Number(b.readBigUInt64LE(0x28));
  const [entsize, count, strndx] = [b.readUInt16LE(0x3a), b.readUInt16LE(0x3c), b.readUInt16LE(0x3e)];
  const raw = Array.from({ length: count }, (_, i) => {
    const o = shoff + i * entsize;
    return {
      nameAt: b.readUInt32LE(o),
      type: b.readUInt32LE(o + 4),
      addr: Number(b.readBigUInt64LE(o + 16)),
      offset: Number(b.readBigUInt64LE(o + 24)),
      size: Number(b.readBigUInt64LE(o + 32)),
    };
  });
  const names = raw[strndx]!.offset;
  return raw.map((s) => ({ ...s, name: b.toString('latin1', names + s.nameAt, b.indexOf(0, names + s.nameAt)) }));
}

const SHT_RELA = 4;
const SHT_NOBITS = 8;
const R_X86_64_RELATIVE = 8;

/**
 * The same addon as if built for another Node: what Node reads to tell the build's ABI is changed.
 * A node addon registers a `node_module` record (nm_version first, nm_modname at +40) from a
 * constructor and exports `node_register_module_v<ABI>`; Node takes the exported initializer of its
 * own ABI if there is one, else checks the record's nm_version. Both are rewritten (the record found
 * through the relocation that points its nm_modname at "better_sqlite3"), so loading fails as a
 * build for another Node does: "compiled against a different Node.js version using
 * NODE_MODULE_VERSION <other>". ELF64 x86-64 (the machines the tests run on).
 */
export function builtForAbi(good: Buffer, ours: number, other: number): Buffer {
  const b = Buffer.from(good);
  if (b.readUInt32BE(0) !== 0x7f454c46 || b.readUInt16LE(0x12) !== 0x3e)
    throw new Error('builtForAbi rewrites an x86-64 ELF addon; this is another kind of file');
  const secs = sections(b);
  const fileAt = (va: number): number => {
    const s = secs.find((x) => x.addr !== 0 && x.type !== SHT_NOBITS && va >= x.addr && va < x.addr + x.size);
    if (!s) throw new Error(`no section holds address ${va.toString(16)}`);
    return s.offset + va - s.addr;
  };
  const nameAt = b.indexOf(Buffer.from('\0better_sqlite3\0', 'latin1')) + 1;
  const holder = secs.find((x) => x.addr !== 0 && nameAt >= x.offset && nameAt < x.offset + x.size)!;
  const nameVa = holder.addr + nameAt - holder.offset;
  let patched = 0;
  for (const r of secs.filter((s) => s.type === SHT_RELA)) {
    for (let o = r.offset; o < r.offset + r.size; o += 24) {
      const type = Number(b.readBigUInt64LE(o + 8) & 0xffffffffn);
      if (type !== R_X86_64_RELATIVE || Number(b.readBigInt64LE(o + 16)) !== nameVa) continue;
      const record = fileAt(Number(b.readBigUInt64LE(o)) - 40);
      if (b.readInt32LE(record) !== ours)
        throw new Error(`the module record says ${b.readInt32LE(record)}, not ${ours}`);
      b.writeInt32LE(other, record);
      patched++;
    }
  }
  if (patched !== 1) throw new Error(`found ${patched} module records, expected 1`);
  const from = Buffer.from(`node_register_module_v${ours}\0`);
  const to = Buffer.from(`node_register_module_v${other}\0`);
  if (from.length !== to.length) throw new Error('ABI numbers of different lengths');
  for (let at = b.indexOf(from); at !== -1; at = b.indexOf(from, at + 1)) to.copy(b, at);
  return b;
}
