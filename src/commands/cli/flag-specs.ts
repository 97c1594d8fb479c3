/** Flags several commands share, spelled and described once. */
import type { FlagSpec } from './types.js';

export const JSON_FLAG: FlagSpec = { type: 'boolean', description: 'print machine-readable JSON' };

export const INSTANCE_FLAG: FlagSpec = {
  type: 'string',
  valueName: 'id',
  description: 'talk to this supervisor (when several run in the project)',
};
