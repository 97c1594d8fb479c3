/**
 * Split a markdown file into YAML frontmatter and body, parse the YAML, and remember the file
 * line of every top-level key so a bad field can be named with its line.
 */
import { parseRemembered } from '../config/parse-cache.js';
import { yaml } from '../config/yaml.js';

export interface Frontmatter {
  data: Record<string, unknown>;
  /** 1-based file line of each top-level key. */
  keyLines: Map<string, number>;
  /** Markdown after the closing `---`, trimmed. */
  body: string;
}

export class FrontmatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

const FENCE = /^---[ \t]*$/;

/** `cacheFile`: remember what the YAML parsed to there (config/parse-cache.ts); errors are not remembered. */
export function parseFrontmatter(text: string, cacheFile: string | null = null): Frontmatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) {
    throw new FrontmatterError("no YAML frontmatter: the file must start with a '---' line", 1);
  }
  const close = lines.findIndex((l, i) => i > 0 && (FENCE.test(l) || /^\.\.\.[ \t]*$/.test(l)));
  if (close === -1) throw new FrontmatterError("frontmatter is not closed: no second '---' line", 1);

  const yamlText = lines.slice(1, close).join('\n');
  const body = lines
    .slice(close + 1)
    .join('\n')
    .trim();
  const { data, keyLines } = parseRemembered(cacheFile, 'frontmatter', yamlText, parseFields);
  return { data, keyLines: new Map(keyLines), body };
}

/** The frontmatter's YAML (file line 2 on): its fields, and the file line of each top-level key. */
function parseFields(yamlText: string): { data: Record<string, unknown>; keyLines: [string, number][] } {
  // The YAML starts on file line 2.
  const counter = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(yamlText, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number): number => counter.linePos(offset).line + 1;
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos ? err.linePos[0].line + 1 : lineOf(err.pos[0]);
    throw new FrontmatterError(`invalid YAML: ${firstLine(err.message)}`, line);
  }
  if (doc.contents === null) return { data: {}, keyLines: [] };
  if (!yaml().isMap(doc.contents)) {
    throw new FrontmatterError('frontmatter must be a mapping of fields (key: value lines)', 2);
  }
  const keyLines = new Map<string, number>();
  for (const item of doc.contents.items) {
    if (yaml().isScalar(item.key) && item.key.range) keyLines.set(String(item.key.value), lineOf(item.key.range[0]));
  }
  const data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  return { data, keyLines: [...keyLines] };
}

/** yaml's messages end with a context excerpt after the first line; keep the sentence. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '').trim();
}
