/**
 * The yaml library, loaded on first use. Most commands run without a config file or an agent
 * definition to read, and evaluating the library costs every one of them (it is the biggest piece
 * of code many commands load). The bundle leaves it out (scripts/build.mjs): `require('yaml')`
 * loads it from node_modules, through the `require` the bundle's banner makes; run from source
 * (tests) an ES module has no `require`, so node's is made.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { moduleLoadError } from './install.js';

let mod: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  try {
    mod ??= (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof Yaml;
  } catch (e) {
    // A run-time dependency missing from the install: say which, and how to repair it.
    throw moduleLoadError('yaml', e);
  }
  return mod;
}
