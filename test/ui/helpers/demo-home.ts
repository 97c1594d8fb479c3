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
  return seedDemoHome(makeTempHome({ prefix: 'klaude-ui-', ...opts }));
}

/** Seed the demo project into a home made elsewhere (an e2e file's, from test/e2e/agent-home.ts). */
export function seedDemoHome<H extends TempHome>(home: H): DemoHome & { home: H } {
  const { db, hash } = seedProject(home);
  try {
    const sessions = seedDemo(db, home.klaudeHome, hash);
    return { home, hash, sessions };
  } finally {
    db.close();
  }
}
