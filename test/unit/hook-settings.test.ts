// The settings klaude injects per launch (src/hooks/settings.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  eventFromWord,
  HOOK_EVENTS,
  headlessHookSettings,
  hookSettings,
  hookWord,
  mergeSettings,
} from '../../src/hooks/settings.js';

const inv = { node: '/usr/bin/node', cli: '/opt/klaude/dist/cli.js' };

describe('hookSettings', () => {
  it('runs `<node> <cli> hook <event>` for every event, SessionEnd with room beyond Claude’s 1.5 s', () => {
    const s = hookSettings(inv);
    expect(Object.keys(s.hooks!)).toEqual([...HOOK_EVENTS]);
    expect(s.hooks!.PostToolUse).toEqual([
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            command: '/usr/bin/node /opt/klaude/dist/cli.js hook post-tool-use --interactive',
            timeout: 30,
          },
        ],
      },
    ]);
    expect(s.hooks!.PostToolUseFailure).toEqual([
      {
        matcher: '*',
        hooks: [
          { type: 'command', command: '/usr/bin/node /opt/klaude/dist/cli.js hook post-tool-use-failure', timeout: 30 },
        ],
      },
    ]);
    // Only says what the session does: in the background, no tool waits for it.
    expect(s.hooks!.PreToolUse).toEqual([
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            command: '/usr/bin/node /opt/klaude/dist/cli.js hook pre-tool-use',
            timeout: 30,
            async: true,
          },
        ],
      },
    ]);
    expect(s.hooks!.PermissionRequest).toEqual([
      {
        matcher: '*',
        hooks: [
          {
            type: 'command',
            command: '/usr/bin/node /opt/klaude/dist/cli.js hook permission-request',
            timeout: 30,
            async: true,
          },
        ],
      },
    ]);
    expect(s.hooks!.SessionEnd![0]!.hooks[0]).toMatchObject({
      command: '/usr/bin/node /opt/klaude/dist/cli.js hook session-end',
      timeout: 10,
    });
  });

  it('uses the fast hook entry when the build has one, and quotes paths with spaces', () => {
    const s = hookSettings({ node: '/my node/node', cli: '/k/dist/cli.js', hook: "/k's/dist/hook.cjs" });
    expect(s.hooks!.Stop![0]!.hooks[0]!.command).toBe(
      `'/my node/node' --preserve-symlinks-main '/k'\\''s/dist/hook.cjs' stop`,
    );
  });
});

describe('headlessHookSettings', () => {
  it('is PostToolUse alone, without the interactive mark (the runtime keeps the status and the activity)', () => {
    expect(JSON.parse(headlessHookSettings(inv))).toEqual({
      hooks: {
        PostToolUse: [
          {
            matcher: '*',
            hooks: [
              { type: 'command', command: '/usr/bin/node /opt/klaude/dist/cli.js hook post-tool-use', timeout: 30 },
            ],
          },
        ],
      },
    });
  });
});

describe('event words', () => {
  it.each(HOOK_EVENTS.map((e) => [e, hookWord(e)]))('%s ⇄ %s', (event, word) => {
    expect(eventFromWord(word)).toBe(event);
    expect(eventFromWord(event)).toBe(event);
    expect(eventFromWord(word.replace(/-/g, '_'))).toBe(event);
  });
  it('knows no others', () => expect(eventFromWord('post-tool-batch')).toBeUndefined());
});

describe('mergeSettings', () => {
  const ours = hookSettings(inv);
  it('is ours alone without a user --settings', () => expect(mergeSettings(undefined, ours)).toBe(ours));

  it('keeps every user setting and appends our hooks after theirs', () => {
    const user = {
      permissions: { allow: ['Bash'] },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
    };
    const merged = mergeSettings(JSON.stringify(user), ours);
    expect(merged.permissions).toEqual({ allow: ['Bash'] });
    expect(merged.hooks!.Stop).toEqual([user.hooks.Stop[0], ...ours.hooks!.Stop!]);
    expect(merged.hooks!.SessionStart).toEqual(ours.hooks!.SessionStart);
  });

  it('reads a settings file path, and refuses what is not JSON', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'klaude-settings-'));
    try {
      const file = path.join(dir, 's.json');
      writeFileSync(file, '{"model":"opus"}');
      expect(mergeSettings(file, ours)).toMatchObject({ model: 'opus', hooks: ours.hooks });
      expect(() => mergeSettings(path.join(dir, 'missing.json'), ours)).toThrow(
        expect.objectContaining({ code: 'E_USAGE' }),
      );
      expect(() => mergeSettings('{not json', ours)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
