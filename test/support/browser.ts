// A real Chromium for page tests: Debian's `chromium` driven by playwright-core (no browser
// download). `.ci/run` installs the package where it is missing.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no chromium: apt-get install -y chromium (.ci/run does it)');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

export function phoneContext(b: Browser, origin: string): Promise<BrowserContext> {
  return b.newContext({
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    permissions: ['notifications'],
    ...(origin ? {} : {}),
  });
}

export function desktopContext(b: Browser): Promise<BrowserContext> {
  return b.newContext({ viewport: DESKTOP, permissions: ['notifications'] });
}
