/**
 * Every relative link and image in the README and docs/ must resolve to a file in the repository
 * (a clone has nothing beside it), and every `#anchor` to a heading of the target file.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function markdownLinks(text: string): string[] {
  const noCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of noCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  for (const m of noCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) out.push(m[1]!);
  return out;
}

const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

/** Problems with the links of one markdown file, relative to the repository root. */
export function brokenLinks(file: string): string[] {
  const abs = path.join(ROOT, file);
  const problems: string[] = [];
  for (const link of markdownLinks(readFileSync(abs, 'utf8'))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: …
    const [target, anchor] = link.split('#') as [string, string | undefined];
    const resolved = target ? path.resolve(path.dirname(abs), decodeURIComponent(target)) : abs;
    const rel = path.relative(ROOT, resolved);
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      problems.push(`${file}: ${link} points outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${file}: ${link} does not exist`);
      continue;
    }
    if (anchor && resolved.endsWith('.md')) {
      const headings = [...readFileSync(resolved, 'utf8').matchAll(/^#+\s+(.+)$/gm)].map((m) => slug(m[1]!));
      if (!headings.includes(anchor)) problems.push(`${file}: ${link} names no heading of ${rel}`);
    }
  }
  return problems;
}

const docs = (): string[] =>
  existsSync(path.join(ROOT, 'docs'))
    ? readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`)
    : [];

describe('README and docs links', () => {
  it('every relative link resolves inside the repository', () => {
    const files = ['README.md', ...docs()];
    expect(files).toContain('docs/ARCHITECTURE.md');
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('finds links, images and reference links, and flags broken ones', () => {
    expect(markdownLinks('see [a](docs/A.md) and ![p](assets/x.png "t")\n[ref]: ../up.md\n`[not](code.md)`')).toEqual([
      'docs/A.md',
      'assets/x.png',
      '../up.md',
    ]);
    expect(markdownLinks('```\n[x](inside-fence.md)\n```')).toEqual([]);
  });
});
