// Claude Code's local settings for worktree agents (claude/local-settings.ts, hooks/agent-settings.ts):
// where an agent's own file is, how an "always" rule is written there (as claude writes it), and
// the one --settings file that carries the project's local settings with klaude's hooks.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  forSessionOnly,
  localSettingsFile,
  ownSettingsDir,
  persistPermissionUpdates,
  routeAlwaysRules,
  ruleString,
} from '../../src/claude/local-settings.js';
import { agentSettingsArg } from '../../src/hooks/agent-settings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'klaude-local-settings-')));
  dirs.push(d);
  return d;
};

const always = [
  {
    type: 'addRules',
    rules: [{ toolName: 'Bash', ruleContent: 'python3 -c "print(6*7)"' }, { toolName: 'WebSearch' }],
    behavior: 'allow',
    destination: 'localSettings',
  },
  { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
];

describe('local settings of worktree agents', () => {
  it("an agent's own settings dir: the same place in the project for a worktree agent", () => {
    expect(ownSettingsDir({ cwd: '/p/sub', worktreePath: null, projectRoot: '/p' })).toBe('/p/sub');
    expect(ownSettingsDir({ cwd: '/w/sub', worktreePath: '/w', projectRoot: '/p' })).toBe('/p/sub');
    expect(ownSettingsDir({ cwd: '/w', worktreePath: '/w', projectRoot: '/p' })).toBe('/p');
    expect(ownSettingsDir({ cwd: '/elsewhere', worktreePath: '/w', projectRoot: '/p' })).toBe('/p');
  });

  it('writes rules as claude does, keeping what the file had; claude keeps them for the session', () => {
    expect(ruleString({ toolName: 'Bash', ruleContent: 'a(b)\\c' })).toBe('Bash(a\\(b\\)\\\\c)');
    const root = tmp();
    const file = localSettingsFile(root);
    mkdirSync(join(root, '.claude'));
    writeFileSync(file, JSON.stringify({ env: { A: '1' }, permissions: { allow: ['Read'], deny: ['Bash(rm:*)'] } }));
    const sent = routeAlwaysRules(always, { cwd: '/w', worktreePath: '/w', projectRoot: root });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      env: { A: '1' },
      permissions: { allow: ['Read', 'Bash(python3 -c "print\\(6*7\\)")', 'WebSearch'], deny: ['Bash(rm:*)'] },
    });
    expect(sent).toEqual([{ ...always[0], destination: 'session' }, always[1]]);
    // Twice: no duplicates. Not a worktree agent: untouched, claude writes its own file.
    persistPermissionUpdates(file, always);
    expect(JSON.parse(readFileSync(file, 'utf8')).permissions.allow).toHaveLength(3);
    expect(routeAlwaysRules(always, { cwd: root, worktreePath: null, projectRoot: root })).toBe(always);
    expect(forSessionOnly('not a list')).toBe('not a list');
  });

  it("a worktree agent's --settings is a private file with the project's local settings and klaude's hooks", () => {
    const root = tmp();
    const file = join(root, 'home', 'settings', 's-headless.json');
    const hooks = JSON.stringify({
      hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'k' }] }] },
    });
    const o = { cwd: '/w', worktreePath: '/w', projectRoot: root, file };
    expect(agentSettingsArg(hooks, o)).toBe(hooks); // the project has no local settings
    mkdirSync(join(root, '.claude'));
    writeFileSync(
      localSettingsFile(root),
      JSON.stringify({
        env: { SECRET: 'x' },
        permissions: { allow: ['Bash(npm test)'] },
        hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'mine' }] }] },
      }),
    );
    expect(agentSettingsArg(hooks, { ...o, worktreePath: null })).toBe(hooks);
    expect(agentSettingsArg(hooks, o)).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const merged = JSON.parse(readFileSync(file, 'utf8'));
    expect(merged.env).toEqual({ SECRET: 'x' });
    expect(merged.permissions.allow).toEqual(['Bash(npm test)']);
    expect(merged.hooks.PostToolUse.map((e: { hooks: { command: string }[] }) => e.hooks[0]!.command)).toEqual([
      'mine',
      'k',
    ]);
    writeFileSync(localSettingsFile(root), '{ not json');
    expect(agentSettingsArg(hooks, o)).toBe(hooks);
  });
});
