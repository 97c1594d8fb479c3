/**
 * Writing a zone into `<home>/config.yaml` (`klaude zone add`): the file is edited as a YAML
 * document, so the person's comments and the order of their keys stay; the zone is checked as the
 * loader checks it before anything is written, and the file is replaced whole (temp file + rename).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { configPath } from './paths.js';
import { parseZone } from './zones.js';
import { yaml } from './yaml.js';
import type { ZoneSpec } from './schema.js';
import { KlaudeError } from '../lib/errors.js';

/** Add or replace zone `name`; returns the config file's path. */
export function writeZone(home: string, name: string, spec: ZoneSpec): string {
  let checked: ZoneSpec;
  try {
    checked = parseZone(name, spec);
  } catch (e) {
    throw new KlaudeError('E_USAGE', (e as Error).message);
  }
  const file = configPath(home);
  const Y = yaml();
  const doc = existsSync(file) ? Y.parseDocument(readFileSync(file, 'utf8')) : new Y.Document({});
  if (doc.errors.length > 0)
    throw new KlaudeError('E_CONFIG', `${file}: not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`, {
      hint: 'fix the file first (klaude config says what is wrong)',
    });
  if (doc.contents === null) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  doc.setIn(['zones', name], doc.createNode(checked));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, doc.toString(), { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** Remove zone `name`; false when the config has no such zone. */
export function removeZone(home: string, name: string): boolean {
  const file = configPath(home);
  if (!existsSync(file)) return false;
  const doc = yaml().parseDocument(readFileSync(file, 'utf8'));
  if (!doc.hasIn(['zones', name])) return false;
  doc.deleteIn(['zones', name]);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, doc.toString(), { mode: 0o600 });
  renameSync(tmp, file);
  return true;
}
