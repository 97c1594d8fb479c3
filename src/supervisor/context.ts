import type { Config } from '../config/schema.js';
import type { Db } from '../db/client.js';
import type { KlaudeInvocation } from '../hooks/settings.js';
import type { Logger } from '../lib/logger.js';
import type { ClaudePassthrough } from './claude-args.js';

/** Everything a running supervisor knows about itself; built once at start-up. */
export interface SupervisorContext {
  home: string;
  config: Config;
  cwd: string;
  projectRoot: string;
  projectHash: string;
  db: Db;
  log: Logger;
  instanceId: string;
  socketPath: string;
  shimDir: string;
  inv: KlaudeInvocation;
  claudeBin: string;
  passthrough: ClaudePassthrough;
  /** The environment klaude was started with; children get it plus KLAUDE_*. */
  env: NodeJS.ProcessEnv;
}
