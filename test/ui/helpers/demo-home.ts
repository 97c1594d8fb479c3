// A temp home with the demo project seeded (for the e2e tests, the bench and screenshots).
import { seedProject } from '../../support/seed-sessions.js';
import { makeTempHome, type TempHome, type TempHomeOptions } from '../../support/temp-home.js';
import { seedDemo, type DemoSession } from './demo-data.js';

export interface DemoHome {
  home: TempHome;
  hash: string;
  sessions: Record<string, DemoSession>;
}

export function makeDemoHome(opts: TempHomeOptions = {}): DemoHome {
  const home = makeTempHome({ prefix: 'klaude-ui-', ...opts });
  const { db, hash } = seedProject(home);
  try {
    const sessions = seedDemo(db, home.klaudeHome, hash);
    return { home, hash, sessions };
  } finally {
    db.close();
  }
}
