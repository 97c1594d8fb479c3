/** What an agent runtime (agent-runtime.ts) and its helpers work with. */
import type { Config } from '../config/schema.js';
import type { Db } from '../db/client.js';
import type { SessionRow } from '../db/repos/sessions.js';
import type { Logger } from '../lib/logger.js';
import type { SessionLogWriter } from '../logs/writer.js';
import type { RuntimeAdapter } from '../adapters/runtime-adapter.js';
import type { AgentLaunchMetadata } from '../agent-types/launch-settings.js';

export interface Deps {
  home: string;
  config: Config;
  db: Db;
  env: NodeJS.ProcessEnv;
  log: Logger;
  session: SessionRow;
  meta: AgentLaunchMetadata;
  adapter: RuntimeAdapter;
  writer: SessionLogWriter;
}
